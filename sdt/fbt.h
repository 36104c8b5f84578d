// The fbt provider: function-boundary tracing.  fbt:MODULE:FUNCTION:entry
// and :return for every function of the kernel and of the modules that was
// compiled with a function-entry site (site.h: -pg -mfentry, -pg,
// __mcount_loc, __patchable_function_entries).
//
// Entry.  The module loader turns each compiler-marked entry into one NOP
// instruction as it links the module (the hooks below; for the kernel
// image the site recorder did it at build time, its records are the
// `fbt_sites_set` linker set).  Enabling a function's entry or return
// patches its site into a jump (i386: a call) to a small per-function stub
// in the module arena, which hands the function's record to the common
// entry trampoline: it saves the argument registers (and the SSE ones),
// calls mk_fbt_enter(), restores them and resumes the function, which
// never notices.  arg0..arg5 are the function's arguments: the argument
// registers on x86_64, the stack on i386.
//
// Return, without a trap (Linux's function-graph tracer's way): when the
// function's return probe is enabled, mk_fbt_enter() keeps the function's
// return address on the thread's shadow stack and has the function return
// into a return trampoline: on x86_64, for a site at the function's first
// instruction, by calling the function's body from the entry trampoline
// (every ret then has its call, and is predicted); otherwise by
// overwriting the return address.  The trampoline saves the return
// registers (rax/rdx, xmm0/1, the x87 stack), fires the return probe
// (arg1 = the value, arg2 = its high half: rdx, or edx of a 64-bit value on
// i386; arg0 = 0: which `ret` it took is not known, and no ret is at offset
// 0, where the entry site is) and resumes the caller.  So a return fires
// exactly once per entry whose return was taken over: a recursive function stacks
// one entry per call; a function that tail-calls another leaves its entry
// under the callee's, and returns through the trampoline twice; an entry
// taken over before the probe is disabled still returns through the
// trampoline afterwards (it stays mapped as long as the kernel).
// Entries whose frames a longjmp skipped are dropped when a shallower
// frame returns or enters.  A return finds its entry by the stack pointer
// it leaves, which on i386 depends on what its `ret $N` pops (a struct
// returned in memory: 4); a function for which that cannot be read off its
// code (it returns only through an indirect tail call, or never) keeps its
// return probe, but its returns are not taken over: it never fires.  Return addresses read off the stack
// (unwind.h, stack()) go through fbt_real_return().
//
// Breakpoint mode (the registry's PatchMode::Breakpoint) is FreeBSD fbt's
// way, for comparison: int3 on the entry site and on every `ret` of the
// function, the SIGTRAP handler firing the probes (arg0 of a return is
// then the offset of its `ret`).
//
// The per-thread guard: mk_fbt_enter() does nothing on a thread that runs
// probe handlers (in_probe_context()), so a handler may call traced
// functions (printf, malloc) without re-entering itself.
#pragma once

#include "../linker/sync.h"
#include "patch.h"
#include "provider.h"
#include "site.h"

namespace mk {

struct FbtFunc;

// One function a batch changes: for the probe at `i` in the batch, its
// entry or its return.
struct FbtWork {
  FbtFunc *f;
  bool is_return;
  u32 i;
};

class FbtProvider final : public Provider {
public:
  FbtProvider() = default;
  ~FbtProvider() override;
  const char *name() const override { return "fbt"; }
  // The kernel image's functions, from the site recorder's linker set.
  Result<void> provide(ProbeRegistry &r) override;
  std::unique_ptr<ModuleProbes> begin_module(const std::string &name) override;
  Result<void> enable(const ProbeBatch &b, PatchMode mode) override;
  void disable(const ProbeBatch &b) override;
  std::vector<std::string> argtypes(const Probe &p) const override;
  std::vector<SiteInfo> sites(const Probe &p) const override;
  void destroy(Probe &p) override;

  // One entry site, found by the loader hooks or from a site record.
  struct Site {
    u64 addr = 0; // its first byte
    u8 len = 5;
    EntryStyle style = EntryStyle::AtEntry;
    u64 func = 0, size = 0; // the function holding it
    std::string function;   // its name as probes show it
  };
  // Make the entry and return probes of each site's function.
  void add_sites(ProbeRegistry &r, const std::string &module,
                 const void *owner, const std::vector<Site> &sites);

  // A module's probes are made when a description could name them (a
  // listing, a match, an enabling, a retained enabling at its load), as
  // DTrace's providers make theirs in dtps_provide: until then its entry
  // sites are a compact table (Linux keeps one dyn_ftrace record per
  // __fentry__ site and nothing else until ftrace is used), so a module
  // nobody traces pays for neither names nor probes.
  void provide_matching(ProbeRegistry &r, const ProbeDesc &d) override
      EXCLUDES(pending_mu_);
  void forget_module(const void *owner) override EXCLUDES(pending_mu_);
  void forget_code(const void *owner, u64 lo, u64 hi) override
      EXCLUDES(pending_mu_);
  void drop_sites(Probe &p, u64 lo, u64 hi) override;

private:
  friend class FbtModuleProbes;
  // One entry site of a module whose probes are not made yet: its
  // function's name is read from the object file when they are.
  struct PendingSite {
    u64 off; // in its section
    u32 section;
    u8 len;
  };
  struct Pending {
    const void *owner;
    std::string module;
    std::shared_ptr<const ObjectFile> obj;
    std::vector<u64> sec_addr; // where the module's sections are
    std::vector<PendingSite> sites;
  };
  void defer(Pending p) EXCLUDES(pending_mu_);
  std::vector<Site> sites_of(ProbeRegistry &r, const Pending &p);
  // Held while a module's probes are made, so that forget_module() never
  // runs between taking its table and the last probe's creation.
  Mutex pending_mu_;
  std::vector<Pending> pending_ GUARDED_BY(pending_mu_);
  // The function's stub, made on first use.  Probes' state (FbtFunc's
  // modes) changes with the registry's lock held; the stubs' memory has
  // its own lock.
  Result<u64> stub_for(FbtFunc &f) EXCLUDES(mu_);
  // Patch the functions' sites (and rets) to their probes' modes.
  // (Each function once: a batch stamps the functions it took.)
  void apply(const std::vector<FbtFunc *> &touched);
  // The functions of a batch's probes, into work_.
  void gather(const ProbeBatch &b) EXCLUDES(ids_mu_);
  u32 batch_ = 0; // the last batch's stamp (changed with the registry's lock)
  ProbeRegistry *reg_ = nullptr; // set by provide(), at boot
  // By probe id (index id - 1): the probe's one function with the low bit
  // set for a return probe, or 0 (no such probe, or several functions:
  // see its ProbeData).  What a batch reads in place of the probe objects.
  Mutex ids_mu_;
  std::vector<uintptr_t> by_id_ GUARDED_BY(ids_mu_);
  void set_ref(u32 id, uintptr_t ref) EXCLUDES(ids_mu_);
  // A batch's scratch space, kept from one batch to the next (with the
  // registry's lock): 100 000 sites' worth of fresh memory would cost a
  // page fault every 4 KiB, more than the rest of the batch.
  std::vector<FbtWork> work_;
  std::vector<FbtFunc *> touched_;
  std::vector<PatchOp> ops_;
  struct Chunk {
    u64 addr, size;
  };
  Mutex mu_;
  std::vector<Chunk> chunks_ GUARDED_BY(mu_); // ReadExec arena blocks
  u64 used_ GUARDED_BY(mu_) = 0;              // in the last chunk
  std::vector<u64> free_stubs_ GUARDED_BY(mu_);
};

// The real return address for `ra`, read from the stack at `loc`: `ra`
// itself, unless it is the return trampoline's, whose real one the calling
// thread's shadow stack keeps.  Probe-context safe.
uintptr_t fbt_real_return(uintptr_t ra, uintptr_t loc);
// The probe frame of an fbt probe firing from a trampoline's fast path,
// from what it saved (probe_frame(), t_probe_frame's tags 2 and 3).
ProbeFrame fbt_trampoline_frame(uintptr_t tag, const uintptr_t *saved);

// Returns not traced because a thread's shadow stack was full (deeper than
// its capacity of nested traced calls), since boot.
u64 fbt_missed_returns();

} // namespace mk
