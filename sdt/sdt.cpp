// The probe registry, enabling, and the dispatcher (see sdt.h).
#include "sdt.h"

#include "../kernel/kernel.h"
#include "names.h"
#include "patch.h"
#include "x86.h"

#include <sys/sdt.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <cxxabi.h>
#include <elf.h>
#include <fnmatch.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

// The kernel image's own probes: definitions, and the site records the
// site recorder put into the kernel's objects at build time.
struct sdt_site_record;
SET_DECLARE(sdt_probes_set, struct sdt_probedef);

namespace mk {

// ---- the dispatcher ---------------------------------------------------------
//
// A probe handler may run on any thread.  To know when none runs any more
// (disable, module unload) each thread has a slot whose sequence number is
// odd while it is inside the dispatcher.  synchronize() makes every thread
// execute a full barrier (membarrier), then waits for each slot that was odd
// to move on.  The firing path pays two plain stores to its own cache line.

namespace {

// The sequence is a machine word: on i386 a 64-bit atomic costs x87
// loads and stores on the firing path; parity and change are all it needs.
struct alignas(64) DispatchSlot {
  std::atomic<uintptr_t> seq{0};
};

std::mutex g_slots_mu;
std::vector<DispatchSlot *> g_slots;
DispatchSlot g_shared_slot; // for threads that cannot register (signals)
thread_local DispatchSlot *t_slot = nullptr;

DispatchSlot *my_slot() {
  if (t_slot)
    return t_slot;
  auto *s = new DispatchSlot;
  std::lock_guard<std::mutex> g(g_slots_mu);
  g_slots.push_back(s);
  t_slot = s;
  return s;
}

// Probe ids index this table; entries are cleared before a probe is freed.
constexpr u32 kMaxProbes = 1u << 20;
std::atomic<Probe *> *g_probe_table = new std::atomic<Probe *>[kMaxProbes]();
std::atomic<u32> g_next_probe_id{1};

void enter(DispatchSlot *s) {
  s->seq.store(s->seq.load(std::memory_order_relaxed) + 1,
               std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
}
void leave(DispatchSlot *s) {
  s->seq.store(s->seq.load(std::memory_order_relaxed) + 1,
               std::memory_order_release);
}

} // namespace

void Sdt::dispatch(u32 id, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                   uintptr_t a3, uintptr_t a4, uintptr_t a5) {
  DispatchSlot *s = t_slot;
  bool shared = false;
  if (__builtin_expect(!s, 0)) {
    s = &g_shared_slot; // rare: first firing on this thread
    shared = true;
    s->seq.fetch_add(2, std::memory_order_acq_rel);
  } else {
    enter(s);
  }
  if (id < kMaxProbes)
    if (Probe *p = g_probe_table[id].load(std::memory_order_acquire))
      if (HandlerList *hl = p->handlers.load(std::memory_order_acquire)) {
        const uintptr_t args[6] = {a0, a1, a2, a3, a4, a5};
        for (u32 i = 0; i < hl->n; i++)
          hl->h[i].fn(hl->h[i].ctx, id, args);
      }
  if (shared) {
    s->seq.fetch_sub(2, std::memory_order_acq_rel);
    my_slot(); // register for next time, outside the critical part
  } else {
    leave(s);
  }
}

extern "C" void mk_sdt_dispatch(u32 id, uintptr_t a0, uintptr_t a1,
                                uintptr_t a2, uintptr_t a3, uintptr_t a4,
                                uintptr_t a5) {
  Sdt::dispatch(id, a0, a1, a2, a3, a4, a5);
}

extern "C" void mk_sdt_dispatch_stack(u32 id, const uintptr_t *a) {
  Sdt::dispatch(id, a[0], a[1], a[2], a[3], a[4], a[5]);
}

void dispatch_synchronize() {
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  std::vector<std::pair<DispatchSlot *, uintptr_t>> busy;
  {
    std::lock_guard<std::mutex> g(g_slots_mu);
    for (DispatchSlot *s : g_slots) {
      uintptr_t v = s->seq.load(std::memory_order_acquire);
      if (v & 1)
        busy.emplace_back(s, v);
    }
  }
  for (auto &[s, v] : busy)
    while (s->seq.load(std::memory_order_acquire) == v)
      std::this_thread::yield();
  // The shared slot counts threads inside in steps of two.
  while (g_shared_slot.seq.load(std::memory_order_acquire) != 0)
    std::this_thread::yield();
}

void Sdt::synchronize() { dispatch_synchronize(); }

// ---- trampolines ------------------------------------------------------------
//
// Trampolines live in the module arena, within rel32 reach of every site and
// of the dispatcher.  They are never freed: a thread preempted inside one
// after its site was restored must still find code there.  Each is 48
// bytes; one is made per probe, when it is first enabled.

class TrampolineArea {
public:
  explicit TrampolineArea(ModuleArena &a) : arena_(a) {}
  Result<u64> make(u32 id) {
    auto at = make_slot(x86::kTrampolineSize);
    if (!at)
      return at;
#if defined(__x86_64__)
    u64 disp = (u64)(uintptr_t)&mk_sdt_dispatch;
#else
    u64 disp = (u64)(uintptr_t)&mk_sdt_dispatch_stack;
#endif
    x86::write_trampoline(arena_.alias(*at), *at, id, disp);
    return at;
  }

private:
  Result<u64> make_slot(u64 size) {
    std::lock_guard<std::mutex> g(mu_);
    if (used_ + size > cap_) {
      auto b = arena_.allocate(64 * 1024, 0);
      if (!b)
        return error("sdt: no memory for trampolines: " + b.error().message);
      arena_.protect(b->addr, b->size, Protect::ReadExec);
      base_ = b->addr;
      cap_ = b->size;
      used_ = 0;
      if (!ret1_) {
        ret1_ = base_;
        used_ = 16;
        x86::write_return_one(arena_.alias(ret1_));
      }
    }
    u64 at = base_ + used_;
    used_ += align_up(size, 8);
    return at;
  }

public:
  u64 return_one() const { return ret1_; }
  // A 5-byte probe stub holding `bytes`.
  Result<u64> make_stub(const u8 *bytes) {
    auto at = make_slot(8);
    if (!at)
      return at;
    std::memcpy(arena_.alias(*at), bytes, 5);
    std::lock_guard<std::mutex> g(mu_);
    stubs_.insert(*at);
    return at;
  }
  bool is_stub(u64 addr) const {
    std::lock_guard<std::mutex> g(mu_);
    return stubs_.count(addr) > 0;
  }

private:
  ModuleArena &arena_;
  mutable std::mutex mu_;
  std::set<u64> stubs_;
  u64 base_ = 0, cap_ = 0, used_ = 0, ret1_ = 0;
};

// ---- probe descriptions -----------------------------------------------------

ProbeDesc ProbeDesc::parse(const std::string &s) {
  std::vector<std::string> f;
  size_t start = 0;
  for (;;) {
    size_t c = s.find(':', start);
    f.push_back(s.substr(start, c == std::string::npos ? c : c - start));
    if (c == std::string::npos)
      break;
    start = c + 1;
  }
  while (f.size() < 4)
    f.insert(f.begin(), "");
  ProbeDesc d;
  d.provider = f[0], d.module = f[1], d.function = f[2], d.name = f[3];
  for (size_t i = 4; i < f.size(); i++)
    d.name += ":" + f[i];
  return d;
}

bool ProbeDesc::matches(const Probe &p) const {
  auto m = [](const std::string &pat, const std::string &v) {
    return pat.empty() || pat == "*" || fnmatch(pat.c_str(), v.c_str(), 0) == 0;
  };
  return m(provider, p.provider) && m(module, p.module) &&
         m(function, p.function) && m(name, p.name);
}

// ---- the registry -----------------------------------------------------------

namespace {

// The function a person knows: without the suffixes of the compiler's
// clones and split-off parts (foo.constprop.0, foo.isra.0, foo.part.0,
// foo.cold), and for C++ demangled without parameters (mk::Shell::run_line).
std::string pretty_function(std::string mangled) {
  size_t dot = mangled.find('.');
  if (dot != std::string::npos && dot > 0)
    mangled.resize(dot);
  int st = 0;
  char *d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &st);
  if (st != 0 || !d)
    return mangled;
  std::string s = d;
  free(d);
  // The kernel's own namespaces say nothing in a probe's name.
  for (const char *ns : {"(anonymous namespace)::", "mk::"})
    for (size_t at; (at = s.find(ns)) != std::string::npos;)
      s.erase(at, std::strlen(ns));
  // Cut the parameter list: the last top-level '('.
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '<')
      depth++;
    else if (s[i] == '>')
      depth--;
    else if (s[i] == '(' && depth == 0 && s.compare(i, 12, "(anonymous n") != 0)
      return s.substr(0, i);
  }
  return s;
}

} // namespace

Sdt::Sdt(Kernel &k) : k_(k) {}
Sdt::~Sdt() {
  // The kernel image outlives this kernel (another may boot in the same
  // process): its sites must hold their NOPs again, not calls into
  // trampolines in an arena about to be unmapped, nor int3s.
  if (patcher_) {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<Probe *> enabled;
    for (auto &p : probes_)
      if (p && p->enable_count > 0) {
        p->enable_count = 0;
        enabled.push_back(p.get());
      }
    patch_sites(enabled, false, PatchMode::Call);
    enablings_.clear();
  }
  for (auto &p : probes_)
    if (p) {
      g_probe_table[p->id].store(nullptr);
      delete p->handlers.exchange(nullptr);
    }
  dispatch_synchronize();
}

Probe *Sdt::intern(const std::string &prov, const std::string &mod,
                   const std::string &func, const std::string &name,
                   const LinkerFile *owner) {
  for (auto &p : probes_)
    if (p && p->owner == owner && p->provider == prov && p->module == mod &&
        p->function == func && p->name == name)
      return p.get();
  auto p = std::make_unique<Probe>();
  p->id = g_next_probe_id++;
  p->provider = prov, p->module = mod, p->function = func, p->name = name;
  p->owner = owner;
  Probe *raw = p.get();
  probes_.push_back(std::move(p));
  if (raw->id < kMaxProbes)
    g_probe_table[raw->id].store(raw, std::memory_order_release);
  return raw;
}

std::vector<Probe *> Sdt::probes() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<Probe *> v;
  for (auto &p : probes_)
    if (p)
      v.push_back(p.get());
  std::sort(v.begin(), v.end(),
            [](const Probe *a, const Probe *b) { return a->id < b->id; });
  return v;
}

Probe *Sdt::probe(u32 id) const {
  return id < kMaxProbes ? g_probe_table[id].load() : nullptr;
}

std::vector<Probe *> Sdt::match(const ProbeDesc &d) const {
  std::vector<Probe *> out;
  for (Probe *p : probes())
    if (d.matches(*p))
      out.push_back(p);
  return out;
}

Result<bool> Sdt::take_site(const SiteContext &c,
                            std::vector<PendingSite> &out) {
  const ObjectFile &obj = c.obj;
  const Symbol &sym = obj.symbols[c.rel.sym];
  const Section &sec = obj.sections[c.section];
  std::string where = strf("%s:(%s+0x%llx)", obj.name.c_str(),
                           sec.name.c_str(), (unsigned long long)c.rel.offset);
  bool is_enabled;
  std::string prov, name;
  if (!parse_probe_symbol(sym.name, is_enabled, prov, name))
    return error(strf("%s: malformed probe symbol %s", where.c_str(),
                      sym.name.c_str()));
  if (!(sec.flags & SHF_EXECINSTR))
    return error(strf("%s: probe symbol %s referenced outside code",
                      where.c_str(), sym.name.c_str()));
  const RelocHowto how = obj.howto(c.section, c.rel);
  const RelExpr expr = how.expr;
  const bool is64 = obj.arch->elf_class() == ELFCLASS64;
  auto insn = x86::recognise(c.section_mem, c.rel.offset, expr, is64);
  if (!insn && x86::is_address_load(c.section_mem, c.rel.offset, expr,
                                    how.width, is64)) {
    // The code calls the probe through a register: its site is the stub
    // the symbol was bound to; the loader resolves this reference to it.
    if (!tramps_->is_stub(c.symbol_value))
      return error(strf("%s: probe symbol %s has no stub", where.c_str(),
                        sym.name.c_str()));
    out.push_back(PendingSite{c.symbol_value, 5,
                              is_enabled ? SiteKind::IsEnabledTail
                                         : SiteKind::TailJump,
                              prov, name, c.section, c.rel.offset});
    return false;
  }
  if (!insn) {
    std::string bytes;
    for (u64 i = c.rel.offset >= 2 ? c.rel.offset - 2 : 0;
         i < c.rel.offset + 4 && i < sec.size; i++)
      bytes += strf("%s%02x", bytes.empty() ? "" : " ", c.section_mem[i]);
    return error(strf("%s: probe site %s is not a call or jump (%s, bytes "
                      "%s)",
                      where.c_str(), sym.name.c_str(),
                      obj.arch->type_name(c.rel.type).c_str(), bytes.c_str()));
  }
  SiteKind kind = is_enabled ? (insn->jump ? SiteKind::IsEnabledTail
                                           : SiteKind::IsEnabled)
                             : (insn->jump ? SiteKind::TailJump : SiteKind::Call);
  x86::disabled_bytes(kind, insn->len, c.section_mem + insn->offset);
  u64 addr = c.field_addr - (c.rel.offset - insn->offset);
  out.push_back(PendingSite{addr, insn->len, kind, prov, name, c.section,
                            insn->offset});
  return true;
}

Result<u64> Sdt::make_stub(const std::string &symbol) {
  bool is_enabled;
  std::string prov, name;
  if (!parse_probe_symbol(symbol, is_enabled, prov, name))
    return error("malformed probe symbol " + symbol);
  u8 bytes[8];
  x86::disabled_bytes(is_enabled ? SiteKind::IsEnabledTail : SiteKind::TailJump,
                      5, bytes);
  return tramps_->make_stub(bytes);
}

void Sdt::add_module_probes(const LinkerFile &f, const ObjectFile &obj,
                            const Placement &pl, std::vector<PendingSite> sites,
                            const std::vector<sdt_probedef *> &defs) {
  std::lock_guard<std::mutex> g(mu_);
  std::string mod = f.name;
  if (mod.size() > 3 && mod.compare(mod.size() - 3, 3, ".ko") == 0)
    mod.resize(mod.size() - 3);
  std::set<u64> seen;
  for (const PendingSite &ps : sites) {
    if (!seen.insert(ps.addr).second)
      continue; // a stub referenced more than once is one site
    // The function: the STT_FUNC symbol whose range holds the site.
    std::string func;
    u64 faddr = 0;
    for (size_t i = 1; i < obj.symbols.size(); i++) {
      const Symbol &s = obj.symbols[i];
      if (s.type != STT_FUNC || s.shndx != ps.section)
        continue;
      if (ps.offset >= s.value && ps.offset < s.value + std::max<u64>(s.size, 1)) {
        func = s.name;
        faddr = pl.sec_addr[s.shndx] + s.value;
        if (s.bind != STB_LOCAL)
          break; // prefer a global name over a local alias
      }
    }
    if (func.empty())
      func = obj.sections[ps.section].name;
    Probe *p = intern(ps.provider, mod, pretty_function(func), ps.name, &f);
    auto site = std::make_unique<ProbeSite>();
    site->addr = ps.addr;
    site->len = ps.len;
    site->kind = ps.kind;
    x86::disabled_bytes(ps.kind, ps.len, site->disabled);
    site->function = p->function;
    site->func_addr = faddr;
    site->probe = p;
    p->sites.push_back(site.get());
    sites_.push_back(std::move(site));
  }
  // Argument types from the module's own definitions.
  for (auto &p : probes_) {
    if (!p || p->owner != &f || !p->argtypes.empty())
      continue;
    for (sdt_probedef *d : defs)
      if (p->provider == (d->provider ? d->provider : "") &&
          p->name == probe_name_from_c(d->name ? d->name : "")) {
        for (int i = 0; i < d->nargs && i < 6; i++)
          p->argtypes.push_back(d->argtypes[i] ? d->argtypes[i] : "uintptr_t");
        break;
      }
  }
}

void Sdt::free_retired(std::vector<HandlerList *> &retired) {
  if (retired.empty())
    return;
  // Nobody may still be reading them once every running handler returned.
  dispatch_synchronize();
  for (HandlerList *l : retired)
    ::operator delete(l);
  retired.clear();
}

void Sdt::set_handlers(Probe *p, std::vector<HandlerList *> &retired) {
  // Called with mu_ held: rebuild the probe's handler list from the
  // enablings that include it.
  std::vector<Handler> hs;
  for (const Enabling &e : enablings_)
    if (std::find(e.probes.begin(), e.probes.end(), p->id) != e.probes.end())
      hs.push_back(Handler{e.fn, e.ctx, e.id});
  HandlerList *nl = nullptr;
  if (!hs.empty()) {
    nl = (HandlerList *)::operator new(sizeof(HandlerList) +
                                       sizeof(Handler) * hs.size());
    nl->n = (u32)hs.size();
    std::copy(hs.begin(), hs.end(), nl->h);
  }
  if (HandlerList *old = p->handlers.exchange(nl, std::memory_order_acq_rel))
    retired.push_back(old);
}

} // namespace mk

// ---- enabling ---------------------------------------------------------------

namespace mk {

void Sdt::patch_sites(const std::vector<Probe *> &probes, bool enable,
                      PatchMode mode) {
  // Called with mu_ held.  One batch for every site of every probe.
  std::vector<PatchOp> ops;
  for (Probe *p : probes) {
    for (ProbeSite *s : p->sites) {
      PatchOp op{s->addr, s->len, {}};
      if (!enable) {
        std::memcpy(op.bytes, s->disabled, s->len);
      } else if (mode == PatchMode::Breakpoint &&
                 (s->kind == SiteKind::Call || s->kind == SiteKind::TailJump)) {
        x86::breakpoint_bytes(s->disabled, s->len, op.bytes);
      } else {
        u64 target = s->kind == SiteKind::IsEnabledTail ? tramps_->return_one()
                                                        : p->trampoline;
        x86::enabled_bytes(s->kind, s->len, s->addr, target, op.bytes);
      }
      s->mode = enable ? mode : PatchMode::Call;
      ops.push_back(op);
    }
  }
  std::vector<BreakpointSite> bps;
  for (auto &s : sites_)
    if (s->probe && s->probe->enable_count > 0 &&
        s->mode == PatchMode::Breakpoint &&
        (s->kind == SiteKind::Call || s->kind == SiteKind::TailJump))
      bps.push_back(BreakpointSite{
          s->addr, s->len, s->probe->id,
          s->kind == SiteKind::TailJump ? x86::Emul::Ret : x86::Emul::Skip});
  patcher_->apply(ops, bps);
  patch_batches++;
  serialisations = patcher_->serialisations();
}

Result<int> Sdt::enable(const std::vector<u32> &ids, ProbeCallback fn,
                        void *ctx, PatchMode mode) {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<Probe *> to_patch;
  for (u32 id : ids) {
    Probe *p = probe(id);
    if (!p)
      return error(strf("probe %u does not exist", id));
    if (p->enable_count > 0 && p->mode != mode)
      return error(strf("probe %s is already enabled in another patch mode",
                        p->full().c_str()));
    if (!p->trampoline && !p->sites.empty()) {
      auto t = tramps_->make(p->id);
      if (!t)
        return t.take_error();
      p->trampoline = *t;
    }
  }
  Enabling e{next_enabling_++, ids, fn, ctx, mode};
  enablings_.push_back(e);
  std::vector<HandlerList *> retired;
  for (u32 id : ids) {
    Probe *p = probe(id);
    // Handlers first, so the first firing after the patch finds them.
    set_handlers(p, retired);
    if (p->enable_count++ == 0) {
      p->mode = mode;
      to_patch.push_back(p);
    }
  }
  patch_sites(to_patch, true, mode);
  free_retired(retired);
  return e.id;
}

void Sdt::disable(int enabling) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = std::find_if(enablings_.begin(), enablings_.end(),
                         [&](const Enabling &e) { return e.id == enabling; });
  if (it == enablings_.end())
    return;
  Enabling e = *it;
  enablings_.erase(it);
  std::vector<Probe *> to_patch;
  for (u32 id : e.probes) {
    Probe *p = probe(id);
    if (!p)
      continue; // its module went away
    if (--p->enable_count == 0)
      to_patch.push_back(p);
  }
  patch_sites(to_patch, false, PatchMode::Call);
  std::vector<HandlerList *> retired;
  for (u32 id : e.probes)
    if (Probe *p = probe(id))
      set_handlers(p, retired);
  // Also when nothing was retired: on return no handler of `e` may run.
  dispatch_synchronize();
  free_retired(retired);
}

void Sdt::remove_module_probes(const LinkerFile &f) {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<Probe *> mine, enabled;
  for (auto &p : probes_)
    if (p && p->owner == &f) {
      mine.push_back(p.get());
      if (p->enable_count > 0)
        enabled.push_back(p.get());
    }
  if (mine.empty())
    return;
  // Restore the NOPs (the module's text is still mapped), then make the
  // probes unreachable and wait for any handler still running.
  patch_sites(enabled, false, PatchMode::Call);
  for (Probe *p : mine)
    g_probe_table[p->id].store(nullptr, std::memory_order_release);
  dispatch_synchronize();
  for (Enabling &e : enablings_) {
    size_t before = e.probes.size();
    e.probes.erase(std::remove_if(e.probes.begin(), e.probes.end(),
                                  [&](u32 id) {
                                    return std::any_of(
                                        mine.begin(), mine.end(),
                                        [&](Probe *p) { return p->id == id; });
                                  }),
                   e.probes.end());
    if (size_t n = before - e.probes.size())
      k_.printf("dtrace: enabling %d: %zu probe%s of %s removed at unload\n",
                e.id, n, n == 1 ? "" : "s", f.name.c_str());
  }
  for (Probe *p : mine) {
    ::operator delete(p->handlers.exchange(nullptr));
    for (ProbeSite *s : p->sites)
      s->probe = nullptr;
  }
  sites_.erase(std::remove_if(sites_.begin(), sites_.end(),
                              [](auto &s) { return s->probe == nullptr; }),
               sites_.end());
  probes_.erase(std::remove_if(probes_.begin(), probes_.end(),
                               [&](auto &p) { return p && p->owner == &f; }),
                probes_.end());
}

} // namespace mk

// ---- boot ---------------------------------------------------------------------

extern "C" {
extern const struct sdt_site_record __start_set_sdt_sites_set[]
    __attribute__((weak));
extern const struct sdt_site_record __stop_set_sdt_sites_set[]
    __attribute__((weak));
}

#include "site_record.h"

namespace mk {

Result<void> Sdt::init() {
  text_ = std::make_unique<TextAliases>();
  text_->add(k_.arena->base(), k_.arena->base() + k_.arena->size(),
             k_.arena->alias(k_.arena->base()));
  patcher_ = std::make_unique<PatchEngine>(*text_);
  MK_TRY(patcher_->init());
  tramps_ = std::make_unique<TrampolineArea>(*k_.arena);
  my_slot();

  std::lock_guard<std::mutex> g(mu_);
  // DTrace's own probes come first, as in DTrace: BEGIN, END, ERROR.
  dtrace_begin_id = intern("dtrace", "", "", "BEGIN", nullptr)->id;
  intern("dtrace", "", "", "END", nullptr);
  intern("dtrace", "", "", "ERROR", nullptr);

  // The kernel image's sites, recorded at build time.
  size_t nsites = 0;
  for (const sdt_site_record *r = __start_set_sdt_sites_set;
       r && r < __stop_set_sdt_sites_set; r++) {
    std::string func(r->function, strnlen(r->function, SDT_SITE_FUNC_MAX));
    Probe *p = intern(std::string(r->provider,
                                  strnlen(r->provider, SDT_SITE_PROVIDER_MAX)),
                      "kernel", pretty_function(func),
                      std::string(r->name, strnlen(r->name, SDT_SITE_NAME_MAX)),
                      nullptr);
    auto site = std::make_unique<ProbeSite>();
    site->addr = r->site;
    site->len = (u8)r->len;
    site->kind = (SiteKind)r->kind;
    x86::disabled_bytes(site->kind, site->len, site->disabled);
    site->function = p->function;
    site->probe = p;
    // The recorder wrote the NOPs into the object; check they are there.
    const u8 *live = text_->alias(site->addr);
    if (!live || std::memcmp(live, site->disabled, site->len) != 0)
      return error(strf("sdt: kernel probe site %s at 0x%llx does not hold "
                        "its NOP sled",
                        p->full().c_str(), (unsigned long long)site->addr));
    p->sites.push_back(site.get());
    sites_.push_back(std::move(site));
    nsites++;
  }
  sdt_probedef *const *d;
  SET_FOREACH(d, sdt_probes_set) {
    for (auto &p : probes_)
      if (p && !p->owner && p->argtypes.empty() &&
          p->provider == ((*d)->provider ? (*d)->provider : "") &&
          p->name == probe_name_from_c((*d)->name ? (*d)->name : ""))
        for (int i = 0; i < (*d)->nargs && i < 6; i++)
          p->argtypes.push_back((*d)->argtypes[i] ? (*d)->argtypes[i]
                                                  : "uintptr_t");
  }
  k_.log("sdt: %zu kernel probe sites, %zu probes\n", nsites,
         probes_.size());
  return {};
}

} // namespace mk
