// A probe's trampoline, x86_64 and i386: the code every enabled call site
// of the probe calls (or jumps to, for a tail call).
//
// It starts with the fast path for the common case of a probe with one
// module handler, which Linux serves with static_call: it enters liburcu's
// read-side critical section inline (the same two stores to the thread's
// reader counter _urcu_memb_read_lock makes, with liburcu's own addresses
// and thread-local offsets), loads the probe's handler list, and when that
// is one module handler calls it with its data pointer and the site's
// arguments still in their registers (x86_64; i386 copies the six stack
// words) -- no argument array, no loop.  A list of anything else goes to
// the registry's loop, the arguments saved as an array, still inside the
// read section.  A thread that is not yet an RCU reader, or is already
// inside a read section (a handler firing a probe), takes the generic
// body: ProbeRegistry::fire registers it and nests properly.
//
// The trampoline is the slot's for as long as the registry lives and is
// never rewritten: a thread preempted anywhere in it finds the same code
// when it resumes.  What changes is the list it loads, under RCU.
#pragma once

#include "../linker/base.h"

namespace mk::x86 {

struct TrampolinePlan {
  u64 fire = 0;        // ProbeRegistry::fire(slot, args): the generic body's
  u64 fire_locked = 0; // ProbeRegistry::fire_locked(slot, args)
  u64 rcu_wake = 0;    // wakes a grace period waiting on this thread
  bool inline_rcu = false; // false: the generic body alone
  // liburcu's membarrier flavour: the reader counter and our "this thread
  // is a registered reader" flag, as offsets from the thread pointer
  // (static TLS: the same for every thread), the global grace-period
  // counter and futex; and the "running handlers" flag
  // (in_probe_context()), set around a handler called inline.
  i32 tls_ctr = 0, tls_reader = 0, tls_context = 0;
  u64 gp_ctr = 0, gp_futex = 0;
  // Where a slot keeps its list, and the list's layout.
  u32 slot_list = 0;  // offset of the list pointer in the slot
  u32 list_n = 0;     // offset of the handler count in a list
  u32 list_mfn = 0;   // of the first handler's module function
  u32 list_ctx = 0;   // of the first handler's data pointer
};

constexpr size_t kProbeTrampolineSize = 256;
// The trampoline of `slot` at `at`; returns its size.
size_t write_probe_trampoline(u8 *out, u64 at, u64 slot,
                              const TrampolinePlan &plan);

} // namespace mk::x86
