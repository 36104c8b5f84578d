// Memory accounting: every block module or kernel code allocates is
// charged to an owner (the kernel, or the loaded file whose code called
// malloc), shown by `vmstat -m`, and a module's leaks are reported when it
// unloads.
#pragma once

#include "../linker/base.h"
#include "../linker/sync.h"

#include <atomic>
#include <list>
#include <string>
#include <vector>

namespace mk {

// Memory charged to one owner.  The counters are atomics updated by any
// thread; the name never changes.
struct MallocStats {
  explicit MallocStats(std::string n) : name(std::move(n)) {}
  const std::string name;
  std::atomic<i64> inuse{0};    // blocks
  std::atomic<i64> memuse{0};   // bytes
  std::atomic<i64> requests{0}; // allocations ever
};

// Every owner's stats.  An entry outlives its owner while blocks it
// leaked still point at it; once its owner is gone and it holds nothing,
// it goes (so loading and unloading a module leaves nothing behind).
class MallocAccounts {
public:
  MallocStats *add(const std::string &name) EXCLUDES(mu_);
  // Its owner is gone (a module unloaded).
  void retire(MallocStats *s) EXCLUDES(mu_);
  // Every entry, and whether its owner is gone.
  std::vector<std::pair<MallocStats *, bool>> all() const EXCLUDES(mu_);

private:
  struct Entry {
    explicit Entry(const std::string &n) : stats(n) {}
    MallocStats stats;
    bool retired = false;
  };
  mutable Mutex mu_;
  std::list<Entry> entries_ GUARDED_BY(mu_); // stable addresses
};

// The kernel's allocator for another layer's allocation functions (the
// Linux API's kmalloc family): the block is charged to the owner of the
// code at `caller` (a module's return address), as malloc() charges it.
void *malloc_for(size_t size, u64 caller, bool zero);
// Free a block malloc_for or a module's malloc returned; `caller` names
// the culprit if it is not a live block.
void free_for(void *p, u64 caller);
// The size a live block was asked with.
size_t block_size(void *p, u64 caller);

} // namespace mk
