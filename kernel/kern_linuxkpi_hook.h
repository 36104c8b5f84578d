// The one call the kernel makes into the Linux kernel API layer
// (kernel/linuxkpi/), which kernel/ never includes: that layer sets the
// hook when the kernel boots, and the loader calls it as a Linux-format
// module goes.
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

} // namespace mk
