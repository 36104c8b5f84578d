// memguard (kernel --memguard), after FreeBSD's memguard(9): every block a
// module allocates gets pages of its own, placed so that its end touches an
// inaccessible guard page, with a redzone of a known pattern in the slack
// before it and after it.  A freed block is poisoned, made inaccessible and
// kept in quarantine for a while instead of being reused.  So:
//
//   overflow past the end      faults on the guard page at once (or, within
//                              the alignment slack, is found at free)
//   use after free             faults on the quarantined pages
//   double free                the block is found in quarantine
//   free of a non-heap pointer no block starts there
//
// Each is reported naming the module that allocated the block and the call
// site of the allocation (module`function+0xoff), and of the free where
// there was one, and the kernel panics (kern_panic.h): the heap is never
// corrupted.  The bookkeeping lives outside the blocks, where a module's
// stray writes cannot reach it.
#pragma once

#include "../linker/base.h"
#include "../linker/sync.h"

#include <deque>
#include <functional>
#include <map>
#include <string>

namespace mk {

struct MallocStats;

class MemGuard {
public:
  // `name_pc` names a code address (module`function+0xoff).
  explicit MemGuard(std::function<std::string(u64)> name_pc)
      : name_pc_(std::move(name_pc)) {}
  ~MemGuard();
  MemGuard(const MemGuard &) = delete;
  MemGuard &operator=(const MemGuard &) = delete;

  // A block of `size` bytes (16-aligned, its end against the guard page)
  // allocated by code at `caller` and charged to `owner`; nullptr when out
  // of memory.
  void *alloc(size_t size, u64 caller, MallocStats *owner, bool zero)
      EXCLUDES(mu_);
  // Free `p` (called from `caller`): returns its size and owner, or panics
  // with a report if `p` is not a live block or its redzones were written.
  void release(void *p, u64 caller, size_t *size, MallocStats **owner)
      EXCLUDES(mu_);
  // The size of live block `p` (for realloc); panics as release() does.
  size_t size_of(void *p, u64 caller) EXCLUDES(mu_);

  // From the panic handler: if `addr` is a guard page or quarantined
  // memory, one line saying what it is into `out`; false otherwise (or if
  // the table is busy).  No allocation while searching.
  bool explain(u64 addr, char *out, size_t cap) EXCLUDES(mu_);

  size_t quarantined() const EXCLUDES(mu_);

private:
  struct Block {
    u64 map = 0;      // the mapping: data pages, then the guard page
    u64 map_size = 0;
    size_t size = 0;
    u64 alloc_pc = 0, free_pc = 0;
    MallocStats *owner = nullptr;
    bool freed = false;
  };
  [[noreturn]] void report(const char *what, const Block *b, u64 p,
                           u64 caller) REQUIRES(mu_);
  bool redzones_intact(const Block &b, u64 p) const;
  void evict() REQUIRES(mu_);

  std::function<std::string(u64)> name_pc_;
  mutable Mutex mu_;
  std::map<u64, Block> blocks_ GUARDED_BY(mu_); // user address -> block
  std::deque<u64> quarantine_ GUARDED_BY(mu_);   // oldest first
  u64 quarantine_bytes_ GUARDED_BY(mu_) = 0;
  static constexpr size_t kQuarantineBlocks = 4096;
  static constexpr u64 kQuarantineBytes = 64ull << 20;
};

} // namespace mk
