// A Consumer runs one compiled Program: the probe callback every enabled
// site reaches (fire), and the draining side the consumer thread calls.
//
// Firing path.  Each thread that fires gets a ThreadState of its own (a
// "CPU buffer": DTrace's per-CPU buffers, one per firing thread here since
// several threads may share a CPU number), claimed on its first firing from
// a preallocated array and then found through a small thread-local cache.
// A ThreadState holds a single-producer ring of records and the thread's
// aggregation table; the firing thread is their only writer, so the path
// takes no lock, makes no allocation and no system call (stringof( )
// excepted, which reads through process_vm_readv so a bad pointer faults
// softly).  A full ring drops the record and counts it; a full aggregation
// table counts an aggregation drop.
//
// Draining side.  drain() copies every thread's new records out, sorts them
// by time, prints them through the Sink and reports new drops as DTrace
// does ("dtrace: 3 drops on CPU 1").  Aggregations are merged across
// threads when printed (printa( ), or at the end).
#pragma once

#include "../../linker/sync.h"
#include "dtrace.h"
#include "bpfgen.h"

#include <atomic>
#include <cstdio>
#include <deque>
#include <mutex>
#include <set>

namespace mk::dt {

// One clause enabled on one probe: an enabled probe id (EPID), as DTrace
// numbers them.
struct EcbInfo {
  u32 epid = 0;
  u32 clause = 0;
  // DTrace's statement (dt_clause_N, ERROR's arg2): the consumer sets it
  // (CompiledClause::stmt_of).
  u32 stmt = 0;
  ProbeInfo probe;
  std::string full; // provider:module:function:name
};

struct AggEntry;
struct ThreadState;
struct EcbRt;
struct BpfLane;
struct BpfRuntime;

class Consumer {
public:
  // `ecbs` in EPID order (1, 2, ...); `begin`, `end`, `error`: the ids of
  // dtrace:::BEGIN, END and ERROR, which the consumer fires itself.
  Consumer(std::unique_ptr<Program> prog, std::vector<EcbInfo> ecbs,
           ConsumerOptions o, Sink &sink, u32 begin, u32 end, u32 error);
  ~Consumer();
  Consumer(const Consumer &) = delete;

  Result<void> init(); // the threads' buffers (address space, touched lazily)

  // Probes to enable through Sdt: every matched probe but dtrace:::*.
  std::vector<u32> sdt_probes() const EXCLUDES(ecbs_mu_);
  const Program &program() const { return *prog_; }
  // A probe made while the enabling runs (a module loaded: DTrace's
  // retained enablings) joins the clauses whose descriptions `descs[c]`
  // match it.  False if none does.  Any thread; the firing path sees the
  // new table at once.
  bool add_probe(const ProbeInfo &p,
                 const std::vector<std::vector<ProbeDesc>> &descs)
      EXCLUDES(ecbs_mu_);

  // ---- the firing side (any thread)
  // In fire.cpp, built for the general registers only: the count( ) fast
  // path is its own code, the rest reached by mk_call_keeping_vector.
  void fire(u32 probe, const uintptr_t *args);

  // ---- the consumer thread
  void warmup();         // until begin(), only BEGIN's clauses run
  void begin();          // fire BEGIN; then every probe's clauses run
  void drain();          // print new records, report drops
  void stop();           // no more firings are recorded (END still is)
  void end();            // fire END (after the probes are disabled)
  void print_end();      // DTrace's closing: "\n", then the aggregations
                         // not printed with printa( )
  bool exited() const { return exit_.load(std::memory_order_acquire); }
  int exit_status() const { return exit_status_.load(); }

  u64 records() const { return records_.load(); }
  // D variables stored now (dt_vars' entries).
  u32 variables() const {
    return maps_.size() > M_WVARS && maps_[M_VARS]
               ? maps_[M_VARS]->count() + maps_[M_WVARS]->count()
               : 0;
  }
  // The engine clauses run on, and (BPF) clause i's linked program.
  DEngine engine() const { return opts_.engine; }
  const BpfClause *bpf_clause(u32 i) const {
    return i < bclauses_.size() ? bclauses_[i].get() : nullptr;
  }
  u64 drops() const; // records dropped, every thread

private:
  friend void consumer_fire(void *, u32, const uintptr_t *);
  friend struct BpfRuntime;
  // Warmup: from warmup() until BEGIN's clauses have run; no other probe's
  // clauses run (DTrace's warm-up: BEGIN comes before everything else even
  // when the other probes are enabled first and fire at once).
  enum Activity : u32 { Active, Exiting, Stopped, Warmup };
  bool exited_here(u32 before) const;
  // exit( ): a running consumer starts exiting, once; true if this call
  // decided the status.
  bool start_exit();
  struct ProbeEcbs;
  ThreadState *thread_state();
  ThreadState *claim();
  // What fire() does past its count( ) fast path (`other` calls it with
  // the vector registers saved).
  void fire_other(const ProbeEcbs &pe, u32 probe, const uintptr_t *args)
      __attribute__((noinline));
  static void other(uintptr_t self, uintptr_t pe, uintptr_t probe,
                    uintptr_t args);
  void fire_slow(const ProbeEcbs &pe, u32 probe, const uintptr_t *args)
      __attribute__((noinline));
  void fire_bpf_slow(const ProbeEcbs &pe, u32 probe, const uintptr_t *args)
      __attribute__((noinline));
  // The runtime table for the ECBs so far, published for the firing path.
  void publish_table() REQUIRES(ecbs_mu_);
  const EcbInfo *ecb(u32 epid) const EXCLUDES(ecbs_mu_);
  void fire_special(u32 probe);
  void run(const EcbRt &e, ThreadState *ts, const uintptr_t *args, u32 probe,
           int depth);
  // The old interpreter's run of one clause (interp.cpp).
  void interpret(const EcbRt &e, ThreadState *ts, const uintptr_t *args,
                 u32 probe, int depth);
  void run_bpf(const EcbRt &e, ThreadState *ts, const uintptr_t *args,
               u32 probe, int depth);
  static void run_bpf_on(const EcbRt &e, BpfLane &l, const uintptr_t *args,
                         u32 probe);
  Result<void> init_bpf();
  Result<void> bpf_refresh() REQUIRES(ecbs_mu_);
  void bpf_ecb(EcbRt &r, const EcbInfo &e) REQUIRES(ecbs_mu_);
  u32 strtab_name(const std::string &n) REQUIRES(ecbs_mu_);
  // `pc`: where in the clause's program (BPF, or the interpreter's
  // bytecode).
  void fault(const EcbRt &e, ThreadState *ts, u32 probe, int action,
             u32 kind, u64 addr, int depth, u32 pc);
  i64 *agg_lookup(ThreadState *ts, u32 agg, const u8 *key, u32 len);
  // Every thread's entries of `agg` summed, by key bytes (see below for
  // what clear( ) and trunc( ) leave of them).
  std::map<std::string, AggRow> raw_merged(u32 agg) const;
  std::string entry_key(u32 agg, const ThreadState &s, const AggEntry &e,
                        std::vector<Value> *keys) const;
  std::vector<AggRow> merged(u32 agg);
  // clear( ) (hide = false) or trunc( ) (hide = true) of the rows with
  // these keys; `raw`: raw_merged(agg).
  void reset_rows(u32 agg, const std::map<std::string, AggRow> &raw,
                  const std::vector<std::string> &keys, bool hide);
  AggSort agg_sort() const;
  // speculation( ): a free speculation's id, 0 (counted) when none is.
  u32 speculation();
  // speculate( ) (what 2: `tag` is what the record's header gets),
  // commit( ) (0) or discard( ) (1) of speculation `id` at firing time.
  // kIllegal: commit or discard of an `id` beyond nspec; kEnd: speculate(
  // ) of no active speculation (0, a bad id, one not claimed), which ends
  // the clause without a word, as dtrace-utils' speculate does.
  enum class SpecOp : u8 { kOk, kIllegal, kEnd };
  SpecOp spec_op(u64 id, u32 what, u32 &tag);
  // `state`: the thread state (CPU buffer) the record came from.
  void process(const u8 *rec, u32 state, std::string &out);
  // A recorded stack as it prints.
  std::string stack_value(const u64 *pcs, u64 n) const;
  void flush(std::string &out);
  // system( ): the command's output.
  std::string run_command(const std::string &cmd);
  // freopen( ): output to `path` from now on ("": where it went at first).
  bool redirect(const std::string &path);
  // setopt( ) while tracing runs.
  Result<void> setopt(const std::string &name, const std::string &value,
                      bool has_value);
  FILE *redirect_ = nullptr;

  std::unique_ptr<Program> prog_;
  // In EPID order; entries never move (the runtime table points at their
  // strings) and never change once added.
  mutable Mutex ecbs_mu_;
  std::deque<EcbInfo> ecbs_ GUARDED_BY(ecbs_mu_);
  // ECBs whose probe went away (its id now names a newer probe): kept for
  // their records still in the buffers, out of the runtime table.
  std::vector<bool> retired_ GUARDED_BY(ecbs_mu_); // by epid - 1
  ConsumerOptions opts_;
  bool walks_ = false; // a clause calls stack(): opts_.code indexed for it
  Sink &sink_;
  u32 begin_id_, end_id_, error_id_;
  int pid_;
  u64 gen_; // identifies this consumer in the thread-local caches

  // Per probe id: its enabled clauses.  Rebuilt whole when a probe joins
  // and published with one store; a replaced table (a firing may still be
  // reading it) goes to opts_.retire, which frees it after a grace period.
  struct ProbeEcbs {
    const EcbRt *ecbs = nullptr;
    u32 n = 0;
  };
  struct Table {
    std::vector<EcbRt> rt;
    std::vector<ProbeEcbs> by_probe;
    // The probe names longer than strsize, cut (rt's pstr point here).
    std::deque<std::string> cut_names;
  };
  std::shared_ptr<Table> table_owner_ GUARDED_BY(ecbs_mu_); // table_'s
  // What the firing path may still read once replaced: to opts_.retire,
  // or (none given) kept here until the consumer goes.
  void hand_back(std::shared_ptr<const void> old) REQUIRES(ecbs_mu_);
  std::vector<std::shared_ptr<const void>> kept_ GUARDED_BY(ecbs_mu_);
  std::atomic<const Table *> table_{nullptr};
  std::vector<std::vector<u32>> agg_keys_; // per aggregation: key kinds

  // Thread states, preallocated; claimed in order.
  ThreadState *states_ = nullptr;
  u32 nstates_ = 0;
  std::atomic<u32> next_state_{0};
  void *mem_ = nullptr;
  size_t mem_size_ = 0;
  std::atomic<u64> unclaimed_drops_[4]{}; // firings with no state left,
                                          // by cpu + 1 (clamped)

  std::atomic<u32> activity_{Active};
  std::atomic<bool> exit_{false};
  std::atomic<int> exit_status_{0};

  // D variables (both engines) and the BPF engine's state.
  bool bpf_ = false;
  bpf::Env env_;
  std::vector<std::unique_ptr<bpf::Map>> maps_; // by BpfMapIndex
  // Per clause its current program (written under ecbs_mu_, before the
  // table that names it is published); programs replaced wait in
  // old_bclauses_ until a table without them is published, then go to
  // hand_back() with the table that named them.
  std::vector<std::unique_ptr<BpfClause>> bclauses_;
  std::vector<std::unique_ptr<BpfClause>> old_bclauses_;
  BpfTarget target_;
  static constexpr u32 kStrTabRoom = 256 * 1024; // for probes' names
  std::map<std::string, u32> strnames_ GUARDED_BY(ecbs_mu_);
  u32 strtab_used_ GUARDED_BY(ecbs_mu_) = 0;
  std::vector<std::unique_ptr<BpfLane>> lanes_;
  std::atomic<u64> dyndrops_{0};
  u64 dyndrops_seen_ = 0;

  // Aggregation actions.  The firing threads' tables only ever grow, as
  // DTrace's kernel buffers feed its consumer; clear( ) and trunc( ) are
  // the consumer's: a key's sums as they were then become its zero (its
  // base), a min( ) or max( ) is reset in place, and a truncated key is
  // hidden until it has data again.  normalize( ) only changes printing.
  struct AggView {
    i64 normal = 1;
    std::map<std::string, std::vector<i64>> base; // by key bytes
    std::set<std::string> hidden;
  };
  std::vector<AggView> views_;

  // Speculations: claimed and ended (commit, discard) at firing time, their
  // records held by the drain side until it reads the commit or discard.
  enum SpecState : u32 { SpecInactive, SpecActive, SpecCommitting, SpecDiscarding };
  std::unique_ptr<std::atomic<u32>[]> spec_state_;
  u32 nspec_ = 1;
  u64 specsize_ = 0;
  std::atomic<u64> spec_busy_{0}, spec_unavail_{0};
  u64 spec_busy_seen_ = 0, spec_unavail_seen_ = 0;
  struct SpecBuf {
    std::string out; // the records, formatted
    u64 bytes = 0;   // their size in the buffer, against specsize
  };
  std::vector<SpecBuf> spec_bufs_;
  u64 spec_drops_ = 0, spec_drops_seen_ = 0;
  bool in_spec_ = false; // process( ) formatting a speculative record

  // Drain side.
  bool header_done_ = false;
  std::vector<int> indent_; // -F: call depth per thread state
  std::vector<bool> printed_; // aggregations printed with printa( )
  std::atomic<u64> records_{0};
};

} // namespace mk::dt
