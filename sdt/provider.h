// The provider interface: how a probe mechanism (SDT sites, and later
// function-boundary and profile probes) offers probes to the framework,
// after DTrace's provider operations (dtrace_pops_t):
//
//   provide         create the probes of the kernel image, at boot
//   provide_matching  create probes a description names that exist only
//                   on demand (profile-1234), before it is matched
//   begin_module    a module is being loaded: hooks into its link (probe
//                   sites are found among its relocations), then
//                   ModuleProbes::provide creates its probes
//   enable/disable  make a batch of probes fire or stop (all sites of a
//                   batch are patched together)
//   argtypes        describe a probe's arguments
//   sites           list a probe's sites (for `dtrace -S`)
//   destroy         a probe goes (its module is unloading), after it has
//                   been disabled and no thread can be inside its sites'
//                   handlers
//   forget_module   the module is going: make none of its probes any more
//   forget_code     part of the module's code is freed (Linux's init text):
//   drop_sites      make no probe there any more; a probe with sites there
//                   and elsewhere loses those
//   remove_module   the module itself goes
//
// Consumers (the D consumer, handler modules) never see a provider: they
// match, list and enable probes through the ProbeRegistry.
#pragma once

#include "../linker/link.h"
#include "probe.h"

#include <memory>
#include <string>
#include <vector>

namespace mk {

class ProbeRegistry;
struct Probe;

// A module as providers see it once it is linked.
struct ModuleImage {
  const void *owner = nullptr; // the module's identity; its probes go with it
  std::string name;            // "memdev": the probe's module field
  const ObjectFile &obj;
  const Placement &pl;
  u64 base = 0, size = 0; // the image in memory
  // `obj` shared, for what reads it after the load (the code map names
  // the module's functions from it when first asked); nullptr: a copy is
  // kept.
  std::shared_ptr<const ObjectFile> shared_obj = nullptr;
};

// What a provider keeps per probe (its sites, argument types ...).
struct ProbeData {
  virtual ~ProbeData() = default;
};

// One module being loaded, for one provider: the hooks it adds to the
// module's link, then its probes once the module is linked.
class ModuleProbes : public LinkHooks {
public:
  virtual Result<void> provide(ProbeRegistry &r, const ModuleImage &m) = 0;
};

// One provider's share of an enabling: its probes, and their ids in the
// same order (a provider that keeps its per-probe state by id need not
// touch the probe objects: an enabling may have 100 000s).
struct ProbeBatch {
  std::vector<Probe *> probes;
  std::vector<u32> ids;
  void add(Probe *p, u32 id) { probes.push_back(p), ids.push_back(id); }
  size_t size() const { return ids.size(); }
  bool empty() const { return ids.empty(); }
};

class Provider {
public:
  virtual ~Provider() = default;
  // The mechanism's name ("sdt"); each probe carries its own DTrace
  // provider name ("memdev", "kernel").
  virtual const char *name() const = 0;
  virtual Result<void> provide(ProbeRegistry &r) {
    (void)r;
    return {};
  }
  virtual void provide_matching(ProbeRegistry &r, const ProbeDesc &d) {
    (void)r, (void)d;
  }
  // nullptr: the provider has nothing to do with modules.
  virtual std::unique_ptr<ModuleProbes> begin_module(const std::string &name) {
    (void)name;
    return nullptr;
  }
  // Called with the registry's lock held, one batch per enabling.
  virtual Result<void> enable(const ProbeBatch &b, PatchMode mode) = 0;
  virtual void disable(const ProbeBatch &b) = 0;
  virtual std::vector<std::string> argtypes(const Probe &p) const = 0;
  virtual std::vector<SiteInfo> sites(const Probe &p) const {
    (void)p;
    return {};
  }
  // The probe is disabled and unreachable; free what the provider holds
  // for it (its ProbeData goes with the probe).
  virtual void destroy(Probe &p) { (void)p; }
  // The module is going (after its probes were destroyed): forget what the
  // provider keeps about it besides probes.
  virtual void remove_module(const void *owner) { (void)owner; }
  // The module is going, before its probes are gathered: make no more of
  // them (a provider that makes a module's probes on demand, from
  // provide_matching, drops what it kept for that).
  virtual void forget_module(const void *owner) { (void)owner; }
  // The module's code in [lo, hi) is being freed: make no probe there any
  // more (what provide_matching would make from it).
  virtual void forget_code(const void *owner, u64 lo, u64 hi) {
    (void)owner, (void)lo, (void)hi;
  }
  // Probe `p` has sites both in [lo, hi), which is being freed, and
  // elsewhere: forget those in the range (called with the registry's lock
  // held; a probe whose every site is there is destroyed instead).
  virtual void drop_sites(Probe &p, u64 lo, u64 hi) {
    (void)p, (void)lo, (void)hi;
  }
};

} // namespace mk
