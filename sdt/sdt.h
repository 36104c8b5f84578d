// The SDT provider: statically defined tracing, in two site styles.
//
// Call sites (illumos): a call of an undefined probe function
// (<sys/sdt.h>); the module loader rewrites each into a NOP sled as it
// relocates the module (the hooks below), the site recorder did the same to
// the kernel image's objects at build time (its records are the
// `sdt_sites_set` linker set).
//
// asm-goto sites (FreeBSD 2024): a 5-byte NOP whose record {probe
// definition, patch point, out-of-line target} the compiler put into the
// `sdt_tracepoint_set` linker set; the loader relocated it as data, this
// provider checks every field before the module's code first runs.  The
// out-of-line block calls the probe function: a call site of the same
// probe, so the arguments reach the trampoline the usual way.
//
// Enabling patches every site of a batch through the patch engine: call
// sites into a call or jump to the probe's trampoline (or an int3, in
// breakpoint mode), asm-goto patch points into a jmp to their block.
#pragma once

#include "../linker/sync.h"
#include "provider.h"
#include "site.h"

#include <map>

struct sdt_probedef;

namespace mk {

class SdtProvider final : public Provider {
public:
  const char *name() const override { return "sdt"; }
  // The kernel image's probes, from the site recorder's linker set.
  Result<void> provide(ProbeRegistry &r) override;
  std::unique_ptr<ModuleProbes> begin_module(const std::string &name) override;
  Result<void> enable(const ProbeBatch &b, PatchMode mode) override;
  void disable(const ProbeBatch &b) override;
  std::vector<std::string> argtypes(const Probe &p) const override;
  std::vector<SiteInfo> sites(const Probe &p) const override;
  void destroy(Probe &p) override;
  void remove_module(const void *owner) override EXCLUDES(defs_mu_);

  // One site of a probe.
  struct Site {
    u64 addr = 0; // first byte of the instruction
    u8 len = 0;   // 5 or 6
    SiteKind kind = SiteKind::Call;
    u64 target = 0;    // Goto: the out-of-line block
    bool stub = false; // a probe stub rather than an instruction of the code
    u8 disabled[8] = {};
    std::string function;
    u64 func_addr = 0; // 0: unknown (the kernel image's sites)
  };

private:
  friend class SdtModuleProbes;
  // Add a site to probe `p` (its ProbeData made on the first).
  void add_site(Probe &p, Site s, const std::vector<std::string> &argtypes);
  // The kernel image's asm-goto records.
  Result<void> provide_tracepoints(ProbeRegistry &r,
                                   const std::vector<const sdt_probedef *> &defs);
  // Probe definitions by owner (null: the kernel image): an asm-goto record
  // may name one of its own module's, or one it bound from a dependency.
  void add_defs(const void *owner, std::vector<u64> defs) EXCLUDES(defs_mu_);
  bool is_def(u64 addr) const EXCLUDES(defs_mu_);
  ProbeRegistry *reg_ = nullptr; // set by provide(), at boot
  mutable Mutex defs_mu_;
  std::map<const void *, std::vector<u64>> defs_ GUARDED_BY(defs_mu_);
};

} // namespace mk
