// What code the probe core knows: the kernel image and every loaded module,
// each with its functions (to name an address: memdev`memdev_write+0x1a)
// and its call-frame information (.eh_frame, to walk the stack through it:
// sdt/unwind.h).  A kallsyms and an unwind-table registry in one.
//
// Probe context (a timer signal, a trap, a trampoline) looks addresses up
// without a lock or an allocation: the set of images is an immutable
// snapshot, replaced whole when a module comes or goes and handed to the
// owner's Retire (the registry's frees it with call_rcu, after a grace
// period), so a reader inside an RCU read-side critical section (the
// firing path is one) may use what it found.  A replaced snapshot may hold
// the last reference to an unloaded module's image, with its object file
// and the file's mapping: nothing may keep it beyond that grace period, or
// every load+unload leaves a module's file behind.  Naming an
// address (symbolize()) is for the consumer's thread: it keeps the images
// it reads alive itself.
#pragma once

#include "../linker/link.h"
#include "../linker/sync.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mk {

// One image: its address range, functions and call-frame information.
// Immutable once published, but for its two tables, which a module's
// image builds when first needed (a load pays for neither: most modules
// are never named nor walked through): the function table on the first
// function_at() (any thread but probe context), from the module's object
// file, which the image keeps; the FDE table when a stack walker wants it
// (index_unwind(), CodeMap::use_unwind()).  Until then fde_at() scans the
// loaded .eh_frame in place, probe-context safe.  A table, once built, is
// never replaced and goes with the image.
struct CodeImage {
  CodeImage() = default;
  ~CodeImage();
  CodeImage(const CodeImage &) = delete;
  CodeImage &operator=(const CodeImage &) = delete;

  const void *owner = nullptr; // the module; nullptr for the kernel image
  std::string name;            // "kernel", "memdev": the module`... prefix
  u64 lo = 0, hi = 0;          // its code: [lo, hi)
  bool is64 = true;
  // Code the module gave back after its init ([gone_lo, gone_hi), empty
  // if none): no function, FDE or ORC entry is found there any more.  Set
  // once, while the image is published (CodeMap::free_code).
  mutable std::atomic<u64> gone_lo{0}, gone_hi{0};
  bool gone(u64 pc) const {
    return pc >= gone_lo.load(std::memory_order_acquire) &&
           pc < gone_hi.load(std::memory_order_acquire);
  }

  struct Func {
    u64 addr, size;
    u32 name_off, name_len; // in Functions::names
  };
  struct Functions {
    std::vector<Func> funcs; // by address
    std::string names;       // the functions' symbol names (mangled)
  };
  // One FDE: the code it describes, and where it is (in the image's
  // loaded .eh_frame).
  struct Fde {
    u64 lo, hi;
    const u8 *at;
  };

  // The function containing `pc` (a size-0 symbol holds its first byte),
  // or nullptr.  Not for probe context: it may build the table.
  const Func *function_at(u64 pc) const EXCLUDES(build_mu_);
  std::string_view name_of(const Func &f) const;
  // Probe context: the FDE describing `pc`; false if none.
  bool fde_at(u64 pc, Fde &out) const;
  // Build the FDE table now (not probe context), so that fde_at() need
  // not scan.
  void index_unwind() const EXCLUDES(build_mu_);

  // A Linux module's ORC table (.orc_unwind_ip, .orc_unwind: Linux's
  // unwinder's own format, in place of .eh_frame).  One entry:
  struct Orc {
    i16 sp_offset, bp_offset;
    u8 sp_reg, bp_reg, type;
    bool end;
  };
  // Probe context: the entry describing `pc` (the last one at or below
  // it); false if none.
  bool orc_at(u64 pc, Orc &out) const;
  const u8 *orc_ip = nullptr; // s32 each, relative to itself
  const u8 *orc = nullptr;    // 6 bytes each
  u64 orc_count = 0;

  // What a module's tables are built from: its object file (kept alive
  // here: the symbols are views of it), where each of its sections was
  // placed, and its loaded .eh_frame.
  std::shared_ptr<const ObjectFile> obj;
  std::vector<u64> sec_addr;
  const u8 *eh_frame = nullptr;
  u64 eh_frame_size = 0;

  // The kernel image's, built at boot (`f` sorted as function_at() needs).
  void set_tables(std::unique_ptr<Functions> f, std::vector<Fde> fdes);

private:
  const Functions *functions() const EXCLUDES(build_mu_);
  mutable Mutex build_mu_; // serialises building a table
  mutable std::atomic<const Functions *> funcs_{nullptr};
  mutable std::atomic<const std::vector<Fde> *> fdes_{nullptr};
  struct OrcRow {
    u64 ip;
    u32 index;
  };
  mutable std::atomic<const std::vector<OrcRow> *> orcs_{nullptr};
};

class CodeMap {
public:
  // What becomes of a replaced snapshot (type-erased): it must stay
  // readable until every probe context that may have loaded it has left,
  // then go, whether or not anyone ever waits for a grace period.
  using Retire = std::function<void(std::shared_ptr<const void> snapshot)>;
  explicit CodeMap(Retire retire) : retire_(std::move(retire)) {}
  ~CodeMap();
  CodeMap(const CodeMap &) = delete;
  CodeMap &operator=(const CodeMap &) = delete;

  // The kernel image: its functions from the symbol table of the ELF file
  // at `path` (the running executable), its call-frame information from
  // the executable's PT_GNU_EH_FRAME table.
  Result<void> init_kernel(const std::string &path) EXCLUDES(mu_);
  // A module once it is linked; `base`/`size` is its image.  Nothing is
  // read from `obj` until a table is wanted.
  void add_module(const void *owner, const std::string &name,
                  std::shared_ptr<const ObjectFile> obj, const Placement &pl,
                  u64 base, u64 size) EXCLUDES(mu_);
  void remove_module(const void *owner) EXCLUDES(mu_);
  // The module's code in [lo, hi) is freed (its init text): addresses
  // there no longer name a function nor unwind.
  void free_code(const void *owner, u64 lo, u64 hi) EXCLUDES(mu_);

  // Probe context, inside an RCU read-side critical section: the image
  // containing `pc`, or nullptr.
  const CodeImage *image_at(u64 pc) const;
  // Any thread: "module`function+0xoff", "module`function" at its first
  // byte, "module`0x..." outside every function, "0x..." outside every
  // image (DTrace's forms).
  std::string symbolize(u64 pc) const EXCLUDES(mu_);
  // The name of the function holding `pc` alone (no module, no offset), or
  // "" if none.
  std::string function_name(u64 pc) const EXCLUDES(mu_);
  // Any thread but probe context: the function of any image that holds
  // `pc` (its address and size), or nothing.
  std::optional<CodeImage::Func> function_at(u64 pc) const EXCLUDES(mu_);
  // A stack walker (stack() in a running program) comes and goes: while
  // one is there, every image has its FDE table, built now for the
  // images there are and at load for modules loaded meanwhile.
  void use_unwind(int delta) const EXCLUDES(mu_);
  // The kernel image (nullptr before init_kernel).
  std::shared_ptr<const CodeImage> kernel() const EXCLUDES(mu_);

private:
  struct Snapshot {
    std::vector<std::shared_ptr<const CodeImage>> images; // by lo
  };
  // The image holding `pc` in the current snapshot (null: none), with the
  // snapshot that keeps it alive.
  struct Holder {
    std::shared_ptr<const Snapshot> snapshot;
    const CodeImage *image = nullptr;
  };
  Holder holder(u64 pc) const EXCLUDES(mu_);
  // Make `images` the current snapshot; the one it replaces, for retire_
  // (called without the lock: it may wait for a grace period).
  std::shared_ptr<const Snapshot>
  publish(std::vector<std::shared_ptr<const CodeImage>> images) REQUIRES(mu_);

  const Retire retire_;
  mutable Mutex mu_;
  std::shared_ptr<const Snapshot> current_ GUARDED_BY(mu_);
  std::atomic<const Snapshot *> live_{nullptr};
  mutable int unwind_users_ GUARDED_BY(mu_) = 0;
};

} // namespace mk
