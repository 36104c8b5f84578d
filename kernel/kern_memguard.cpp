// memguard (see kern_memguard.h).
//
// A block of `size` bytes, asz = size rounded up to 16:
//
//   map                                  p            p+size  p+asz  guard
//   | redzone 0xfd ...................... | the block | 0xfd   |######|
//
// The block ends where the guard page begins (but for the rounding), so
// the first byte written past the rounded end faults.
#include "kern_memguard.h"

#include "kern_malloc.h"
#include "kern_panic.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace mk {

namespace {
constexpr u8 kRedzone = 0xfd;
constexpr u8 kPoison = 0x5a;
constexpr size_t kFrontCheck = 64; // redzone bytes checked before a block

u64 page() {
  static const u64 ps = (u64)sysconf(_SC_PAGESIZE);
  return ps;
}
} // namespace

MemGuard::~MemGuard() {
  MutexLock g(mu_);
  for (auto &[p, b] : blocks_)
    munmap((void *)(uintptr_t)b.map, b.map_size);
  blocks_.clear();
  quarantine_.clear();
}

void *MemGuard::alloc(size_t size, u64 caller, MallocStats *owner, bool zero) {
  const u64 ps = page();
  if (size > (1ull << 40))
    return nullptr;
  const u64 asz = std::max<u64>(16, align_up(size, 16));
  const u64 data = align_up(asz + 16, ps);
  const u64 map_size = data + ps;
  void *m = mmap(nullptr, map_size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return nullptr;
  const u64 map = (u64)(uintptr_t)m;
  mprotect((void *)(uintptr_t)(map + data), ps, PROT_NONE);
  const u64 p = map + data - asz;
  std::memset(m, kRedzone, data - asz);
  // Fresh pages are zero; malloc's contents are undefined: poison them so
  // a module relying on zeroed malloc memory is noticed.
  std::memset((void *)(uintptr_t)p, zero ? 0 : kPoison, size);
  std::memset((void *)(uintptr_t)(p + size), kRedzone, asz - size);
  MutexLock g(mu_);
  Block &b = blocks_[p];
  b = Block{map, map_size, size, caller, 0, owner, false};
  return (void *)(uintptr_t)p;
}

bool MemGuard::redzones_intact(const Block &b, u64 p) const {
  const u64 asz = std::max<u64>(16, align_up(b.size, 16));
  const u8 *front = (const u8 *)(uintptr_t)(p - std::min<u64>(kFrontCheck, p - b.map));
  for (const u8 *q = front; q < (const u8 *)(uintptr_t)p; q++)
    if (*q != kRedzone)
      return false;
  for (u64 i = b.size; i < asz; i++)
    if (((const u8 *)(uintptr_t)p)[i] != kRedzone)
      return false;
  return true;
}

void MemGuard::report(const char *what, const Block *b, u64 p, u64 caller) {
  std::string line = strf("memguard: %s 0x%llx", what, (unsigned long long)p);
  if (b) {
    line += strf(" (%zu-byte block allocated by %s at %s", b->size,
                 b->owner ? b->owner->name.c_str() : "?",
                 name_pc_(b->alloc_pc).c_str());
    if (b->freed)
      line += ", freed at " + name_pc_(b->free_pc);
    line += ")";
  }
  line += " from " + name_pc_(caller);
  panic("%s", line.c_str());
}

void MemGuard::release(void *ptr, u64 caller, size_t *size,
                       MallocStats **owner) {
  const u64 p = (u64)(uintptr_t)ptr;
  MutexLock g(mu_);
  auto it = blocks_.find(p);
  if (it == blocks_.end()) {
    // Inside some block?  Say which.
    auto next = blocks_.upper_bound(p);
    if (next != blocks_.begin()) {
      const Block &b = std::prev(next)->second;
      if (p < std::prev(next)->first + b.size)
        report(b.freed ? "free of a pointer into freed block at"
                       : "free of a pointer into the middle of the block at",
               &b, std::prev(next)->first, caller);
    }
    report("free of a pointer that is not a heap block:", nullptr, p, caller);
  }
  Block &b = it->second;
  if (b.freed)
    report("double free of", &b, p, caller);
  if (!redzones_intact(b, p))
    report("overflow: the redzone around the block was written, at free of",
           &b, p, caller);
  b.freed = true;
  b.free_pc = caller;
  *size = b.size;
  *owner = b.owner;
  std::memset(ptr, kPoison, b.size);
  mprotect((void *)(uintptr_t)b.map, b.map_size - page(), PROT_NONE);
  quarantine_.push_back(p);
  quarantine_bytes_ += b.map_size;
  evict();
}

void MemGuard::evict() {
  while (quarantine_.size() > kQuarantineBlocks ||
         quarantine_bytes_ > kQuarantineBytes) {
    auto it = blocks_.find(quarantine_.front());
    quarantine_.pop_front();
    if (it == blocks_.end())
      continue;
    quarantine_bytes_ -= it->second.map_size;
    munmap((void *)(uintptr_t)it->second.map, it->second.map_size);
    blocks_.erase(it);
  }
}

size_t MemGuard::size_of(void *ptr, u64 caller) {
  const u64 p = (u64)(uintptr_t)ptr;
  MutexLock g(mu_);
  auto it = blocks_.find(p);
  if (it == blocks_.end())
    report("realloc of a pointer that is not a heap block:", nullptr, p,
           caller);
  if (it->second.freed)
    report("realloc of freed block", &it->second, p, caller);
  return it->second.size;
}

bool MemGuard::explain(u64 addr, char *out, size_t cap) {
  if (!mu_.try_lock_for(1000))
    return false;
  bool found = false;
  auto next = blocks_.upper_bound(addr);
  for (auto it : {next, next == blocks_.begin() ? blocks_.end() : std::prev(next)}) {
    if (found || it == blocks_.end())
      continue;
    const Block &b = it->second;
    if (addr < b.map || addr >= b.map + b.map_size)
      continue;
    const u64 p = it->first;
    const u64 guard = b.map + b.map_size - page();
    const char *what = b.freed        ? "use after free"
                       : addr >= guard ? "overflow past the end"
                                       : "access to the redzone";
    const std::string alloc = name_pc_(b.alloc_pc);
    const std::string freed = b.freed ? name_pc_(b.free_pc) : "";
    std::snprintf(out, cap,
                  "memguard: %s: 0x%llx is %s%lld bytes %s the %zu-byte block "
                  "at 0x%llx allocated by %s at %s%s%s",
                  what, (unsigned long long)addr, "",
                  (long long)(addr >= p ? addr - p - (addr >= p + b.size ? b.size : 0)
                                        : p - addr),
                  addr >= p + b.size ? "past the end of"
                  : addr >= p        ? "into"
                                     : "before",
                  b.size, (unsigned long long)p,
                  b.owner ? b.owner->name.c_str() : "?", alloc.c_str(),
                  b.freed ? ", freed at " : "", freed.c_str());
    found = true;
  }
  mu_.unlock();
  return found;
}

size_t MemGuard::quarantined() const {
  MutexLock g(mu_);
  return quarantine_.size();
}

} // namespace mk
