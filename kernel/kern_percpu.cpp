// Per-CPU areas (see kern_percpu.h).
#include "kern_percpu.h"

#include <algorithm>
#include <cstring>
#include <sys/mman.h>
#if defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(__i386__)
#include <asm/ldt.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mk {

namespace {
thread_local u8 *t_area = nullptr;
thread_local int t_index = -1;

#if defined(__i386__)
// i386: glibc's TLS is %gs, and Linux's per-CPU segment is %fs.  A
// thread's %fs selects one of its TLS descriptors (set_thread_area): the
// same slot in every thread, taken by the first that asks (threads
// inherit their creator's descriptors, so the slot is then held in each),
// each thread's copy based at its own area.
std::atomic<int> g_fs_slot{-1};

void load_fs(u8 *base) {
  if (!base) {
    asm volatile("movw %w0, %%fs" : : "r"(0));
    return;
  }
  user_desc d{};
  d.entry_number = (unsigned)g_fs_slot.load();
  d.base_addr = (unsigned)(uintptr_t)base;
  d.limit = 0xfffff; // in pages: the whole 4 GiB, as Linux's segment
  d.seg_32bit = 1;
  d.limit_in_pages = 1;
  d.useable = 1;
  if (syscall(SYS_set_thread_area, &d) != 0) {
    std::perror("minikern: set_thread_area (the per-CPU segment)");
    std::abort();
  }
  g_fs_slot.store((int)d.entry_number);
  const unsigned short sel = (unsigned short)(d.entry_number * 8 + 3);
  asm volatile("movw %w0, %%fs" : : "r"(sel));
}
#endif
} // namespace

PerCpu::~PerCpu() {
  {
    MutexLock g(mu_);
    for (u8 *a : thread_areas_)
      munmap(a, kAreaSize);
    thread_areas_.clear();
  }
  for (u8 *a : areas_) {
    // The destroying thread (the shell's) leaves its area first.
    if (a == t_area) {
      t_area = nullptr;
      t_index = -1;
#if defined(__x86_64__)
      syscall(SYS_arch_prctl, ARCH_SET_GS, 0ul);
#elif defined(__i386__)
      load_fs(nullptr);
#endif
    }
    munmap(a, kAreaSize);
  }
}

Result<void> PerCpu::init(unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    void *p = mmap(nullptr, kAreaSize, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return error(strf("per-CPU area %u: %s", i, std::strerror(errno)));
    areas_.push_back((u8 *)p);
  }
  return {};
}

void PerCpu::enter(unsigned i) {
  t_area = areas_.at(i);
  t_index = (int)i;
#if defined(__x86_64__)
  // glibc's x86_64 TLS is %fs: %gs is free for the kernel's use.
  syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)t_area);
#elif defined(__i386__)
  load_fs(t_area);
#endif
}

void PerCpu::enter_thread_area(u8 *a) {
  t_area = a;
  t_index = -1;
#if defined(__x86_64__)
  syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)a);
#elif defined(__i386__)
  load_fs(a);
#endif
}

Result<u8 *> PerCpu::alloc_thread_area() {
  void *p = mmap(nullptr, kAreaSize, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return error(strf("a thread's per-CPU area: %s", std::strerror(errno)));
  u8 *a = (u8 *)p;
  MutexLock g(mu_);
  for (const auto &[off, bytes] : templates_)
    std::memcpy(a + off, bytes.data(), bytes.size());
  thread_areas_.push_back(a);
  return a;
}

void PerCpu::free_thread_area(u8 *a) {
  {
    MutexLock g(mu_);
    auto it = std::find(thread_areas_.begin(), thread_areas_.end(), a);
    if (it == thread_areas_.end())
      return;
    thread_areas_.erase(it);
  }
  munmap(a, kAreaSize);
}

u8 *PerCpu::current() { return t_area; }
int PerCpu::current_index() { return t_index; }

Result<u64> PerCpu::alloc(u64 size, u64 align) {
  if (align == 0 || (align & (align - 1)) || align > 4096)
    return error(strf("per-CPU alignment %llu is not a power of two up to "
                      "4096",
                      (unsigned long long)align));
  MutexLock g(mu_);
  u64 at = kStaticSize;
  for (const auto &[off, sz] : used_) {
    at = (at + align - 1) & ~(align - 1);
    if (at + size <= off)
      break;
    at = off + sz;
  }
  at = (at + align - 1) & ~(align - 1);
  if (size > kAreaSize || at + size > kAreaSize) {
    u64 held = 0;
    for (const auto &[off, sz] : used_)
      held += sz;
    return error(strf("per-CPU space exhausted: %llu bytes asked, %llu of "
                      "the %llu for modules free in each CPU's area",
                      (unsigned long long)size,
                      (unsigned long long)(kAreaSize - kStaticSize - held),
                      (unsigned long long)(kAreaSize - kStaticSize)));
  }
  used_[at] = size ? size : 1;
  for (u8 *a : areas_)
    std::memset(a + at, 0, size);
  for (u8 *a : thread_areas_)
    std::memset(a + at, 0, size);
  return at;
}

void PerCpu::free(u64 off) {
  MutexLock g(mu_);
  used_.erase(off);
  templates_.erase(off);
}

u64 PerCpu::used() const {
  MutexLock g(mu_);
  u64 n = 0;
  for (const auto &[off, sz] : used_)
    n += sz;
  return n;
}

void PerCpu::fill(u64 off, const u8 *src, u64 n) {
  for (u8 *a : areas_)
    std::memcpy(a + off, src, n);
  MutexLock g(mu_);
  for (u8 *a : thread_areas_)
    std::memcpy(a + off, src, n);
  templates_[off].assign(src, src + n);
}

} // namespace mk
