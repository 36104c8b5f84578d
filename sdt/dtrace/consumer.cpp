// The consumer: the firing path (thread states, records, aggregation
// tables, the BPF engine's runs) and the draining side.  See consumer.h;
// the layout both engines share is in firing.h, the old interpreter in
// interp.cpp.
#include "firing.h"

#include "../../kernel/kernel.h"
#include "../registry.h"
#include "../unwind.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

namespace mk::dt {

namespace {

// Consumers are told apart in the thread-local caches by a number never
// reused in the process.
std::atomic<u64> g_next_gen{1};

thread_local char t_token; // its address names the thread
thread_local u32 t_tid;

// The least power of two >= v; v above 2^63 has none and gets 2^63 (the
// option parsers keep sizes to 1g, so that is never a size used).
u64 pow2_at_least(u64 v) {
  u64 p = 1;
  while (p < v && p < (1ull << 63))
    p <<= 1;
  return p;
}

// Keys are short (8 bytes per integer, 9 per string held by address): hash
// and compare them a word at a time, without calls into libc.
inline u64 word_at(const u8 *p, u32 n) {
  u64 w = 0;
  if (n >= 8)
    __builtin_memcpy(&w, p, 8);
  else
    for (u32 i = 0; i < n; i++)
      w |= (u64)p[i] << (8 * i);
  return w;
}

u32 hash_key(u32 agg, const u8 *k, u32 len) {
  u64 h = 0x9e3779b97f4a7c15ull ^ ((u64)agg << 32) ^ len;
  for (u32 i = 0; i < len; i += 8) {
    h ^= word_at(k + i, len - i);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  return (u32)(h ^ (h >> 32)) | 1;
}

bool keys_equal(const u8 *a, const u8 *b, u32 len) {
  for (u32 i = 0; i < len; i += 8)
    if (word_at(a + i, len - i) != word_at(b + i, len - i))
      return false;
  return true;
}

const char *fault_text(u32 f) {
  switch (f) {
  case FLT_BADADDR: return "invalid address";
  case FLT_ILLOP: return "illegal operation";
  case FLT_DIVZERO: return "divide-by-zero";
  case FLT_BADINDEX: return "index out of bounds";
  case FLT_NOSCRATCH: return "out of scratch space";
  case FLT_BADSIZE: return "invalid size";
  }
  return "fault";
}

} // namespace

__thread TlsSlot t_states[4];

bool copy_string_in(int pid, uintptr_t src, char *dst, size_t size) {
  const size_t page = 4096;
  size_t got = 0;
  size = std::min<size_t>(size, kStrSize);
  while (got < size - 1) {
    uintptr_t at = src + got;
    size_t chunk = std::min<size_t>(size - 1 - got, page - (at & (page - 1)));
    iovec l{dst + got, chunk}, r{(void *)at, chunk};
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n <= 0) {
      if (got == 0)
        return false;
      break;
    }
    if (memchr(dst + got, 0, (size_t)n))
      return true;
    got += (size_t)n;
    if ((size_t)n < chunk)
      break;
  }
  dst[got] = '\0';
  return true;
}

u32 thread_id() {
  if (!t_tid)
    t_tid = (u32)syscall(SYS_gettid);
  return t_tid;
}

u64 thread_cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (u64)t.tv_sec * 1000000000 + (u64)t.tv_nsec;
}

u64 stack_depth(const CodeMap *code) {
  const ProbeFrame *pf = probe_frame();
  u64 pcs[kMaxStackFrames];
  return code && pf ? unwind(*code, *pf, pcs, kMaxStackFrames) : 0;
}
u64 stack_caller(const CodeMap *code) {
  const ProbeFrame *pf = probe_frame();
  u64 pcs[2];
  return code && pf && unwind(*code, *pf, pcs, 2) == 2 ? pcs[1] : 0;
}


// The helpers clauses call by id (bpfgen.h), on the lane of the run.
// Pointers a program passes as strings or stacks are looked up in the
// run's regions first: a helper reads only memory the program may read,
// and no further than its region's end.
struct BpfRuntime {
  using RunCtx = bpf::RunCtx;
  static BpfLane &lane(RunCtx *rc) { return *static_cast<BpfLane *>(rc->user); }
  // Bytes readable at `addr` in one of the run's regions (0: none).
  static u64 readable(RunCtx *rc, u64 addr) {
    const bpf::Region *g = rc->regions();
    for (u32 n = 0; n < rc->nregions; n++)
      if (addr >= g[n].base && addr - g[n].base < g[n].span[0])
        return g[n].span[0] - (addr - g[n].base);
    return 0;
  }
  static u32 str_len(RunCtx *rc, u64 p) {
    const u64 n = std::min<u64>(readable(rc, p), kStrSize - 1);
    return n ? (u32)strnlen((const char *)(uintptr_t)p, n) : 0;
  }
  static u64 stamp(BpfLane &l) {
    if (!l.now)
      l.now = now_ns();
    return l.now;
  }
  // `site`: the action, and the BPF pc above its low 8 bits (bpfgen's
  // Lowering::site( )).
  static void fault(BpfLane &l, u32 kind, u64 addr, u64 site) {
    l.c->fault(*l.cur, l.ts, l.probe, (int)(site & 0xff), kind, addr,
               l.depth, (u32)(site >> 8));
  }

  // A string of at most `max` characters into `size` bytes at dst.
  static u64 copyin(u64 dst, u64 size, u64 addr, u64 site, u64 max,
                    RunCtx *rc) {
    BpfLane &l = lane(rc);
    if (copy_string_in(l.c->pid_, (uintptr_t)addr, (char *)(uintptr_t)dst,
                       (size_t)std::min(size - 1, max) + 1))
      return 0;
    fault(l, FLT_BADADDR, addr, site);
    return 1;
  }
  // Memory through D's pointers.  alloca( )'s bytes are the clause's to
  // read and write, the rest of its area no D program's; any other
  // address is read by a checked copy and never written.
  static bool in_mem(const BpfLane &l, u64 addr, u64 n) {
    const u64 base = (u64)(uintptr_t)l.mem;
    return addr >= base && n <= l.mem_used && addr - base <= l.mem_used - n;
  }
  // The load word and alloca( )'s bytes not given out (the strings the
  // clause made, before them in dt_scratch, it may read).
  static bool in_scratch(const BpfLane &l, u64 addr, u64 n) {
    const u64 lo = (u64)(uintptr_t)l.mem - 8;
    const u64 hi = (u64)(uintptr_t)l.mem + l.mem_cap;
    return addr < hi && addr + n > lo;
  }
  static bool read_mem(const BpfLane &l, u64 addr, void *dst, u64 n) {
    if (in_mem(l, addr, n)) {
      std::memmove(dst, (const void *)(uintptr_t)addr, n); // bcopy( ) may overlap
      return true;
    }
    if (in_scratch(l, addr, n) || addr + n < addr)
      return false;
    iovec lv{dst, (size_t)n}, rv{(void *)(uintptr_t)addr, (size_t)n};
    return process_vm_readv(l.c->pid_, &lv, 1, &rv, 1, 0) == (ssize_t)n;
  }
  static u64 alloca_h(u64 size, u64 site, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    const u64 at = (l.mem_used + 7) & ~(u64)7;
    if (size > l.mem_cap || at > l.mem_cap - size) {
      fault(l, FLT_NOSCRATCH, 0, site);
      return 0;
    }
    l.mem_used = (u32)(at + size);
    return (u64)(uintptr_t)(l.mem + at);
  }
  static u64 copyin_mem(u64 src, u64 size, u64 site, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    const u32 used = l.mem_used;
    const u64 dst = alloca_h(size, site, 0, 0, 0, rc);
    if (dst && !read_mem(l, src, (void *)(uintptr_t)dst, size)) {
      l.mem_used = used;
      fault(l, FLT_BADADDR, src, site);
      return 0;
    }
    return dst;
  }
  static u64 rec_mem(u64 addr, u64 n, u64 site, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    if (!read_mem(l, addr, l.rec + l.roff + 8, n)) {
      fault(l, FLT_BADADDR, addr, site);
      return 1;
    }
    const u32 len = (u32)n;
    std::memcpy(l.rec + l.roff, &len, 4);
    l.roff += 8 + align8(n);
    return 0;
  }
  static u64 load_h(u64 addr, u64 how, u64 site, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    const u32 n = how & 0xff;
    u64 v = 0;
    if (!read_mem(l, addr, &v, n)) {
      fault(l, FLT_BADADDR, addr, site);
      return 1;
    }
    if ((how >> 8) && n < 8) // sign-extend
      v = (u64)((i64)(v << (64 - 8 * n)) >> (64 - 8 * n));
    *l.load_word = v;
    return 0;
  }
  static u64 store_h(u64 addr, u64 v, u64 n, u64 site, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    if (!in_mem(l, addr, n)) {
      fault(l, FLT_BADADDR, addr, site);
      return 1;
    }
    std::memcpy((void *)(uintptr_t)addr, &v, n); // little-endian: the low n
    return 0;
  }
  static u64 bcopy_h(u64 src, u64 dst, u64 n, u64 site, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    if (n > l.mem_cap) {
      fault(l, FLT_BADSIZE, n, site);
      return 1;
    }
    if (!in_mem(l, dst, n)) {
      // As DTrace checks alloca( ) memory: a destination inside what was
      // given out that the size runs past is a bad size, any other a bad
      // address.
      const bool start_ok = in_mem(l, dst, 0) && dst < (u64)(uintptr_t)l.mem + l.mem_used;
      fault(l, start_ok ? FLT_BADSIZE : FLT_BADADDR, start_ok ? n : dst, site);
      return 1;
    }
    if (!read_mem(l, src, (void *)(uintptr_t)dst, n)) {
      fault(l, FLT_BADADDR, src, site);
      return 1;
    }
    return 0;
  }
  // strlen( ): the bytes of the region the string lies in, never past it
  // (a string outside every region has none).
  static u64 strlen_h(u64 p, u64 strsize, u64, u64, u64, RunCtx *rc) {
    return std::min<u64>(str_len(rc, p), strsize);
  }
  static u64 timestamp(u64, u64, u64, u64, u64, RunCtx *rc) {
    return stamp(lane(rc));
  }
  static u64 execname(u64 dst, u64 size, u64, u64, u64, RunCtx *) {
    std::snprintf((char *)(uintptr_t)dst, size, "%s", current_execname());
    return 0;
  }
  static u64 vtimestamp(u64, u64, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    if (!l.vnow)
      l.vnow = thread_cpu_ns();
    return l.vnow;
  }
  static u64 stackdepth(u64, u64, u64, u64, u64, RunCtx *rc) {
    return stack_depth(lane(rc).c->opts_.code);
  }
  static u64 curthread(u64 cpu, u64, u64, u64, u64, RunCtx *) {
    return current_task((u32)cpu);
  }
  static u64 curcpu(u64 cpu, u64, u64, u64, u64, RunCtx *) {
    return cpu_info((u32)cpu);
  }
  static u64 caller(u64, u64, u64, u64, u64, RunCtx *rc) {
    return stack_caller(lane(rc).c->opts_.code);
  }
  static u64 chill(u64 ns, u64, u64, u64, u64, RunCtx *) {
    dt_chill(std::min<u64>(ns, kMaxChill));
    return 0;
  }
  static u64 panic_h(u64, u64, u64, u64, u64, RunCtx *rc) {
    const EcbRt &e = *lane(rc).cur;
    const std::string probe = strf("%s:%s:%s:%s", e.pstr[0], e.pstr[1],
                                   e.pstr[2], e.pstr[3]);
    dt_panic(probe.c_str());
  }
  static u64 walltimestamp(u64, u64, u64, u64, u64, RunCtx *) {
    timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (u64)t.tv_sec * 1000000000 + (u64)t.tv_nsec;
  }
  static u64 fault_h(u64 kind, u64 addr, u64 site, u64, u64, RunCtx *rc) {
    fault(lane(rc), (u32)kind, addr, site);
    return 0;
  }
  static u64 reserve(u64 need, u64, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    l.rec = ring_reserve(l.ts, need, l.rec_head);
    if (!l.rec)
      return 0;
    l.roff = sizeof(RecHeader);
    l.spec = 0;
    stamp(l);
    return 1;
  }
  static u64 rec_int(u64 v, u64, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    std::memcpy(l.rec + l.roff, &v, 8);
    l.roff += 8;
    return 0;
  }
  static u64 rec_str(u64 p, u64, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    const u32 len = str_len(rc, p);
    std::memcpy(l.rec + l.roff, &len, 4);
    if (len)
      std::memcpy(l.rec + l.roff + 8, (const void *)(uintptr_t)p, len);
    l.roff += 8 + align8(len);
    return 0;
  }
  // A stack buffer's frames (its count, clamped to what is readable).
  static u64 frames(RunCtx *rc, u64 p) {
    const u64 n = readable(rc, p);
    if (n < 8)
      return 0;
    u64 cnt;
    std::memcpy(&cnt, (const void *)(uintptr_t)p, 8);
    return std::min<u64>({cnt, kMaxStackFrames, n / 8 - 1});
  }
  static u64 rec_stack(u64 p, u64, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    const u64 n = frames(rc, p);
    std::memcpy(l.rec + l.roff, &n, 8);
    if (n)
      std::memcpy(l.rec + l.roff + 8, (const u64 *)(uintptr_t)p + 1, 8 * n);
    l.roff += 8 * (1 + n);
    return 0;
  }
  static u64 commit(u64, u64, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    auto *hdr = (RecHeader *)l.rec;
    hdr->size = (u32)align8(l.roff);
    hdr->epid = l.cur->epid;
    hdr->ts = stamp(l);
    hdr->cpu = l.ts->cpu;
    hdr->spec = l.spec;
    l.ts->head.store(l.rec_head + hdr->size, std::memory_order_release);
    return 0;
  }
  static u64 speculation(u64, u64, u64, u64, u64, RunCtx *rc) {
    return lane(rc).c->speculation();
  }
  static u64 spec(u64 id, u64 what, u64 site, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    u32 tag = 0;
    switch (l.c->spec_op(id, (u32)what, tag)) {
    case Consumer::SpecOp::kIllegal:
      fault(l, FLT_ILLOP, 0, site);
      return 1;
    case Consumer::SpecOp::kEnd:
      return 1;
    case Consumer::SpecOp::kOk:
      break;
    }
    if (what == 2) {
      l.spec = tag;
    } else {
      std::memcpy(l.rec + l.roff, &id, 8);
      l.roff += 8;
    }
    return 0;
  }
  static u64 exit(u64 v, u64, u64, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    std::memcpy(l.rec + l.roff, &v, 8);
    l.roff += 8;
    Consumer &c = *l.c;
    if (c.start_exit()) {
      c.exit_status_.store((int)(i64)v);
      c.exit_.store(true, std::memory_order_release);
    }
    return 0;
  }
  // The key's bytes as the interpreter's OP_AGG makes them.
  static u64 agg_key(u64 v, u64 kind, u64 stable, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    u8 *key = l.key;
    u32 &len = l.keylen;
    if (kind == 2) {
      const u64 n = frames(rc, v);
      std::memcpy(key + len, &n, 8);
      if (n)
        std::memcpy(key + len + 8, (const u64 *)(uintptr_t)v + 1, 8 * n);
      len += 8 * (1 + (u32)n);
    } else if (kind == 1) {
      const bpf::Region &tab = rc->regions()[(u32)bpf::kRegionMap0 + (u32)M_STRTAB];
      if (stable && !(v & 1) && v >= tab.base && v - tab.base < tab.span[0]) {
        const u64 w = v | 1; // the string table lives as long as we do
        std::memcpy(key + len, &w, 8);
        len += 8;
      } else {
        const u32 n = str_len(rc, v);
        key[len] = kCopiedKey;
        if (n)
          std::memcpy(key + len + 1, (const void *)(uintptr_t)v, n);
        key[len + 1 + n] = 0;
        len += n + 2;
      }
    } else {
      std::memcpy(key + len, &v, 8);
      len += 8;
    }
    return 0;
  }
  static u64 agg(u64 agg, u64 val, u64 weight, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    Consumer &c = *l.c;
    ThreadState *ts = l.ts;
    i64 *v;
    if (l.keylen == 0) {
      v = ts->keyless[agg];
      if (!v && (v = c.agg_lookup(ts, (u32)agg, nullptr, 0)))
        ts->keyless[agg] = v;
    } else {
      v = c.agg_lookup(ts, (u32)agg, l.key, l.keylen);
    }
    l.keylen = 0;
    if (v)
      agg_apply(c.prog_->aggs[agg], v, (i64)val, (i64)weight);
    return 0;
  }
  static u64 stack(u64 dst, u64, u64 n, u64, u64, RunCtx *rc) {
    BpfLane &l = lane(rc);
    u64 *buf = (u64 *)(uintptr_t)dst;
    const ProbeFrame *pf = probe_frame();
    buf[0] = l.c->opts_.code && pf
                 ? unwind(*l.c->opts_.code, *pf, buf + 1,
                          (u32)std::min<u64>(n, kMaxStackFrames))
                 : 0;
    return 0;
  }
  static u64 dyndrop(u64, u64, u64, u64, u64, RunCtx *rc) {
    lane(rc).c->dyndrops_.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }

  static std::vector<bpf::Helper> helpers() {
    using bpf::ArgType;
    const ArgType A = ArgType::Anything, S = ArgType::Scalar;
    auto h = [](u32 id, const char *name, bpf::HelperFn fn,
                std::initializer_list<ArgType> args) {
      bpf::Helper x;
      x.id = id;
      x.name = name;
      x.fn = fn;
      size_t k = 0;
      for (ArgType a : args)
        x.args[k++] = a;
      return x;
    };
    return {
        h(H_COPYIN, "dt_copyin", copyin, {ArgType::MemW, ArgType::Size, S, S, S}),
        h(H_TIMESTAMP, "dt_timestamp", timestamp, {}),
        h(H_WALLTIMESTAMP, "dt_walltimestamp", walltimestamp, {}),
        h(H_FAULT, "dt_fault", fault_h, {S, S, S}),
        h(H_RESERVE, "dt_reserve", reserve, {S}),
        h(H_REC_INT, "dt_rec_int", rec_int, {A}),
        h(H_REC_STR, "dt_rec_str", rec_str, {A}),
        h(H_REC_STACK, "dt_rec_stack", rec_stack, {A}),
        h(H_COMMIT, "dt_commit", commit, {}),
        h(H_EXIT, "dt_exit", exit, {S}),
        h(H_AGG_KEY, "dt_agg_key", agg_key, {A, S, S}),
        h(H_AGG, "dt_agg", agg, {S, S, S}),
        h(H_STACK, "dt_stack", stack, {ArgType::MemW, ArgType::Size, S}),
        h(H_DYNDROP, "dt_dyndrop", dyndrop, {}),
        h(H_SPECULATION, "dt_speculation", speculation, {}),
        h(H_SPEC, "dt_spec", spec, {S, S, S}),
        h(H_STRLEN, "dt_strlen_native", strlen_h, {A, S}),
        h(H_EXECNAME, "dt_execname", execname, {ArgType::MemW, ArgType::Size}),
        h(H_VTIMESTAMP, "dt_vtimestamp", vtimestamp, {}),
        h(H_STACKDEPTH, "dt_stackdepth", stackdepth, {}),
        h(H_CALLER, "dt_caller", caller, {}),
        h(H_CHILL, "dt_chill", chill, {S, S}),
        h(H_PANIC, "dt_panic", panic_h, {S}),
        h(H_ALLOCA, "dt_alloca", alloca_h, {S, S}),
        h(H_LOAD, "dt_load", load_h, {S, S, S}),
        h(H_STORE, "dt_store", store_h, {S, A, S, S}),
        h(H_BCOPY, "dt_bcopy", bcopy_h, {A, S, S, S}),
        h(H_COPYIN_MEM, "dt_copyin_mem", copyin_mem, {A, S, S}),
        h(H_REC_MEM, "dt_rec_mem", rec_mem, {A, S, S}),
        h(H_CURTHREAD, "dt_curthread", curthread, {S}),
        h(H_CURCPU, "dt_curcpu", curcpu, {S}),
    };
  }
};

const char *engine_name(DEngine e) {
  switch (e) {
  case DEngine::Bpf: return "bpf";
  case DEngine::BpfInterp: return "bpf-interp";
  case DEngine::Interp: return "interp";
  }
  return "?";
}

// ---- construction --------------------------------------------------------------------

Consumer::Consumer(std::unique_ptr<Program> prog, std::vector<EcbInfo> ecbs,
                   ConsumerOptions o, Sink &sink, u32 begin, u32 end, u32 error)
    : prog_(std::move(prog)), ecbs_(ecbs.begin(), ecbs.end()), opts_(o), sink_(sink),
      begin_id_(begin), end_id_(end), error_id_(error), pid_(getpid()),
      gen_(g_next_gen.fetch_add(1)) {
  if (prog_->pragmas.quiet)
    opts_.quiet = true;
  if (prog_->pragmas.bufsize)
    opts_.bufsize = prog_->pragmas.bufsize;
  if (prog_->pragmas.aggsize)
    opts_.aggsize = prog_->pragmas.aggsize;
  printed_.assign(prog_->aggs.size(), false);
  views_.assign(prog_->aggs.size(), AggView{});
  nspec_ = std::max<u32>(prog_->pragmas.nspec, 1);
  specsize_ = prog_->pragmas.specsize ? prog_->pragmas.specsize : opts_.bufsize;
  spec_state_ = std::make_unique<std::atomic<u32>[]>(nspec_);
  for (u32 i = 0; i < nspec_; i++)
    spec_state_[i].store(SpecInactive);
  spec_bufs_.resize(nspec_);
  MutexLock g(ecbs_mu_);
  for (EcbInfo &e : ecbs_)
    if (e.clause < prog_->clauses.size())
      e.stmt = prog_->clauses[e.clause].stmt_of(e.probe);
  publish_table();
}

void Consumer::publish_table() {
  if (bpf_)
    (void)bpf_refresh(); // a clause that fails to link again is skipped
  // The runtime table: per probe id, its ECBs in EPID order.
  auto t = std::make_unique<Table>();
  u32 maxid = std::max({begin_id_, end_id_, error_id_});
  for (const EcbInfo &e : ecbs_)
    maxid = std::max(maxid, e.probe.id);
  t->by_probe.resize(maxid + 1);
  std::vector<const EcbInfo *> sorted;
  retired_.resize(ecbs_.size());
  for (const EcbInfo &e : ecbs_)
    if (!retired_[e.epid - 1])
      sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto *a, auto *b) {
    return a->probe.id < b->probe.id;
  });
  t->rt.reserve(ecbs_.size());
  for (const EcbInfo *e : sorted) {
    EcbRt r;
    const CompiledClause &cc = prog_->clauses[e->clause];
    r.code = cc.code.data();
    r.action_at = cc.action_at.data();
    r.fast = cc.fast;
    r.fast_agg = cc.fast_agg;
    r.epid = e->epid;
    r.clause = e->clause;
    r.stmt = e->stmt;
    const std::string *names[4] = {&e->probe.provider, &e->probe.module,
                                   &e->probe.function, &e->probe.name};
    for (int k = 0; k < 4; k++) {
      r.pstr[k] = names[k]->c_str();
      if (names[k]->size() > prog_->str_chars())
        r.pstr[k] = t->cut_names.emplace_back(names[k]->substr(0, prog_->str_chars()))
                        .c_str();
    }
    r.clear_locals = 0;
    if (t->rt.empty() || sorted[t->rt.size() - 1]->probe.id != e->probe.id)
      r.clear_locals = prog_->nlocals;
    if (bpf_)
      bpf_ecb(r, *e);
    t->rt.push_back(r);
  }
  for (size_t i = 0; i < t->rt.size(); i++) {
    u32 id = sorted[i]->probe.id;
    if (!t->by_probe[id].n)
      t->by_probe[id].ecbs = &t->rt[i];
    t->by_probe[id].n++;
  }
  table_.store(t.get(), std::memory_order_release);
  // The old table and the programs only it named are unreachable now for
  // any firing that starts from here on.
  if (table_owner_)
    hand_back(std::move(table_owner_));
  table_owner_ = std::move(t);
  for (auto &bc : old_bclauses_)
    hand_back(std::shared_ptr<const BpfClause>(std::move(bc)));
  old_bclauses_.clear();
}

void Consumer::hand_back(std::shared_ptr<const void> old) {
  if (opts_.retire)
    opts_.retire(std::move(old));
  else
    kept_.push_back(std::move(old));
}

bool Consumer::add_probe(const ProbeInfo &p,
                         const std::vector<std::vector<ProbeDesc>> &descs) {
  MutexLock g(ecbs_mu_);
  retired_.resize(ecbs_.size());
  // The same probe again (a module loaded again: the same id, the same
  // names) takes back its ECB in each clause, so a load/unload cycle under
  // a retained enabling changes nothing here; any other ECB of a reused id
  // is for a probe that is gone.
  auto same_probe = [&](const ProbeInfo &q) {
    return q.id == p.id && q.provider == p.provider && q.module == p.module &&
           q.function == p.function && q.name == p.name &&
           q.argtypes == p.argtypes;
  };
  std::vector<bool> clause_has(prog_->clauses.size(), false);
  std::vector<bool> wants(prog_->clauses.size(), false);
  bool joined = false;
  for (size_t c = 0; c < descs.size() && c < prog_->clauses.size(); c++)
    for (const ProbeDesc &d : descs[c])
      if (d.matches(p))
        wants[c] = joined = true;
  bool changed = false;
  for (const EcbInfo &e : ecbs_) {
    if (e.probe.id != p.id)
      continue;
    const bool keep = e.clause < wants.size() && wants[e.clause] &&
                      !clause_has[e.clause] && same_probe(e.probe);
    if (keep)
      clause_has[e.clause] = true;
    if (retired_[e.epid - 1] == keep) {
      retired_[e.epid - 1] = !keep;
      changed = true;
    }
  }
  for (size_t c = 0; c < wants.size(); c++) {
    if (!wants[c] || clause_has[c])
      continue;
    EcbInfo e;
    e.epid = (u32)ecbs_.size() + 1;
    e.clause = (u32)c;
    e.stmt = prog_->clauses[c].stmt_of(p);
    e.probe = p;
    e.full = p.full();
    ecbs_.push_back(std::move(e));
    retired_.push_back(false);
    changed = true;
  }
  if (changed)
    publish_table();
  return joined;
}

const EcbInfo *Consumer::ecb(u32 epid) const {
  MutexLock g(ecbs_mu_);
  return epid >= 1 && epid <= ecbs_.size() ? &ecbs_[epid - 1] : nullptr;
}

Consumer::~Consumer() {
  if (redirect_)
    fclose(redirect_);
  if (walks_)
    opts_.code->use_unwind(-1);
  delete[] states_;
  if (mem_)
    munmap(mem_, mem_size_);
}

Result<void> Consumer::init() {
  // stack() walks through every image: have their FDE tables built (a
  // module's is built only when something walks).
  for (const CompiledClause &c : prog_->clauses)
    for (const Insn &in : c.code)
      walks_ |= in.op == OP_STACK && opts_.code;
  if (walks_)
    opts_.code->use_unwind(+1);
  // The old interpreter has host versions of a few functions only.
  if (opts_.engine == DEngine::Interp)
    for (u32 i = 0; i < prog_->clauses.size(); i++)
      for (const Insn &in : prog_->clauses[i].code)
        if ((in.op == OP_CALL && !builtin(in.c).host) ||
            ((in.op == OP_LDVAR || in.op == OP_STVAR) && in.imm))
          return error(strf(
              "clause %u (%s): %s runs on the BPF engine only, not -x "
              "engine=interp",
              i + 1, prog_->clauses[i].descs.c_str(),
              in.op == OP_CALL ? (builtin(in.c).name + std::string("( )")).c_str()
              : (VarScope)in.a == VarScope::Clause
                  ? "a this-> string"
                  : ("variable " + prog_->vars[in.imm - 1].name).c_str()));
  nstates_ = opts_.threads ? opts_.threads : 16;
  u64 ring = pow2_at_least(std::max<u64>(opts_.bufsize, 4096));
  u64 arena = align8(std::max<u64>(opts_.aggsize, 4096));
  u32 cap = (u32)std::clamp<u64>(pow2_at_least(opts_.aggsize / 128), 256, 1u << 16);
  const u64 page = 4096;
  u64 per = align_up(ring, page) + align_up(cap * sizeof(AggEntry), page) +
            align_up(arena, page);
  mem_size_ = per * nstates_;
  // Address space only: pages are touched as threads record.
  void *m = mmap(nullptr, mem_size_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return error(strf("cannot map %llu bytes of buffers for %u threads (-b "
                      "sets the size per thread)",
                      (unsigned long long)mem_size_, nstates_));
  mem_ = m;
  states_ = new ThreadState[nstates_];
  u8 *p = (u8 *)m;
  for (u32 i = 0; i < nstates_; i++) {
    ThreadState &s = states_[i];
    s.keyless = std::make_unique<i64 *[]>(std::max<size_t>(prog_->aggs.size(), 1));
    s.ring = p;
    s.ring_size = ring;
    p += align_up(ring, page);
    s.entries = (AggEntry *)p;
    s.cap_mask = cap - 1;
    p += align_up(cap * sizeof(AggEntry), page);
    s.arena = p;
    s.arena_size = arena;
    p += align_up(arena, page);
  }
  // A destructive action runs only where it was allowed (-w): refused here,
  // whoever compiled the program.
  if (prog_->destructive_used && !prog_->pragmas.destructive)
    return error("could not enable tracing: Destructive actions not allowed");
  if (prog_->memory_used && opts_.engine == DEngine::Interp)
    return error("could not enable tracing: alloca( ) and pointers need the "
                 "BPF engine (-x engine=interp has none)");
  // DTrace's dynamic variables (associative arrays, self->) live in the
  // dynvarsize bytes: a size below one of them holds none, and DTrace
  // refuses it.  One is counted as DTrace counts it, the largest value
  // (its type's size, a string strsize bytes) and the largest tuple (an
  // array's number, 4 bytes, and its keys, 8 bytes or strsize each): this
  // kernel's maps keep more beside them.
  if (u64 size = prog_->pragmas.dynvarsize) {
    const u64 str = prog_->pragmas.strsize ? prog_->pragmas.strsize
                                           : kDefaultStrSize;
    auto bytes = [&](Type t) -> u64 {
      switch (t) {
      case Type::String: return str;
      case Type::Int8: case Type::UInt8: return 1;
      case Type::Int16: case Type::UInt16: return 2;
      case Type::Int32: case Type::UInt32: return 4;
      default: return 8;
      }
    };
    u64 value = 0, tuple = 0;
    for (const VarDef &v : prog_->vars) {
      if (!v.keyed && v.scope != VarScope::Thread)
        continue;
      value = std::max(value, bytes(v.type));
      if (!v.keyed)
        continue;
      u64 n = 4;
      for (Type k : v.keys)
        n += k == Type::String ? str : 8;
      tuple = std::max(tuple, n);
    }
    const u64 one = value ? value + tuple : 0;
    if (size < one)
      return error("could not enable tracing: Enabling exceeds size of buffer");
  }
  // D variables live in one hash map whichever engine runs (dlib/vars.c).
  auto vars = bpf::Map::create({"dt_vars", bpf::MapType::Hash, 16, 8,
                                std::max<u32>(opts_.dynvars, 16)},
                               1);
  if (!vars)
    return vars.take_error();
  maps_.resize(M_COUNT);
  maps_[M_VARS] = std::move(*vars);
  auto wvars = bpf::Map::create({"dt_wvars", bpf::MapType::Hash,
                                 prog_->wkey_size, prog_->wval_size,
                                 std::max<u32>(opts_.dynvars, 16)},
                                1);
  if (!wvars)
    return wvars.take_error();
  maps_[M_WVARS] = std::move(*wvars);
  if (opts_.engine != DEngine::Interp)
    return init_bpf();
  return {};
}

Result<void> Consumer::init_bpf() {
  auto lib = embedded_dlib();
  if (!lib)
    return lib.take_error();
  const u32 lanes = 2 * nstates_;
  // The string table: literals, then the probes' names (added as ECBs
  // appear, into room kept for them), then a string's worth of zeros.
  std::string tab;
  for (const std::string &lit : prog_->strings) {
    if (tab.size() & 1) // even offsets: see strtab_name
      tab.push_back('\0');
    target_.literal_off.push_back((u32)tab.size());
    tab.append(lit).push_back('\0');
  }
  const u32 tabsize = (u32)align8(tab.size() + kStrTabRoom + kStrSize);
  const std::vector<u8> *ro = (*lib)->data(".rodata");
  const u32 rosize = ro ? (u32)align8(std::max<size_t>(ro->size(), 8)) : 8;
  const u32 naggs = std::max<u32>((u32)prog_->aggs.size(), 1);
  u32 nglobals = 1; // the variables' numbers count keyed globals too
  for (const VarDef &v : prog_->vars)
    nglobals += v.scope == VarScope::Global;
  struct {
    BpfMapIndex at;
    bpf::MapSpec spec;
  } specs[] = {
      {M_STRTAB, {"dt_strtab", bpf::MapType::Array, 4, tabsize, 1, true}},
      {M_KEYLESS, {"dt_keyless", bpf::MapType::PerCpuArray, 4, 8, naggs}},
      {M_RODATA, {".rodata", bpf::MapType::Array, 4, rosize, 1, true}},
      {M_SCRATCH, {"dt_scratch", bpf::MapType::PerCpuArray, 4,
                   scratch_size(*prog_), 1}},
      {M_GVARS, {"dt_gvars", bpf::MapType::Array, 4, 8 * nglobals, 1}},
  };
  for (auto &m : specs) {
    auto map = bpf::Map::create(m.spec, lanes);
    if (!map)
      return map.take_error();
    maps_[m.at] = std::move(*map);
  }
  const u32 zero = 0;
  std::memcpy(maps_[M_STRTAB]->lookup(&zero, 0), tab.data(), tab.size());
  if (ro)
    std::memcpy(maps_[M_RODATA]->lookup(&zero, 0), ro->data(), ro->size());
  env_.ctx_size = sizeof(FireCtx);
  env_.ctx_writable = true; // FireCtx::local (the programs write nothing else)
  for (auto &m : maps_)
    env_.maps.push_back(m.get());
  env_.helpers = bpf::map_helpers();
  for (const bpf::Helper &h : BpfRuntime::helpers())
    env_.helpers.push_back(h);
  if (opts_.max_insns)
    env_.max_insns = opts_.max_insns;
  target_.env = &env_;
  target_.lib = *lib;
  target_.engine = opts_.engine == DEngine::BpfInterp ? bpf::Engine::Interpreter
                                                      : bpf::Engine::Auto;
  for (u32 i = 0; i < nstates_; i++)
    for (int d = 0; d < 2; d++) {
      auto l = std::make_unique<BpfLane>(env_, 2 * i + d);
      l->c = this;
      l->ts = &states_[i];
      l->depth = d;
      u8 *scratch = (u8 *)maps_[M_SCRATCH]->lookup(&zero, 2 * i + d);
      l->local_strs = (char *)scratch + scratch_local_str(*prog_, 0);
      l->nlocal_strs = prog_->nlocal_strs;
      l->load_word = (u64 *)(void *)(scratch + scratch_mem_word(*prog_));
      l->mem = scratch + scratch_mem_word(*prog_) + 8;
      l->mem_cap = prog_->scratch_size();
      states_[i].lane[d] = l.get();
      lanes_.push_back(std::move(l));
    }
  // A keyless count( )'s counter for each thread state: its lane 0's slot
  // in dt_keyless, the one the program would add to (Consumer::fire's
  // fast path adds to it without running the program).
  for (u32 a = 0; a < prog_->aggs.size(); a++)
    if (prog_->aggs[a].fn == AggFn::Count && prog_->aggs[a].keys.empty())
      for (u32 i = 0; i < nstates_; i++)
        states_[i].keyless[a] = (i64 *)maps_[M_KEYLESS]->lookup(&a, 2 * i);
  MutexLock g(ecbs_mu_);
  strtab_used_ = (u32)tab.size();
  bclauses_.resize(prog_->clauses.size());
  MK_TRY(bpf_refresh());
  bpf_ = true;
  publish_table();
  return {};
}

// A name's offset in the string table, added on first use (0 when the
// table is full: the first literal, or the zeros), cut to strsize.
u32 Consumer::strtab_name(const std::string &name) {
  // A name is a string value like any other: strsize characters at most.
  const std::string n = name.substr(0, prog_->str_chars());
  auto it = strnames_.find(n);
  if (it != strnames_.end())
    return it->second;
  const u32 cap = (u32)maps_[M_STRTAB]->spec().value_size - kStrSize;
  // At an even offset, as the literals: an aggregation key of this string
  // is then its address | 1 (BpfRuntime::agg_key), not a copy.
  const u32 at = (strtab_used_ + 1) & ~1u;
  if (at + n.size() + 1 > cap)
    return cap; // the zeros: an empty string
  const u32 zero = 0;
  u8 *tab = (u8 *)maps_[M_STRTAB]->lookup(&zero, 0);
  std::memcpy(tab + at, n.c_str(), n.size() + 1);
  strtab_used_ = at + (u32)n.size() + 1;
  strnames_[n] = at;
  return at;
}

// Each clause's program for the ECBs now live: a clause with one ECB has
// that ECB's numbers and names linked in as constants, so when its ECBs
// change (a probe appeared or went) it is linked again; the old program
// stays for firings still running it.
Result<void> Consumer::bpf_refresh() {
  std::vector<u32> count(prog_->clauses.size(), 0);
  std::vector<const EcbInfo *> only(prog_->clauses.size(), nullptr);
  retired_.resize(ecbs_.size());
  for (const EcbInfo &e : ecbs_)
    if (!retired_[e.epid - 1] && e.clause < count.size())
      count[e.clause]++, only[e.clause] = &e;
  Result<void> first_error;
  for (u32 ci = 0; ci < prog_->clauses.size(); ci++) {
    const u32 want = count[ci] == 1 ? only[ci]->epid : 0;
    if (bclauses_[ci] && bclauses_[ci]->one_epid == want)
      continue;
    BpfTarget::One one;
    if (want) {
      const EcbInfo &e = *only[ci];
      one.epid = e.epid;
      one.probe = e.probe.id;
      const std::string *names[4] = {&e.probe.provider, &e.probe.module,
                                     &e.probe.function, &e.probe.name};
      for (int k = 0; k < 4; k++)
        one.str[k] = strtab_name(*names[k]);
    }
    auto bc = bpf_compile(*prog_, ci, target_, want ? &one : nullptr);
    if (bclauses_[ci])
      old_bclauses_.push_back(std::move(bclauses_[ci]));
    if (!bc) {
      if (first_error)
        first_error = bc.take_error();
      continue;
    }
    bc->one_epid = want;
    bclauses_[ci] = std::make_unique<BpfClause>(std::move(*bc));
  }
  return first_error;
}

void Consumer::bpf_ecb(EcbRt &r, const EcbInfo &e) {
  r.ecbctx[0] = e.probe.id;
  r.ecbctx[1] = e.epid;
  const std::string *names[4] = {&e.probe.provider, &e.probe.module,
                                 &e.probe.function, &e.probe.name};
  for (int k = 0; k < 4; k++)
    r.ecbctx[2 + k] = strtab_name(*names[k]);
  r.bclause = r.clause < bclauses_.size() ? bclauses_[r.clause].get() : nullptr;
  r.bprog = r.bclause ? r.bclause->prog.get() : nullptr;
  r.prep = (r.bclause && r.bclause->needs_ctx ? kPrepArgs : 0) |
           (r.clear_locals ? kPrepLocals : 0);
  r.direct = r.bprog ? r.bprog->plain_entry() : nullptr;
}

std::vector<u32> Consumer::sdt_probes() const {
  MutexLock g(ecbs_mu_);
  std::vector<u32> ids;
  for (const EcbInfo &e : ecbs_)
    if (e.probe.provider != "dtrace" &&
        std::find(ids.begin(), ids.end(), e.probe.id) == ids.end())
      ids.push_back(e.probe.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

u64 Consumer::drops() const {
  u64 n = 0;
  u32 used = std::min(next_state_.load(), nstates_);
  for (u32 i = 0; i < used; i++)
    n += states_[i].drops.load(std::memory_order_relaxed);
  for (const auto &u : unclaimed_drops_)
    n += u.load(std::memory_order_relaxed);
  return n;
}

// ---- the firing path ------------------------------------------------------------------

ThreadState *Consumer::thread_state() {
  TlsSlot &c = t_states[gen_ & 3];
  if (__builtin_expect(c.gen == gen_, 1))
    return c.ts;
  return claim();
}

ThreadState *Consumer::claim() {
  // Once per thread (or after the cache slot was taken by another
  // consumer): find the state this thread already owns, or take a new one.
  ThreadState *ts = nullptr;
  u32 used = std::min(next_state_.load(std::memory_order_acquire), nstates_);
  for (u32 i = 0; i < used; i++)
    if (states_[i].owner.load(std::memory_order_acquire) == &t_token) {
      ts = &states_[i];
      break;
    }
  if (ts && ts->tid != thread_id()) {
    // A new thread in a dead one's thread-local storage (the C library
    // reuses it): the state is this thread's now, its self-> slots zero.
    ts->tid = thread_id();
    std::memset(ts->self, 0, sizeof ts->self);
    for (BpfLane *l : ts->lane)
      if (l) {
        std::memset(l->ctx.self, 0, sizeof l->ctx.self);
        l->ctx.tid = ts->tid;
      }
  }
  if (!ts) {
    u32 i = next_state_.fetch_add(1);
    if (i >= nstates_)
      return nullptr;
    ts = &states_[i];
    ts->cpu = current_cpu();
    ts->tid = thread_id();
    for (BpfLane *l : ts->lane)
      if (l) {
        l->ctx.tid = thread_id();
        l->ctx.cpu = (u64)ts->cpu;
      }
    ts->owner.store(&t_token, std::memory_order_release);
  }
  t_states[gen_ & 3] = TlsSlot{gen_, ts};
  return ts;
}

void Consumer::fire_other(const ProbeEcbs &pe, u32 probe,
                          const uintptr_t *args) {
  if (bpf_) {
    // Every clause is a BPF program.  The common case, one clause and the
    // thread's lane known, runs it right here: no loop, and the program
    // (plain) or the lane's run of it reached by a tail call, so this path
    // saves no register where the general one (fire_bpf_slow) saves six.
    TlsSlot &c = t_states[gen_ & 3];
    if (__builtin_expect(c.gen == gen_ && pe.n == 1, 1)) {
      run_bpf_on(pe.ecbs[0], *c.ts->lane[0], args, probe);
      return;
    }
    fire_bpf_slow(pe, probe, args);
    return;
  }
  fire_slow(pe, probe, args);
}

void Consumer::other(uintptr_t self, uintptr_t pe, uintptr_t probe,
                     uintptr_t args) {
  reinterpret_cast<Consumer *>(self)->fire_other(
      *reinterpret_cast<const ProbeEcbs *>(pe), (u32)probe,
      reinterpret_cast<const uintptr_t *>(args));
}

void Consumer::fire_slow(const ProbeEcbs &pe, u32 probe, const uintptr_t *args) {
  ThreadState *ts = thread_state();
  if (__builtin_expect(!ts, 0)) {
    int c = std::clamp(current_cpu() + 1, 0, 3);
    unclaimed_drops_[c].fetch_add(pe.n, std::memory_order_relaxed);
    return;
  }
  for (u32 i = 0; i < pe.n; i++) {
    const EcbRt &e = pe.ecbs[i];
    if (e.fast == CompiledClause::Count0)
      if (i64 *v = ts->keyless[e.fast_agg]) {
        wr(v, rd(v) + 1);
        // (run( ) would have zeroed the firing's this-> variables.)
        std::memset(ts->locals[0], 0, 8 * e.clear_locals);
        continue;
      }
    run(e, ts, args, probe, 0);
    if (exited_here(Active))
      break;
  }
}

// Whether a clause just ran exit( ): the probe's later clauses do not run,
// as in DTrace, once tracing is no longer active.
bool Consumer::exited_here(u32 before) const {
  const u32 now = activity_.load(std::memory_order_relaxed);
  return (before == Active || before == Warmup) && now != before;
}

bool Consumer::start_exit() {
  u32 want = activity_.load();
  while (want == Active || want == Warmup)
    if (activity_.compare_exchange_weak(want, Exiting))
      return true;
  return want == Stopped;
}

void Consumer::fire_bpf_slow(const ProbeEcbs &pe, u32 probe,
                             const uintptr_t *args) {
  TlsSlot &c = t_states[gen_ & 3];
  ThreadState *ts = __builtin_expect(c.gen == gen_, 1) ? c.ts : claim();
  if (__builtin_expect(!ts, 0)) {
    int cpu = std::clamp(current_cpu() + 1, 0, 3);
    unclaimed_drops_[cpu].fetch_add(pe.n, std::memory_order_relaxed);
    return;
  }
  for (u32 i = 0; i < pe.n; i++) {
    run_bpf(pe.ecbs[i], ts, args, probe, 0);
    if (exited_here(Active))
      break;
  }
}

void Consumer::fire_special(u32 probe) {
  const Table *t = table_.load(std::memory_order_acquire);
  if (probe >= t->by_probe.size() || !t->by_probe[probe].n)
    return;
  const uintptr_t args[6] = {};
  ThreadState *ts = thread_state();
  if (!ts) {
    unclaimed_drops_[0].fetch_add(1);
    return;
  }
  const ProbeEcbs &pe = t->by_probe[probe];
  const u32 before = activity_.load(std::memory_order_relaxed);
  for (u32 i = 0; i < pe.n; i++) {
    run(pe.ecbs[i], ts, args, probe, 0);
    if (exited_here(before))
      break;
  }
}

u32 Consumer::speculation() {
  bool busy = false;
  for (u32 i = 0; i < nspec_; i++) {
    u32 st = spec_state_[i].load(std::memory_order_acquire);
    if (st == SpecInactive &&
        spec_state_[i].compare_exchange_strong(st, SpecActive))
      return i + 1;
    busy |= st == SpecCommitting || st == SpecDiscarding;
  }
  (busy ? spec_busy_ : spec_unavail_).fetch_add(1, std::memory_order_relaxed);
  return 0;
}

Consumer::SpecOp Consumer::spec_op(u64 id, u32 what, u32 &tag) {
  tag = kSpecDropped;
  if (what == 2) {
    if (id == 0 || id > nspec_ ||
        spec_state_[id - 1].load(std::memory_order_acquire) != SpecActive)
      return SpecOp::kEnd;
    tag = (u32)id;
    return SpecOp::kOk;
  }
  if (id == 0)
    return SpecOp::kOk; // commit(0), discard(0) do nothing
  if (id > nspec_)
    return SpecOp::kIllegal;
  u32 want = SpecActive;
  spec_state_[id - 1].compare_exchange_strong(
      want, what == 0 ? SpecCommitting : SpecDiscarding);
  return SpecOp::kOk;
}

i64 *Consumer::agg_lookup(ThreadState *ts, u32 agg, const u8 *key, u32 len) {
  u32 h = hash_key(agg, key, len);
  u32 i = h & ts->cap_mask;
  for (u32 n = 0; n <= ts->cap_mask; n++, i = (i + 1) & ts->cap_mask) {
    AggEntry &e = ts->entries[i];
    u32 tag = e.tag.load(std::memory_order_relaxed);
    if (tag == 0) {
      // Insert: key and initial values first, then publish the tag.
      const AggDef &d = prog_->aggs[agg];
      u64 koff = ts->arena_used;
      u64 voff = align8(koff + len);
      u64 end = voff + (u64)d.nvals * 8;
      if (ts->used * 4 >= (ts->cap_mask + 1) * 3 || end > ts->arena_size) {
        bump(ts->agg_drops);
        return nullptr;
      }
      if (len)
        std::memcpy(ts->arena + koff, key, len);
      i64 *v = (i64 *)(ts->arena + voff);
      i64 init = d.fn == AggFn::Min ? INT64_MAX : d.fn == AggFn::Max ? INT64_MIN : 0;
      for (u32 j = 0; j < d.nvals; j++)
        wr(&v[j], init);
      ts->arena_used = end;
      ts->used++;
      e.agg = agg;
      e.keylen = len;
      e.key_off = (u32)koff;
      e.val_off = (u32)voff;
      e.tag.store(h, std::memory_order_release);
      return v;
    }
    if (tag == h && e.agg == agg && e.keylen == len &&
        keys_equal(ts->arena + e.key_off, key, len))
      return (i64 *)(ts->arena + e.val_off);
  }
  bump(ts->agg_drops);
  return nullptr;
}

void Consumer::fault(const EcbRt &e, ThreadState *ts, u32 probe, int action,
                     u32 kind, u64 addr, int depth, u32 pc) {
  // An error record in place of the clause's own (not committed).
  u64 size = sizeof(RecHeader) + sizeof(ErrorData);
  u64 h = ts->head.load(std::memory_order_relaxed);
  u64 t = ts->tail.load(std::memory_order_acquire);
  u64 pos = h & (ts->ring_size - 1);
  if (pos + size > ts->ring_size) {
    u64 pad = ts->ring_size - pos;
    if (h + pad + size - t <= ts->ring_size) {
      ((RecHeader *)(ts->ring + pos))->size = 0;
      h += pad;
      pos = 0;
    }
  }
  if (h + size - t > ts->ring_size) {
    bump(ts->drops);
  } else {
    auto *hdr = (RecHeader *)(ts->ring + pos);
    hdr->size = (u32)size;
    hdr->epid = 0;
    hdr->ts = now_ns();
    hdr->cpu = ts->cpu;
    hdr->spec = 0;
    auto *ed = (ErrorData *)(hdr + 1);
    ed->epid = e.epid;
    ed->action = action;
    ed->fault = kind;
    ed->pc = pc;
    ed->addr = addr;
    ts->head.store(h + size, std::memory_order_release);
  }
  // The program's own dtrace:::ERROR clauses, as DTrace fires them.
  const Table *tbl = table_.load(std::memory_order_acquire);
  if (depth == 0 && error_id_ < tbl->by_probe.size() &&
      tbl->by_probe[error_id_].n) {
    // As dtrace-utils' ERROR: the probe, the statement, the pc, the
    // fault and its address.
    const uintptr_t args[6] = {0, (uintptr_t)probe, (uintptr_t)e.stmt,
                               (uintptr_t)pc, (uintptr_t)kind, (uintptr_t)addr};
    const ProbeEcbs &pe = tbl->by_probe[error_id_];
    for (u32 i = 0; i < pe.n; i++)
      run(pe.ecbs[i], ts, args, error_id_, depth + 1);
  }
}

// A fault the engine stopped a program for is reported like the
// interpreter's, naming the action it happened in.  Out of line: the run's
// fast path keeps nothing live for it but the lane, which knows the rest.
__attribute__((noinline, cold)) static void bpf_run_fault(BpfLane &l,
                                                           const bpf::RunResult &r) {
  const BpfClause &bc = *l.cur->bclause;
  const u64 site = (r.pc < bc.own ? bc.action_at[r.pc] : 0) | (u64)r.pc << 8;
  if (r.fault == bpf::Fault::OutOfBounds)
    BpfRuntime::fault(l, FLT_BADADDR, r.addr, site);
  else
    BpfRuntime::fault(l, FLT_ILLOP, 0, site);
}

// A clause whose code is not plain: what its helpers read of the lane,
// then the Runner's run.  Out of line, so that the plain path through
// Consumer::fire saves no register at all.
__attribute__((noinline)) static void bpf_run_helped(const EcbRt &e, BpfLane &l,
                                                     u32 probe) {
  if (__builtin_expect(!e.bprog, 0))
    return;
  l.cur = &e;
  l.probe = probe;
  l.now = 0;
  l.vnow = 0;
  l.keylen = 0;
  l.mem_used = 0;
  const bpf::RunResult r = l.runner.run(*e.bprog, &l.ctx);
  if (__builtin_expect(r.fault != bpf::Fault::None, 0))
    bpf_run_fault(l, r);
}

// A firing starts: its this-> variables are 0 and "".
__attribute__((noinline)) static void clear_locals(const EcbRt &e,
                                                   BpfLane &l) {
  std::memset(l.ctx.local, 0, 8 * e.clear_locals);
  for (u32 i = 0; i < l.nlocal_strs; i++)
    l.local_strs[i * kStrSize] = '\0';
}

// One clause on a lane.  Plain code (it calls no helper and cannot fault)
// is the call alone: a tail call from Consumer::fire.
inline __attribute__((always_inline)) void
Consumer::run_bpf_on(const EcbRt &e, BpfLane &l, const uintptr_t *args,
                     u32 probe) {
  if (e.prep) {
    if (__builtin_expect(e.prep & kPrepLocals, 0))
      clear_locals(e, l);
    if (e.prep & kPrepArgs) {
      for (int i = 0; i < 6; i++)
        l.ctx.arg[i] = (u64)args[i];
      std::memcpy(&l.ctx.probe, e.ecbctx, sizeof e.ecbctx);
    }
  }
  if (e.direct) {
    e.direct((u64)(uintptr_t)&l.ctx, 0, 0, 0, 0, l.rc);
    return;
  }
  bpf_run_helped(e, l, probe);
}

inline void Consumer::run_bpf(const EcbRt &e, ThreadState *ts,
                              const uintptr_t *args, u32 probe, int depth) {
  if (__builtin_expect(depth == 0, 1)) {
    run_bpf_on(e, *ts->lane[0], args, probe);
    return;
  }
  // An ERROR clause sees, and may change, its thread's self-> slots.
  u64 *const mine = ts->lane[0]->ctx.self, *const its = ts->lane[depth]->ctx.self;
  std::memcpy(its, mine, sizeof(FireCtx::self));
  run_bpf_on(e, *ts->lane[depth], args, probe);
  std::memcpy(mine, its, sizeof(FireCtx::self));
}

// A clause runs on the BPF engine unless -x engine=interp chose the old
// interpreter (interp.cpp).
void Consumer::run(const EcbRt &e, ThreadState *ts, const uintptr_t *args,
                   u32 probe, int depth) {
  if (bpf_) {
    run_bpf(e, ts, args, probe, depth);
    return;
  }
  interpret(e, ts, args, probe, depth);
}

// ---- the consumer thread --------------------------------------------------------------

void Consumer::warmup() {
  u32 want = Active;
  activity_.compare_exchange_strong(want, Warmup);
}

void Consumer::begin() {
  fire_special(begin_id_);
  u32 want = Warmup;
  activity_.compare_exchange_strong(want, Active);
}

void Consumer::stop() { activity_.store(Stopped); }

void Consumer::end() { fire_special(end_id_); }

void Consumer::flush(std::string &out) {
  if (out.empty())
    return;
  if (redirect_) {
    fwrite(out.data(), 1, out.size(), redirect_);
    fflush(redirect_);
  } else {
    sink_.out(out);
  }
  out.clear();
}

std::string Consumer::run_command(const std::string &cmd) {
  std::string got;
  FILE *f = popen(cmd.c_str(), "r");
  if (!f) {
    sink_.err(strf("dtrace: system( ) of \"%s\": %s", cmd.c_str(),
                   strerror(errno)));
    return got;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    got.append(buf, n);
  pclose(f);
  return got;
}

bool Consumer::redirect(const std::string &path) {
  // freopen(""): back to where the output went at first.
  if (redirect_)
    fclose(redirect_);
  redirect_ = nullptr;
  if (path.empty())
    return true;
  redirect_ = fopen(path.c_str(), "a");
  return redirect_ != nullptr;
}

Result<void> Consumer::setopt(const std::string &name, const std::string &v,
                              bool has_value) {
  // The options the consumer reads while it prints; the others are fixed
  // once tracing runs.  The errors are DTrace's words (dt_setopt).
  const char *kBadValue = "Invalid value for specified option";
  auto yes_no = [&](bool &b) -> Result<void> {
    if (!has_value || v == "yes" || v == "true" || v == "1")
      b = true;
    else if (v == "no" || v == "false" || v == "0")
      b = false;
    else
      return error(kBadValue);
    return {};
  };
  Pragmas &p = prog_->pragmas;
  if (name == "quiet")
    return yes_no(opts_.quiet);
  if (name == "rawbytes")
    return yes_no(p.rawbytes);
  if (name == "aggsortkey")
    return yes_no(p.aggsortkey);
  if (name == "aggsortrev")
    return yes_no(p.aggsortrev);
  if (name == "aggsortpos" || name == "aggsortkeypos" || name == "printsize") {
    if (!set_option(p, name, v))
      return error(kBadValue);
    return {};
  }
  // Rates are checked as the pragma checks them: the consumer drains
  // every 50 ms whatever they say.
  if (name == "switchrate" || name == "aggrate" || name == "statusrate" ||
      name == "cleanrate") {
    if (!parse_rate(has_value ? v : "1"))
      return error(kBadValue);
    return {};
  }
  static const char *const fixed[] = {"bufsize", "aggsize", "strsize", "nspec",
                                      "specsize", "bufpolicy", "dynvarsize",
                                      "destructive", "scratchsize"};
  for (const char *f : fixed)
    if (name == f)
      return error("Operation illegal when tracing is active");
  return error("Invalid option name");
}

void Consumer::drain() {
  struct Item {
    u64 ts;
    u32 state;
    u32 seq;
    std::vector<u8> bytes;
  };
  std::vector<Item> items;
  u32 used = std::min(next_state_.load(std::memory_order_acquire), nstates_);
  u32 seq = 0;
  for (u32 i = 0; i < used; i++) {
    ThreadState &s = states_[i];
    u64 t = s.tail.load(std::memory_order_relaxed);
    u64 h = s.head.load(std::memory_order_acquire);
    while (t < h) {
      u64 pos = t & (s.ring_size - 1);
      const auto *hdr = (const RecHeader *)(s.ring + pos);
      if (hdr->size == 0) { // the unused end before a wrap
        t += s.ring_size - pos;
        continue;
      }
      Item it{hdr->ts, i, seq++, {}};
      it.bytes.assign(s.ring + pos, s.ring + pos + hdr->size);
      items.push_back(std::move(it));
      t += hdr->size;
    }
    s.tail.store(t, std::memory_order_release);
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item &a, const Item &b) { return a.ts < b.ts; });
  std::string out;
  for (const Item &it : items)
    process(it.bytes.data(), it.state, out);
  flush(out);
  // Drops since the last drain, as DTrace reports them.
  for (u32 i = 0; i < used; i++) {
    ThreadState &s = states_[i];
    u64 d = s.drops.load(std::memory_order_relaxed);
    if (d > s.drops_seen) {
      u64 n = d - s.drops_seen;
      s.drops_seen = d;
      sink_.err(strf("dtrace: %llu drop%s on CPU %d", (unsigned long long)n,
                     n == 1 ? "" : "s", s.cpu));
    }
    u64 a = s.agg_drops.load(std::memory_order_relaxed);
    if (a > s.agg_drops_seen) {
      u64 n = a - s.agg_drops_seen;
      s.agg_drops_seen = a;
      sink_.err(strf("dtrace: %llu aggregation drop%s on CPU %d",
                     (unsigned long long)n, n == 1 ? "" : "s", s.cpu));
    }
  }
  if (u64 d = dyndrops_.load(std::memory_order_relaxed); d > dyndrops_seen_) {
    u64 n = d - dyndrops_seen_;
    dyndrops_seen_ = d;
    sink_.err(strf("dtrace: %llu dynamic variable drop%s", (unsigned long long)n,
                   n == 1 ? "" : "s"));
  }
  // Speculations, as DTrace's status reports them: for the whole enabling.
  auto report = [&](u64 now, u64 &seen, const char *what, const char *why) {
    if (now <= seen)
      return;
    u64 n = now - seen;
    seen = now;
    sink_.err(strf("dtrace: %llu %s%s%s", (unsigned long long)n, what,
                   n == 1 ? "" : "s", why));
  };
  report(spec_drops_, spec_drops_seen_, "speculative drop", "");
  report(spec_busy_.load(std::memory_order_relaxed), spec_busy_seen_,
         "failed speculation", " (available buffer(s) still busy)");
  report(spec_unavail_.load(std::memory_order_relaxed), spec_unavail_seen_,
         "failed speculation", " (no speculative buffer available)");
  for (int c = 0; c < 4; c++) {
    u64 n = unclaimed_drops_[c].exchange(0);
    if (n)
      sink_.err(strf("dtrace: %llu drop%s on CPU %d (more firing threads than "
                     "buffers)",
                     (unsigned long long)n, n == 1 ? "" : "s", c - 1));
  }
}

std::string Consumer::stack_value(const u64 *pcs, u64 n) const {
  std::vector<std::string> frames;
  for (u64 i = 0; i < n; i++)
    frames.push_back(opts_.code ? opts_.code->symbolize(pcs[i])
                                : strf("0x%llx", (unsigned long long)pcs[i]));
  return stack_text(frames);
}

void Consumer::process(const u8 *rec, u32 state, std::string &out) {
  const auto *hdr = (const RecHeader *)rec;
  const u8 *p = rec + sizeof(RecHeader);
  if (hdr->epid == 0) {
    ErrorData ed;
    std::memcpy(&ed, p, sizeof ed);
    // As dtrace-utils words it: the clause, the probe, the fault, and
    // where in the clause's program.
    const EcbInfo *e = ecb(ed.epid);
    std::string where = strf(opts_.engine == DEngine::Interp
                                 ? "at bytecode pc %u" : "at BPF pc %u", ed.pc);
    std::string what = fault_text(ed.fault);
    if (ed.fault == FLT_BADADDR || ed.fault == FLT_BADSIZE)
      what += strf(" (0x%llx)", (unsigned long long)ed.addr);
    if (ed.fault == FLT_BADINDEX)
      what += strf(" (%lld)", (long long)ed.addr);
    flush(out);
    sink_.err(strf("dtrace: error in dt_clause_%u for probe ID %u (%s): %s %s",
                   e ? e->stmt : 0, e ? e->probe.id : 0,
                   e ? e->full.c_str() : "?", what.c_str(), where.c_str()));
    return;
  }
  const EcbInfo *ep = ecb(hdr->epid);
  if (!ep)
    return;
  if (hdr->spec && !in_spec_) {
    // A speculative record: held, formatted, until its speculation ends.
    if (hdr->spec == kSpecDropped || hdr->spec > nspec_ ||
        spec_state_[hdr->spec - 1].load() == SpecInactive)
      return;
    SpecBuf &b = spec_bufs_[hdr->spec - 1];
    if (b.bytes + hdr->size > specsize_) {
      spec_drops_++;
      return;
    }
    b.bytes += hdr->size;
    in_spec_ = true;
    process(rec, state, b.out);
    in_spec_ = false;
    return;
  }
  records_++;
  const EcbInfo &e = *ep;
  const CompiledClause &c = prog_->clauses[e.clause];
  bool quiet = opts_.quiet;
  // A record that only ends speculations (commit( ), discard( ), beside
  // statements that record nothing) prints no line of its own, as in
  // DTrace: what it commits follows.
  bool ends_only = false;
  for (const Action &a : c.actions) {
    if (a.kind == Action::Commit || a.kind == Action::Discard)
      ends_only = true;
    else if (a.kind != Action::Aggregate) {
      ends_only = false;
      break;
    }
  }
  if (ends_only && !quiet && !header_done_ && !in_spec_) {
    out += opts_.flowindent ? flow_header() : record_header();
    header_done_ = true;
  }
  quiet |= ends_only;
  if (!quiet && opts_.flowindent) {
    // DTrace's flow indent, per CPU buffer: an entry prints at the depth so
    // far and deepens it, a return shallows it first.
    if (!header_done_ && !in_spec_) { // a speculative record: at its commit
      out += flow_header();
      header_done_ = true;
    }
    if (indent_.size() <= state)
      indent_.resize(state + 1, 0);
    int &depth = indent_[state];
    const Flow flow = flow_of(e.probe.name);
    if (flow == Flow::Return && depth > 0)
      depth -= 2;
    out += flow_prefix(hdr->cpu, depth, flow, e.probe.function, e.probe.name);
    if (flow == Flow::Entry)
      depth += 2;
  } else if (!quiet) {
    if (!header_done_ && !in_spec_) { // a speculative record: at its commit
      out += record_header();
      header_done_ = true;
    }
    out += record_prefix(hdr->cpu, e.probe.id, e.probe.function, e.probe.name);
  }
  auto value = [&](Type t) {
    Value v;
    v.type = t;
    if (t == Type::Stack) {
      u64 n;
      std::memcpy(&n, p, 8);
      std::vector<u64> pcs(n);
      if (n) // an empty stack: no frames to copy (and no buffer)
        std::memcpy(pcs.data(), p + 8, 8 * n);
      v.s = stack_value(pcs.data(), n);
      p += 8 * (1 + n);
    } else if (t == Type::String) {
      u32 len;
      std::memcpy(&len, p, 4);
      v.s.assign((const char *)p + 8, len);
      p += 8 + align8(len);
    } else {
      std::memcpy(&v.i, p, 8);
      p += 8;
    }
    return v;
  };
  std::string committed; // commit( )ted records follow the committing one
  for (const Action &a : c.actions) {
    switch (a.kind) {
    case Action::Trace: {
      Value v = value(a.types[0]);
      if (v.type == Type::Stack)
        out += v.s;
      else if (v.type == Type::String && prog_->pragmas.rawbytes)
        out += raw_bytes(v.s, prog_->str_chars() + 1);
      else if (v.type == Type::String)
        out += quiet ? v.s : strf("  %-33s", v.s.c_str());
      else
        out += trace_int(v, quiet);
      break;
    }
    case Action::Printf:
    case Action::System:
    case Action::Freopen: {
      // system( ) and freopen( ) take printf( )'s arguments.
      std::vector<Value> vals;
      for (Type t : a.types)
        vals.push_back(value(t));
      std::string text = format(*a.fmt, vals, &opts_.symbol);
      if (a.kind == Action::Printf) {
        out += text;
        break;
      }
      flush(out);
      if (a.kind == Action::System) {
        // The command runs on the host, as DTrace's consumer runs it, its
        // output in order with the records'.
        out += run_command(text);
      } else if (!redirect(text)) {
        sink_.err(strf("dtrace: freopen( ) of \"%s\": %s", text.c_str(),
                       strerror(errno)));
      }
      break;
    }
    case Action::Tracemem: { // DTrace's dump of the bytes it shows
      const i64 show = value(Type::Int64).i;
      const Value bytes = value(Type::String);
      const size_t n = show < 0 || (u64)show > bytes.s.size() ? bytes.s.size()
                                                             : (size_t)show;
      if (n)
        out += raw_bytes(bytes.s, n);
      break;
    }
    case Action::Print: {
      const u64 addr = (u64)value(Type::Int64).i;
      const Value bytes = value(Type::String);
      const u32 shown = prog_->pragmas.printsize ? prog_->pragmas.printsize
                                                 : kDefaultPrintSize;
      out += print_object(*a.object, addr, bytes.s, shown);
      break;
    }
    case Action::Setopt: {
      const std::string name = value(Type::String).s;
      const bool has_value = a.types.size() > 1;
      const std::string val = has_value ? value(Type::String).s : "";
      if (auto r = setopt(name, val, has_value); !r) {
        // As dtrace-utils reports it, a blank line after.
        flush(out);
        sink_.err(strf("dtrace: error in dt_clause_%u for probe ID %u (%s): "
                       "couldn't set option \"%s\" to \"%s\": %s\n",
                       e.stmt, e.probe.id, e.full.c_str(), name.c_str(),
                       has_value ? val.c_str() : "1",
                       r.error().message.c_str()));
      }
      break; // quiet from the next record: this one's line is begun
    }
    case Action::Printa: {
      std::vector<const AggDef *> defs;
      std::vector<i64> normal;
      std::vector<std::vector<AggRow>> rows;
      for (u32 g : a.aggs) {
        defs.push_back(&prog_->aggs[g]);
        normal.push_back(views_[g].normal);
        rows.push_back(merged(g));
        printed_[g] = true;
      }
      AggTable t = join_aggregations(defs, normal, std::move(rows));
      if (a.fmt)
        out += printa_format(std::move(t), *a.fmt, agg_sort());
      else
        out += "\n" + print_aggregation(std::move(t), agg_sort());
      break;
    }
    case Action::Normalize: {
      Value v = value(Type::Int64);
      if (v.i <= 0) {
        flush(out);
        sink_.err(strf("dtrace: normalize( ) of @%s: the factor %lld is not "
                       "positive; the aggregation is left as it was",
                       prog_->aggs[a.agg].name.c_str(), (long long)v.i));
        break;
      }
      views_[a.agg].normal = v.i;
      break;
    }
    case Action::Denormalize:
      views_[a.agg].normal = 1;
      break;
    case Action::Clear:
    case Action::Trunc: {
      // trunc(@a, n): keep the n highest values (n < 0: the -n lowest);
      // without n, or clear( ), every key goes.
      const bool has_n = !a.types.empty();
      const i64 n = has_n ? value(Type::Int64).i : 0;
      auto raw = raw_merged(a.agg);
      std::vector<AggRow> rows = merged(a.agg);
      sort_rows(prog_->aggs[a.agg], rows);
      size_t from = 0, to = rows.size(); // the rows that go
      if (has_n && n > 0)
        to = rows.size() - std::min<u64>((u64)n, rows.size());
      else if (has_n && n < 0)
        from = std::min<u64>(0 - (u64)n, rows.size());
      std::vector<std::string> keys;
      for (size_t i = from; i < to; i++) {
        std::string canon;
        for (const Value &k : rows[i].keys)
          if (k.type == Type::String || k.type == Type::Stack)
            canon.append(k.s).push_back('\0');
          else
            canon.append((const char *)&k.i, 8);
        keys.push_back(std::move(canon));
      }
      reset_rows(a.agg, raw, keys, a.kind == Action::Trunc);
      break;
    }
    case Action::Speculate:
      break;
    case Action::Commit:
    case Action::Discard: {
      Value v = value(Type::Int64);
      if (v.i <= 0 || (u64)v.i > nspec_)
        break;
      std::atomic<u32> &st = spec_state_[v.i - 1];
      u32 want = a.kind == Action::Commit ? SpecCommitting : SpecDiscarding;
      if (st.load() != want)
        break; // not active when it ran: nothing to end
      SpecBuf &b = spec_bufs_[v.i - 1];
      if (a.kind == Action::Commit)
        committed += b.out;
      b.out.clear();
      b.bytes = 0;
      st.store(SpecInactive, std::memory_order_release);
      break;
    }
    case Action::Exit: {
      Value v = value(Type::Int64);
      // The status was taken when exit( ) ran; the record is the
      // consumer's cue as in DTrace.
      (void)v;
      break;
    }
    case Action::Aggregate:
      break;
    }
  }
  if (!quiet)
    out += "\n";
  out += committed;
}

// An entry's keys, and their bytes as the merge matches them: by content,
// since the same key may be held by address in one table and by value (or
// at another address) in another.
std::string Consumer::entry_key(u32 agg, const ThreadState &s,
                                const AggEntry &e,
                                std::vector<Value> *keys) const {
  const AggDef &d = prog_->aggs[agg];
  std::string canon;
  const u8 *p = s.arena + e.key_off;
  for (Type t : d.keys) {
    Value v;
    v.type = t;
    if (t == Type::Stack) {
      u64 n;
      std::memcpy(&n, p, 8);
      std::vector<u64> pcs(n);
      if (n) // an empty stack as an aggregation key
        std::memcpy(pcs.data(), p + 8, 8 * n);
      v.s = stack_value(pcs.data(), n);
      p += 8 * (1 + n);
    } else if (t == Type::String && (*p & 1)) { // by address (see OP_AGG)
      u64 w;
      std::memcpy(&w, p, 8);
      const char *str = (const char *)(uintptr_t)(w & ~(u64)1);
      v.s = std::string(str, strnlen(str, kStrSize - 1));
      p += 8;
    } else if (t == Type::String) {
      v.s = (const char *)p + 1;
      p += v.s.size() + 2;
    } else {
      std::memcpy(&v.i, p, 8);
      p += 8;
    }
    if (t == Type::String || t == Type::Stack)
      canon.append(v.s).push_back('\0');
    else
      canon.append((const char *)&v.i, 8);
    if (keys)
      keys->push_back(std::move(v));
  }
  return canon;
}

std::map<std::string, AggRow> Consumer::raw_merged(u32 agg) const {
  const AggDef &d = prog_->aggs[agg];
  if (bpf_ && d.fn == AggFn::Count && d.keys.empty()) {
    // A keyless count( ) on BPF: a counter per lane (bpfgen.cpp).
    i64 total = 0;
    for (u32 cpu = 0; cpu < maps_[M_KEYLESS]->ncpus(); cpu++)
      total = add(total, rd((const i64 *)maps_[M_KEYLESS]->lookup(&agg, cpu)));
    if (!total)
      return {};
    return {{std::string(), AggRow{{}, {total}}}};
  }
  std::map<std::string, AggRow> m;
  u32 used = std::min(next_state_.load(std::memory_order_acquire), nstates_);
  for (u32 i = 0; i < used; i++) {
    const ThreadState &s = states_[i];
    for (u32 j = 0; j <= s.cap_mask; j++) {
      const AggEntry &e = s.entries[j];
      if (e.tag.load(std::memory_order_acquire) == 0 || e.agg != agg)
        continue;
      std::vector<Value> keys;
      std::string canon = entry_key(agg, s, e, &keys);
      const i64 *v = (const i64 *)(s.arena + e.val_off);
      auto [it, fresh] = m.try_emplace(canon);
      AggRow &row = it->second;
      if (fresh) {
        row.keys = std::move(keys);
        for (u32 k = 0; k < d.nvals; k++)
          row.vals.push_back(rd(&v[k]));
        continue;
      }
      const bool wide = d.fn == AggFn::Stddev; // vals[2..3]: 128 bits
      for (u32 k = 0; k < (wide ? 2 : d.nvals); k++) {
        i64 x = rd(&v[k]);
        if (d.fn == AggFn::Min)
          row.vals[k] = std::min(row.vals[k], x);
        else if (d.fn == AggFn::Max)
          row.vals[k] = std::max(row.vals[k], x);
        else
          row.vals[k] = add(row.vals[k], x);
      }
      if (wide) {
        const U128 sq = U128{(u64)row.vals[3], (u64)row.vals[2]}.add(
            U128{(u64)rd(&v[3]), (u64)rd(&v[2])});
        row.vals[2] = (i64)sq.lo;
        row.vals[3] = (i64)sq.hi;
      }
    }
  }
  return m;
}

std::vector<AggRow> Consumer::merged(u32 agg) {
  const AggDef &d = prog_->aggs[agg];
  AggView &view = views_[agg];
  const bool extreme = d.fn == AggFn::Min || d.fn == AggFn::Max;
  const i64 empty = d.fn == AggFn::Min ? INT64_MAX : d.fn == AggFn::Max ? INT64_MIN : 0;
  std::vector<AggRow> rows;
  for (auto &[canon, row] : raw_merged(agg)) {
    if (auto b = view.base.find(canon); b != view.base.end() && !extreme) {
      const std::vector<i64> &base = b->second;
      const bool wide = d.fn == AggFn::Stddev; // vals[2..3]: 128 bits
      for (u32 k = 0; k < (wide ? 2 : d.nvals); k++)
        row.vals[k] = (i64)((u64)row.vals[k] - (u64)base[k]);
      if (wide) {
        const U128 sq = U128{(u64)row.vals[3], (u64)row.vals[2]}.sub(
            U128{(u64)base[3], (u64)base[2]});
        row.vals[2] = (i64)sq.lo;
        row.vals[3] = (i64)sq.hi;
      }
    }
    if (view.hidden.count(canon)) {
      bool has_data = false;
      for (i64 x : row.vals)
        has_data |= x != empty;
      if (!has_data)
        continue;
      view.hidden.erase(canon); // data again since trunc( )
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void Consumer::reset_rows(u32 agg, const std::map<std::string, AggRow> &raw,
                          const std::vector<std::string> &keys, bool hide) {
  const AggDef &d = prog_->aggs[agg];
  AggView &view = views_[agg];
  std::set<std::string> gone(keys.begin(), keys.end());
  for (const std::string &k : keys) {
    if (hide)
      view.hidden.insert(k);
    if (auto it = raw.find(k); it != raw.end())
      view.base[k] = it->second.vals;
  }
  if (d.fn != AggFn::Min && d.fn != AggFn::Max)
    return;
  // A min( ) or max( ) cannot be based: its entries start again.  The
  // firing thread writes only values it saw, so a reset racing it keeps
  // a value seen after the reset began, never one from before.
  const i64 init = d.fn == AggFn::Min ? INT64_MAX : INT64_MIN;
  u32 used = std::min(next_state_.load(std::memory_order_acquire), nstates_);
  for (u32 i = 0; i < used; i++) {
    ThreadState &s = states_[i];
    for (u32 j = 0; j <= s.cap_mask; j++) {
      AggEntry &e = s.entries[j];
      if (e.tag.load(std::memory_order_acquire) == 0 || e.agg != agg)
        continue;
      if (gone.count(entry_key(agg, s, e, nullptr)))
        wr((i64 *)(s.arena + e.val_off), init);
    }
  }
}

AggSort Consumer::agg_sort() const {
  const Pragmas &p = prog_->pragmas;
  return AggSort{p.aggsortkey, p.aggsortrev, p.aggsortpos, p.aggsortkeypos};
}

void Consumer::print_end() {
  std::string out = "\n";
  // DTrace sorts every aggregation's rows together, the aggregation first:
  // aggsortrev reverses their order too.
  const u32 n = (u32)prog_->aggs.size();
  const bool rev = prog_->pragmas.aggsortrev;
  for (u32 i = 0; i < n; i++) {
    const u32 a = rev ? n - 1 - i : i;
    if (printed_[a])
      continue;
    auto rows = merged(a);
    if (rows.empty())
      continue;
    std::vector<std::vector<AggRow>> one;
    one.push_back(std::move(rows));
    out += print_aggregation(
        join_aggregations({&prog_->aggs[a]}, {views_[a].normal}, std::move(one)),
        agg_sort());
  }
  flush(out);
}

} // namespace mk::dt
