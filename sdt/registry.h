// The probe registry: every probe of every provider, by id; enablings (a
// consumer attached to a set of probes: a DTrace enabling's callback, or a
// module's handler); the firing path every enabled site reaches; and the
// machine services providers share (the patch engine and the trampoline
// area).
//
// Firing.  Each probe id has a ProbeSlot that never moves and is reused
// with the id: trampolines name the slot, and the slot holds the probe's
// handler list, in priority order.  Handler lists are immutable, published
// with an atomic store and retired with read-copy-update (liburcu's
// membarrier flavour): the firing path is an RCU read-side critical
// section, so a list, a consumer or a module's code may go once a grace
// period has passed.  DTrace's disable() waits for one (synchronize());
// a module's detach() does not: the old list goes to call_rcu, and the
// module's code waits for a grace period at unload.
//
// A probe whose list is one module handler is fired without the list loop:
// its trampoline takes the read lock inline, loads the handler and its
// data pointer from the list and calls it with the arguments still in
// their registers (sdt/x86_trampoline.h), Linux's static_call for
// tracepoints in spirit.
//
// Lifetime.  A probe exists from its provider's provide() until its module
// is removed (remove_module); consumers only ever hold ids and copies
// (ProbeInfo), never pointers into the registry.  Ids are reused, lowest
// first, once no thread can still see the old probe.  An enabling may be
// retained (DTrace's enablings, a handler attached by name): probes that
// appear later and match its descriptions join it before their module's
// code first runs.
#pragma once

#include "../linker/arena.h"
#include "../linker/sync.h"
#include "codemap.h"
#include "patch.h"
#include "probe.h"
#include "provider.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mk {

class TrampolineArea;

// A module's handler (<sys/sdt.h> sdt_handler_t): its data pointer and the
// probe's six arguments.
using ModuleHandler = void (*)(void *data, uintptr_t, uintptr_t, uintptr_t,
                               uintptr_t, uintptr_t, uintptr_t);

// One handler on a probe's list: a consumer's callback, or a module's
// handler (mfn set; ctx is its data pointer).
struct Handler {
  ProbeCallback fn;
  ModuleHandler mfn;
  void *ctx;
  int enabling;
  // fn keeps the vector argument registers (ProbeRegistry::
  // mark_keeps_vector): fbt's trampolines need not save them around it.
  bool keeps_vector;
};


// Immutable once published; replaced as a whole when enablings change.
// The trampolines read n, h[0].mfn and h[0].ctx (their offsets are baked
// into the code).
// Probes with the same handlers share one list (an enabling of every fbt
// probe has 100 000s of them): `refs` counts the probes that hold it,
// changed only with the registry's lock held.
struct HandlerList {
  void *rcu_head[2]; // liburcu's struct rcu_head, for call_rcu
  u32 n = 0;
  u32 refs = 0;
  Handler h[1];
};

// The handlers' order on a list: higher first, then in attach order.
constexpr int kDefaultPriority = 10;

// A module handler being attached.
struct HandlerSpec {
  ModuleHandler fn = nullptr;
  void *data = nullptr;
  int prio = kDefaultPriority;
  const void *owner = nullptr;  // the module holding fn's code (null: kernel)
  std::string module, function; // names, for listings and messages
  std::string key; // what detach names it by: the description, or the
                   // probe definition's symbol
};

// Whether a DTrace enabling takes a probe that appeared after it started.
using NewProbeFilter = std::function<bool(const ProbeInfo &)>;

// An enabling as listings show it.
struct HandlerInfo {
  int enabling = 0;
  bool dtrace = false; // a DTrace enabling (else a module handler)
  int prio = kDefaultPriority;
  std::string module, function, key;
  uintptr_t data = 0;
  std::vector<u32> probes;
};


// What the firing path reads for one probe id.  Slots of consecutive ids
// are adjacent, two to a cache line: firing threads only read them, and
// an enabling of every fbt probe walks 100 000s of them in id order.
struct alignas(16) ProbeSlot {
  std::atomic<HandlerList *> handlers{nullptr};
  u32 id = 0;
  // `handlers` when that is one module handler, else nullptr: what
  // asm-goto blocks call themselves (sys/sdt.h).
  std::atomic<HandlerList *> one{nullptr};
};

// A probe, as the registry and its provider see it.  Consumers never get
// one: they get ProbeInfo copies.  What a batch reads and writes per probe
// is kept by id, densely (ProbeRegistry's ProbeState, the slots, fbt's
// function table): enabling every fbt probe never touches these objects.
struct Probe {
  u32 id = 0;
  Provider *prov = nullptr;
  ProbeSlot *slot = nullptr;
  std::unique_ptr<ProbeData> data; // the provider's
  const void *owner = nullptr; // the module it came with; null: the kernel
  std::string provider, module, function, name;
  std::string full() const {
    return provider + ":" + module + ":" + function + ":" + name;
  }
};

// Where the registry's messages go (the kernel's console).
using ConsoleWriter = std::function<void(const std::string &)>;

class ModuleLoad;

class ProbeRegistry {
public:
  ProbeRegistry(ModuleArena &arena, ConsoleWriter console);
  ~ProbeRegistry();
  ProbeRegistry(const ProbeRegistry &) = delete;
  ProbeRegistry &operator=(const ProbeRegistry &) = delete;

  // Boot: the patch engine (text aliases, SIGTRAP handler), DTrace's own
  // probes, then every provider's probes of the kernel image.
  Result<void> init(std::vector<std::unique_ptr<Provider>> providers);
  // A provider of a layer above the probe core (the Linux API's
  // tracepoints), added at boot after init, before any other thread runs.
  Result<void> add_provider(std::unique_ptr<Provider> prov);

  // ---- providers
  // A probe of `prov`, or the one already known under the same name and
  // owner (a probe with several sites in one function is one probe).  The
  // provider fills in its ProbeData before the probe can be enabled: only
  // provide() and provide_module() call this, never with an enabling
  // running against the new probe.
  Probe *create(Provider &prov, const std::string &provider,
                const std::string &module, const std::string &function,
                const std::string &name, const void *owner) EXCLUDES(mu_);
  // A line for the kernel's console (a provider's word about a probe it
  // could not make).
  void report(const std::string &line) { console_(line); }
  PatchEngine &patcher() { return *patcher_; }
  TrampolineArea &trampolines() { return *tramps_; }
  ModuleArena &arena() { return arena_; }
  // The kernel image's and the modules' code: names, unwind tables.
  CodeMap &code() { return code_; }
  // The firing entry point trampolines call: fire(slot, args).
  static u64 fire_entry();

  // ---- the kernel's loader
  // Every provider's hooks for one module's link.
  std::unique_ptr<ModuleLoad> begin_module(const std::string &name);
  // After the link: the module's probes.
  Result<void> provide_module(ModuleLoad &load, const ModuleImage &m)
      EXCLUDES(mu_);
  // The module's code is about to go: disable and destroy its probes
  // (sites restored, enablings told), wait until no handler runs (also no
  // handler of the module's own, if it ever attached one), free their ids.
  // Prints which enablings lost probes.
  void remove_module(const void *owner, const std::string &file_name)
      EXCLUDES(mu_);
  // The module's code in [lo, hi) is freed while the module stays (Linux's
  // init text once init has run): its probes there go as at unload, and
  // the code map no longer names or unwinds that code.
  void free_code(const void *owner, u64 lo, u64 hi,
                 const std::string &file_name) EXCLUDES(mu_);
  // The module is unloading with handlers still attached: detach them
  // (returns what it detached, for the console).
  std::vector<HandlerInfo> detach_module_handlers(const void *owner)
      EXCLUDES(mu_);

  // ---- consumers
  // Every probe, by id (providers that make probes on demand make all of
  // theirs first).
  std::vector<ProbeInfo> probes() EXCLUDES(mu_);
  std::optional<ProbeInfo> probe(u32 id) const EXCLUDES(mu_);
  // Providers that make probes on demand (profile-997) make them first.
  std::vector<ProbeInfo> match(const ProbeDesc &d) EXCLUDES(mu_);
  std::vector<SiteInfo> sites(u32 id) const EXCLUDES(mu_);
  // The probes of `owner` (null: the kernel) named provider:*:*:name: the
  // ones made from one SDT_PROBE_DEFINE.
  std::vector<u32> find_probes(const void *owner, const std::string &provider,
                               const std::string &name) const EXCLUDES(mu_);
  // Enable `ids`: every site patched in one batch.  Returns the enabling id.
  // With `retain` descriptions, probes made later that match one join the
  // enabling if `accept` takes them (DTrace's retained enablings).
  Result<int> enable(const std::vector<u32> &ids, ProbeCallback fn, void *ctx,
                     PatchMode mode = PatchMode::Call,
                     std::vector<ProbeDesc> retain = {},
                     NewProbeFilter accept = nullptr) EXCLUDES(mu_);
  // `fn` keeps the vector argument registers: built with
  // -mgeneral-regs-only, it calls anything else through
  // mk_call_keeping_vector.  Say so before enabling with it.
  void mark_keeps_vector(ProbeCallback fn) EXCLUDES(mu_);
  // Disable; on return no handler of this enabling runs or will run.
  void disable(int enabling) EXCLUDES(mu_);
  // Wait until every probe handler that started before now has returned.
  void synchronize();
  // Wait until everything handed to call_rcu before now is freed (lists a
  // detach retired, the code map's replaced snapshots with the images of
  // unloaded modules): what a memory measurement reads after.
  void drain_deferred_frees();
  // liburcu's call_rcu thread, which frees what is retired here, made and
  // seen running (past the C library's start-up: see start_running( ) in
  // linker/sync.h), before any module code runs.  liburcu would make it at
  // the first call_rcu, when a module may already be running.
  static void start_rcu_thread();
  // Free `obj` once no handler that might still read it runs: after a grace
  // period, on liburcu's call_rcu thread, without waiting for one here.
  // What a consumer's firing path reads and it replaces (its tables, its
  // compiled programs), and the code map's replaced snapshots.
  void retire(std::shared_ptr<const void> obj);

  // ---- module handlers
  // Attach `h` to the probes `d` matches, and (retain) to every probe made
  // later that matches it.  Refused if (fn, data) is on one of them already
  // (*err = EEXIST).  Returns the enabling id.
  Result<int> attach(const ProbeDesc &d, bool retain, HandlerSpec h,
                     int *err = nullptr) EXCLUDES(mu_);
  // Attach to the given probes (none: *err = ENOENT).
  Result<int> attach(const std::vector<u32> &ids, HandlerSpec h,
                     int *err = nullptr) EXCLUDES(mu_);
  // Detach the handler attached as (fn, data, key).  Returns at once: the
  // handler may still run on other threads until a grace period passes.
  // False if there is no such attachment.
  bool detach(ModuleHandler fn, void *data, const std::string &key)
      EXCLUDES(mu_);
  // Every consumer on probe `id`, in firing order.
  std::vector<HandlerInfo> handlers(u32 id) const EXCLUDES(mu_);
  // dtrace:::BEGIN's id (END and ERROR follow it).
  u32 dtrace_begin_id() const { return dtrace_begin_; }

  // The firing path (trampolines, the breakpoint handler, timers): the
  // probe's handlers, called with its six arguments, `frame` the probed
  // code's (stack() walks from it; nullptr: not known).  Nothing fires on a
  // thread already running handlers (in_probe_context()).
  static void fire(const ProbeSlot *slot, const uintptr_t *args,
                   const ProbeFrame *frame = nullptr);

  // Counters for the tests and the benchmark.
  u64 patch_batches() const { return patch_batches_.load(); }
  u64 serialisations() const;
  size_t live_probes() const EXCLUDES(mu_);
  u32 highest_id() const EXCLUDES(mu_);

private:
  // A consumer on a set of probes.
  struct Enabling {
    int id = 0;
    std::vector<u32> probes; // sorted
    ProbeCallback fn = nullptr; // a DTrace enabling's callback, or
    ModuleHandler mfn = nullptr; // a module's handler
    void *ctx = nullptr;
    PatchMode mode = PatchMode::Call;
    int prio = kDefaultPriority;
    const void *owner = nullptr; // module handlers: the module of mfn's code
    std::string module, function, key;
    std::vector<ProbeDesc> retain; // probes made later that match join
    NewProbeFilter accept;         // ... if this takes them (null: all)
  };
  HandlerInfo handler_info(const Enabling &e) const;
  // Disable, unlink and destroy `probes` of `owner` (enablings that lose
  // some are told `why`).  Whether it waited for a grace period.
  bool remove_probes(const std::vector<Probe *> &probes, const void *owner,
                     const std::string &why) REQUIRES(mu_);
  // Add an enabling on `ids` (patched in one batch); its id.
  Result<int> add_enabling(Enabling e) REQUIRES(mu_);
  // Remove enabling `it`; the old lists go to `retired`.
  void remove_enabling(std::vector<Enabling>::iterator it,
                       std::vector<HandlerList *> &retired) REQUIRES(mu_);
  Result<int> attach_locked(const std::vector<u32> &ids,
                            std::vector<ProbeDesc> retain, HandlerSpec h,
                            int *err) REQUIRES(mu_);
  // Probes of `owner`, just made, join the retained enablings they match.
  void join_retained(const void *owner) EXCLUDES(mu_);
  // Free lists after a grace period without waiting for it (call_rcu).
  void retire_later(std::vector<HandlerList *> &retired);
  Probe *find(u32 id) const REQUIRES(mu_);
  ProbeInfo info(const Probe &p) const REQUIRES(mu_);
  u32 allocate_id() REQUIRES(mu_);
  // The slot of `id`, made with its chunk if need be.
  ProbeSlot *slot(u32 id) REQUIRES(mu_);
  // The slot of an id that has one.
  ProbeSlot *slot_of(u32 id) const REQUIRES(mu_) {
    const u32 i = id - 1;
    return &slots_[i / kSlotChunk][i % kSlotChunk];
  }
  // Publish probe `id`'s handler list anew; the old one goes to `retired`
  // once no probe holds it, freed after one synchronize() for the whole
  // batch.
  void set_handlers(u32 id, std::vector<HandlerList *> &retired)
      REQUIRES(mu_);
  // The same for a batch of probes (sorted ids) that all gained, or all
  // lost, one enabling (add_enabling, remove_enabling).
  void set_handlers(const std::vector<u32> &ids,
                    std::vector<HandlerList *> &retired) REQUIRES(mu_);
  // Publish `nl` as `id`'s list; the old one to `retired` once unused.
  void swap_list(u32 id, HandlerList *nl,
                 std::vector<HandlerList *> &retired) REQUIRES(mu_);
  void free_retired(std::vector<HandlerList *> &retired);
  // Probes sorted out by provider (by index in providers_).
  using ByProvider = std::vector<ProbeBatch>;
  // Enable or disable `probes` in one batch per provider.
  Result<void> patch(const std::vector<Probe *> &probes, bool enable,
                     PatchMode mode) REQUIRES(mu_);
  Result<void> patch(const ByProvider &by_prov, bool enable, PatchMode mode)
      REQUIRES(mu_);
  // The batch's scratch space, emptied (see to_patch_).
  ByProvider &to_patch() REQUIRES(mu_);
  size_t provider_index(const Provider *prov) const; // providers_.size(): none

  // What a batch reads and writes per probe, kept by id.
  static constexpr u8 kNoProvider = 0xff;
  struct ProbeState {
    int enable_count = 0;             // enablings that include it
    PatchMode mode = PatchMode::Call; // theirs, while there are any
    u8 prov = kNoProvider;            // its provider's index in providers_
  };
  ProbeState &state(u32 id) REQUIRES(mu_) { return state_[id - 1]; }

  ModuleArena &arena_;
  ConsoleWriter console_;
  // Objects handed to call_rcu by retire() and not yet freed; past the
  // limit, the next one waits for them.
  static constexpr u32 kRetiredInFlight = 64;
  std::atomic<u32> retired_in_flight_{0};
  CodeMap code_;
  std::unique_ptr<PatchEngine> patcher_;
  std::unique_ptr<TrampolineArea> tramps_;
  std::vector<std::unique_ptr<Provider>> providers_; // set at boot
  u32 dtrace_begin_ = 0;

  mutable Mutex mu_;
  // Probes by id; index id - 1, null where the id is free.
  std::vector<std::unique_ptr<Probe>> probes_ GUARDED_BY(mu_);
  std::vector<ProbeState> state_ GUARDED_BY(mu_); // the same indices
  std::set<u32> free_ids_ GUARDED_BY(mu_);
  // Slots by id, in chunks that never move (trampolines hold addresses).
  static constexpr u32 kSlotChunk = 1024;
  std::vector<std::unique_ptr<ProbeSlot[]>> slots_ GUARDED_BY(mu_);
  // Probes by name, for create()'s lookup: "owner\0full".
  std::map<std::pair<const void *, std::string>, u32> by_name_
      GUARDED_BY(mu_);
  std::vector<Enabling> enablings_ GUARDED_BY(mu_);
  // A batch's scratch space, kept from one batch to the next: fresh
  // memory for 100 000s of probes costs a page fault every 4 KiB.
  ByProvider to_patch_ GUARDED_BY(mu_);
  std::vector<u32> batch_ids_ GUARDED_BY(mu_);
  // set_handlers()'s: the handlers being gathered, and the list it made
  // last, which the next probe with the same handlers shares.
  std::vector<Handler> gather_ GUARDED_BY(mu_);
  std::vector<int> gather_prio_ GUARDED_BY(mu_); // their priorities
  HandlerList *last_list_ GUARDED_BY(mu_) = nullptr;
  std::vector<ProbeCallback> keeps_vector_ GUARDED_BY(mu_);
  int next_enabling_ GUARDED_BY(mu_) = 1;
  // Modules that attached a handler since they loaded: their code waits
  // for a grace period when they go.
  std::set<const void *> handler_owners_ GUARDED_BY(mu_);
  std::atomic<u64> patch_batches_{0};
};

// A module being loaded: every provider's ModuleProbes behind one
// LinkHooks, for the module's link.
class ModuleLoad : public LinkHooks {
public:
  explicit ModuleLoad(std::vector<std::unique_ptr<ModuleProbes>> parts)
      : parts_(std::move(parts)) {}
  std::optional<Result<u64>> bind(const std::string &name) override;
  bool claims(const Symbol &s) const override;
  Result<bool> take(const SiteContext &c) override;

private:
  friend class ProbeRegistry;
  std::vector<std::unique_ptr<ModuleProbes>> parts_;
  // By symbol index: the part that claims it, once asked.
  static constexpr u8 kUnasked = 0xff, kNobody = 0xfe;
  std::vector<u8> claimant_;
};

// Every thread that fires probes is an RCU reader; threads the kernel
// starts register when they start, others on their first firing.
void probe_thread_register();
// Whether the calling thread is one (a signal handler may fire probes only
// there: registering is not async-signal-safe).
bool probe_thread_registered();

// The calling thread's probe context: set while it runs a probe's
// handlers.  Plain TLS (no C++ TLS wrapper): read on every firing.  The
// assembler names are for fbt's trampolines, which fire probes themselves.
namespace detail {
extern __thread bool t_probe_context __asm__("mk_tls_probe_context");
// The frame of the probe whose handlers run: a ProbeFrame *, or, tagged
// in its low two bits, what a trampoline saved (it sets no more than
// that), from which frame_of_args() works the frame out only if a handler
// asks: 1, the argument array of an SDT trampoline's slow path; 2 and 3,
// fbt's entry and return frames (fbt_trampoline_frame()).
extern __thread uintptr_t t_probe_frame __asm__("mk_tls_probe_frame");
// Whether the thread is a registered RCU reader (probe_thread_register()):
// 0 no; 1 yes; 2 yes, and liburcu's read side is two plain stores (it uses
// sys_membarrier), as fbt's trampolines inline it.
extern __thread u8 t_reader __asm__("mk_tls_probe_reader");
// liburcu's reader counter: the first field of its thread-local reader
// state (registry.cpp checks that).
extern "C" __thread unsigned long t_rcu_ctr __asm__("urcu_memb_reader");
const ProbeFrame *frame_of_args(uintptr_t tagged);
} // namespace detail
// Whether the calling thread runs probe handlers now.  No probe fires
// there: a handler that calls traced code never re-enters itself (ftrace's
// recursion guard, DTrace's probe context).
// An asm-goto block running its one module handler marks liburcu's reader
// counter instead (__SDT_RCU_MARK of <sys/sdt.h>, registry.cpp checks).
constexpr unsigned long kRcuHandlerMark = 0x8000;
inline bool in_probe_context() {
  return detail::t_probe_context || (detail::t_rcu_ctr & kRcuHandlerMark);
}
// The frame of the probe whose handlers the calling thread runs, or nullptr.
inline const ProbeFrame *probe_frame() {
  const uintptr_t v = detail::t_probe_frame;
  return v & 3 ? detail::frame_of_args(v) : (const ProbeFrame *)v;
}

} // namespace mk
