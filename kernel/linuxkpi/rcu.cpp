// RCU on liburcu's membarrier flavour, the one the kernel's probe core
// uses (sdt/registry.h): every CPU thread and the shell are registered
// readers already; another thread registers on its first use.  Linux's
// struct rcu_head and liburcu's are the same two words, so call_rcu
// hands the module's head to liburcu as it is (on i386 a head of its own,
// whose callback calls the module's with Linux's convention).
#include "lkpi.h"

#include "../../sdt/registry.h"

#include <urcu/urcu-memb.h>

namespace lkpi {

namespace {
void reader() {
  if (!mk::probe_thread_registered())
    mk::probe_thread_register();
}
// call_rcu was ever used: a module going must wait for callbacks.
std::atomic<bool> g_callbacks{false};

struct KvfreeRcu {
  rcu_head head;
  void *ptr;
};
void kvfree_cb(rcu_head *h) {
  auto *r = (KvfreeRcu *)h;
  release(r->ptr, (u64)(uintptr_t)__builtin_return_address(0));
  delete r;
}
#if defined(__i386__)
struct CallRcu {
  rcu_head head;
  callback_head *cb;
  void(LKAPI *fn)(callback_head *);
};
void call_rcu_cb(rcu_head *h) {
  auto *r = (CallRcu *)h;
  callback_head *cb = r->cb;
  void(LKAPI * fn)(callback_head *) = r->fn;
  delete r;
  fn(cb);
}
#endif
} // namespace

void __rcu_read_lock() {
  reader();
  urcu_memb_read_lock();
}
void __rcu_read_unlock() { urcu_memb_read_unlock(); }
void synchronize_rcu() {
  reader();
  urcu_memb_synchronize_rcu();
}
void synchronize_rcu_expedited() { synchronize_rcu(); }
void call_rcu(callback_head *head, void (LKAPI *fn)(callback_head *)) {
  reader();
  g_callbacks = true;
#if defined(__i386__)
  urcu_memb_call_rcu(&(new CallRcu{{}, head, fn})->head, call_rcu_cb);
#else
  urcu_memb_call_rcu((rcu_head *)head, (void (*)(rcu_head *))fn);
#endif
}
void rcu_barrier() {
  reader();
  urcu_memb_barrier();
}
// kvfree_rcu(ptr, field): `head` is the object's rcu_head and `fn` its
// offset in the object; kvfree_rcu(ptr): `head` null and `fn` the
// object itself.
void kvfree_call_rcu(callback_head *head, void (LKAPI *fn)(callback_head *)) {
  if (!head) {
    synchronize_rcu();
    release((const void *)fn, LKPI_CALLER());
    return;
  }
  reader();
  g_callbacks = true;
  auto *r = new KvfreeRcu{{}, (u8 *)head - (uintptr_t)fn};
  urcu_memb_call_rcu(&r->head, kvfree_cb);
}

void rcu_module_gone(u64, u64) {
  if (g_callbacks)
    rcu_barrier();
}

LINUX_EXPORT_GPL(__rcu_read_lock);
LINUX_EXPORT_GPL(__rcu_read_unlock);
LINUX_EXPORT_GPL(synchronize_rcu);
LINUX_EXPORT_GPL(synchronize_rcu_expedited);
LINUX_EXPORT_GPL(call_rcu);
LINUX_EXPORT_GPL(rcu_barrier);
LINUX_EXPORT_GPL(kvfree_call_rcu);

} // namespace lkpi
