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
// words) -- no argument array, no loop.  A list of anything else jumps,
// still inside the read section, to the slow path every trampoline
// shares (write_probe_slow_path): it saves the arguments as an array,
// builds the probe's ProbeFrame on the stack, and either calls a single
// callback (a DTrace enabling, fbt, BPF: the common case) directly with
// (ctx, id, args) or, for a longer list, the registry's loop.  A thread that is not yet an RCU reader, or is already
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
  u64 fire = 0;      // ProbeRegistry::fire(slot, args): the generic body's
  u64 fire_list = 0; // mk_probe_fire_list(list, slot, args): the loop over
                     // a list of several handlers, context already set
  u64 slow = 0;      // the shared slow path (write_probe_slow_path)
  u64 rcu_wake = 0;    // wakes a grace period waiting on this thread
  bool inline_rcu = false; // false: the generic body alone
  // liburcu's membarrier flavour: the reader counter and our "this thread
  // is a registered reader" flag, as offsets from the thread pointer
  // (static TLS: the same for every thread), the global grace-period
  // counter and futex; and the "running handlers" flag
  // (in_probe_context()), set around a handler called inline.
  // The probe frame pointer (probe_frame()) is set there too by the slow
  // path.
  i32 tls_ctr = 0, tls_reader = 0, tls_context = 0, tls_frame = 0;
  u64 gp_ctr = 0, gp_futex = 0;
  // Where a slot keeps its list, and the list's layout.
  u32 slot_list = 0;  // offset of the list pointer in the slot
  u32 list_n = 0;     // offset of the handler count in a list
  u32 list_mfn = 0;   // of the first handler's module function
  u32 list_ctx = 0;   // of the first handler's data pointer
  u32 list_fn = 0;    // of the first handler's callback
  u32 slot_id = 0;    // offset of the probe id in the slot
};

constexpr size_t kProbeTrampolineSize = 256;
// The trampoline of `slot` at `at`; returns its size.  Its slow path
// jumps to plan.slow.
size_t write_probe_trampoline(u8 *out, u64 at, u64 slot,
                              const TrampolinePlan &plan);
// The slow path at `at`, shared by every trampoline of one area: entered
// by a jump with the read lock held, the stack as the site left it, the
// list in rax/eax and the slot in r10/ecx.  Returns its size (at most
// kProbeSlowPathSize).
constexpr size_t kProbeSlowPathSize = 192;
size_t write_probe_slow_path(u8 *out, u64 at, const TrampolinePlan &plan);

} // namespace mk::x86
