// The SDT provider: statically defined tracing the illumos way.  A probe
// site is a call of an undefined probe function (<sys/sdt.h>); the module
// loader rewrites each into a NOP sled as it relocates the module (the
// hooks below), the site recorder did the same to the kernel image's
// objects at build time (its records are the `sdt_sites_set` linker set).
// Enabling patches every site of a batch into a call or jump to its probe's
// trampoline (or an int3, in breakpoint mode), through the patch engine.
#pragma once

#include "provider.h"
#include "site.h"

struct sdt_probedef;

namespace mk {

class SdtProvider final : public Provider {
public:
  const char *name() const override { return "sdt"; }
  // The kernel image's probes, from the site recorder's linker set.
  Result<void> provide(ProbeRegistry &r) override;
  std::unique_ptr<ModuleProbes> begin_module(const std::string &name) override;
  Result<void> enable(const std::vector<Probe *> &probes,
                      PatchMode mode) override;
  void disable(const std::vector<Probe *> &probes) override;
  std::vector<std::string> argtypes(const Probe &p) const override;
  std::vector<SiteInfo> sites(const Probe &p) const override;
  void destroy(Probe &p) override;

  // One site of a probe.
  struct Site {
    u64 addr = 0; // first byte of the instruction
    u8 len = 0;   // 5 or 6
    SiteKind kind = SiteKind::Call;
    bool stub = false; // a probe stub rather than an instruction of the code
    u8 disabled[8] = {};
    std::string function;
    u64 func_addr = 0; // 0: unknown (the kernel image's sites)
  };

private:
  friend class SdtModuleProbes;
  // Add a site to probe `p` (its ProbeData made on the first).
  void add_site(Probe &p, Site s, const std::vector<std::string> &argtypes);
  ProbeRegistry *reg_ = nullptr; // set by provide(), at boot
};

} // namespace mk
