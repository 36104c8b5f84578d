// ModuleArena: the memfd double mapping and a first-fit allocator over it.
#include "arena.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <vector>
#include <cstring>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <unistd.h>

namespace mk {

u64 ModuleArena::page_size() {
  static const u64 ps = (u64)sysconf(_SC_PAGESIZE);
  return ps;
}

Result<std::unique_ptr<ModuleArena>> ModuleArena::reserve(u64 size,
                                                          u64 limit) {
  size = align_up(size, page_size());
  std::unique_ptr<ModuleArena> a(new ModuleArena);
  a->fd_ = memfd_create("minikern-arena", MFD_CLOEXEC);
  if (a->fd_ < 0)
    return error(strf("module arena: memfd_create: %s", std::strerror(errno)));
  if (ftruncate(a->fd_, (off_t)size) != 0)
    return error(strf("module arena: cannot size the memfd to %llu bytes: %s",
                      (unsigned long long)size, std::strerror(errno)));
  // Below `limit`: take the highest free gap of the address space that
  // fits, read from /proc/self/maps (the heap of a non-PIE program starts at
  // a random address, so no fixed address is always free).
  void *view = MAP_FAILED;
  if (limit) {
    std::vector<std::pair<u64, u64>> used;
    if (FILE *m = fopen("/proc/self/maps", "r")) {
      unsigned long long lo, hi;
      char line[512];
      while (fgets(line, sizeof line, m))
        if (sscanf(line, "%llx-%llx", &lo, &hi) == 2)
          used.emplace_back(lo, hi);
      fclose(m);
    }
    std::sort(used.begin(), used.end());
    const u64 floor = 16ull << 20; // leave the lowest addresses alone
    u64 gap_end = limit;
    for (auto it = used.rbegin(); view == MAP_FAILED; ++it) {
      u64 gap_start = it == used.rend() ? floor : std::max(it->second, floor);
      if (it != used.rend() && it->first >= gap_end)
        continue; // above the limit
      u64 hint = gap_end >= size ? (gap_end - size) & ~(page_size() - 1) : 0;
      if (hint >= gap_start && gap_end > gap_start)
        view = mmap((void *)(uintptr_t)hint, size, PROT_NONE,
                    MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, a->fd_,
                    0);
      if (it == used.rend())
        break;
      gap_end = std::min(gap_end, it->first);
    }
  } else {
    view = mmap(nullptr, size, PROT_NONE, MAP_SHARED | MAP_NORESERVE, a->fd_,
                0);
  }
  if (view == MAP_FAILED)
    return error(strf("module arena: no free %llu MiB of address space below "
                      "0x%llx",
                      (unsigned long long)(size >> 20),
                      (unsigned long long)limit));
  int vfd = dup(a->fd_);
  auto alias = vfd < 0 ? Result<std::unique_ptr<WritableView>>(error(
                             strf("dup: %s", std::strerror(errno))))
                       : WritableView::create(vfd, size);
  if (!alias) {
    munmap(view, size);
    return error("module arena: cannot reserve the writable alias: " +
                 alias.error().message);
  }
  a->base_ = (u64)(uintptr_t)view;
  a->size_ = size;
  a->view_ = std::move(*alias);
  MutexLock g(a->mu_); // not shared yet; for the analysis
  a->free_[a->base_] = size;
  return a;
}

Result<std::unique_ptr<WritableView>> WritableView::create(int fd, u64 size) {
  void *at = mmap(nullptr, size, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) {
    ::close(fd);
    return error(strf("mmap: %s", std::strerror(errno)));
  }
  std::unique_ptr<WritableView> v(new WritableView);
  v->fd_ = fd;
  v->at_ = (u8 *)at;
  v->size_ = size;
  return v;
}

WritableView::~WritableView() {
  if (at_)
    munmap(at_, size_);
  if (fd_ >= 0)
    ::close(fd_);
}

void WritableView::open() {
  MutexLock g(mu_);
  opens_++;
  if (depth_++ > 0)
    return;
  // The first time, the file over the reservation, in place (the address
  // stays the same); after that the same mapping made accessible again.
  // Its page tables stay from one writer to the next: a batch that writes
  // a few hundred scattered code pages (every fbt probe of the kernel)
  // would otherwise spend half its time faulting them in and zapping them.
  const bool ok =
      mapped_ ? mprotect(at_, size_, PROT_READ | PROT_WRITE) == 0
              : mmap(at_, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                     fd_, 0) != MAP_FAILED;
  if (!ok) {
    std::fprintf(stderr, "minikern: cannot map the writable view of code: %s\n",
                 std::strerror(errno));
    std::abort(); // every writer after this would fault
  }
  mapped_ = true;
  maps_++;
}

void WritableView::close() {
  MutexLock g(mu_);
  if (--depth_ > 0)
    return;
  // Inaccessible again: no mapping can write the code (mprotect flushes
  // the TLB's writable entries), and nothing else can be placed in the
  // range.
  if (mprotect(at_, size_, PROT_NONE) != 0) {
    std::fprintf(stderr, "minikern: cannot close the writable view of code: %s\n",
                 std::strerror(errno));
    std::abort(); // a writable alias of code would stay
  }
}

bool WritableView::is_open() const {
  MutexLock g(mu_);
  return depth_ > 0;
}

u64 WritableView::maps() const {
  MutexLock g(mu_);
  return maps_;
}

u64 WritableView::quiet_epoch() const {
  MutexLock g(mu_);
  return depth_ > 0 ? kBusy : opens_;
}

ModuleArena::~ModuleArena() {
  view_.reset();
  if (base_)
    munmap((void *)(uintptr_t)base_, size_);
  if (fd_ >= 0)
    close(fd_);
}

Result<ModuleArena::Block> ModuleArena::allocate(u64 size, u64 align,
                                                 Contents c) {
  const u64 ps = page_size();
  const u64 asked = size;
  align = align < ps ? ps : align;
  // Sizes and alignments come from a module's file: refuse what cannot fit
  // before any arithmetic, and keep every step below the arena's end, so
  // nothing wraps and no range outside the arena enters the free map.
  auto refuse = [&](u64 used) {
    return error(strf("out of module memory: %llu bytes%s requested, %llu "
                      "of %llu in use",
                      (unsigned long long)asked,
                      align > ps ? strf(" aligned to 0x%llx",
                                        (unsigned long long)align)
                                       .c_str()
                                 : "",
                      (unsigned long long)used, (unsigned long long)size_));
  };
  if (!is_pow2(align))
    return error(strf("module arena: alignment 0x%llx is not a power of two",
                      (unsigned long long)align));
  if (size > size_ || align > size_) {
    MutexLock g(mu_);
    return refuse(used_);
  }
  size = align_up(size ? size : 1, ps); // no wrap: size <= size_
  MutexLock g(mu_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const u64 fstart = it->first, fsize = it->second;
    // start - fstart < align <= size_, and fstart lies in the arena, so
    // neither sum below can wrap.
    const u64 start = align_up(fstart, align);
    if (start - fstart > fsize || size > fsize - (start - fstart))
      continue;
    const u64 end = fstart + fsize;
    free_.erase(it);
    if (start > fstart)
      free_[fstart] = start - fstart;
    if (start + size < end)
      free_[start + size] = end - (start + size);
    used_ += size;
    kept_ -= std::min(kept_, size); // roughly: reuse consumes kept pages
    // Before the view is opened to zero it: that open counts.
    const Block b{start, size, view_->quiet_epoch()};
    if (c == Contents::Zeroed) {
      auto w = writing();
      std::memset(alias(start), 0, size);
    }
    return b;
  }
  return refuse(used_);
}

void ModuleArena::set_poison_freed(bool on) {
  MutexLock g(mu_);
  poison_ = on;
}

void ModuleArena::release(Block b) {
  if (!b.size)
    return;
  {
    MutexLock g(mu_);
    if (poison_) {
      // Quarantined: int3 everywhere, executable, out of the free list.
      auto w = writing();
      std::memset(alias(b.addr), 0xcc, b.size);
      mprotect((void *)(uintptr_t)b.addr, b.size, PROT_READ | PROT_EXEC);
      return;
    }
  }
  // Up to kKeepBytes of freed memory stays resident, as it is, so the next
  // load does not fault every page in afresh (allocate() zeroes it for a
  // caller that needs zeros); beyond that it goes back to the system.
  bool keep;
  {
    MutexLock g(mu_);
    keep = kept_ + b.size <= kKeepBytes;
    if (keep)
      kept_ += b.size;
  }
  // Nothing runs or writes there any more.  A kept block stays mapped
  // read-only rather than inaccessible: a page whose entry goes
  // not-present and back costs its next writer a fault the hypervisor
  // takes (on the 2-core development machine 1 MiB written after
  // PROT_NONE and back took 870 us, after PROT_READ and back 150, warm
  // 21), the largest part of a big module's "copy".  Its stale bytes stay
  // readable until the block is reused; calling into it still faults.
  mprotect((void *)(uintptr_t)b.addr, b.size, keep ? PROT_READ : PROT_NONE);
  if (!keep)
    fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
              (off_t)(b.addr - base_), (off_t)b.size);
  else if (b.view_epoch == WritableView::kBusy ||
           view_->quiet_epoch() != b.view_epoch)
    // The writable view keeps page tables for live code only: each writer
    // changes the view's protection, a walk over what it maps.  (A module
    // is written in place; the view maps its pages only once a probe site
    // of it is patched.)
    madvise(alias(b.addr), b.size, MADV_DONTNEED);
  MutexLock g(mu_);
  used_ -= b.size;
  auto [it, _] = free_.emplace(b.addr, b.size);
  // Coalesce with the following and preceding free ranges.
  auto next = std::next(it);
  if (next != free_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    free_.erase(next);
  }
  if (it != free_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      free_.erase(it);
    }
  }
}

u8 *ModuleArena::write_in_place(const Block &b) {
  mprotect((void *)(uintptr_t)b.addr, b.size, PROT_READ | PROT_WRITE);
  // MADV_POPULATE_WRITE (Linux 5.14): the page-table entries a memcpy
  // would fault in one by one, and that the code would fault in again as
  // it first runs.  Where the kernel has none, the pages fault in as they
  // are written.
  constexpr int kPopulateWrite = 23;
  (void)madvise((void *)(uintptr_t)b.addr, b.size, kPopulateWrite);
  return (u8 *)(uintptr_t)b.addr;
}

void ModuleArena::discard(u64 addr, u64 size) {
  if (!size)
    return;
  mprotect((void *)(uintptr_t)addr, size, PROT_NONE);
  fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
            (off_t)(addr - base_), (off_t)size);
}

void ModuleArena::protect(u64 addr, u64 size, Protect p) {
  int prot = PROT_NONE;
  switch (p) {
  case Protect::None: prot = PROT_NONE; break;
  case Protect::Read: prot = PROT_READ; break;
  case Protect::ReadWrite: prot = PROT_READ | PROT_WRITE; break;
  case Protect::ReadExec: prot = PROT_READ | PROT_EXEC; break;
  }
  if (size)
    mprotect((void *)(uintptr_t)addr, align_up(size, page_size()), prot);
}

u64 ModuleArena::used() const {
  MutexLock g(mu_);
  return used_;
}

} // namespace mk
