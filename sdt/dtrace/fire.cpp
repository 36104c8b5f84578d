// The consumer's probe callback and its fast path, `@ = count()` alone.
// Built for the general registers only (the Makefile gives this file
// -mgeneral-regs-only on x86_64): fbt's trampolines then need not save
// the traced function's vector argument registers around it (the
// registry's mark_keeps_vector), and whatever else a firing runs is
// reached through mk_call_keeping_vector, which saves them.  Nothing here
// may call out of line but through it.
#include "firing.h"

namespace mk::dt {

#if defined(MK_KEEPS_VECTOR) && defined(__OPTIMIZE__)
const bool consumer_fire_keeps_vector = true;
#else
const bool consumer_fire_keeps_vector = false;
#endif

void consumer_fire(void *ctx, u32 probe, const uintptr_t *args) {
  static_cast<Consumer *>(ctx)->fire(probe, args);
}

void Consumer::fire(u32 probe, const uintptr_t *args) {
  if (__builtin_expect(activity_.load(std::memory_order_relaxed) != Active, 0))
    return;
  const Table *t = table_.load(std::memory_order_acquire);
  if (__builtin_expect(probe >= t->by_probe.size(), 0))
    return;
  const ProbeEcbs &pe = t->by_probe[probe];
  // `@ = count()` alone, one clause and the thread's state known: the
  // increment, on either engine (what the BPF program would do, without
  // the call).  Leaf code: no register saved, no frame.
  TlsSlot &c = t_states[gen_ & 3];
  if (__builtin_expect(c.gen == gen_ && pe.n == 1, 1)) {
    const EcbRt &e = pe.ecbs[0];
    if (e.fast == CompiledClause::Count0) {
      i64 *v = c.ts->keyless[e.fast_agg];
      if (bpf_ ? e.bprog != nullptr : v != nullptr) {
        wr(v, rd(v) + 1);
        return;
      }
    }
  }
  mk_call_keeping_vector(other, (uintptr_t)this, (uintptr_t)&pe, probe,
                         (uintptr_t)args);
}

} // namespace mk::dt
