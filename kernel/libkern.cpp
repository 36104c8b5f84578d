// Kernel services exported to modules: the console, memory, threads, locks,
// callouts, the C++ runtime.  Each is a kernel function with a kern_ name,
// exported under the C name a module calls (EXPORT_SYMBOL_AS), so the
// kernel's own use of libc is never confused with what modules bind to.
// Everything here lives in the kernel image, within rel32 reach of the
// module arena.  The C library modules get is in libkern_string.cpp,
// libkern_stdlib.cpp, libkern_stdio.cpp, libkern_math.cpp and
// libkern_time.cpp; the compiler's runtime helpers in libkern_rt.cpp.
#include "kernel.h"
#include "libkern_c.h"
#include "kern_panic.h"

#include "../sdt/registry.h"

#include <sys/callout.h>
#include <sys/kthread.h>
#include <sys/module.h>
#include <sys/mutex.h>

#define EAGAIN_ 11

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unistd.h>

#include <sys/sdt.h>

// AddressSanitizer's LeakSanitizer is on (gcc says so one way, clang
// another).
#if defined(__SANITIZE_ADDRESS__)
#define MK_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MK_LSAN 1
#endif
#endif
#if defined(MK_LSAN)
#include <sanitizer/lsan_interface.h>
#endif

SDT_PROBE_DEFINE3(kernel, kern, malloc, malloc, "size_t", "char *", "void *");
SDT_PROBE_DEFINE3(kernel, kern, malloc, free, "size_t", "char *", "void *");
SDT_PROBE_DEFINE2(kernel, kern, kthread, kthread__start, "char *", "void *");

using namespace mk;

namespace {

// Every block carries its owner, so free() credits the right module even
// after the allocating module was unloaded.  Its first word is a check the
// C library overwrites when the block is freed (a free list links a freed
// block through its first two words): free() of a block that is not live,
// freed twice or never allocated here, panics naming the caller before
// anything follows the stale owner.
struct alignas(16) BlockHeader {
  uintptr_t check; // live_check(this) while allocated
  uintptr_t link;  // the free lists' second word
  MallocStats *owner;
  size_t size;
};

uintptr_t live_check(const BlockHeader *h) { return ~(uintptr_t)h; }

// A freed block's first word, as the C library (or kfree) left it: the
// read is the check itself.  Under AddressSanitizer the block sits in its
// quarantine, still mapped, and this read must not be reported as a use
// after free: the panic below is the report.
__attribute__((no_sanitize("address"))) uintptr_t
check_word(const BlockHeader *h) {
  return h->check;
}

// The header of live block `p`, for `what` (free, realloc) called from
// `caller`.
BlockHeader *live_header(void *p, u64 caller, const char *what) {
  // In integers: p is the module's, any value (pointer arithmetic on a
  // wild one is undefined before the check can refuse it).
  auto *h = (BlockHeader *)((uintptr_t)p - sizeof(BlockHeader));
  if (check_word(h) != live_check(h)) {
    const std::string from = code_name(caller);
    panic("%s: %p is not an allocated block (freed already?), from %s", what,
          p, from.c_str());
  }
  return h;
}

// Under LeakSanitizer (make test SANITIZE=address), a module's blocks
// are left out of its leak check: the kernel accounts them itself and
// names a module's leaks when it unloads, keeping them charged to it
// (tests/integration/leak.t).  What LeakSanitizer checks is the kernel's
// own memory, its blocks included.
void lsan_module_block(Kernel *k, MallocStats *owner, void *raw) {
#if defined(MK_LSAN)
  if (k && owner && owner != k->kernel_mstats())
    __lsan_ignore_object(raw);
#else
  (void)k, (void)owner, (void)raw;
#endif
}

void *kmalloc(size_t size, u64 caller, bool zero) {
  Kernel *k = curkernel();
  MallocStats *owner = k ? k->mstats_for_caller(caller) : nullptr;
  void *p;
  if (MemGuard *g = k ? k->memguard() : nullptr) {
    p = g->alloc(size, caller, owner, zero);
    if (!p)
      return nullptr;
  } else {
    if (size > (size_t)-1 - sizeof(BlockHeader))
      return nullptr;
    void *raw = zero ? std::calloc(1, sizeof(BlockHeader) + size)
                     : std::malloc(sizeof(BlockHeader) + size);
    if (!raw)
      return nullptr;
    auto *h = (BlockHeader *)raw;
    h->check = live_check(h);
    h->owner = owner;
    h->size = size;
    p = h + 1;
    lsan_module_block(k, owner, raw);
  }
  if (owner) {
    owner->inuse++;
    owner->memuse += (i64)size;
    owner->requests++;
  }
  SDT_PROBE3(kernel, kern, malloc, malloc, size,
             owner ? owner->name.c_str() : "?", p);
  return p;
}

// The size of live block `p` (realloc).
size_t ksize(void *p, u64 caller) {
  Kernel *k = curkernel();
  if (MemGuard *g = k ? k->memguard() : nullptr)
    return g->size_of(p, caller);
  return live_header(p, caller, "realloc")->size;
}

void kfree(void *p, u64 caller) {
  if (!p)
    return;
  Kernel *k = curkernel();
  size_t size;
  MallocStats *owner;
  BlockHeader *h = nullptr;
  if (MemGuard *g = k ? k->memguard() : nullptr) {
    g->release(p, caller, &size, &owner);
  } else {
    h = live_header(p, caller, "free");
    h->check = 0;
    size = h->size;
    owner = h->owner;
  }
  SDT_PROBE3(kernel, kern, malloc, free, size,
             owner ? owner->name.c_str() : "?", p);
  if (owner) {
    owner->inuse--;
    owner->memuse -= (i64)size;
  }
  std::free(h);
}

u64 caller_pc(void *ra) { return (u64)(uintptr_t)ra; }


} // namespace

namespace mk {
void *malloc_for(size_t size, u64 caller, bool zero) {
  return kmalloc(size, caller, zero);
}
void free_for(void *p, u64 caller) { kfree(p, caller); }
size_t block_size(void *p, u64 caller) { return ksize(p, caller); }
} // namespace mk

extern "C" {

// ---- console ---------------------------------------------------------------

int kern_vprintf(const char *fmt, va_list ap) {
  CLocaleScope c;
  std::string s = vstrf(fmt, ap);
  if (Kernel *k = curkernel())
    k->console().write(s);
  return (int)s.size();
}

int kern_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = kern_vprintf(fmt, ap);
  va_end(ap);
  return n;
}

void kern_klog(int level, const char *fmt, ...) {
  (void)level;
  CLocaleScope c;
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrf(fmt, ap);
  va_end(ap);
  if (Kernel *k = curkernel())
    k->console().write(s, false);
}

__attribute__((noreturn, noinline)) void kern_panic(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vpanic_at((u64)(uintptr_t)__builtin_return_address(0), fmt, ap);
}

// ---- memory ----------------------------------------------------------------

__attribute__((noinline)) void *kern_malloc(size_t size) {
  return kmalloc(size, caller_pc(__builtin_return_address(0)), false);
}

__attribute__((noinline)) void *kern_calloc(size_t n, size_t size) {
  if (size && n > (size_t)-1 / size)
    return nullptr;
  return kmalloc(n * size, caller_pc(__builtin_return_address(0)), true);
}

__attribute__((noinline)) void *kern_realloc(void *p, size_t size) {
  u64 pc = caller_pc(__builtin_return_address(0));
  if (!p)
    return kmalloc(size, pc, false);
  const size_t old = ksize(p, pc);
  void *q = kmalloc(size, pc, false);
  if (!q)
    return nullptr;
  std::memcpy(q, p, old < size ? old : size);
  kfree(p, pc);
  return q;
}

__attribute__((noinline)) void kern_free(void *p) {
  kfree(p, caller_pc(__builtin_return_address(0)));
}

__attribute__((noinline)) char *kern_strdup(const char *s) {
  size_t n = std::strlen(s) + 1;
  char *d = (char *)kmalloc(n, caller_pc(__builtin_return_address(0)), false);
  if (d)
    std::memcpy(d, s, n);
  return d;
}

__attribute__((noinline)) char *kern_strndup(const char *s, size_t max) {
  size_t n = ::strnlen(s, max);
  char *d = (char *)kmalloc(n + 1, caller_pc(__builtin_return_address(0)), false);
  if (d) {
    std::memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

// C++ modules: operator new/delete charge the module like malloc does.
__attribute__((noinline)) void *kern_op_new(size_t size) {
  void *p = kmalloc(size, caller_pc(__builtin_return_address(0)), false);
  if (!p)
    kern_panic("operator new: out of memory (%zu bytes)", size);
  return p;
}
__attribute__((noinline)) void kern_op_delete(void *p) {
  kfree(p, caller_pc(__builtin_return_address(0)));
}
__attribute__((noinline)) void kern_op_delete_sized(void *p, size_t) {
  kfree(p, caller_pc(__builtin_return_address(0)));
}

void kern_cxa_pure_virtual() { kern_panic("pure virtual function called"); }
void kern_stack_chk_fail() { kern_panic("stack smashing detected in a module"); }

// Global destructors of C++ modules register here; `dso` is the module's
// __dso_handle, so they run when that module is unloaded.
int kern_cxa_atexit(void (*fn)(void *), void *arg, void *dso) {
  Kernel *k = curkernel();
  if (!k)
    return -1;
  // The kernel image itself never exits: only a module's are kept.
  return k->linker().add_atexit((u64)(uintptr_t)dso, fn, arg) ? 0 : -1;
}

// ---- time and CPUs ---------------------------------------------------------

uint64_t kern_nanouptime(void) {
  Kernel *k = curkernel();
  return now_ns() - (k ? k->boot_ns() : 0);
}
void kern_pause_ms(unsigned ms) { sleep_ms(ms); }
int kern_curcpu(void) { return current_cpu(); }
int kern_mp_ncpus(void) {
  Kernel *k = curkernel();
  return k ? (int)k->cpus().count() : 1;
}

// ---- mutexes ---------------------------------------------------------------

void kern_mtx_init(struct mtx *m, const char *name) {
  m->mtx_impl = new std::mutex;
  m->mtx_name = name;
}
void kern_mtx_destroy(struct mtx *m) {
  delete (std::mutex *)m->mtx_impl;
  m->mtx_impl = nullptr;
}
// The mutex behind `m`, for `what` called from `caller`: a panic naming
// them if `m` holds no pointer mtx_init could have made (never
// initialised, destroyed, or overwritten), as FreeBSD's mtx_lock()
// asserts under INVARIANTS.
static std::mutex *mtx_of(struct mtx *m, const char *what, u64 caller) {
  void *impl = m->mtx_impl;
  if (!impl || (uintptr_t)impl % alignof(std::mutex) != 0) {
    const std::string from = code_name(caller);
    panic("%s: mutex %p holds %p (not initialised, destroyed or "
          "overwritten), from %s", what, (void *)m, impl, from.c_str());
  }
  return (std::mutex *)impl;
}
#define MTX_OF(m, what)                                                        \
  mtx_of(m, what, (u64)(uintptr_t)__builtin_return_address(0))
void kern_mtx_lock(struct mtx *m) { MTX_OF(m, "mtx_lock")->lock(); }
void kern_mtx_unlock(struct mtx *m) { MTX_OF(m, "mtx_unlock")->unlock(); }
int kern_mtx_trylock(struct mtx *m) {
  return MTX_OF(m, "mtx_trylock")->try_lock() ? 1 : 0;
}

// ---- callouts --------------------------------------------------------------

void kern_callout_init(struct callout *c) { curkernel()->cpus().callout_init(c); }
void kern_callout_reset(struct callout *c, unsigned ms, callout_func_t *fn,
                        void *arg) {
  curkernel()->cpus().callout_reset(c, ms, fn, arg);
}
int kern_callout_stop(struct callout *c) {
  return curkernel()->cpus().callout_stop(c);
}
int kern_callout_drain(struct callout *c) {
  return curkernel()->cpus().callout_drain(c);
}
int kern_callout_pending(struct callout *c) {
  return curkernel()->cpus().callout_pending(c);
}

// ---- kernel threads --------------------------------------------------------

// A module's handle of a kernel thread is the kernel's own record of it,
// with no allocation of its own: a module that leaves its thread for the
// kernel to join at unload leaves nothing behind.

int kern_kthread_add(void (*fn)(void *), void *arg, const char *name,
                     struct kthread **out) {
  Kernel *k = curkernel();
  auto t = k->kthreads().start(*k, fn, arg, name ? name : "kthread");
  if (!t) {
    k->log("%s\n", t.error().message.c_str());
    return EAGAIN_;
  }
  SDT_PROBE2(kernel, kern, kthread, kthread__start, (*t)->name.c_str(),
             (void *)fn);
  if (out)
    *out = reinterpret_cast<struct kthread *>(*t);
  k->log("kthread %s started\n", (*t)->name.c_str());
  return 0;
}

void kern_kthread_join(struct kthread *td) {
  if (!td)
    return;
  Kernel *k = curkernel();
  if (!k->kthreads().join(reinterpret_cast<KThreads::Thread *>(td)))
    k->log("kthread_join: %p is no kernel thread to wait for (joined "
           "already, its own, or not one)\n", (void *)td);
}

// ---- modules ---------------------------------------------------------------

const char *kern_module_getname(module_t mod) {
  return reinterpret_cast<ModuleRec *>(mod)->name.c_str();
}
void kern_module_hold(module_t mod) {
  reinterpret_cast<ModuleRec *>(mod)->holds++;
}
void kern_module_release(module_t mod) {
  reinterpret_cast<ModuleRec *>(mod)->holds--;
}

} // extern "C"

EXPORT_SYMBOL_AS("printf", kern_printf);
EXPORT_SYMBOL_AS("vprintf", kern_vprintf);
EXPORT_SYMBOL_AS("klog", kern_klog);
EXPORT_SYMBOL_AS("panic", kern_panic);
EXPORT_SYMBOL_AS("malloc", kern_malloc);
EXPORT_SYMBOL_AS("calloc", kern_calloc);
EXPORT_SYMBOL_AS("realloc", kern_realloc);
EXPORT_SYMBOL_AS("free", kern_free);
EXPORT_SYMBOL_AS("strdup", kern_strdup);
EXPORT_SYMBOL_AS("strndup", kern_strndup);
EXPORT_SYMBOL_AS("nanouptime", kern_nanouptime);
EXPORT_SYMBOL_AS("pause_ms", kern_pause_ms);
EXPORT_SYMBOL_AS("curcpu", kern_curcpu);
EXPORT_SYMBOL_AS("mp_ncpus", kern_mp_ncpus);
EXPORT_SYMBOL_AS("mtx_init", kern_mtx_init);
EXPORT_SYMBOL_AS("mtx_destroy", kern_mtx_destroy);
EXPORT_SYMBOL_AS("mtx_lock", kern_mtx_lock);
EXPORT_SYMBOL_AS("mtx_unlock", kern_mtx_unlock);
EXPORT_SYMBOL_AS("mtx_trylock", kern_mtx_trylock);
EXPORT_SYMBOL_AS("callout_init", kern_callout_init);
EXPORT_SYMBOL_AS("callout_reset", kern_callout_reset);
EXPORT_SYMBOL_AS("callout_stop", kern_callout_stop);
EXPORT_SYMBOL_AS("callout_drain", kern_callout_drain);
EXPORT_SYMBOL_AS("callout_pending", kern_callout_pending);
EXPORT_SYMBOL_AS("kthread_add", kern_kthread_add);
EXPORT_SYMBOL_AS("kthread_join", kern_kthread_join);
EXPORT_SYMBOL_AS("module_getname", kern_module_getname);
EXPORT_SYMBOL_AS("module_hold", kern_module_hold);
EXPORT_SYMBOL_AS("module_release", kern_module_release);
EXPORT_SYMBOL_AS("__cxa_atexit", kern_cxa_atexit);
EXPORT_SYMBOL_AS("__cxa_pure_virtual", kern_cxa_pure_virtual);
EXPORT_SYMBOL_AS("__stack_chk_fail", kern_stack_chk_fail);
#if defined(__x86_64__)
EXPORT_SYMBOL_AS("_Znwm", kern_op_new);
EXPORT_SYMBOL_AS("_Znam", kern_op_new);
EXPORT_SYMBOL_AS("_ZdlPvm", kern_op_delete_sized);
EXPORT_SYMBOL_AS("_ZdaPvm", kern_op_delete_sized);
#else
EXPORT_SYMBOL_AS("_Znwj", kern_op_new);
EXPORT_SYMBOL_AS("_Znaj", kern_op_new);
EXPORT_SYMBOL_AS("_ZdlPvj", kern_op_delete_sized);
EXPORT_SYMBOL_AS("_ZdaPvj", kern_op_delete_sized);
#endif
EXPORT_SYMBOL_AS("_ZdlPv", kern_op_delete);
EXPORT_SYMBOL_AS("_ZdaPv", kern_op_delete);
