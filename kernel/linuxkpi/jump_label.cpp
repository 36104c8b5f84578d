// Static keys and static calls: Linux's static_key_* API over the
// loader's jump labels, and __static_call_update over its static calls
// (kernel/kern_linux.h), which patch every site of a key through the one
// patch engine.
#include "lkpi_export.h"

#include "../kernel.h"

#include <atomic>

namespace {

mk::JumpLabels &jumps() { return mk::curkernel()->linker().linux_modules().jump_labels(); }
mk::StaticCalls &calls() {
  return mk::curkernel()->linker().linux_modules().static_calls();
}

} // namespace

extern "C" {

void static_key_enable(void *key) { jumps().enable(key); }
void static_key_disable(void *key) { jumps().disable(key); }
void static_key_enable_cpuslocked(void *key) { jumps().enable(key); }
void static_key_disable_cpuslocked(void *key) { jumps().disable(key); }
void static_key_slow_inc(void *key) { jumps().slow_inc(key); }
void static_key_slow_dec(void *key) { jumps().slow_dec(key); }
int static_key_count(void *key) { return jumps().count(key); }
// A user more for a key already enabled (its count above zero).
bool static_key_fast_inc_not_disabled(void *key) {
  auto &en = *static_cast<std::atomic<int> *>(key);
  for (int v = en.load(); v > 0;)
    if (en.compare_exchange_weak(v, v + 1))
      return true;
  return false;
}

// static_call_update(name, func): the key's function, its trampoline and
// every site of the key re-aimed at `func`.
void __static_call_update(void *key, void *tramp, void *func) {
  calls().update(key, tramp, func);
}
#if defined(__i386__)
// Without inline static calls (i386), static_call_update() sets the key's
// function itself and has only the trampoline re-aimed, here.
void arch_static_call_transform(void *, void *tramp, void *func, bool) {
  calls().update(nullptr, tramp, func);
}
#endif
// DEFINE_STATIC_CALL_RET0's function.
long __static_call_return0() { return 0; }

} // extern "C"

LINUX_EXPORT_GPL(static_key_enable);
LINUX_EXPORT_GPL(static_key_disable);
LINUX_EXPORT_GPL(static_key_enable_cpuslocked);
LINUX_EXPORT_GPL(static_key_disable_cpuslocked);
LINUX_EXPORT_GPL(static_key_slow_inc);
LINUX_EXPORT_GPL(static_key_slow_dec);
LINUX_EXPORT_GPL(static_key_count);
LINUX_EXPORT_GPL(static_key_fast_inc_not_disabled);
#if defined(__x86_64__)
LINUX_EXPORT_GPL(__static_call_update);
#else
LINUX_EXPORT_GPL(arch_static_call_transform);
#endif
LINUX_EXPORT_GPL(__static_call_return0);
