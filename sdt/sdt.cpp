// The SDT provider (see sdt.h).
#include "sdt.h"

#include "../linker/code.h"
#include "registry.h"
#include "site_record.h"
#include "trampoline.h"
#include "x86.h"

#include <sys/sdt.h>

#include <cstring>
#include <elf.h>
#include <set>

// The kernel image's own probes: definitions, and the site records the
// site recorder put into the kernel's objects at build time.
SET_DECLARE(sdt_probes_set, struct sdt_probedef);
extern "C" {
extern const struct sdt_site_record __start_set_sdt_sites_set[]
    __attribute__((weak));
extern const struct sdt_site_record __stop_set_sdt_sites_set[]
    __attribute__((weak));
}

namespace mk {

namespace {

struct SdtProbe : ProbeData {
  std::vector<SdtProvider::Site> sites;
  std::vector<std::string> argtypes;
};

SdtProbe &data_of(const Probe &p) { return *static_cast<SdtProbe *>(p.data.get()); }

} // namespace

void SdtProvider::add_site(Probe &p, Site s,
                           const std::vector<std::string> &argtypes) {
  if (!p.data) {
    auto d = std::make_unique<SdtProbe>();
    d->argtypes = argtypes;
    p.data = std::move(d);
  }
  x86::disabled_bytes(s.kind, s.len, s.disabled);
  data_of(p).sites.push_back(std::move(s));
}

// ---- the kernel image -----------------------------------------------------------

Result<void> SdtProvider::provide(ProbeRegistry &r) {
  reg_ = &r;
  std::vector<const sdt_probedef *> defs;
  sdt_probedef *const *d;
  SET_FOREACH(d, sdt_probes_set) defs.push_back(*d);
  size_t nsites = 0;
  for (const sdt_site_record *rec = __start_set_sdt_sites_set;
       rec && rec < __stop_set_sdt_sites_set; rec++) {
    const std::string prov(rec->provider,
                           strnlen(rec->provider, SDT_SITE_PROVIDER_MAX));
    const std::string name(rec->name, strnlen(rec->name, SDT_SITE_NAME_MAX));
    const std::string func =
        pretty_function({rec->function, strnlen(rec->function, SDT_SITE_FUNC_MAX)});
    Site s;
    s.addr = rec->site;
    s.len = (u8)rec->len;
    s.kind = (SiteKind)rec->kind;
    s.function = func;
    // The recorder wrote the NOPs into the object; check they are there.
    u8 disabled[8], live[8];
    x86::disabled_bytes(s.kind, s.len, disabled);
    if (s.len < 5 || s.len > 6 || !r.patcher().read(s.addr, live, s.len) ||
        std::memcmp(live, disabled, s.len) != 0)
      return error(strf("sdt: kernel probe site %s:kernel:%s:%s at 0x%llx does "
                        "not hold its NOP sled",
                        prov.c_str(), func.c_str(), name.c_str(),
                        (unsigned long long)s.addr));
    Probe *p = r.create(*this, prov, "kernel", func, name, nullptr);
    add_site(*p, std::move(s), probedef_argtypes(defs, prov, name));
    nsites++;
  }
  return {};
}

// ---- modules --------------------------------------------------------------------------
//
// While a module is linked: a probe symbol binds to a stub of its own (for
// code that loads the probe function's address), and each relocation
// against one is a site, rewritten into its disabled form in the module's
// writable image (illumos' sdt_reloc_resolve).  Once linked: the probes.

// The module's probe definitions (its sdt_probes_set), each record and
// every string it names checked to lie in the module's image before
// probedef_argtypes() reads them: the module's relocations made them.
static Result<std::vector<const sdt_probedef *>>
probe_definitions(const ModuleImage &m) {
  const ImageReader img(m.obj, m.pl);
  auto set = img.set("sdt_probes_set");
  if (!set)
    return set.take_error();
  std::vector<const sdt_probedef *> defs;
  for (size_t i = 0; i < set->size(); i++) {
    const std::string what = strf("probe definition %zu", i);
    auto d = img.record_of<const sdt_probedef>((*set)[i], what);
    if (!d)
      return d.take_error();
    const sdt_probedef &pd = **d;
    for (const char *f : {pd.provider, pd.module, pd.function, pd.name})
      MK_TRY(img.string((u64)(uintptr_t)f, what, true));
    for (int a = 0; a < pd.nargs && a < 6; a++)
      MK_TRY(img.string((u64)(uintptr_t)pd.argtypes[a],
                        strf("%s argument %d type", what.c_str(), a), true));
    defs.push_back(*d);
  }
  return defs;
}

class SdtModuleProbes final : public ModuleProbes {
public:
  SdtModuleProbes(SdtProvider &prov, std::string module)
      : prov_(prov), module_(std::move(module)) {}
  ~SdtModuleProbes() override {
    // A load that failed before provide() leaves its stubs here.
    for (u64 s : stubs_)
      prov_.reg_->trampolines().release_stub(s);
  }

  std::optional<Result<u64>> bind(const std::string &n) override {
    if (!is_probe_symbol(n))
      return std::nullopt;
    auto ps = parse_probe_symbol(n);
    if (!ps)
      return Result<u64>(
          error(strf("%s: malformed probe symbol %s", module_.c_str(), n.c_str())));
    u8 bytes[8];
    x86::disabled_bytes(ps->is_enabled ? SiteKind::IsEnabledTail
                                       : SiteKind::TailJump,
                        5, bytes);
    auto stub = prov_.reg_->trampolines().make_stub(bytes);
    if (!stub)
      return Result<u64>(error(module_ + ": " + stub.error().message));
    stubs_.push_back(*stub);
    return stub;
  }

  bool claims(const Symbol &s) const override { return is_probe_symbol(s.name); }

  Result<bool> take(const SiteContext &c) override {
    auto f = find_site(c.obj, c.section, c.rel, c.section_mem);
    if (!f)
      return f.take_error();
    if (f->address_load) {
      // The code calls the probe through a register: its site is the stub
      // the symbol was bound to; the loader resolves this reference to it.
      if (std::find(stubs_.begin(), stubs_.end(), c.symbol_value) ==
          stubs_.end())
        return error(strf("%s:(%s+0x%llx): probe symbol %s has no stub",
                          c.obj.name.c_str(),
                          c.obj.sections[c.section].name.c_str(),
                          (unsigned long long)c.rel.offset,
                          c.obj.symbols[c.rel.sym].name.c_str()));
      pending_.push_back(Pending{*f, c.symbol_value, c.section, true});
      return false;
    }
    u8 bytes[8];
    x86::disabled_bytes(f->kind, f->len, bytes);
    code::copy(c.section_mem + f->insn_off, bytes, f->len);
    const u64 addr = c.field_addr - (c.rel.offset - f->insn_off);
    pending_.push_back(Pending{*f, addr, c.section, false});
    return true;
  }

  Result<void> provide(ProbeRegistry &r, const ModuleImage &m) override {
    auto defs = probe_definitions(m);
    if (!defs)
      return defs.take_error();
    std::set<u64> seen;
    for (const Pending &ps : pending_) {
      if (!seen.insert(ps.addr).second)
        continue; // a stub referenced more than once is one site
      const SiteHolder h = find_holder(m.obj, ps.section, ps.site.insn_off);
      SdtProvider::Site s;
      s.addr = ps.addr;
      s.len = ps.stub ? 5 : ps.site.len;
      s.kind = ps.site.kind;
      s.stub = ps.stub;
      s.function = pretty_function(h.function);
      s.func_addr = h.sym && m.obj.symbols[h.sym].type == STT_FUNC
                        ? m.pl.sec_addr[ps.section] + h.value
                        : 0;
      Probe *p = r.create(prov_, ps.site.probe.provider, m.name, s.function,
                          ps.site.probe.name, m.owner);
      prov_.add_site(*p, std::move(s),
                     probedef_argtypes(*defs, p->provider, p->name));
    }
    // The stubs now belong to the probes' sites (freed in destroy()); an
    // unused one goes now.
    for (u64 st : stubs_)
      if (!seen.count(st))
        r.trampolines().release_stub(st);
    stubs_.clear();
    return {};
  }

private:
  struct Pending {
    FoundSite site;
    u64 addr;
    u32 section;
    bool stub;
  };
  SdtProvider &prov_;
  std::string module_;
  std::vector<Pending> pending_;
  std::vector<u64> stubs_;
};

std::unique_ptr<ModuleProbes>
SdtProvider::begin_module(const std::string &name) {
  return std::make_unique<SdtModuleProbes>(*this, name);
}

// ---- enabling ----------------------------------------------------------------------

Result<void> SdtProvider::enable(const std::vector<Probe *> &probes,
                                 PatchMode mode) {
  std::vector<PatchOp> ops;
  for (Probe *p : probes) {
    if (!p->data)
      continue;
    auto tramp = reg_->trampolines().trampoline(p->slot);
    if (!tramp)
      return tramp.take_error();
    for (const Site &s : data_of(*p).sites) {
      // The kernel image's text is one per process; another kernel booted
      // in the same process (the tests do that) may have patched a site.
      u8 now[8];
      if (reg_->patcher().read(s.addr, now, s.len) &&
          std::memcmp(now, s.disabled, s.len) != 0)
        return error(strf("probe %s: its site at 0x%llx is enabled by another "
                          "kernel in this process",
                          p->full().c_str(), (unsigned long long)s.addr));
      PatchOp op{s.addr, s.len, {}};
      const bool calls = s.kind == SiteKind::Call || s.kind == SiteKind::TailJump;
      if (mode == PatchMode::Breakpoint && calls) {
        x86::breakpoint_bytes(s.disabled, s.len, op.bytes);
        op.fire = p->slot;
        op.then = s.kind == SiteKind::TailJump ? x86::Emul::Ret : x86::Emul::Skip;
      } else {
        u64 target = *tramp;
        if (s.kind == SiteKind::IsEnabledTail) {
          auto r1 = reg_->trampolines().return_one();
          if (!r1)
            return r1.take_error();
          target = *r1;
        }
        x86::enabled_bytes(s.kind, s.len, s.addr, target, op.bytes);
      }
      ops.push_back(op);
    }
  }
  reg_->patcher().apply(ops);
  return {};
}

void SdtProvider::disable(const std::vector<Probe *> &probes) {
  std::vector<PatchOp> ops;
  for (Probe *p : probes)
    if (p->data)
      for (const Site &s : data_of(*p).sites) {
        PatchOp op{s.addr, s.len, {}};
        std::memcpy(op.bytes, s.disabled, s.len);
        ops.push_back(op);
      }
  reg_->patcher().apply(ops);
}

std::vector<std::string> SdtProvider::argtypes(const Probe &p) const {
  return p.data ? data_of(p).argtypes : std::vector<std::string>{};
}

std::vector<SiteInfo> SdtProvider::sites(const Probe &p) const {
  std::vector<SiteInfo> out;
  if (!p.data)
    return out;
  for (const Site &s : data_of(p).sites) {
    SiteInfo i;
    i.addr = s.addr;
    i.len = s.len;
    i.kind = site_kind_name(s.kind);
    i.function = s.function;
    i.func_addr = s.func_addr;
    i.stub = s.stub;
    u8 now[8];
    i.enabled = reg_->patcher().read(s.addr, now, s.len) &&
                std::memcmp(now, s.disabled, s.len) != 0;
    out.push_back(std::move(i));
  }
  return out;
}

void SdtProvider::destroy(Probe &p) {
  if (!p.data)
    return;
  for (const Site &s : data_of(p).sites)
    if (s.stub)
      reg_->trampolines().release_stub(s.addr);
}

} // namespace mk
