// The calls the kernel makes into the Linux kernel API layer
// (kernel/linuxkpi/), which kernel/ never includes: that layer sets the
// hooks, and the loader calls them as Linux-format modules come and go.
#pragma once

#include "../linker/base.h"

#include <functional>

namespace mk {

// A Linux-format module's image [lo, hi) is about to be freed (after its
// exit function ran, before its memory goes): cancel its timers and
// queued work, wait for any of them still running, and wait for its RCU
// callbacks, so none of its code or data is touched afterwards.  Unset
// (empty) when the Linux API is not in the build.
extern std::function<void(u64 lo, u64 hi)> linux_module_gone;

// A kernel is about to bind its first Linux-format module: what the API
// sets up only for such modules (vmemmap_base's reservation) is set up
// now, before any module reads it.  Called once per kernel; null when
// the Linux API is not in the build.  (A plain pointer: the layer sets
// it from a static initialiser, in no particular order with this one.)
extern void (*linux_modules_coming)();

} // namespace mk
