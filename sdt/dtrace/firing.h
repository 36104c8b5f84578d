// The firing path's own layout, shared by the consumer (consumer.cpp) and
// the old interpreter (interp.cpp): records in the rings, per-thread
// states, the runtime ECBs, the BPF lanes, and the small helpers both
// engines use on a firing.  Nothing outside those two files includes it.
#pragma once

#include "consumer.h"

#include <atomic>
#include <cstring>

namespace mk::dt {

// ---- layout ---------------------------------------------------------------------------

// A record in a ring: this header, then the clause's values in action order
// (an integer in 8 bytes; a string as a 4-byte length in an 8-byte slot,
// then its bytes, padded to 8).  A header with size 0 marks the unused end
// of the ring before a record that wrapped to the start.
struct RecHeader {
  u32 size;  // bytes, header included, a multiple of 8
  u32 epid;  // 0: an error record (ErrorData follows)
  u64 ts;    // ns, CLOCK_MONOTONIC
  i32 cpu;
  u32 spec; // 0, or the speculation it went to (kSpecDropped: none)
};
static_assert(sizeof(RecHeader) == 24);

// A record speculate( )d to no speculation (0, or one not active): its
// data is discarded, as DTrace's.
constexpr u32 kSpecDropped = ~0u;

struct ErrorData {
  u32 epid;
  i32 action; // 0: the predicate
  u32 fault;
  u32 pc; // of the BPF program (or the interpreter's bytecode)
  u64 addr;
};

// DTrace's fault codes, as arg4 of dtrace:::ERROR.
enum Fault : u32 {
  FLT_BADADDR = 1, FLT_ILLOP = 3, FLT_DIVZERO = 4, FLT_NOSCRATCH = 5,
  FLT_BADSIZE = 10, FLT_BADINDEX = 11
};

struct AggEntry {
  std::atomic<u32> tag; // hash | 1 once published; 0: free
  u32 agg;
  u32 keylen;
  u32 key_off; // in the arena
  u32 val_off;
};

struct alignas(64) ThreadState {
  // Written by the firing thread.
  std::atomic<u64> head{0};
  std::atomic<u64> drops{0};
  std::atomic<u64> agg_drops{0};
  u8 *ring = nullptr;
  u64 ring_size = 0;
  AggEntry *entries = nullptr;
  u32 cap_mask = 0;
  u32 used = 0;
  u8 *arena = nullptr;
  u64 arena_size = 0;
  u64 arena_used = 0;
  std::atomic<const void *> owner{nullptr};
  int cpu = 0;
  // Each keyless aggregation's counter, by aggregation (as many as the
  // program has).
  std::unique_ptr<i64 *[]> keyless;
  // The interpreter's buffers, by depth (0; 1 for dtrace:::ERROR clauses
  // run from a fault): strings copied in, aggregation keys, this->
  // variables.
  char scratch[2][kMaxScratch][kStrSize];
  i64 locals[2][kMaxLocals];
  i64 self[kSelfSlots] = {}; // the interpreter's self-> slots
  u32 tid = 0;               // the thread that owns it
  u8 keybuf[2][kMaxKeys * (kStrSize + 8)];
  // The BPF engine's lanes: 0 for clauses, 1 for ERROR clauses run from
  // a fault (bpf only).
  BpfLane *lane[2] = {};
  // Written by the consumer.
  alignas(64) std::atomic<u64> tail{0};
  u64 drops_seen = 0, agg_drops_seen = 0;
};

constexpr u8 kPrepArgs = 1, kPrepLocals = 2;

struct EcbRt {
  const Insn *code;
  const u8 *action_at;
  u32 epid;
  u32 clause;
  u32 stmt; // EcbInfo::stmt
  u8 fast; // CompiledClause::Fast
  u32 fast_agg;
  const char *pstr[4]; // provider, module, function, name
  // The first ECB of its probe: the this-> variables it zeroes as a
  // firing starts (the program's; 0 for the others).
  u32 clear_locals;
  // BPF: the clause's program, and what its context holds for this ECB.
  const bpf::Program *bprog = nullptr;
  const BpfClause *bclause = nullptr;
  // bprog's entry when it is plain (bpf::Program::plain_entry): no helper
  // reads the lane, so the run is the call alone.
  bpf::JitEntry direct = nullptr;
  // What run_bpf_on does before the program, one test on the hot path:
  // kPrepArgs, the arguments and this ECB's fields into the context (the
  // program reads them); kPrepLocals, the firing's this-> variables
  // zeroed (clear_locals).
  u8 prep = 0;
  u64 ecbctx[kEcbCtxWords] = {}; // probe, epid, str[4]
};

// One BPF run state per thread state and depth: the Runner (its CPU number
// is the lane's, so per-CPU maps have a copy per lane), the context, and
// what the helpers keep between calls of one run.
struct BpfLane {
  BpfLane(const bpf::Env &env, u32 cpu)
      : runner(env, cpu, this), rc(&runner.ctx()) {}
  bpf::Runner runner;
  bpf::RunCtx *rc; // the runner's, for plain code called directly
  FireCtx ctx{};
  Consumer *c = nullptr;
  ThreadState *ts = nullptr;
  int depth = 0;
  const EcbRt *cur = nullptr;
  u32 probe = 0;
  u64 now = 0;
  u64 vnow = 0; // vtimestamp, the same for one run as timestamp is
  u8 *rec = nullptr;
  u64 rec_head = 0, roff = 0;
  u32 keylen = 0;
  u32 spec = 0; // the record's speculation (RecHeader::spec)
  char *local_strs = nullptr; // this-> strings' buffers, in dt_scratch
  u32 nlocal_strs = 0;
  // alloca( )'s bytes in dt_scratch: `used` of `cap` given out by the
  // clause running (each clause starts with none), and the word a load
  // through a pointer lands in.
  u8 *mem = nullptr;
  u32 mem_cap = 0, mem_used = 0;
  u64 *load_word = nullptr;
  u8 key[kMaxKeys * (kStrSize + 8)];
};

// The thread's state for each of the last few consumers that fired on it
// (Consumer::gen_ & 3 picks the entry; gen tells whose it is).  __thread,
// not thread_local: read from fire.cpp with no wrapper call.
struct TlsSlot {
  u64 gen;
  ThreadState *ts;
};
extern __thread TlsSlot t_states[4];

// ---- helpers of the firing path -------------------------------------------------------

// Record sizes and string copies are in 8-byte units.
inline u64 align8(u64 v) { return (v + 7) & ~(u64)7; }

// A string aggregation key held by value starts with this byte (see OP_AGG).
constexpr u8 kCopiedKey = 0;

// Aggregation values: the firing thread is the only writer, the consumer
// reads concurrently.  On x86_64 these are relaxed atomic loads and stores
// (plain moves).  On i386 a 64-bit atomic goes through the x87 unit
// (fildll/fistpll), whose store-to-load forwarding stalls cost tens of ns
// per update; there a value is two 32-bit moves, and a reader racing a
// carry into the high word may see a torn value while tracing runs (the
// final print happens after disable, when nothing writes).
#if defined(__x86_64__)
inline i64 rd(const i64 *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
inline void wr(i64 *p, i64 v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#else
inline i64 rd(const i64 *p) { return *(const volatile i64 *)p; }
inline void wr(i64 *p, i64 v) { *(volatile i64 *)p = v; }
#endif
// Two's complement sums, as DTrace's (no undefined overflow).
inline i64 add(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }
inline void bump(std::atomic<u64> &c) {
  c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// One update of an aggregation's values.
// A histogram's bucket gains `weight` (quantize(v, w)); the rest ignore it.
inline void agg_apply(const AggDef &d, i64 *v, i64 val, i64 weight = 1) {
  switch (d.fn) {
  case AggFn::Count: wr(v, rd(v) + 1); break;
  case AggFn::Sum: wr(v, add(rd(v), val)); break;
  case AggFn::Min: if (val < rd(v)) wr(v, val); break;
  case AggFn::Max: if (val > rd(v)) wr(v, val); break;
  case AggFn::Avg:
    wr(&v[0], rd(&v[0]) + 1);
    wr(&v[1], add(rd(&v[1]), val));
    break;
  case AggFn::Stddev: {
    wr(&v[0], rd(&v[0]) + 1);
    wr(&v[1], add(rd(&v[1]), val));
    const u64 m = val < 0 ? 0 - (u64)val : (u64)val;
    const U128 sq = U128{(u64)rd(&v[3]), (u64)rd(&v[2])}.add(U128::mul(m, m));
    wr(&v[2], (i64)sq.lo);
    wr(&v[3], (i64)sq.hi);
    break;
  }
  case AggFn::LLQuantize: {
    const u32 b = llquantize_bucket(d, val);
    wr(&v[b], add(rd(&v[b]), weight));
    break;
  }
  case AggFn::Quantize: {
    int b = quantize_bucket(val);
    wr(&v[b], add(rd(&v[b]), weight));
    break;
  }
  case AggFn::LQuantize: {
    i64 levels = (i64)d.nvals - 2;
    i64 b = val < d.lq_base ? 0
          : val >= d.lq_base + levels * d.lq_step ? levels + 1
          : 1 + (val - d.lq_base) / d.lq_step;
    wr(&v[b], add(rd(&v[b]), weight));
    break;
  }
  }
}

// dlib/vars.c's key of a variable: the kind in the top 32 bits of the id
// (0 global, 1 thread-local, 2 associative), then the key.
inline u64 var_id(VarScope s, bool keyed, u32 number) {
  const u64 kind = s == VarScope::Thread ? 1 : keyed ? 2 : 0;
  return kind << 32 | number;
}

// Room for a record of `need` bytes in the thread's ring, or null (the
// drop counted) when the consumer has not drained enough.  A record never
// wraps: one that does not fit before the ring's end starts it again,
// behind a header of size 0.  `head` gets the record's position; the
// record is published by storing head + its size (RecHeader::size).
inline u8 *ring_reserve(ThreadState *ts, u64 need, u64 &head) {
  u64 h = ts->head.load(std::memory_order_relaxed);
  const u64 t = ts->tail.load(std::memory_order_acquire);
  u64 pos = h & (ts->ring_size - 1);
  if (pos + need > ts->ring_size) {
    const u64 pad = ts->ring_size - pos;
    if (need > ts->ring_size || h + pad + need - t > ts->ring_size) {
      bump(ts->drops);
      return nullptr;
    }
    ((RecHeader *)(ts->ring + pos))->size = 0;
    h += pad;
    pos = 0;
  } else if (h + need - t > ts->ring_size) {
    bump(ts->drops);
    return nullptr;
  }
  head = h;
  return ts->ring + pos;
}

// Copy the NUL-terminated string at `src` (untrusted) into dst[size]
// (size at most kStrSize: strsize and the NUL) without faulting: a bad
// address is reported, never dereferenced.
bool copy_string_in(int pid, uintptr_t src, char *dst, size_t size = kStrSize);
// The calling thread's id (gettid, cached).
u32 thread_id();
// vtimestamp: the firing thread's CPU time.
u64 thread_cpu_ns();
// stackdepth and caller: from the walk stack( ) makes, without keeping it.
u64 stack_depth(const CodeMap *code);
u64 stack_caller(const CodeMap *code);

} // namespace mk::dt
