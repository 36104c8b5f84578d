// The kmalloc family, kmem caches, vmalloc and page allocations, all on the
// kernel's allocator (kern_malloc.h): every block is charged to the module
// whose code asked for it, shows in `vmstat -m`, and a module's leaks are
// reported at unload, as for minikern's own modules.
//
// An object is preceded by a 16-byte prefix: the allocator's block it
// lives in (alignment may move it forward) and its kmem_cache, if any, so
// kfree() takes any of them, as Linux's does.  kmalloc aligns a
// power-of-two size up to 64 bytes to itself, anything else to 16;
// kmem caches to what they were created with; pages to 4096.
#include "lkpi.h"

#include "../kern_malloc.h"

#include <cstring>

extern "C" char __executable_start[], edata[];

namespace lkpi {

struct kmem_cache {
  std::string name;
  unsigned size = 0;
  unsigned align = 0;
  void (LKAPI *ctor)(void *) = nullptr;
  std::atomic<long> live{0}; // objects allocated and not freed
};

namespace {

struct alignas(8) Prefix {
  void *base;
  kmem_cache *cache;
};
static_assert(sizeof(Prefix) <= 16);
constexpr size_t kPrefix = 16;

size_t kmalloc_align(size_t size) {
  if ((size & (size - 1)) == 0 && size <= 64)
    return size < 16 ? 16 : size;
  return 16;
}

Prefix *prefix_of(const void *p) {
  return (Prefix *)((uintptr_t)p - sizeof(Prefix));
}

void *alloc_in(size_t size, unsigned gfp, u64 caller, size_t align,
               kmem_cache *c) {
  if (size == 0)
    return (void *)kZeroSizePtr;
  if (align < 16)
    align = 16;
  const size_t extra = kPrefix + (align - 16);
  if (size > (size_t)-1 - extra)
    return nullptr;
  auto *base = (u8 *)mk::malloc_for(size + extra, caller, gfp & kGfpZero);
  if (!base)
    return nullptr;
  const uintptr_t p = ((uintptr_t)base + kPrefix + align - 1) & ~(align - 1);
  *prefix_of((void *)p) = Prefix{base, c};
  if (c)
    c->live++;
  return (void *)p;
}

} // namespace

void *alloc(size_t size, unsigned gfp, u64 caller, size_t align) {
  return alloc_in(size, gfp, caller, align ? align : kmalloc_align(size),
                  nullptr);
}

void release(const void *p, u64 caller) {
  if ((uintptr_t)p <= kZeroSizePtr)
    return;
  Prefix pre = *prefix_of(p);
  if (pre.cache)
    pre.cache->live--;
  mk::free_for(pre.base, caller);
}

size_t alloc_size(const void *p, u64 caller) {
  if ((uintptr_t)p <= kZeroSizePtr)
    return 0;
  void *base = prefix_of(p)->base;
  return mk::block_size(base, caller) - ((uintptr_t)p - (uintptr_t)base);
}

// ---- kmalloc ---------------------------------------------------------------

// Linux's inline kmalloc() of a constant size indexes this table by type
// (normal, reclaimable, DMA, cgroup) and size class, and passes the cache
// to kmalloc_trace(); the size asked is what is allocated and charged.
constexpr int kKmallocTypes = 4, kKmallocShiftHigh = 13;
kmem_cache *kmalloc_caches[kKmallocTypes][kKmallocShiftHigh + 1];

namespace {
struct KmallocCaches {
  kmem_cache caches[kKmallocTypes][kKmallocShiftHigh + 1];
  KmallocCaches() {
    static const char *types[] = {"", "-rcl", "dma-", "-cg"};
    for (int t = 0; t < kKmallocTypes; t++)
      for (int i = 1; i <= kKmallocShiftHigh; i++) {
        kmem_cache &c = caches[t][i];
        c.size = i == 1 ? 96 : i == 2 ? 192 : 1u << i;
        c.align = 8;
        c.name = t == 2 ? mk::strf("dma-kmalloc-%u", c.size)
                        : mk::strf("kmalloc%s-%u", types[t], c.size);
        kmalloc_caches[t][i] = &c;
      }
  }
} g_kmalloc_caches;
} // namespace

__attribute__((noinline)) void *kmalloc_trace(kmem_cache *, unsigned gfp,
                                              size_t size) {
  return alloc(size, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void *kmalloc_node_trace(kmem_cache *, unsigned gfp,
                                                   int, size_t size) {
  return alloc(size, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void *__kmalloc(size_t size, unsigned gfp) {
  return alloc(size, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void *__kmalloc_node(size_t size, unsigned gfp, int) {
  return alloc(size, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void *kmalloc_large(size_t size, unsigned gfp) {
  return alloc(size, gfp, LKPI_CALLER(), 4096);
}
__attribute__((noinline)) void *kmalloc_large_node(size_t size, unsigned gfp,
                                                   int) {
  return alloc(size, gfp, LKPI_CALLER(), 4096);
}
__attribute__((noinline)) void kfree(const void *p) {
  release(p, LKPI_CALLER());
}
__attribute__((noinline)) void kfree_sensitive(const void *p) {
  const u64 caller = LKPI_CALLER();
  if ((uintptr_t)p <= kZeroSizePtr)
    return;
  explicit_bzero((void *)p, alloc_size(p, caller));
  release(p, caller);
}
__attribute__((noinline)) size_t ksize(const void *p) {
  return alloc_size(p, LKPI_CALLER());
}
size_t kmalloc_size_roundup(size_t size) { return size; }

namespace {
void *realloc_for(const void *p, size_t size, unsigned gfp, u64 caller) {
  if (size == 0) {
    release(p, caller);
    return (void *)kZeroSizePtr;
  }
  const size_t old = alloc_size(p, caller);
  if ((uintptr_t)p > kZeroSizePtr && size <= old)
    return (void *)p;
  void *q = alloc(size, gfp, caller);
  if (!q)
    return nullptr;
  if (old)
    std::memcpy(q, p, old);
  release(p, caller);
  return q;
}
} // namespace

__attribute__((noinline)) void *krealloc(const void *p, size_t size,
                                         unsigned gfp) {
  return realloc_for(p, size, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void *kvrealloc(const void *p, size_t, size_t size,
                                          unsigned gfp) {
  return realloc_for(p, size, gfp, LKPI_CALLER());
}

// ---- vmalloc and kvmalloc: the same blocks
// -----------------------------------

__attribute__((noinline)) void *kvmalloc_node(size_t size, unsigned gfp, int) {
  return alloc(size, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void kvfree(const void *p) {
  release(p, LKPI_CALLER());
}
__attribute__((noinline)) void kvfree_sensitive(const void *p, size_t len) {
  if ((uintptr_t)p <= kZeroSizePtr)
    return;
  explicit_bzero((void *)p, len);
  release(p, LKPI_CALLER());
}
__attribute__((noinline)) void *vmalloc(unsigned long size) {
  return alloc(size, 0, LKPI_CALLER(), 16);
}
__attribute__((noinline)) void *vzalloc(unsigned long size) {
  return alloc(size, kGfpZero, LKPI_CALLER(), 16);
}
__attribute__((noinline)) void *vmalloc_node(unsigned long size, int) {
  return alloc(size, 0, LKPI_CALLER(), 16);
}
__attribute__((noinline)) void *vzalloc_node(unsigned long size, int) {
  return alloc(size, kGfpZero, LKPI_CALLER(), 16);
}
__attribute__((noinline)) void *__vmalloc(unsigned long size, unsigned gfp) {
  return alloc(size, gfp, LKPI_CALLER(), 16);
}
__attribute__((noinline)) void vfree(const void *p) {
  release(p, LKPI_CALLER());
}

// ---- pages -----------------------------------------------------------------

__attribute__((noinline)) unsigned long __get_free_pages(unsigned gfp,
                                                         unsigned order) {
  return (unsigned long)(uintptr_t)alloc(4096ul << order, gfp, LKPI_CALLER(),
                                         4096);
}
__attribute__((noinline)) unsigned long get_zeroed_page(unsigned gfp) {
  return (unsigned long)(uintptr_t)alloc(4096, gfp | kGfpZero, LKPI_CALLER(),
                                         4096);
}
__attribute__((noinline)) void free_pages(unsigned long addr, unsigned) {
  release((const void *)(uintptr_t)addr, LKPI_CALLER());
}

// ---- kmem caches
// -------------------------------------------------------------

namespace {
constexpr unsigned long SLAB_HWCACHE_ALIGN = 0x2000;

kmem_cache *cache_create(const char *name, unsigned size, unsigned align,
                         unsigned flags, void (LKAPI *ctor)(void *)) {
  auto *c = new kmem_cache;
  c->name = name ? name : "";
  c->size = size;
  c->align = align;
  if ((flags & SLAB_HWCACHE_ALIGN) && c->align < 64)
    c->align = 64;
  c->ctor = ctor;
  return c;
}
} // namespace

kmem_cache *kmem_cache_create(const char *name, unsigned size, unsigned align,
                              unsigned flags, void (LKAPI *ctor)(void *)) {
  return cache_create(name, size, align, flags, ctor);
}
kmem_cache *kmem_cache_create_usercopy(const char *name, unsigned size,
                                       unsigned align, unsigned flags,
                                       unsigned, unsigned,
                                       void (LKAPI *ctor)(void *)) {
  return cache_create(name, size, align, flags, ctor);
}

namespace {
void *cache_alloc(kmem_cache *c, unsigned gfp, u64 caller) {
  void *p = alloc_in(c->size, gfp, caller, c->align, c);
  if (p && c->ctor)
    c->ctor(p);
  return p;
}
} // namespace

__attribute__((noinline)) void *kmem_cache_alloc(kmem_cache *c, unsigned gfp) {
  return cache_alloc(c, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void *kmem_cache_alloc_lru(kmem_cache *c, void *,
                                                     unsigned gfp) {
  return cache_alloc(c, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void *kmem_cache_alloc_node(kmem_cache *c,
                                                      unsigned gfp, int) {
  return cache_alloc(c, gfp, LKPI_CALLER());
}
__attribute__((noinline)) void kmem_cache_free(kmem_cache *, void *p) {
  release(p, LKPI_CALLER());
}
unsigned kmem_cache_size(kmem_cache *c) { return c->size; }

__attribute__((noinline)) void kmem_cache_destroy(kmem_cache *c) {
  if (!c)
    return;
  if (c->live > 0) {
    // Linux's WARN: the cache stays (its objects still point at it).
    console_line(4, lformat("kmem_cache_destroy %s: Slab cache still has "
                            "objects when called from %pS\n",
                            c->name.c_str(), (void *)LKPI_CALLER()));
    return;
  }
  delete c;
}

// ---- copies
// ------------------------------------------------------------------

namespace {
char *dup_for(const char *s, size_t n, unsigned gfp, u64 caller) {
  auto *d = (char *)alloc(n + 1, gfp, caller);
  if (d) {
    std::memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}
} // namespace

__attribute__((noinline)) char *kstrdup(const char *s, unsigned gfp) {
  return s ? dup_for(s, std::strlen(s), gfp, LKPI_CALLER()) : nullptr;
}
// Linux keeps a string of the kernel's .rodata as it is; a module's
// never is, so this always copies, and kfree_const always frees.
__attribute__((noinline)) const char *kstrdup_const(const char *s,
                                                    unsigned gfp) {
  return s ? dup_for(s, std::strlen(s), gfp, LKPI_CALLER()) : nullptr;
}
__attribute__((noinline)) char *kstrndup(const char *s, size_t max,
                                         unsigned gfp) {
  return s ? dup_for(s, ::strnlen(s, max), gfp, LKPI_CALLER()) : nullptr;
}
__attribute__((noinline)) void *kmemdup(const void *src, size_t len,
                                        unsigned gfp) {
  void *p = alloc(len, gfp, LKPI_CALLER());
  if ((uintptr_t)p > kZeroSizePtr)
    std::memcpy(p, src, len);
  return p;
}
__attribute__((noinline)) char *kmemdup_nul(const char *s, size_t len,
                                            unsigned gfp) {
  return s ? dup_for(s, len, gfp, LKPI_CALLER()) : nullptr;
}
// Linux's kfree_const() leaves a string in the kernel's .rodata alone;
// here nothing inside the kernel's image or a module's (a string
// constant of the module that called) is ever freed, since only heap
// blocks are.
__attribute__((noinline)) void kfree_const(const void *p) {
  const u64 at = (u64)(uintptr_t)p;
  if (at >= (u64)(uintptr_t)__executable_start && at < (u64)(uintptr_t)edata)
    return;
  if (mk::Kernel *k = mk::curkernel(); k && at > kZeroSizePtr &&
                                       k->linker().file_at(at))
    return;
  release(p, LKPI_CALLER());
}

LINUX_EXPORT(kmalloc_caches);
LINUX_EXPORT(kmalloc_trace);
LINUX_EXPORT(kmalloc_node_trace);
LINUX_EXPORT(__kmalloc);
LINUX_EXPORT(__kmalloc_node);
LINUX_EXPORT(kmalloc_large);
LINUX_EXPORT(kmalloc_large_node);
LINUX_EXPORT(kfree);
LINUX_EXPORT(kfree_sensitive);
LINUX_EXPORT(ksize);
LINUX_EXPORT(kmalloc_size_roundup);
LINUX_EXPORT(krealloc);
LINUX_EXPORT(kvrealloc);
LINUX_EXPORT(kvmalloc_node);
LINUX_EXPORT(kvfree);
LINUX_EXPORT(kvfree_sensitive);
LINUX_EXPORT(vmalloc);
LINUX_EXPORT(vzalloc);
LINUX_EXPORT(vmalloc_node);
LINUX_EXPORT(vzalloc_node);
LINUX_EXPORT(__vmalloc);
LINUX_EXPORT(vfree);
LINUX_EXPORT(__get_free_pages);
LINUX_EXPORT(get_zeroed_page);
LINUX_EXPORT(free_pages);
LINUX_EXPORT(kmem_cache_create);
LINUX_EXPORT(kmem_cache_create_usercopy);
LINUX_EXPORT(kmem_cache_alloc);
LINUX_EXPORT(kmem_cache_alloc_lru);
LINUX_EXPORT(kmem_cache_alloc_node);
LINUX_EXPORT(kmem_cache_free);
LINUX_EXPORT(kmem_cache_size);
LINUX_EXPORT(kmem_cache_destroy);
LINUX_EXPORT(kstrdup);
LINUX_EXPORT(kstrdup_const);
LINUX_EXPORT(kstrndup);
LINUX_EXPORT(kmemdup);
LINUX_EXPORT(kmemdup_nul);
LINUX_EXPORT(kfree_const);

} // namespace lkpi
