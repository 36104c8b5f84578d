// What code the probe core knows: the kernel image and every loaded module,
// each with its functions (to name an address: memdev`memdev_write+0x1a)
// and its call-frame information (.eh_frame, to walk the stack through it:
// sdt/unwind.h).  A kallsyms and an unwind-table registry in one.
//
// Probe context (a timer signal, a trap, a trampoline) looks addresses up
// without a lock or an allocation: the set of images is an immutable
// snapshot, replaced whole when a module comes or goes and freed only after
// a grace period (reclaim()), so a reader inside an RCU read-side critical
// section (the firing path is one) may use what it found.  Naming an
// address (symbolize()) is for the consumer's thread: it keeps the images
// it reads alive itself.
#pragma once

#include "../linker/link.h"
#include "../linker/sync.h"

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mk {

// One image: its address range, functions and call-frame information.
// Immutable once published.
struct CodeImage {
  const void *owner = nullptr; // the module; nullptr for the kernel image
  std::string name;            // "kernel", "memdev": the module`... prefix
  u64 lo = 0, hi = 0;          // its code: [lo, hi)
  bool is64 = true;

  struct Func {
    u64 addr, size;
    u32 name_off, name_len; // in `names`
  };
  std::vector<Func> funcs; // by address
  std::string names;       // the functions' symbol names (mangled)

  // One FDE: the code it describes, and where it is (in the image's
  // loaded .eh_frame).
  struct Fde {
    u64 lo, hi;
    const u8 *at;
  };
  std::vector<Fde> fdes; // by lo

  // The function containing `pc` (a size-0 symbol holds its first byte),
  // or nullptr.
  const Func *function_at(u64 pc) const;
  const Fde *fde_at(u64 pc) const;
  std::string_view name_of(const Func &f) const {
    return std::string_view(names).substr(f.name_off, f.name_len);
  }
};

class CodeMap {
public:
  CodeMap() = default;
  ~CodeMap();
  CodeMap(const CodeMap &) = delete;
  CodeMap &operator=(const CodeMap &) = delete;

  // The kernel image: its functions from the symbol table of the ELF file
  // at `path` (the running executable), its call-frame information from
  // the executable's PT_GNU_EH_FRAME table.
  Result<void> init_kernel(const std::string &path) EXCLUDES(mu_);
  // A module once it is linked; `base`/`size` is its image.
  void add_module(const void *owner, const std::string &name,
                  const ObjectFile &obj, const Placement &pl, u64 base,
                  u64 size) EXCLUDES(mu_);
  void remove_module(const void *owner) EXCLUDES(mu_);
  // Free replaced snapshots: call after a grace period (no probe context
  // still holds one).
  void reclaim() EXCLUDES(mu_);
  // Replaced snapshots waiting for reclaim().
  size_t retired() const EXCLUDES(mu_);

  // Probe context, inside an RCU read-side critical section: the image
  // containing `pc`, or nullptr.
  const CodeImage *image_at(u64 pc) const;
  // Any thread: "module`function+0xoff", "module`function" at its first
  // byte, "module`0x..." outside every function, "0x..." outside every
  // image (DTrace's forms).
  std::string symbolize(u64 pc) const EXCLUDES(mu_);
  // The kernel image (nullptr before init_kernel).
  std::shared_ptr<const CodeImage> kernel() const EXCLUDES(mu_);

private:
  struct Snapshot {
    std::vector<std::shared_ptr<const CodeImage>> images; // by lo
  };
  void publish(std::vector<std::shared_ptr<const CodeImage>> images)
      REQUIRES(mu_);

  mutable Mutex mu_;
  std::shared_ptr<const Snapshot> current_ GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const Snapshot>> retired_ GUARDED_BY(mu_);
  std::atomic<const Snapshot *> live_{nullptr};
};

} // namespace mk
