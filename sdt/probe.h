// The vocabulary consumers and providers share: how a probe is named and
// matched, what a consumer may know about one, and the callback a probe
// calls when it fires.  Everything a consumer receives here is a copy: it
// stays valid after the probe itself is gone (a module unloaded).
#pragma once

#include "../linker/base.h"

#include <string>
#include <vector>

namespace mk {

// Called on whatever thread fires the probe, with its six arguments.
using ProbeCallback = void (*)(void *ctx, u32 probe_id, const uintptr_t *args);

// x86_64: fn(a, b, c, d) with the vector argument registers (xmm0-7)
// saved around the call.  A callback that keeps them (built with
// -mgeneral-regs-only) calls whatever else it runs through this.
using KeepVectorFn = void (*)(uintptr_t, uintptr_t, uintptr_t, uintptr_t);
#if defined(__x86_64__)
extern "C" void mk_call_keeping_vector(KeepVectorFn fn, uintptr_t a, uintptr_t b,
                                       uintptr_t c, uintptr_t d);
#else
inline void mk_call_keeping_vector(KeepVectorFn fn, uintptr_t a, uintptr_t b,
                                   uintptr_t c, uintptr_t d) {
  fn(a, b, c, d);
}
#endif

// Where the probed code was when a probe fired: the frame stack() walks
// from.  Frame 0 is the function the probe is in (SDT, profile) or, for a
// function-boundary probe, the caller of the traced function.
struct ProbeFrame {
  uintptr_t pc = 0;     // a return address, unless `exact`
  uintptr_t pc_loc = 0; // where that return address lies on the stack (0:
                        // not on the stack)
  uintptr_t sp = 0;     // the stack pointer at pc
  uintptr_t fp = 0;     // the frame pointer register at pc
  bool exact = false;   // pc is the interrupted instruction itself
};

// A provider whose trampolines change what a stack holds (fbt: its return
// trampoline stands in for return addresses, its entry and return
// trampolines save registers in frames of their own) installs these, so
// that the probe core and the unwinder read such frames without knowing
// the provider.  Both run in probe context and in a panic's report.
struct TrampolineHooks {
  // The frame of a probe fired from a trampoline's fast path, from what it
  // saved (t_probe_frame's tags 2 and 3, registry.h).
  ProbeFrame (*frame)(uintptr_t tag, const uintptr_t *saved) = nullptr;
  // The real return address for `ra`, read from the stack at `loc`.
  uintptr_t (*real_return)(uintptr_t ra, uintptr_t loc) = nullptr;
};
// Installed once, before any probe fires (a static initializer).
void set_trampoline_hooks(const TrampolineHooks &h);
// `ra` as the installed hook reads it (itself, without one).
uintptr_t real_return_address(uintptr_t ra, uintptr_t loc);

// How enabled sites reach the probe.
enum class PatchMode : u8 {
  Call,       // a call/jmp into the probe's trampoline (the default)
  Breakpoint, // int3; the SIGTRAP handler fires the probe (illumos style)
};

// What a consumer may know about a probe.
struct ProbeInfo {
  u32 id = 0;
  std::string provider, module, function, name;
  std::vector<std::string> argtypes; // empty: the provider declares none
  std::string full() const {
    return provider + ":" + module + ":" + function + ":" + name;
  }
};

// One site of a probe, for listings (`dtrace -S`).
struct SiteInfo {
  u64 addr = 0;
  u8 len = 0;
  std::string kind;     // "call", "tail call", "is-enabled" ...
  std::string function; // the function holding it
  u64 func_addr = 0;    // 0: unknown
  bool stub = false;    // a probe stub for code calling through a register
  bool enabled = false;
};

// A probe description "provider:module:function:name"; fields may be empty
// (match anything) or globs (* ? [..]).  Fewer fields fill from the right:
// "name", "function:name", "module:function:name".
struct ProbeDesc {
  std::string provider, module, function, name;
  static ProbeDesc parse(const std::string &s);
  bool matches(const ProbeInfo &p) const;
  bool matches(const std::string &prov, const std::string &mod,
               const std::string &func, const std::string &name) const;
};

// A ProbeDesc compiled for matching many probes: each field is decided once
// to match anything, to be compared as a string (most fields), or to be a
// glob, instead of once per probe.  Holds a copy of the description;
// ProbeDesc::matches decides the same way per call, without copying.
class ProbeMatcher {
public:
  explicit ProbeMatcher(const ProbeDesc &d);
  bool operator()(const std::string &prov, const std::string &mod,
                  const std::string &func, const std::string &name) const;
  bool operator()(const ProbeInfo &p) const {
    return (*this)(p.provider, p.module, p.function, p.name);
  }

private:
  struct Field {
    std::string pat;
    u8 kind = 0; // registry.cpp's PatKind: any, literal, glob
    bool operator()(const std::string &v) const;
  };
  Field f_[4];
};

} // namespace mk
