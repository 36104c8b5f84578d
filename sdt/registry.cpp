// The probe registry, enablings and the firing path (see registry.h).
#include "registry.h"

#include "trampoline.h"
#include "x86.h"

#define _LGPL_SOURCE // liburcu's read-side fast path, inline
#include <urcu/urcu-memb.h>

#include <sys/sdt.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <fnmatch.h>
#include <thread>

namespace mk {

// ---- RCU readers ------------------------------------------------------------------
//
// liburcu's membarrier flavour: a read-side critical section is a few
// stores to the thread's own counter; synchronize_rcu() makes every
// registered thread execute a barrier (membarrier) and waits for each one
// inside a critical section to leave it.  A thread must be registered
// while it may fire probes, and unregistered before it exits.

namespace detail {
// Whether this thread is an RCU reader (registry.h): the firing path's
// check, one thread-local byte of the executable itself.
__thread u8 t_reader = 0;
} // namespace detail

namespace {
using detail::t_reader;

struct RcuReaderGuard {
  ~RcuReaderGuard() {
    urcu_memb_unregister_thread();
    t_reader = 0;
  }
};
} // namespace

bool probe_thread_registered() { return t_reader != 0; }

namespace detail {
__thread bool t_probe_context = false;
__thread uintptr_t t_probe_frame = 0;

namespace {
// frame_of_args()'s: read only by the thread's own handlers.
thread_local ProbeFrame t_args_frame;
} // namespace

constinit TrampolineHooks g_hooks;

const ProbeFrame *frame_of_args(uintptr_t tagged) {
  const auto *saved = (const uintptr_t *)(tagged & ~(uintptr_t)3);
  if ((tagged & 3) == 1)
    t_args_frame = x86::trampoline_frame(saved);
  else if (g_hooks.frame)
    t_args_frame = g_hooks.frame(tagged & 3, saved);
  else
    t_args_frame = ProbeFrame{};
  return &t_args_frame;
}
} // namespace detail

void set_trampoline_hooks(const TrampolineHooks &h) { detail::g_hooks = h; }

uintptr_t real_return_address(uintptr_t ra, uintptr_t loc) {
  return detail::g_hooks.real_return ? detail::g_hooks.real_return(ra, loc) : ra;
}

void probe_thread_register() {
  if (t_reader)
    return;
  urcu_memb_register_thread();
  t_reader = urcu_memb_has_sys_membarrier ? 2 : 1;
  // Unregisters when the thread exits.
  static thread_local RcuReaderGuard guard;
  (void)guard;
}

// ---- the firing path --------------------------------------------------------------

#if defined(__x86_64__)
asm(R"(
  .text
  .p2align 4
  .globl mk_call_keeping_vector
  .type mk_call_keeping_vector, @function
mk_call_keeping_vector:
  .cfi_startproc
  push %rbp
  .cfi_adjust_cfa_offset 8
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  sub $128, %rsp
  movaps %xmm0, 0(%rsp)
  movaps %xmm1, 16(%rsp)
  movaps %xmm2, 32(%rsp)
  movaps %xmm3, 48(%rsp)
  movaps %xmm4, 64(%rsp)
  movaps %xmm5, 80(%rsp)
  movaps %xmm6, 96(%rsp)
  movaps %xmm7, 112(%rsp)
  mov %rdi, %rax
  mov %rsi, %rdi
  mov %rdx, %rsi
  mov %rcx, %rdx
  mov %r8, %rcx
  call *%rax
  movaps 0(%rsp), %xmm0
  movaps 16(%rsp), %xmm1
  movaps 32(%rsp), %xmm2
  movaps 48(%rsp), %xmm3
  movaps 64(%rsp), %xmm4
  movaps 80(%rsp), %xmm5
  movaps 96(%rsp), %xmm6
  movaps 112(%rsp), %xmm7
  leave
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size mk_call_keeping_vector, .-mk_call_keeping_vector
)");
#endif

namespace {
// A probe's handlers, in order.  Nearly every enabled probe has one
// consumer: its callback is called straight, the loop left for the rest.
inline void call_handlers(const HandlerList *hl, u32 id, const uintptr_t *args) {
  if (__builtin_expect(hl->n == 1 && !hl->h[0].mfn, 1)) {
    hl->h[0].fn(hl->h[0].ctx, id, args);
    return;
  }
  for (u32 i = 0; i < hl->n; i++) {
    const Handler &h = hl->h[i];
    if (h.mfn)
      h.mfn(h.ctx, args[0], args[1], args[2], args[3], args[4], args[5]);
    else
      h.fn(h.ctx, id, args);
  }
}
} // namespace

void ProbeRegistry::fire(const ProbeSlot *slot, const uintptr_t *args,
                         const ProbeFrame *frame) {
  // A handler's own firings (it called traced code, or a timer signal
  // interrupted it) go nowhere: handlers never nest on a thread.
  if (__builtin_expect(in_probe_context(), 0))
    return;
  // A thread the kernel did not start registers on its first firing (also
  // from the SIGTRAP handler: the interrupted code is a probe site, never
  // inside liburcu or the allocator).
  if (__builtin_expect(!t_reader, 0))
    probe_thread_register();
  urcu_memb_read_lock();
  if (const HandlerList *hl = slot->handlers.load(std::memory_order_acquire)) {
    detail::t_probe_context = true;
    detail::t_probe_frame = (uintptr_t)frame;
    call_handlers(hl, slot->id, args);
    detail::t_probe_frame = 0;
    detail::t_probe_context = false;
  }
  urcu_memb_read_unlock();
}

extern "C" void mk_probe_fire(const ProbeSlot *slot, const uintptr_t *args) {
  asm_wrote(args, 6 * sizeof *args);
  const ProbeFrame f = x86::trampoline_frame(args);
  ProbeRegistry::fire(slot, args, &f);
}

// The trampolines' shared slow path with a list of several handlers: the
// thread is inside a read-side section and in probe context, its frame set.
extern "C" void mk_probe_fire_list(const HandlerList *hl, const ProbeSlot *slot,
                                   const uintptr_t *args) {
  asm_wrote(args, 6 * sizeof *args);
  call_handlers(hl, slot->id, args);
}

// What asm-goto blocks read to run a lone module handler themselves
// (<sys/sdt.h>), filled in by publish_block_abi(): a block reads it only
// once its probe's slot has one handler, so after that.  Where the
// read side may not be inlined, the reader byte's offset is
// t_probe_context's, which is never 2: every block takes its call site.
extern "C" {
struct __sdt_fast __sdt_fast;
extern const struct __sdt_slot __sdt_no_slot = {};
// An inline read-side unlock (a trampoline's, a block's) found a grace
// period waiting for this thread: what _urcu_memb_read_unlock does then.
void __sdt_rcu_wake(void) { urcu_common_wake_up_gp(&urcu_memb_gp); }
}

u64 ProbeRegistry::fire_entry() { return (u64)(uintptr_t)&mk_probe_fire; }

void ProbeRegistry::drain_deferred_frees() {
  // liburcu refuses rcu_barrier() inside a read-side section.
  if (t_reader && urcu_memb_read_ongoing()) {
    console_("sdt: drain_deferred_frees called from a probe handler; not "
             "waiting\n");
    return;
  }
  urcu_memb_barrier();
}

void ProbeRegistry::start_rcu_thread() {
  static std::once_flag once;
  std::call_once(once, [] {
    probe_thread_register(); // call_rcu wants a registered thread
    static rcu_head head;
    urcu_memb_call_rcu(&head, [](rcu_head *) {});
    urcu_memb_barrier(); // the callback ran on that thread
  });
}

void ProbeRegistry::synchronize() {
  // A thread inside a read-side section would wait for itself forever.
  if (t_reader && urcu_memb_read_ongoing()) {
    console_("sdt: synchronize called from a probe handler; not waiting\n");
    return;
  }
  urcu_memb_synchronize_rcu();
}

namespace {

// The trampolines' plan: where liburcu keeps what its inline read side
// touches, so the trampolines can do the same.  The thread-local offsets
// are measured on this thread and checked on another: they must be the
// same everywhere (static TLS), else the trampolines keep to the generic
// body.
x86::TrampolinePlan trampoline_plan() {
  static_assert(sizeof(rcu_head) <= sizeof(HandlerList::rcu_head),
                "HandlerList has room for liburcu's rcu_head");
  x86::TrampolinePlan p;
  p.fire = (u64)(uintptr_t)&mk_probe_fire;
  p.fire_list = (u64)(uintptr_t)&mk_probe_fire_list;
  p.rcu_wake = (u64)(uintptr_t)&__sdt_rcu_wake;
  p.slot_list = (u32)offsetof(ProbeSlot, handlers);
  p.list_n = (u32)offsetof(HandlerList, n);
  p.list_mfn = (u32)(offsetof(HandlerList, h) + offsetof(Handler, mfn));
  p.list_ctx = (u32)(offsetof(HandlerList, h) + offsetof(Handler, ctx));
  p.list_fn = (u32)(offsetof(HandlerList, h) + offsetof(Handler, fn));
  p.slot_id = (u32)offsetof(ProbeSlot, id);
  static_assert(sizeof(void *) == sizeof(uintptr_t) &&
                    offsetof(HandlerList, h) + sizeof(Handler) < 128 &&
                    offsetof(ProbeSlot, id) < 128,
                "the trampolines reach these fields with 8-bit offsets");
  p.gp_ctr = (u64)(uintptr_t)&urcu_memb_gp.ctr;
  p.gp_futex = (u64)(uintptr_t)&urcu_memb_gp.futex;
  auto offsets = [] {
    uintptr_t tp;
#if defined(__x86_64__)
    __asm__("mov %%fs:0, %0" : "=r"(tp));
#else
    __asm__("mov %%gs:0, %0" : "=r"(tp));
#endif
    // Signed: thread-local data lies below the thread pointer on x86.
    auto off = [tp](const void *v) { return (i64)(intptr_t)((uintptr_t)v - tp); };
    return std::array<i64, 4>{off(&URCU_TLS(urcu_memb_reader).ctr),
                              off(&t_reader), off(&detail::t_probe_context),
                              off(&detail::t_probe_frame)};
  };
  const auto here = offsets();
  std::array<i64, 4> there{};
  std::thread([&] { there = offsets(); }).join();
  bool fits = true;
  for (i64 o : here)
    fits = fits && o == (i32)o;
  // liburcu's read side needs a full barrier where sys_membarrier is
  // missing; the inline copy has none, so it is used only with it.
  p.inline_rcu = here == there && fits && urcu_memb_has_sys_membarrier;
  p.tls_ctr = (i32)here[0];
  p.tls_reader = (i32)here[1];
  p.tls_context = (i32)here[2];
  p.tls_frame = (i32)here[3];
  return p;
}

// What asm-goto blocks read (<sys/sdt.h>), from the trampolines' plan: the
// same for every kernel in the process.
void publish_block_abi(const x86::TrampolinePlan &p) {
  // How the blocks, t_rcu_ctr and fbt's trampolines (which reach liburcu
  // by symbol) see liburcu's and the registry's data.
  static_assert(offsetof(__sdt_handlers, mfn) ==
                        offsetof(HandlerList, h) + offsetof(Handler, mfn) &&
                    offsetof(__sdt_handlers, data) ==
                        offsetof(HandlerList, h) + offsetof(Handler, ctx) &&
                    sizeof(std::atomic<HandlerList *>) == sizeof(void *),
                "struct __sdt_handlers is the head of a HandlerList");
  static_assert(offsetof(__sdt_slot, one) == offsetof(ProbeSlot, one),
                "struct __sdt_slot is a ProbeSlot's head");
  static_assert(offsetof(urcu_reader, ctr) == 0 &&
                    sizeof(urcu_memb_reader.ctr) == sizeof(unsigned long) &&
                    offsetof(urcu_gp, ctr) == 0 &&
                    offsetof(__sdt_rcu_gp, futex) == offsetof(urcu_gp, futex) &&
                    (sizeof(void *) == 4 || offsetof(urcu_gp, futex) == 8),
                "liburcu's reader counter and grace-period counter and futex "
                "where the blocks and fbt's trampolines expect them");
  static_assert(kRcuHandlerMark == __SDT_RCU_MARK &&
                    __SDT_RCU_NEST_MASK == URCU_GP_CTR_NEST_MASK &&
                    (__SDT_RCU_MARK & URCU_GP_CTR_NEST_MASK) == __SDT_RCU_MARK,
                "the handler mark within liburcu's nesting count");
  __sdt_fast.tls_ctr = p.tls_ctr;
  __sdt_fast.gp = (const __sdt_rcu_gp *)&urcu_memb_gp;
  __atomic_store_n(&__sdt_fast.tls_reader,
                   (long)(p.inline_rcu ? p.tls_reader : p.tls_context),
                   __ATOMIC_RELEASE);
}

void free_list(rcu_head *head) { ::operator delete((void *)head); }

// An object on its way to call_rcu (retire()).
struct RetiredObject {
  rcu_head head; // first: free_retired_object() is given its address
  std::shared_ptr<const void> obj;
  std::atomic<u32> *in_flight; // the registry's count
};

void free_retired_object(rcu_head *head) {
  auto *r = reinterpret_cast<RetiredObject *>(head);
  std::atomic<u32> *in_flight = r->in_flight;
  // The images only it held go with it, their object files too: traced
  // kernel code, run on liburcu's call_rcu thread, which liburcu
  // registered itself (a firing there would register it again, which
  // liburcu refuses).  Nothing fires here, as inside a handler.
  detail::t_probe_context = true;
  delete r;
  detail::t_probe_context = false;
  in_flight->fetch_sub(1, std::memory_order_relaxed);
}

} // namespace

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

namespace {

enum class PatKind : u8 { kAny, kLiteral, kGlob };

PatKind field_kind(const std::string &pat) {
  if (pat.empty() || pat == "*")
    return PatKind::kAny;
  if (pat.find_first_of("*?[\\") == std::string::npos)
    return PatKind::kLiteral;
  return PatKind::kGlob;
}

bool field_matches(PatKind k, const std::string &pat, const std::string &v) {
  switch (k) {
  case PatKind::kAny:
    return true;
  case PatKind::kLiteral:
    return pat == v;
  case PatKind::kGlob:
    break;
  }
  return fnmatch(pat.c_str(), v.c_str(), 0) == 0;
}

bool field_matches(const std::string &pat, const std::string &v) {
  return field_matches(field_kind(pat), pat, v);
}

} // namespace

bool ProbeDesc::matches(const std::string &prov, const std::string &mod,
                        const std::string &func,
                        const std::string &nm) const {
  return field_matches(provider, prov) && field_matches(module, mod) &&
         field_matches(function, func) && field_matches(name, nm);
}

bool ProbeDesc::matches(const ProbeInfo &p) const {
  return matches(p.provider, p.module, p.function, p.name);
}

ProbeMatcher::ProbeMatcher(const ProbeDesc &d) {
  const std::string *pats[4] = {&d.provider, &d.module, &d.function, &d.name};
  for (int i = 0; i < 4; i++) {
    f_[i].pat = *pats[i];
    f_[i].kind = static_cast<u8>(field_kind(f_[i].pat));
  }
}

bool ProbeMatcher::Field::operator()(const std::string &v) const {
  return field_matches(static_cast<PatKind>(kind), pat, v);
}

bool ProbeMatcher::operator()(const std::string &prov, const std::string &mod,
                              const std::string &func,
                              const std::string &nm) const {
  return f_[0](prov) && f_[1](mod) && f_[2](func) && f_[3](nm);
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
  // Which part claims a symbol is asked once per symbol: a module may
  // have 100 000 entry sites against one __fentry__.
  if (claimant_.size() != c.obj.symbols.size())
    claimant_.assign(c.obj.symbols.size(), kUnasked);
  u8 &k = claimant_[c.rel.sym];
  if (k == kUnasked) {
    k = kNobody;
    const Symbol &s = c.obj.symbols[c.rel.sym];
    for (size_t i = 0; i < parts_.size() && k == kNobody; i++)
      if (parts_[i]->claims(s))
        k = (u8)i;
  }
  return k == kNobody ? Result<bool>(false) : parts_[k]->take(c);
}

// ---- the registry -------------------------------------------------------------------

ProbeRegistry::ProbeRegistry(ModuleArena &arena, ConsoleWriter console)
    : arena_(arena), console_(std::move(console)),
      code_([this](std::shared_ptr<const void> s) {
        retire(std::move(s));
      }) {}

ProbeRegistry::~ProbeRegistry() {
  // The kernel image outlives this kernel (another may boot in the same
  // process): its sites must hold their NOPs again, not calls into
  // trampolines in an arena about to be unmapped, nor int3s.
  if (!patcher_)
    return;
  MutexLock g(mu_);
  std::vector<Probe *> enabled;
  for (auto &p : probes_)
    if (p && state(p->id).enable_count > 0) {
      state(p->id).enable_count = 0;
      enabled.push_back(p.get());
    }
  (void)patch(enabled, false, PatchMode::Call);
  std::vector<HandlerList *> retired;
  enablings_.clear();
  for (auto &p : probes_)
    if (p)
      set_handlers(p->id, retired);
  free_retired(retired);
  for (auto &p : probes_)
    if (p && p->prov)
      p->prov->destroy(*p);
  probes_.clear();
  // What went to call_rcu (lists detach() left, code map snapshots) is
  // freed before the registry goes.
  urcu_memb_barrier();
}

Result<void> ProbeRegistry::init(
    std::vector<std::unique_ptr<Provider>> providers) {
  MK_TRY(code_.init_kernel("/proc/self/exe"));
  patcher_ = std::make_unique<PatchEngine>();
  MK_TRY(patcher_->init(arena_.base(), arena_.base() + arena_.size(),
                        &arena_.view()));
  const x86::TrampolinePlan plan = trampoline_plan();
  publish_block_abi(plan);
  tramps_ = std::make_unique<TrampolineArea>(arena_, plan);
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

Result<void> ProbeRegistry::add_provider(std::unique_ptr<Provider> prov) {
  providers_.push_back(std::move(prov));
  return providers_.back()->provide(*this);
}

u32 ProbeRegistry::allocate_id() {
  if (!free_ids_.empty()) {
    u32 id = *free_ids_.begin();
    free_ids_.erase(free_ids_.begin());
    return id;
  }
  probes_.emplace_back();
  state_.emplace_back();
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
  const size_t pi = provider_index(&prov);
  state(id) = ProbeState{0, PatchMode::Call,
                         pi < providers_.size() ? (u8)pi : kNoProvider};
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

std::vector<ProbeInfo> ProbeRegistry::probes() {
  for (auto &prov : providers_)
    prov->provide_matching(*this, ProbeDesc{});
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

std::vector<ProbeInfo> ProbeRegistry::match(const ProbeDesc &d) {
  for (auto &prov : providers_)
    prov->provide_matching(*this, d);
  const ProbeMatcher m(d);
  MutexLock g(mu_);
  std::vector<ProbeInfo> v;
  for (auto &p : probes_)
    if (p && m(p->provider, p->module, p->function, p->name))
      v.push_back(info(*p));
  return v;
}

std::vector<SiteInfo> ProbeRegistry::sites(u32 id) const {
  MutexLock g(mu_);
  Probe *p = find(id);
  return p && p->prov ? p->prov->sites(*p) : std::vector<SiteInfo>{};
}

std::vector<u32> ProbeRegistry::find_probes(const void *owner,
                                            const std::string &provider,
                                            const std::string &name) const {
  MutexLock g(mu_);
  std::vector<u32> ids;
  for (auto &p : probes_)
    if (p && p->prov && p->owner == owner && p->provider == provider &&
        p->name == name)
      ids.push_back(p->id);
  return ids;
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
  code_.add_module(m.owner, m.name,
                   m.shared_obj ? m.shared_obj
                                : std::make_shared<const ObjectFile>(m.obj),
                   m.pl, m.base, m.size);
  for (auto &part : load.parts_) {
    auto r = part->provide(*this, m);
    if (!r) {
      remove_module(m.owner, m.name); // what the others provided goes too
      return r;
    }
  }
  // Providers that make a module's probes on demand make those a
  // retained enabling could take.
  std::vector<ProbeDesc> retained;
  {
    MutexLock g(mu_);
    for (const Enabling &e : enablings_)
      retained.insert(retained.end(), e.retain.begin(), e.retain.end());
  }
  for (const ProbeDesc &d : retained)
    for (auto &prov : providers_)
      prov->provide_matching(*this, d);
  // Before the module's code first runs: retained enablings take its
  // probes (dtrace -Z counts what MOD_LOAD fires).
  join_retained(m.owner);
  return {};
}

void ProbeRegistry::join_retained(const void *owner) {
  MutexLock g(mu_);
  std::vector<Probe *> fresh; // from the name index, ordered by owner first
  for (auto it = by_name_.lower_bound({owner, std::string()});
       it != by_name_.end() && it->first.first == owner; ++it)
    fresh.push_back(probes_[it->second - 1].get());
  if (fresh.empty())
    return;
  std::vector<HandlerList *> retired;
  for (Enabling &e : enablings_) {
    if (e.retain.empty())
      continue;
    std::vector<Probe *> join, to_patch;
    const std::vector<ProbeMatcher> retain(e.retain.begin(), e.retain.end());
    for (Probe *p : fresh) {
      bool match = false;
      for (const ProbeMatcher &m : retain)
        match = match || m(p->provider, p->module, p->function, p->name);
      if (!match || (e.accept && !e.accept(info(*p))))
        continue;
      const ProbeState &st = state(p->id);
      if (st.enable_count > 0 && st.mode != e.mode)
        continue; // enabled in the other patch mode by another consumer
      join.push_back(p);
      if (st.enable_count == 0 && p->prov)
        to_patch.push_back(p);
    }
    if (join.empty())
      continue;
    // Kept sorted (set_handlers() searches them); new probes may have
    // reused low ids.
    const std::vector<u32> before = e.probes;
    for (Probe *p : join)
      e.probes.push_back(p->id);
    std::sort(e.probes.begin(), e.probes.end());
    for (Probe *p : join)
      set_handlers(p->id, retired);
    if (auto r = patch(to_patch, true, e.mode); !r) {
      console_(strf("sdt: enabling %d: could not enable %zu new probe%s: "
                    "%s\n",
                    e.id, join.size(), join.size() == 1 ? "" : "s",
                    r.error().message.c_str()));
      e.probes = before;
      for (Probe *p : join)
        set_handlers(p->id, retired);
      continue;
    }
    for (Probe *p : join)
      if (ProbeState &st = state(p->id); st.enable_count++ == 0)
        st.mode = e.mode;
  }
  // Nothing fired the new probes yet: the replaced lists were empty.
  retire_later(retired);
}

void ProbeRegistry::remove_module(const void *owner,
                                  const std::string &file_name) {
  bool wait = false;
  // No probe of it is made from here on.
  for (auto &prov : providers_)
    prov->forget_module(owner);
  code_.remove_module(owner); // its image goes after a grace period
  {
    MutexLock g(mu_);
    // A module that attached handlers may have code inside a handler on
    // another thread even now (detach does not wait): a grace period
    // before its memory goes (outside the lock: a handler may be waiting
    // for it to detach itself).
    wait = handler_owners_.erase(owner) > 0;
    // The module's probes, from the name index (ordered by owner first):
    // the kernel has thousands of its own.
    std::vector<Probe *> mine;
    for (auto it = by_name_.lower_bound({owner, std::string()});
         it != by_name_.end() && it->first.first == owner; ++it)
      mine.push_back(probes_[it->second - 1].get());
    if (remove_probes(mine, owner, file_name + " removed at unload"))
      wait = false;
  }
  if (wait)
    synchronize();
  for (auto &prov : providers_)
    prov->remove_module(owner);
}

void ProbeRegistry::free_code(const void *owner, u64 lo, u64 hi,
                              const std::string &file_name) {
  for (auto &prov : providers_)
    prov->forget_code(owner, lo, hi);
  code_.free_code(owner, lo, hi);
  MutexLock g(mu_);
  // Probes with a site there: gone if that is all they have (most), else
  // they lose those sites.
  std::vector<Probe *> gone;
  for (auto it = by_name_.lower_bound({owner, std::string()});
       it != by_name_.end() && it->first.first == owner; ++it) {
    Probe *p = probes_[it->second - 1].get();
    const auto where = p->prov->sites(*p);
    const auto in = [&](const SiteInfo &si) {
      return si.addr >= lo && si.addr < hi;
    };
    if (where.empty() || std::none_of(where.begin(), where.end(), in))
      continue;
    if (std::all_of(where.begin(), where.end(), in))
      gone.push_back(p);
    else
      p->prov->drop_sites(*p, lo, hi);
  }
  remove_probes(gone, owner, file_name + " freed with its init code");
}

bool ProbeRegistry::remove_probes(const std::vector<Probe *> &mine,
                                  const void *owner, const std::string &why) {
  if (mine.empty())
    return false;
  std::vector<std::unique_ptr<Probe>> gone;
  std::vector<Probe *> enabled;
  for (Probe *p : mine)
    if (state(p->id).enable_count > 0)
      enabled.push_back(p);
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
    size_t n = before - e.probes.size();
    if (n && !e.mfn)
      console_(strf("dtrace: enabling %d: %zu probe%s of %s\n", e.id, n,
                    n == 1 ? "" : "s", why.c_str()));
  }
  std::vector<HandlerList *> retired;
  for (Probe *p : mine) {
    state(p->id).enable_count = 0;
    set_handlers(p->id, retired);
    by_name_.erase({owner, p->full()});
    gone.push_back(std::move(probes_[p->id - 1]));
  }
  // Wait for any handler still running, then nothing can reach them.
  // None can be when none of the probes has handlers (never enabled, or
  // disabled, which waited already): most modules unload so, and a grace
  // period is most of an unload.
  const bool waited = !enabled.empty() || !retired.empty();
  if (waited)
    free_retired(retired);
  for (auto &p : gone) {
    p->prov->destroy(*p);
    free_ids_.insert(p->id);
  }
  while (!probes_.empty() && !probes_.back()) {
    free_ids_.erase((u32)probes_.size());
    probes_.pop_back();
    state_.pop_back();
  }
  return waited;
}

std::vector<HandlerInfo>
ProbeRegistry::detach_module_handlers(const void *owner) {
  MutexLock g(mu_);
  std::vector<HandlerInfo> out;
  std::vector<HandlerList *> retired;
  for (auto it = enablings_.begin(); it != enablings_.end();) {
    if (it->mfn && it->owner == owner) {
      out.push_back(handler_info(*it));
      remove_enabling(it, retired);
      it = enablings_.begin(); // remove_enabling erased it
      continue;
    }
    ++it;
  }
  retire_later(retired);
  return out;
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

void ProbeRegistry::retire(std::shared_ptr<const void> obj) {
  // Freed on liburcu's call_rcu thread once a grace period has passed: the
  // load or unload that replaced it does not wait for one, and a module
  // need not have probes (whose removal waits) for its image to go.  A
  // loader that outruns that thread waits for it now and then, so that
  // the images of unloaded modules waiting there stay few.
  probe_thread_register(); // call_rcu wants a registered thread
  if (retired_in_flight_.fetch_add(1, std::memory_order_relaxed) >=
      kRetiredInFlight)
    drain_deferred_frees();
  auto *r = new RetiredObject{{}, std::move(obj), &retired_in_flight_};
  urcu_memb_call_rcu(&r->head, free_retired_object);
}

void ProbeRegistry::retire_later(std::vector<HandlerList *> &retired) {
  if (retired.empty())
    return;
  // call_rcu wants a registered thread; the callbacks run on liburcu's
  // own call_rcu thread once a grace period has passed.
  probe_thread_register();
  for (HandlerList *l : retired)
    urcu_memb_call_rcu(reinterpret_cast<rcu_head *>(l->rcu_head), free_list);
  retired.clear();
}

void ProbeRegistry::mark_keeps_vector(ProbeCallback fn) {
  MutexLock g(mu_);
  if (std::find(keeps_vector_.begin(), keeps_vector_.end(), fn) ==
      keeps_vector_.end())
    keeps_vector_.push_back(fn);
}

void ProbeRegistry::set_handlers(u32 id, std::vector<HandlerList *> &retired) {
  // Rebuild the probe's handler list from the enablings that include it:
  // higher priority first, then in the order they were made.
  std::vector<Handler> &hs = gather_;
  std::vector<int> &prio = gather_prio_;
  hs.clear(), prio.clear();
  for (const Enabling &e : enablings_) // (each one's probes are sorted)
    if (std::binary_search(e.probes.begin(), e.probes.end(), id)) {
      const bool kv = e.fn && std::find(keeps_vector_.begin(), keeps_vector_.end(),
                                        e.fn) != keeps_vector_.end();
      const Handler h{e.fn, e.mfn, e.ctx, e.id, kv};
      if (prio.empty() || prio.back() >= e.prio) {
        hs.push_back(h), prio.push_back(e.prio);
        continue;
      }
      auto at = std::upper_bound(prio.begin(), prio.end(), e.prio,
                                 std::greater<int>());
      hs.insert(hs.begin() + (at - prio.begin()), h);
      prio.insert(at, e.prio);
    }
  auto same = [](const Handler &a, const Handler &b) {
    return a.fn == b.fn && a.mfn == b.mfn && a.ctx == b.ctx &&
           a.enabling == b.enabling && a.keeps_vector == b.keeps_vector;
  };
  HandlerList *nl = nullptr;
  if (!hs.empty() && last_list_ && last_list_->n == hs.size() &&
      std::equal(hs.begin(), hs.end(), last_list_->h, same)) {
    nl = last_list_;
  } else if (!hs.empty()) {
    void *mem = ::operator new(offsetof(HandlerList, h) +
                               sizeof(Handler) * hs.size());
    nl = new (mem) HandlerList;
    nl->n = (u32)hs.size();
    nl->refs = 0;
    std::copy(hs.begin(), hs.end(), nl->h);
    last_list_ = nl;
  }
  swap_list(id, nl, retired);
}

void ProbeRegistry::swap_list(u32 id, HandlerList *nl,
                              std::vector<HandlerList *> &retired) {
  if (nl)
    nl->refs++;
  // Lists change only with the lock held: a load and a store do (firing
  // threads only read the slot).
  ProbeSlot *s = slot_of(id);
  HandlerList *old = s->handlers.load(std::memory_order_relaxed);
  s->handlers.store(nl, std::memory_order_release);
  s->one.store(nl && nl->n == 1 && nl->h[0].mfn ? nl : nullptr,
               std::memory_order_release);
  if (old && --old->refs == 0) {
    if (old == last_list_)
      last_list_ = nullptr;
    retired.push_back(old);
  }
}

void ProbeRegistry::set_handlers(const std::vector<u32> &ids,
                                 std::vector<HandlerList *> &retired) {
  // Every probe of the batch gained (or lost) the same enabling, so probes
  // that held the same list before get the same list now: build each new
  // list once, for the first probe that held its old one (an enabling of
  // every fbt probe moves 100 000s of probes from one list to one other).
  // A few recent (old, new) pairs are kept; a miss only costs a rebuild.
  constexpr size_t kMemo = 8;
  std::pair<HandlerList *, HandlerList *> memo[kMemo];
  size_t nmemo = 0, next = 0;
  for (const u32 id : ids) {
    HandlerList *old = slot_of(id)->handlers.load(std::memory_order_relaxed);
    size_t k = 0;
    while (k < nmemo && memo[k].first != old)
      k++;
    if (k < nmemo) {
      swap_list(id, memo[k].second, retired);
      continue;
    }
    set_handlers(id, retired);
    // `old` cannot come back as a new list's address in this batch: a
    // retired list is freed only after it.
    memo[next] = {old, slot_of(id)->handlers.load(std::memory_order_relaxed)};
    next = (next + 1) % kMemo;
    if (nmemo < kMemo)
      nmemo++;
  }
}

size_t ProbeRegistry::provider_index(const Provider *prov) const {
  size_t i = 0;
  while (i < providers_.size() && providers_[i].get() != prov)
    i++;
  return i;
}

Result<void> ProbeRegistry::patch(const std::vector<Probe *> &probes,
                                  bool enable, PatchMode mode) {
  // One batch per provider, the probes sorted out in one pass (an
  // enabling may have 100 000s).
  ByProvider &by_prov = to_patch();
  for (Probe *p : probes)
    if (const u8 i = state(p->id).prov; i < by_prov.size())
      by_prov[i].add(p, p->id);
  return patch(by_prov, enable, mode);
}

ProbeRegistry::ByProvider &ProbeRegistry::to_patch() {
  to_patch_.resize(providers_.size());
  for (ProbeBatch &b : to_patch_)
    b.probes.clear(), b.ids.clear();
  return to_patch_;
}

Result<void> ProbeRegistry::patch(const ByProvider &by_prov, bool enable,
                                  PatchMode mode) {
  // Trampolines, stubs and sites are written with the writable views
  // mapped once for the whole enabling.
  const auto views = patcher_->writing();
  for (size_t i = 0; i < providers_.size() && i < by_prov.size(); i++) {
    Provider *prov = providers_[i].get();
    const ProbeBatch &mine = by_prov[i];
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

Result<int> ProbeRegistry::add_enabling(Enabling en) {
  // Sorted and unique: an enabling may have every fbt probe, 100 000s of
  // them, and set_handlers() looks ids up in every enabling.  (A match
  // lists them in id order already.)
  if (!std::is_sorted(en.probes.begin(), en.probes.end()))
    std::sort(en.probes.begin(), en.probes.end());
  en.probes.erase(std::unique(en.probes.begin(), en.probes.end()),
                  en.probes.end());
  // One pass over the ids for the checks, sorting out what to patch by
  // provider; it reads the dense per-id state only.
  ByProvider &to_patch = this->to_patch();
  for (const u32 id : en.probes) {
    Probe *p = find(id);
    if (!p)
      return error(strf("probe %u does not exist", id));
    const ProbeState &st = state(id);
    if (st.enable_count > 0 && st.mode != en.mode)
      return error(strf("probe %s is already enabled in another patch mode",
                        p->full().c_str()));
    if (st.enable_count == 0 && st.prov < to_patch.size())
      to_patch[st.prov].add(p, id);
  }
  // Handlers first, so the first firing after the patch finds them.
  en.id = next_enabling_++;
  const int id = en.id;
  const PatchMode mode = en.mode;
  enablings_.push_back(std::move(en));
  std::vector<HandlerList *> retired;
  set_handlers(enablings_.back().probes, retired);
  if (auto r = patch(to_patch, true, mode); !r) {
    const std::vector<u32> ids = std::move(enablings_.back().probes);
    enablings_.pop_back();
    set_handlers(ids, retired);
    free_retired(retired);
    return r.take_error();
  }
  for (const u32 pid : enablings_.back().probes)
    if (ProbeState &st = state(pid); st.enable_count++ == 0)
      st.mode = mode;
  retire_later(retired);
  return id;
}

void ProbeRegistry::remove_enabling(std::vector<Enabling>::iterator it,
                                    std::vector<HandlerList *> &retired) {
  Enabling e = std::move(*it);
  enablings_.erase(it);
  std::vector<u32> &ids = batch_ids_;
  ids.clear();
  ByProvider &to_patch = this->to_patch();
  for (const u32 id : e.probes) {
    Probe *p = find(id);
    if (!p)
      continue; // its module went away
    ids.push_back(id);
    ProbeState &st = state(id);
    if (--st.enable_count == 0 && st.prov < to_patch.size())
      to_patch[st.prov].add(p, id);
  }
  // The sites first: once restored, only threads already past them can
  // still reach the old list.
  (void)patch(to_patch, false, PatchMode::Call);
  set_handlers(ids, retired);
}

Result<int> ProbeRegistry::enable(const std::vector<u32> &ids,
                                  ProbeCallback fn, void *ctx, PatchMode mode,
                                  std::vector<ProbeDesc> retain,
                                  NewProbeFilter accept) {
  MutexLock g(mu_);
  Enabling e;
  e.probes = ids; // (add_enabling sorts them)
  e.fn = fn;
  e.ctx = ctx;
  e.mode = mode;
  e.retain = std::move(retain);
  e.accept = std::move(accept);
  return add_enabling(std::move(e));
}

void ProbeRegistry::disable(int enabling) {
  MutexLock g(mu_);
  auto it = std::find_if(enablings_.begin(), enablings_.end(),
                         [&](const Enabling &e) { return e.id == enabling; });
  if (it == enablings_.end())
    return;
  std::vector<HandlerList *> retired;
  remove_enabling(it, retired);
  // Also when nothing was retired: on return no handler of `e` may run.
  free_retired(retired);
}

// ---- module handlers -----------------------------------------------------------------

Result<int> ProbeRegistry::attach(const ProbeDesc &d, bool retain,
                                  HandlerSpec h, int *err) {
  std::vector<u32> ids;
  for (const ProbeInfo &p : match(d))
    if (p.provider != "dtrace") // BEGIN/END/ERROR are the consumer's
      ids.push_back(p.id);
  MutexLock g(mu_);
  return attach_locked(ids, retain ? std::vector<ProbeDesc>{d}
                                   : std::vector<ProbeDesc>{},
                       std::move(h), err);
}

Result<int> ProbeRegistry::attach(const std::vector<u32> &ids, HandlerSpec h,
                                  int *err) {
  MutexLock g(mu_);
  return attach_locked(ids, {}, std::move(h), err);
}

Result<int> ProbeRegistry::attach_locked(const std::vector<u32> &ids,
                                         std::vector<ProbeDesc> retain,
                                         HandlerSpec h, int *err) {
  auto fail = [&](int e, std::string msg) -> Result<int> {
    if (err)
      *err = e;
    return error(std::move(msg));
  };
  Enabling e;
  // Probes gone since they were matched are simply not attached.
  for (u32 id : ids)
    if (find(id))
      e.probes.push_back(id); // (add_enabling sorts them)
  e.retain = std::move(retain);
  e.mfn = h.fn, e.ctx = h.data, e.prio = h.prio, e.owner = h.owner;
  e.module = std::move(h.module), e.function = std::move(h.function);
  e.key = std::move(h.key);
  if (!e.mfn)
    return fail(EINVAL, "no handler function");
  for (const Enabling &o : enablings_) {
    if (o.mfn != e.mfn || o.ctx != e.ctx)
      continue;
    // The same handler with the same data on a probe already, or retained
    // under the same description: refused, as Linux refuses it.
    if (o.key == e.key && !o.retain.empty() && !e.retain.empty())
      return fail(EEXIST, strf("already attached to %s with data %p",
                               e.key.c_str(), e.ctx));
    for (u32 id : e.probes)
      if (std::binary_search(o.probes.begin(), o.probes.end(), id))
        return fail(EEXIST, strf("already attached to %s with data %p",
                                 find(id)->full().c_str(), e.ctx));
  }
  if (e.probes.empty() && e.retain.empty())
    return fail(ENOENT, e.key + ": no such probe");
  const void *owner = e.owner;
  auto r = add_enabling(std::move(e));
  if (!r)
    return fail(EINVAL, r.error().message);
  if (owner)
    handler_owners_.insert(owner);
  return r;
}

bool ProbeRegistry::detach(ModuleHandler fn, void *data, const std::string &key) {
  MutexLock g(mu_);
  auto it = std::find_if(enablings_.begin(), enablings_.end(),
                         [&](const Enabling &e) {
                           return e.mfn && e.mfn == fn && e.ctx == data &&
                                  e.key == key;
                         });
  if (it == enablings_.end())
    return false;
  std::vector<HandlerList *> retired;
  remove_enabling(it, retired);
  // No wait: the old lists go after a grace period; the handler's module
  // waits for one before its code is freed (remove_module).
  retire_later(retired);
  return true;
}

HandlerInfo ProbeRegistry::handler_info(const Enabling &e) const {
  HandlerInfo h;
  h.enabling = e.id;
  h.dtrace = !e.mfn;
  h.prio = e.prio;
  h.module = e.module, h.function = e.function, h.key = e.key;
  h.data = (uintptr_t)e.ctx;
  h.probes = e.probes;
  return h;
}

std::vector<HandlerInfo> ProbeRegistry::handlers(u32 id) const {
  MutexLock g(mu_);
  std::vector<const Enabling *> on;
  for (const Enabling &e : enablings_)
    if (std::binary_search(e.probes.begin(), e.probes.end(), id))
      on.push_back(&e);
  std::stable_sort(on.begin(), on.end(), [](const Enabling *a, const Enabling *b) {
    return a->prio > b->prio;
  });
  std::vector<HandlerInfo> out;
  for (const Enabling *e : on)
    out.push_back(handler_info(*e));
  return out;
}

} // namespace mk
