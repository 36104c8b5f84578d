// Writing to live text.  All writes into executable pages go through a
// writable alias of the same physical pages (the module arena's, or the
// kernel image's text, remapped onto a memfd at boot), so no page is ever
// writable and executable.  PatchEngine applies a batch of site rewrites
// with the x86 cross-modifying-code protocol: int3 on every first byte,
// serialise every thread, write every tail, serialise, write every first
// byte, serialise.  A batch costs three serialisations however many sites it
// has.  A thread that meets a transient int3 is resumed by the SIGTRAP
// handler as if it had executed the site's final instruction.
#pragma once

#include "../linker/base.h"
#include "x86.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace mk {

class TextAliases {
public:
  void add(u64 lo, u64 hi, u8 *alias);
  // The writable alias of text address `addr`, or nullptr.
  u8 *alias(u64 addr) const;

private:
  struct Range {
    u64 lo, hi;
    u8 *alias;
  };
  std::vector<Range> ranges_;
};

struct PatchOp {
  u64 addr;
  u8 len;
  u8 bytes[8]; // the final instruction
};

// Breakpoint-mode sites (illumos style): the int3 stays; the trap fires the
// probe and then acts as the disabled instruction.
struct BreakpointSite {
  u64 addr;
  u8 len;
  u32 probe;
  x86::Emul then;
};

class PatchEngine {
public:
  explicit PatchEngine(TextAliases &t) : text_(t) {}
  ~PatchEngine();
  // Remap the kernel image's executable segment onto a memfd so it has a
  // writable alias too; register membarrier and the SIGTRAP handler.
  Result<void> init();
  void apply(const std::vector<PatchOp> &ops,
             const std::vector<BreakpointSite> &breakpoints);
  // Every thread of the process executes a serialising instruction.
  void serialise();
  u64 serialisations() const { return serialisations_; }

private:
  TextAliases &text_;
  std::mutex mu_;
  std::vector<BreakpointSite> breakpoints_;
  std::atomic<u64> serialisations_{0};
  bool membarrier_ok_ = false;
};

// Wait until every probe handler running now has returned (see sdt.cpp).
void dispatch_synchronize();

} // namespace mk
