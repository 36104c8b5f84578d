// The SDT provider (see sdt.h).
#include "sdt.h"

#include "../linker/code.h"
#include "registry.h"
#include "site_record.h"
#include "trampoline.h"
#include "x86.h"

#include <sys/sdt.h>

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <map>
#include <set>

// The kernel image's own probes: definitions, the site records the site
// recorder put into the kernel's objects at build time, and the asm-goto
// records the compiler emitted.
SET_DECLARE(sdt_probes_set, struct sdt_probedef);
extern "C" {
extern const struct sdt_site_record __start_set_sdt_sites_set[]
    __attribute__((weak));
extern const struct sdt_site_record __stop_set_sdt_sites_set[]
    __attribute__((weak));
extern const struct sdt_tracepoint __start_set_sdt_tracepoint_set[]
    __attribute__((weak));
extern const struct sdt_tracepoint __stop_set_sdt_tracepoint_set[]
    __attribute__((weak));
extern const char __executable_start[], etext[];
}

namespace mk {

namespace {

struct SdtProbe : ProbeData {
  std::vector<SdtProvider::Site> sites;
  std::vector<std::string> argtypes;
};

SdtProbe &data_of(const Probe &p) { return *static_cast<SdtProbe *>(p.data.get()); }

// An asm-goto site's disabled form: one 5-byte NOP instruction.
bool holds_goto_nop(const u8 *b) {
  u8 nop[5];
  x86::disabled_bytes(SiteKind::Goto, 5, nop);
  return std::memcmp(b, nop, 5) == 0;
}

// Whether a jmp rel32 at `from` reaches `to`.
bool rel32_reaches(u64 from, u64 to) {
  const i64 d = (i64)(to - (from + 5));
  return d >= INT32_MIN && d <= INT32_MAX;
}

std::string hex_bytes(const u8 *b, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; i++)
    s += strf("%s%02x", i ? " " : "", b[i]);
  return s;
}

} // namespace

void SdtProvider::add_defs(const void *owner, std::vector<u64> defs) {
  MutexLock g(defs_mu_);
  std::sort(defs.begin(), defs.end());
  defs_[owner] = std::move(defs);
}

bool SdtProvider::is_def(u64 addr) const {
  MutexLock g(defs_mu_);
  for (const auto &[owner, defs] : defs_)
    if (std::binary_search(defs.begin(), defs.end(), addr))
      return true;
  return false;
}

void SdtProvider::remove_module(const void *owner) {
  MutexLock g(defs_mu_);
  defs_.erase(owner);
}

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
  std::vector<u64> def_addrs;
  for (const sdt_probedef *pd : defs)
    def_addrs.push_back((u64)(uintptr_t)pd);
  add_defs(nullptr, std::move(def_addrs));
  return provide_tracepoints(r, defs);
}

// The kernel image's asm-goto records: checked like a module's (a kernel
// built by another toolchain could disagree with us), named from the
// image's own symbol table.
Result<void>
SdtProvider::provide_tracepoints(ProbeRegistry &r,
                                 const std::vector<const sdt_probedef *> &defs) {
  const sdt_tracepoint *first = __start_set_sdt_tracepoint_set,
                       *last = __stop_set_sdt_tracepoint_set;
  if (!first || first == last)
    return {};
  const u64 text_lo = (u64)(uintptr_t)__executable_start,
            text_hi = (u64)(uintptr_t)etext;
  std::set<u64> seen;
  for (const sdt_tracepoint *t = first; t < last; t++) {
    const size_t i = (size_t)(t - first);
    const u64 pp = (u64)t->patchpoint, target = (u64)t->target;
    const std::string rec = strf("kernel: tracepoint record %zu", i);
    if (std::find(defs.begin(), defs.end(), t->probe) == defs.end())
      return error(strf("%s: probe 0x%llx is not a probe definition of the "
                        "kernel",
                        rec.c_str(), (unsigned long long)(uintptr_t)t->probe));
    u8 live[5];
    if (pp < text_lo || pp + 5 > text_hi || !r.patcher().read(pp, live, 5))
      return error(strf("%s: patch point 0x%llx is not in the kernel's text",
                        rec.c_str(), (unsigned long long)pp));
    if (!holds_goto_nop(live))
      return error(strf("%s: patch point 0x%llx does not hold a 5-byte NOP "
                        "(%s)",
                        rec.c_str(), (unsigned long long)pp,
                        hex_bytes(live, 5).c_str()));
    if (target < text_lo || target >= text_hi)
      return error(strf("%s: target 0x%llx is not in the kernel's text",
                        rec.c_str(), (unsigned long long)target));
    if (!seen.insert(pp).second)
      return error(strf("%s: patch point 0x%llx has another record",
                        rec.c_str(), (unsigned long long)pp));
    const auto f = r.code().function_at(pp);
    const std::string fn = r.code().function_name(pp);
    Site s;
    s.addr = pp;
    s.len = 5;
    s.kind = SiteKind::Goto;
    s.target = target;
    s.function = fn.empty() ? "?" : fn;
    s.func_addr = f ? f->addr : 0;
    const std::string prov = t->probe->provider ? t->probe->provider : "",
                      name = probe_name_from_c(t->probe->name ? t->probe->name
                                                              : "");
    Probe *p = r.create(*this, prov, "kernel", s.function, name, nullptr);
    add_site(*p, std::move(s), probedef_argtypes(defs, prov, name));
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
      // The stub is the site; the function that loads it names the probe
      // (the first such function, when several share the stub).
      pending_.push_back(
          Pending{*f, c.symbol_value, c.section, true, c.rel.offset});
      return false;
    }
    u8 bytes[8];
    x86::disabled_bytes(f->kind, f->len, bytes);
    code::copy(c.section_mem + f->insn_off, bytes, f->len);
    const u64 addr = c.field_addr - (c.rel.offset - f->insn_off);
    pending_.push_back(Pending{*f, addr, c.section, false, f->insn_off});
    return true;
  }

  Result<void> provide(ProbeRegistry &r, const ModuleImage &m) override {
    auto checked = probe_definitions(m);
    if (!checked)
      return checked.take_error();
    const std::vector<const sdt_probedef *> defs = std::move(*checked);
    std::vector<u64> def_addrs;
    for (const sdt_probedef *d : defs)
      def_addrs.push_back((u64)(uintptr_t)d);
    prov_.add_defs(m.owner, def_addrs);
    std::set<u64> seen;
    for (const Pending &ps : pending_) {
      if (!seen.insert(ps.addr).second)
        continue; // a stub referenced more than once is one site
      const SiteHolder h = find_holder(m.obj, ps.section, ps.holder_off);
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
                     probedef_argtypes(defs, p->provider, p->name));
    }
    // The stubs now belong to the probes' sites (freed in destroy()); an
    // unused one goes now.
    for (u64 st : stubs_)
      if (!seen.count(st))
        r.trampolines().release_stub(st);
    stubs_.clear();
    return provide_tracepoints(r, m, defs);
  }

  // The three-word records of the linker set `set` in the module's image,
  // each passed to fn(record, what, index) with `what` naming it ("KIND
  // record N (set+0xOFF)"); the first error ends the walk.
  template <class Fn>
  Result<void> each_record(const ModuleImage &m, const char *set,
                           const char *kind, Fn &&fn) {
    const ObjectFile &obj = m.obj;
    const u32 rsize = 3 * pointer_size(obj);
    size_t index = 0;
    for (size_t si = 0; si < obj.sections.size(); si++) {
      const Section &sec = obj.sections[si];
      if (sec.name != set || !m.pl.sec_mem[si])
        continue;
      if (sec.size % rsize)
        return error(strf("%s: %s is %llu bytes, not a whole number of "
                          "%u-byte %s records",
                          obj.name.c_str(), sec.name.c_str(),
                          (unsigned long long)sec.size, rsize, kind));
      for (u64 off = 0; off < sec.size; off += rsize, index++)
        MK_TRY(fn(m.pl.sec_mem[si] + off,
                  strf("%s: %s record %zu (%s+0x%llx)", obj.name.c_str(), kind,
                       index, sec.name.c_str(), (unsigned long long)off),
                  index));
    }
    return {};
  }
  static u32 pointer_size(const ObjectFile &obj) {
    return obj.arch->elf_class() == ELFCLASS64 ? 8 : 4;
  }
  // The code section holding [addr, addr + len), or -1.
  static int code_section(const ModuleImage &m, u64 addr, u64 len) {
    for (size_t i = 0; i < m.obj.sections.size(); i++) {
      const Section &sec = m.obj.sections[i];
      if ((sec.flags & SHF_EXECINSTR) && m.pl.sec_addr[i] &&
          addr >= m.pl.sec_addr[i] && addr + len <= m.pl.sec_addr[i] + sec.size)
        return (int)i;
    }
    return -1;
  }
  // Whether `def` is a probe definition of this module or of a loaded one.
  Result<void> check_def(const std::vector<const sdt_probedef *> &defs,
                         u64 def, const std::string &what) const {
    if (std::find(defs.begin(), defs.end(),
                  (const sdt_probedef *)(uintptr_t)def) != defs.end() ||
        prov_.is_def(def))
      return {};
    return error(strf("%s: probe 0x%llx is not a probe definition (of this "
                      "module or a loaded one)",
                      what.c_str(), (unsigned long long)def));
  }

  // The module's asm-goto records (set_sdt_tracepoint_set), relocated by
  // the link as ordinary data.  Each is checked before it can be trusted
  // (FreeBSD's sdt_tracepoint_valid, and more): the probe is a definition
  // of this module or of one it may bind to, the patch point lies inside
  // one of its code sections and holds the 5-byte NOP, the target lies in
  // its code within rel32 reach.  The first bad record fails the load.
  Result<void> provide_tracepoints(ProbeRegistry &r, const ModuleImage &m,
                                   const std::vector<const sdt_probedef *> &defs) {
    const ObjectFile &obj = m.obj;
    const u32 psize = pointer_size(obj);
    std::map<u64, size_t> seen; // patch point -> record
    BlockProbes by_block;
    MK_TRY(each_record(m, "set_sdt_tracepoint_set", "tracepoint",
                       [&](const u8 *rec, const std::string &what,
                           size_t index) -> Result<void> {
      const u64 def = read_field(rec, psize),
                pp = read_field(rec + psize, psize),
                target = read_field(rec + 2 * psize, psize);
      MK_TRY(check_def(defs, def, what));
      const int ps = code_section(m, pp, 5);
      if (ps < 0)
        return error(strf("%s: patch point 0x%llx is not in the module's code",
                          what.c_str(), (unsigned long long)pp));
      const u64 pp_off = pp - m.pl.sec_addr[ps];
      const u8 *live = m.pl.sec_mem[ps] + pp_off;
      if (!holds_goto_nop(live))
        return error(strf("%s: patch point %s+0x%llx does not hold a 5-byte "
                          "NOP (%s)",
                          what.c_str(), obj.sections[ps].name.c_str(),
                          (unsigned long long)pp_off,
                          hex_bytes(live, 5).c_str()));
      if (code_section(m, target, 1) < 0)
        return error(strf("%s: target 0x%llx is not in the module's code",
                          what.c_str(), (unsigned long long)target));
      if (!rel32_reaches(pp, target))
        return error(strf("%s: target 0x%llx is out of jmp rel32 reach of "
                          "patch point 0x%llx",
                          what.c_str(), (unsigned long long)target,
                          (unsigned long long)pp));
      if (auto [it, fresh] = seen.emplace(pp, index); !fresh)
        return error(strf("%s: patch point %s+0x%llx is also record %zu's",
                          what.c_str(), obj.sections[ps].name.c_str(),
                          (unsigned long long)pp_off, it->second));
      const auto *pd = (const sdt_probedef *)(uintptr_t)def;
      const SiteHolder h = find_holder(obj, (u32)ps, pp_off);
      SdtProvider::Site s;
      s.addr = pp;
      s.len = 5;
      s.kind = SiteKind::Goto;
      s.target = target;
      s.function = pretty_function(h.function);
      s.func_addr = h.sym && obj.symbols[h.sym].type == STT_FUNC
                        ? m.pl.sec_addr[ps] + h.value
                        : 0;
      const std::string prov = pd->provider ? pd->provider : "",
                        name = probe_name_from_c(pd->name ? pd->name : "");
      Probe *p = r.create(prov_, prov, m.name, s.function, name, m.owner);
      by_block[{def, s.function}] = p;
      std::vector<std::string> types = probedef_argtypes(defs, prov, name);
      if (types.empty())
        types = probedef_argtypes({pd}, prov, name);
      prov_.add_site(*p, std::move(s), types);
      return {};
    }));
    return fill_goto_caches(m, defs, by_block);
  }

  // The blocks' cache records (set_sdt_goto_cache_set, <sys/sdt.h>): each
  // gets its probe's slot, so that the block can call a lone module
  // handler itself.  The probe is the one of the record's definition with
  // an asm-goto site in the function the block is in (a block the
  // compiler moved to "f.cold" is still f's).  A record is checked like a
  // tracepoint record; one with no such probe keeps __sdt_no_slot, and its
  // block its call site.
  using BlockProbes = std::map<std::pair<u64, std::string>, Probe *>;
  Result<void> fill_goto_caches(const ModuleImage &m,
                                const std::vector<const sdt_probedef *> &defs,
                                const BlockProbes &by_block) {
    const u32 psize = pointer_size(m.obj);
    if (psize != sizeof(uintptr_t))
      return {}; // not this process's kind of module: nothing runs its blocks
    const u64 no_slot = (u64)(uintptr_t)&__sdt_no_slot;
    return each_record(m, "set_sdt_goto_cache_set", "asm-goto cache",
                       [&](u8 *rec, const std::string &what,
                           size_t) -> Result<void> {
      const u64 def = read_field(rec + psize, psize),
                where = read_field(rec + 2 * psize, psize);
      if (read_field(rec, psize) != no_slot)
        return error(strf("%s: its slot is not __sdt_no_slot", what.c_str()));
      MK_TRY(check_def(defs, def, what));
      const int ws = code_section(m, where, 1);
      if (ws < 0)
        return error(strf("%s: block address 0x%llx is not in the module's "
                          "code",
                          what.c_str(), (unsigned long long)where));
      const SiteHolder h =
          find_holder(m.obj, (u32)ws, where - m.pl.sec_addr[ws]);
      if (auto it = by_block.find({def, pretty_function(h.function)});
          it != by_block.end()) {
        const uintptr_t slot = (uintptr_t)it->second->slot;
        std::memcpy(rec, &slot, psize);
      }
      return {};
    });
  }

private:
  struct Pending {
    FoundSite site;
    u64 addr;
    u32 section;
    bool stub;
    u64 holder_off; // where in `section` the site (or the stub's use) is
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

Result<void> SdtProvider::enable(const ProbeBatch &b, PatchMode mode) {
  const std::vector<Probe *> &probes = b.probes;
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
        if (s.kind == SiteKind::Goto) {
          // Its block computes the arguments and reaches the trampoline
          // through its own call site (in breakpoint mode, through that
          // call site's int3).
          target = s.target;
        } else if (s.kind == SiteKind::IsEnabledTail) {
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

void SdtProvider::disable(const ProbeBatch &b) {
  const std::vector<Probe *> &probes = b.probes;
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
