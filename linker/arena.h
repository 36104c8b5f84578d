// The module arena: one range of address space reserved at boot, from which
// every module's text, rodata (with its GOT) and data are allocated.  It is
// placed where every compile mode can reach the kernel: within rel32 reach of
// the kernel's text, and on x86_64 below 2 GiB for -fno-pic code's 32-bit
// absolute fields.
//
// The arena is a memfd mapped twice: the executing view, whose pages are at
// most one of read-only, read+write or read+execute, and a writable alias of
// the same pages at another address.  A module's image is written where it
// will run, while none of it is executable yet (write_in_place); code that
// may run (probe sites, trampolines) is written through the alias.  The
// alias is writable only while something writes (WritableView): at rest it
// is inaccessible, and no mapping anywhere in the process can write an
// executable page.
#pragma once

#include "base.h"
#include "sync.h"

#include <map>
#include <memory>

namespace mk {

enum class Protect { None, Read, ReadWrite, ReadExec };

// A writable view of a memfd's pages (code) that is accessible only while
// a writer holds it open: the first open() maps the whole file read+write
// at a fixed address over an inaccessible reservation, close() makes it
// inaccessible (PROT_NONE), later opens read+write again; its page tables
// stay from one writer to the next.  Opens nest (a patch batch inside a
// load, two threads); the last close shuts it.  The address never
// changes, so the view's pointers may be computed at any time but used
// only while open.
class WritableView {
public:
  // Reserve `size` bytes of address space for a view of `fd` (which this
  // keeps open); closed to begin with.
  static Result<std::unique_ptr<WritableView>> create(int fd, u64 size);
  ~WritableView();
  WritableView(const WritableView &) = delete;
  WritableView &operator=(const WritableView &) = delete;

  u8 *at() const { return at_; }
  u64 size() const { return size_; }
  void open() EXCLUDES(mu_);
  void close() EXCLUDES(mu_);
  bool is_open() const EXCLUDES(mu_);
  // Times the view was mapped (a cost `make bench` shows).
  u64 maps() const EXCLUDES(mu_);
  // While the view is closed: a number that changes when it is next
  // opened (kBusy while it is open).  The same number at two moments means
  // nothing wrote through the view in between, and it mapped no new pages.
  static constexpr u64 kBusy = ~0ull;
  u64 quiet_epoch() const EXCLUDES(mu_);

  // open() for a scope.
  class Scope {
  public:
    explicit Scope(WritableView *v) : v_(v) {
      if (v_)
        v_->open();
    }
    ~Scope() {
      if (v_)
        v_->close();
    }
    Scope(Scope &&o) noexcept : v_(o.v_) { o.v_ = nullptr; }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    WritableView *v_;
  };

private:
  WritableView() = default;
  int fd_ = -1;
  u8 *at_ = nullptr;
  u64 size_ = 0;
  mutable Mutex mu_;
  int depth_ GUARDED_BY(mu_) = 0;
  bool mapped_ GUARDED_BY(mu_) = false; // the file is mapped (PROT_NONE when closed)
  u64 maps_ GUARDED_BY(mu_) = 0;
  u64 opens_ GUARDED_BY(mu_) = 0;
};

// What a newly allocated block holds: zeros, or whatever its pages held
// last (the caller writes every byte itself: a module image is copied
// and its gaps zeroed by the link).
enum class Contents { Zeroed, Undefined };

class ModuleArena {
public:
  struct Block {
    u64 addr = 0;
    u64 size = 0;
    // The writable view's quiet_epoch() when the block was allocated: if
    // it is the same at release(), the view has no page of the block to
    // unmap.
    u64 view_epoch = WritableView::kBusy;
  };

  // Reserve `size` bytes of address space whose end is at most `limit`
  // (0: anywhere).  Nothing is committed until it is used.
  static Result<std::unique_ptr<ModuleArena>> reserve(u64 size, u64 limit);
  ~ModuleArena();
  ModuleArena(const ModuleArena &) = delete;
  ModuleArena &operator=(const ModuleArena &) = delete;

  // A page-aligned block of at least `size` bytes, aligned to `align`; its
  // executing view neither writable nor executable until protect() (pages
  // a freed block kept resident are readable); its alias writable while a
  // writing() scope is open.
  Result<Block> allocate(u64 size, u64 align,
                         Contents c = Contents::Zeroed) EXCLUDES(mu_);
  // Return the block's memory to the system and its range to the arena.
  void release(Block b) EXCLUDES(mu_);
  // Give back the pages of [addr, addr + size) inside a live block (a
  // module's init code and data, once init has run): their memory returns
  // to the system and the range becomes inaccessible, but stays the
  // block's until release().  Page-aligned.
  void discard(u64 addr, u64 size);
  // A newly allocated block about to be written whole (a module image):
  // read+write where it will run, not executable, its pages mapped in one
  // call rather than a fault per page; the address to write at.  The
  // writer gives each part its final protection with protect() before any
  // of it runs, as Linux's loader does, so no page is ever writable and
  // executable, and no view has to be opened for the copy.
  u8 *write_in_place(const Block &b);
  // A test option: freed blocks are filled with int3 and left mapped
  // read+execute, never reused, so a call into a module's freed code traps
  // at once (SIGTRAP: "no probe site explains") instead of running
  // whatever was loaded there next.
  void set_poison_freed(bool on) EXCLUDES(mu_);
  void protect(u64 addr, u64 size, Protect p);
  // The writable alias of executing-view address `addr`: usable only
  // inside a writing() scope.
  u8 *alias(u64 addr) const { return view_->at() + (addr - base_); }
  // The alias mapped for the scope's lifetime.
  WritableView::Scope writing() { return WritableView::Scope(view_.get()); }
  WritableView &view() { return *view_; }
  bool contains(u64 addr) const { return addr >= base_ && addr < base_ + size_; }

  u64 base() const { return base_; }
  u64 size() const { return size_; }
  u64 used() const EXCLUDES(mu_);
  static u64 page_size();

private:
  ModuleArena() = default;
  int fd_ = -1;
  u64 base_ = 0;
  u64 size_ = 0;
  std::unique_ptr<WritableView> view_;
  mutable Mutex mu_;
  std::map<u64, u64> free_ GUARDED_BY(mu_); // addr -> size, coalesced
  u64 used_ GUARDED_BY(mu_) = 0;
  u64 kept_ GUARDED_BY(mu_) = 0; // freed bytes kept resident
  bool poison_ GUARDED_BY(mu_) = false;
  static constexpr u64 kKeepBytes = 32ull << 20;
};

} // namespace mk
