// Writing to live text.  All writes into executable pages go through a
// writable alias of the same physical pages (the module arena's, or the
// kernel image's text, remapped onto a memfd at boot), so no page is ever
// writable and executable, and through linker/code.h's primitive.  An
// alias is mapped only while a batch (or a load) writes (WritableView,
// linker/arena.h): at rest no writable mapping of any code page exists.
// PatchEngine applies a batch of site rewrites with the x86
// cross-modifying-code protocol: int3 on every first byte, serialise every
// thread, write every tail, serialise, write every first byte, serialise.
// A batch costs three serialisations however many sites it has.  A thread
// that meets a transient int3 is resumed by the SIGTRAP handler as if it
// had executed the site's final instruction.
#pragma once

#include "../linker/arena.h"
#include "../linker/base.h"
#include "../linker/sync.h"
#include "x86.h"

#include <atomic>
#include <signal.h>
#include <map>
#include <vector>

namespace mk {

namespace x86 {
// Instructions moved: the `n` bytes at `src`, written to run at `from`,
// copied to `out` to run at `to` (Linux's alternatives copy a replacement
// over the original).  Relative calls, jumps and RIP-relative operands
// that reach outside the bytes themselves are re-aimed at the same
// target; one whose new displacement does not fit its field, or bytes
// that do not decode, fail with the reason.  x86_64 encodings.
Result<void> move_code(const u8 *src, size_t n, u64 from, u64 to, u8 *out);
} // namespace x86

struct ProbeSlot;
struct TrapTable;

// Executing address -> writable alias, for every range of code minikern
// may write: the kernel image's text and the module arena.
class TextAliases {
public:
  void add(u64 lo, u64 hi, WritableView *view);
  // The writable alias of text address `addr` (usable while its view is
  // open), or nullptr.
  u8 *alias(u64 addr) const;
  bool contains(u64 addr) const;
  // Every view mapped for the scope's lifetime.
  std::vector<WritableView::Scope> open_all() const;

private:
  struct Range {
    u64 lo, hi;
    WritableView *view;
  };
  std::vector<Range> ranges_;
};

// Whether the `n` bytes at `a` and `b` (one site's few) are the same: a
// loop, not a library call; a batch compares every one of its sites.
inline bool same_bytes(const u8 *a, const u8 *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return false;
  return true;
}

// One site's rewrite.  A breakpoint-mode site (illumos style: `bytes`
// start with int3, which stays) names the probe the trap fires and what the
// trap then does in place of the disabled instruction; any other rewrite of
// a site ends its breakpoint mode.
struct PatchOp {
  u64 addr;
  u8 len;
  u8 bytes[8]; // the final instruction
  const ProbeSlot *fire = nullptr; // breakpoint mode: the probe to fire
  x86::Emul then = x86::Emul::Skip;
  x86::TrapArgs args = x86::TrapArgs::Call; // breakpoint mode: its arguments
  u64 func = 0; // breakpoint mode, TrapArgs::Return: the function
  u16 pop = 0;  // breakpoint mode, a `ret $N`: N
};

// Where a breakpoint trap goes that no probe site explains (an int3 in
// module code): the kernel's panic handler sets this (kern_panic.cpp);
// unset, the trap goes to whatever handled SIGTRAP before the first patch
// engine took it.  Process-wide, as SIGTRAP is.
using UnexplainedTrap = void (*)(int sig, siginfo_t *info, void *uctx);
void set_unexplained_trap_hook(UnexplainedTrap h);

class PatchEngine {
public:
  PatchEngine() = default;
  ~PatchEngine();
  PatchEngine(const PatchEngine &) = delete;
  PatchEngine &operator=(const PatchEngine &) = delete;
  // Give the kernel image's text a writable alias (once per process),
  // register membarrier and the SIGTRAP handler, and add the arena's
  // range [lo, hi) with its alias.
  Result<void> init(u64 arena_lo, u64 arena_hi, WritableView *arena_view);
  // Every writable view this engine writes through, mapped for the
  // scope's lifetime (a batch inside it maps nothing more).
  std::vector<WritableView::Scope> writing() const {
    return text_.open_all();
  }
  // Rewrite every op's site, all in one batch.
  void apply(const std::vector<PatchOp> &ops) EXCLUDES(mu_);
  // The bytes at `addr` now (read where they execute), or false if
  // minikern cannot write there.
  bool read(u64 addr, u8 *out, size_t n) const;
  // Every thread of the process executes a serialising instruction.
  void serialise();
  u64 serialisations() const { return serialisations_; }

private:
  // The SIGTRAP handler's table: every breakpoint, and `live`'s sites
  // while a batch is in flight.  Built in the spare table if there is one.
  TrapTable *make_table(const std::vector<const PatchOp *> &live)
      REQUIRES(mu_);
  // Publish `t` as the handler's table; the one it replaces becomes the
  // spare.
  void publish_table(TrapTable *t) REQUIRES(mu_);
  struct Breakpoint {
    u8 len;
    const ProbeSlot *fire;
    x86::Emul then;
    x86::TrapArgs args;
    u64 func;
    u16 pop;
  };
  TextAliases text_;
  Mutex mu_; // one batch at a time
  std::map<u64, Breakpoint> breakpoints_ GUARDED_BY(mu_); // by address
  int table_slot_ = -1; // this engine's trap table in the process state
  // A batch's scratch space, kept from one batch to the next: fresh
  // memory for 100 000 sites costs a page fault every 4 KiB.  The spare
  // trap table, its entries' room kept, is one of them.
  TrapTable *spare_ GUARDED_BY(mu_) = nullptr;
  std::vector<const PatchOp *> live_ GUARDED_BY(mu_);
  std::vector<u8 *> at_ GUARDED_BY(mu_);
  std::vector<size_t> runs_ GUARDED_BY(mu_); // make_table()'s
  std::atomic<u64> serialisations_{0};
};

} // namespace mk
