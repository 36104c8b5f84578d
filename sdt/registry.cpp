// The probe registry, enablings and the firing path (see registry.h).
#include "registry.h"

#include "trampoline.h"

#define _LGPL_SOURCE // liburcu's read-side fast path, inline
#include <urcu/urcu-memb.h>

#include <algorithm>
#include <fnmatch.h>

namespace mk {

// ---- RCU readers ------------------------------------------------------------------
//
// liburcu's membarrier flavour: a read-side critical section is a few
// stores to the thread's own counter; synchronize_rcu() makes every
// registered thread execute a barrier (membarrier) and waits for each one
// inside a critical section to leave it.  A thread must be registered
// while it may fire probes, and unregistered before it exits.

namespace {
// Whether this thread is an RCU reader: the firing path's check, one
// thread-local byte of the executable itself.
thread_local bool t_reader = false;

struct RcuReaderGuard {
  ~RcuReaderGuard() {
    urcu_memb_unregister_thread();
    t_reader = false;
  }
};
} // namespace

void probe_thread_register() {
  if (t_reader)
    return;
  urcu_memb_register_thread();
  t_reader = true;
  // Unregisters when the thread exits.
  static thread_local RcuReaderGuard guard;
  (void)guard;
}

// ---- the firing path --------------------------------------------------------------

void ProbeRegistry::fire(const ProbeSlot *slot, const uintptr_t *args) {
  // A thread the kernel did not start registers on its first firing (also
  // from the SIGTRAP handler: the interrupted code is a probe site, never
  // inside liburcu or the allocator).
  if (__builtin_expect(!t_reader, 0))
    probe_thread_register();
  urcu_memb_read_lock();
  if (const HandlerList *hl = slot->handlers.load(std::memory_order_acquire)) {
    const u32 id = slot->id;
    for (u32 i = 0; i < hl->n; i++)
      hl->h[i].fn(hl->h[i].ctx, id, args);
  }
  urcu_memb_read_unlock();
}

extern "C" void mk_probe_fire(const ProbeSlot *slot, const uintptr_t *args) {
  ProbeRegistry::fire(slot, args);
}

u64 ProbeRegistry::fire_entry() { return (u64)(uintptr_t)&mk_probe_fire; }

void ProbeRegistry::synchronize() { urcu_memb_synchronize_rcu(); }

// ---- probe descriptions -----------------------------------------------------------

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

bool ProbeDesc::matches(const std::string &prov, const std::string &mod,
                        const std::string &func,
                        const std::string &nm) const {
  auto m = [](const std::string &pat, const std::string &v) {
    return pat.empty() || pat == "*" || fnmatch(pat.c_str(), v.c_str(), 0) == 0;
  };
  return m(provider, prov) && m(module, mod) && m(function, func) &&
         m(name, nm);
}

bool ProbeDesc::matches(const ProbeInfo &p) const {
  return matches(p.provider, p.module, p.function, p.name);
}

// ---- module loads -------------------------------------------------------------------

std::optional<Result<u64>> ModuleLoad::bind(const std::string &name) {
  for (auto &p : parts_)
    if (auto v = p->bind(name))
      return v;
  return std::nullopt;
}

bool ModuleLoad::claims(const Symbol &s) const {
  for (auto &p : parts_)
    if (p->claims(s))
      return true;
  return false;
}

Result<bool> ModuleLoad::take(const SiteContext &c) {
  const Symbol &s = c.obj.symbols[c.rel.sym];
  for (auto &p : parts_)
    if (p->claims(s))
      return p->take(c);
  return false;
}

// ---- the registry -------------------------------------------------------------------

ProbeRegistry::ProbeRegistry(ModuleArena &arena, ConsoleWriter console)
    : arena_(arena), console_(std::move(console)) {}

ProbeRegistry::~ProbeRegistry() {
  // The kernel image outlives this kernel (another may boot in the same
  // process): its sites must hold their NOPs again, not calls into
  // trampolines in an arena about to be unmapped, nor int3s.
  if (!patcher_)
    return;
  MutexLock g(mu_);
  std::vector<Probe *> enabled;
  for (auto &p : probes_)
    if (p && p->enable_count > 0) {
      p->enable_count = 0;
      enabled.push_back(p.get());
    }
  (void)patch(enabled, false, PatchMode::Call);
  std::vector<HandlerList *> retired;
  enablings_.clear();
  for (auto &p : probes_)
    if (p)
      set_handlers(p.get(), retired);
  free_retired(retired);
  for (auto &p : probes_)
    if (p && p->prov)
      p->prov->destroy(*p);
  probes_.clear();
}

Result<void> ProbeRegistry::init(
    std::vector<std::unique_ptr<Provider>> providers) {
  patcher_ = std::make_unique<PatchEngine>();
  MK_TRY(patcher_->init(arena_.base(), arena_.base() + arena_.size(),
                        arena_.alias(arena_.base())));
  tramps_ = std::make_unique<TrampolineArea>(arena_, fire_entry());
  probe_thread_register();
  providers_ = std::move(providers);
  {
    // DTrace's own probes come first, as in DTrace: BEGIN, END, ERROR.
    // The consumer fires them itself; they have no provider of their own.
    MutexLock g(mu_);
    for (const char *n : {"BEGIN", "END", "ERROR"}) {
      auto p = std::make_unique<Probe>();
      const u32 id = allocate_id();
      p->id = id;
      p->provider = "dtrace", p->name = n;
      p->slot = slot(id);
      if (!dtrace_begin_)
        dtrace_begin_ = id;
      by_name_[{nullptr, p->full()}] = id;
      probes_[id - 1] = std::move(p);
    }
  }
  for (auto &prov : providers_)
    MK_TRY(prov->provide(*this));
  return {};
}

u32 ProbeRegistry::allocate_id() {
  if (!free_ids_.empty()) {
    u32 id = *free_ids_.begin();
    free_ids_.erase(free_ids_.begin());
    return id;
  }
  probes_.emplace_back();
  return (u32)probes_.size();
}

ProbeSlot *ProbeRegistry::slot(u32 id) {
  const u32 i = id - 1, chunk = i / kSlotChunk;
  while (slots_.size() <= chunk) {
    slots_.push_back(std::make_unique<ProbeSlot[]>(kSlotChunk));
    const u32 first = (u32)(slots_.size() - 1) * kSlotChunk + 1;
    for (u32 k = 0; k < kSlotChunk; k++)
      slots_.back()[k].id = first + k;
  }
  return &slots_[chunk][i % kSlotChunk];
}

Probe *ProbeRegistry::create(Provider &prov, const std::string &provider,
                             const std::string &module,
                             const std::string &function,
                             const std::string &name, const void *owner) {
  MutexLock g(mu_);
  const std::string full = provider + ":" + module + ":" + function + ":" + name;
  if (auto it = by_name_.find({owner, full}); it != by_name_.end())
    return probes_[it->second - 1].get();
  auto p = std::make_unique<Probe>();
  p->id = allocate_id();
  p->prov = &prov;
  p->provider = provider, p->module = module, p->function = function;
  p->name = name;
  p->owner = owner;
  p->slot = slot(p->id);
  const u32 id = p->id;
  by_name_[{owner, full}] = id;
  Probe *raw = p.get();
  probes_[id - 1] = std::move(p);
  return raw;
}

Probe *ProbeRegistry::find(u32 id) const {
  return id >= 1 && id <= probes_.size() ? probes_[id - 1].get() : nullptr;
}

ProbeInfo ProbeRegistry::info(const Probe &p) const {
  ProbeInfo i;
  i.id = p.id;
  i.provider = p.provider, i.module = p.module, i.function = p.function;
  i.name = p.name;
  if (p.prov)
    i.argtypes = p.prov->argtypes(p);
  return i;
}

std::vector<ProbeInfo> ProbeRegistry::probes() const {
  MutexLock g(mu_);
  std::vector<ProbeInfo> v;
  for (auto &p : probes_)
    if (p)
      v.push_back(info(*p));
  return v;
}

std::optional<ProbeInfo> ProbeRegistry::probe(u32 id) const {
  MutexLock g(mu_);
  if (Probe *p = find(id))
    return info(*p);
  return std::nullopt;
}

std::vector<ProbeInfo> ProbeRegistry::match(const ProbeDesc &d) const {
  MutexLock g(mu_);
  std::vector<ProbeInfo> v;
  for (auto &p : probes_)
    if (p && d.matches(p->provider, p->module, p->function, p->name))
      v.push_back(info(*p));
  return v;
}

std::vector<SiteInfo> ProbeRegistry::sites(u32 id) const {
  MutexLock g(mu_);
  Probe *p = find(id);
  return p && p->prov ? p->prov->sites(*p) : std::vector<SiteInfo>{};
}

size_t ProbeRegistry::live_probes() const {
  MutexLock g(mu_);
  return (size_t)std::count_if(probes_.begin(), probes_.end(),
                               [](auto &p) { return p != nullptr; });
}

u32 ProbeRegistry::highest_id() const {
  MutexLock g(mu_);
  return (u32)probes_.size();
}

u64 ProbeRegistry::serialisations() const {
  return patcher_ ? patcher_->serialisations() : 0;
}

// ---- modules ----------------------------------------------------------------------------

std::unique_ptr<ModuleLoad>
ProbeRegistry::begin_module(const std::string &name) {
  std::vector<std::unique_ptr<ModuleProbes>> parts;
  for (auto &prov : providers_)
    if (auto mp = prov->begin_module(name))
      parts.push_back(std::move(mp));
  return std::make_unique<ModuleLoad>(std::move(parts));
}

Result<void> ProbeRegistry::provide_module(ModuleLoad &load,
                                           const ModuleImage &m) {
  for (auto &part : load.parts_) {
    auto r = part->provide(*this, m);
    if (!r) {
      remove_module(m.owner, m.name); // what the others provided goes too
      return r;
    }
  }
  return {};
}

void ProbeRegistry::remove_module(const void *owner,
                                  const std::string &file_name) {
  std::vector<std::unique_ptr<Probe>> gone;
  {
    MutexLock g(mu_);
    std::vector<Probe *> mine, enabled;
    for (auto &p : probes_)
      if (p && p->owner == owner) {
        mine.push_back(p.get());
        if (p->enable_count > 0)
          enabled.push_back(p.get());
      }
    if (mine.empty()) {
      for (auto &prov : providers_)
        prov->remove_module(owner);
      return;
    }
    // Restore the sites (the module's text is still mapped), then make the
    // probes unreachable: no handler list, out of every enabling.
    (void)patch(enabled, false, PatchMode::Call);
    std::set<u32> ids;
    for (Probe *p : mine)
      ids.insert(p->id);
    for (Enabling &e : enablings_) {
      size_t before = e.probes.size();
      e.probes.erase(std::remove_if(e.probes.begin(), e.probes.end(),
                                    [&](u32 id) { return ids.count(id) > 0; }),
                     e.probes.end());
      if (size_t n = before - e.probes.size())
        console_(strf("dtrace: enabling %d: %zu probe%s of %s removed at "
                      "unload\n",
                      e.id, n, n == 1 ? "" : "s", file_name.c_str()));
    }
    std::vector<HandlerList *> retired;
    for (Probe *p : mine) {
      p->enable_count = 0;
      set_handlers(p, retired);
      by_name_.erase({owner, p->full()});
      gone.push_back(std::move(probes_[p->id - 1]));
    }
    // Wait for any handler still running, then nothing can reach them.
    free_retired(retired);
    for (auto &p : gone) {
      p->prov->destroy(*p);
      free_ids_.insert(p->id);
    }
    while (!probes_.empty() && !probes_.back()) {
      free_ids_.erase((u32)probes_.size());
      probes_.pop_back();
    }
  }
  for (auto &prov : providers_)
    prov->remove_module(owner);
}

// ---- enabling -----------------------------------------------------------------------------

void ProbeRegistry::free_retired(std::vector<HandlerList *> &retired) {
  // Nobody may still be reading them once every running handler returned;
  // also when nothing was retired, callers rely on the grace period.
  synchronize();
  for (HandlerList *l : retired)
    ::operator delete(l);
  retired.clear();
}

void ProbeRegistry::set_handlers(Probe *p, std::vector<HandlerList *> &retired) {
  // Rebuild the probe's handler list from the enablings that include it.
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
  if (HandlerList *old =
          p->slot->handlers.exchange(nl, std::memory_order_acq_rel))
    retired.push_back(old);
}

Result<void> ProbeRegistry::patch(const std::vector<Probe *> &probes,
                                  bool enable, PatchMode mode) {
  // One batch per provider (in practice: one).
  for (auto &prov : providers_) {
    std::vector<Probe *> mine;
    for (Probe *p : probes)
      if (p->prov == prov.get())
        mine.push_back(p);
    if (mine.empty())
      continue;
    if (enable)
      MK_TRY(prov->enable(mine, mode));
    else
      prov->disable(mine);
    patch_batches_++;
  }
  return {};
}

Result<int> ProbeRegistry::enable(const std::vector<u32> &ids,
                                  ProbeCallback fn, void *ctx,
                                  PatchMode mode) {
  MutexLock g(mu_);
  std::vector<Probe *> to_patch;
  for (u32 id : ids) {
    Probe *p = find(id);
    if (!p)
      return error(strf("probe %u does not exist", id));
    if (p->enable_count > 0 && p->mode != mode)
      return error(strf("probe %s is already enabled in another patch mode",
                        p->full().c_str()));
    if (p->enable_count == 0 && p->prov &&
        std::find(to_patch.begin(), to_patch.end(), p) == to_patch.end())
      to_patch.push_back(p);
  }
  // Handlers first, so the first firing after the patch finds them.
  Enabling e{next_enabling_++, ids, fn, ctx, mode};
  enablings_.push_back(e);
  std::vector<HandlerList *> retired;
  for (u32 id : ids)
    set_handlers(find(id), retired);
  if (auto r = patch(to_patch, true, mode); !r) {
    enablings_.pop_back();
    for (u32 id : ids)
      set_handlers(find(id), retired);
    free_retired(retired);
    return r.take_error();
  }
  for (u32 id : ids) {
    Probe *p = find(id);
    if (p->enable_count++ == 0)
      p->mode = mode;
  }
  free_retired(retired);
  return e.id;
}

void ProbeRegistry::disable(int enabling) {
  MutexLock g(mu_);
  auto it = std::find_if(enablings_.begin(), enablings_.end(),
                         [&](const Enabling &e) { return e.id == enabling; });
  if (it == enablings_.end())
    return;
  Enabling e = *it;
  enablings_.erase(it);
  std::vector<Probe *> to_patch;
  for (u32 id : e.probes) {
    Probe *p = find(id);
    if (!p)
      continue; // its module went away
    if (--p->enable_count == 0 && p->prov)
      to_patch.push_back(p);
  }
  (void)patch(to_patch, false, PatchMode::Call);
  std::vector<HandlerList *> retired;
  for (u32 id : e.probes)
    if (Probe *p = find(id))
      set_handlers(p, retired);
  // Also when nothing was retired: on return no handler of `e` may run.
  free_retired(retired);
}

} // namespace mk
