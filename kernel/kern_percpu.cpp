// Per-CPU areas (see kern_percpu.h).
#include "kern_percpu.h"

#include <cstring>
#include <sys/mman.h>
#if defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mk {

namespace {
thread_local u8 *t_area = nullptr;
thread_local int t_index = -1;
} // namespace

PerCpu::~PerCpu() {
  for (u8 *a : areas_) {
    // The destroying thread (the shell's) leaves its area first.
    if (a == t_area) {
      t_area = nullptr;
      t_index = -1;
#if defined(__x86_64__)
      syscall(SYS_arch_prctl, ARCH_SET_GS, 0ul);
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
#endif
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
  return at;
}

void PerCpu::free(u64 off) {
  MutexLock g(mu_);
  used_.erase(off);
}

u64 PerCpu::used() const {
  MutexLock g(mu_);
  u64 n = 0;
  for (const auto &[off, sz] : used_)
    n += sz;
  return n;
}

void PerCpu::fill(u64 off, const u8 *src, u64 n) const {
  for (u8 *a : areas_)
    std::memcpy(a + off, src, n);
}

} // namespace mk
