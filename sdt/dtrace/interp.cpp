// The old interpreter (-x engine=interp): the bytecode compile.cpp makes,
// run on the firing thread.  D runs on the BPF engine by default; this one
// stays as a second implementation the tests check the BPF engine's
// results against, and as the benchmark's reference for what BPF costs.
#include "firing.h"

#include "../../kernel/kernel.h"
#include "../registry.h"
#include "../unwind.h"

#include <algorithm>
#include <ctime>

namespace mk::dt {

// The interpreter.  One call runs one clause for one firing.  Direct
// threaded: every instruction ends by jumping through the label table to
// the next, so each has its own well-predicted indirect branch.
void Consumer::interpret(const EcbRt &e, ThreadState *ts,
                         const uintptr_t *args, u32 probe, int depth) {
  static const void *const L[] = {
      &&op_push,    &&op_arg,     &&op_strarg,  &&op_var,     &&op_stringof,
      &&op_call,    &&op_add,     &&op_sub,     &&op_mul,     &&op_div,
      &&op_mod,     &&op_shl,     &&op_shr,     &&op_and,     &&op_or,
      &&op_xor,     &&op_neg,     &&op_bnot,    &&op_lnot,    &&op_bool,
      &&op_eq,      &&op_ne,      &&op_lt,      &&op_le,      &&op_gt,
      &&op_ge,      &&op_seq,     &&op_sne,     &&op_slt,     &&op_sle,
      &&op_sgt,     &&op_sge,     &&op_trunc32, &&op_sext,    &&op_zext,
      &&op_jz,      &&op_jnz,
      &&op_jmp,     &&op_dup,     &&op_pop,     &&op_pred,    &&op_reserve,
      &&op_rec_int, &&op_rec_str, &&op_exit,    &&op_agg,     &&op_count0,
      &&op_commit,  &&op_stack,   &&op_rec_stack, &&op_ldvar,
      &&op_stvar,   &&op_speculation, &&op_speculate, &&op_specend,
      &&op_bounds,  &&op_alloca,  &&op_load,    &&op_store,   &&op_bcopy,
      &&op_copyin,  &&op_rec_mem, &&op_ret,
  };
  static_assert(sizeof L / sizeof L[0] == OP_RET + 1, "label per Op, in order");
  i64 st[kStackDepth];
  int sp = 0;
  u32 nscratch = 0;
  u8 *rec = nullptr;
  u64 rec_head = 0, roff = 0, now = 0;
  u32 spec = 0;
  const Insn *code = e.code;
  const Insn *pc = code;
  const Insn *in;
  int cmp;
  i64 *const locals = ts->locals[depth];
  for (u32 i = 0; i < e.clear_locals; i++)
    locals[i] = 0;
  bpf::Map &vars = *maps_[M_VARS];
  auto stamp = [&]() {
    if (!now)
      now = now_ns();
    return now;
  };
  u64 vnow = 0;
  auto fail = [&](u32 kind, u64 addr) {
    fault(e, ts, probe, e.action_at[in - code], kind, addr, depth,
          (u32)(in - code));
  };
#define NEXT                                                                   \
  do {                                                                         \
    in = pc++;                                                                 \
    goto *L[in->op];                                                           \
  } while (0)
#define BINARY(expr)                                                           \
  do {                                                                         \
    sp--;                                                                      \
    i64 a = st[sp - 1], b = st[sp];                                            \
    (void)a, (void)b;                                                          \
    st[sp - 1] = (expr);                                                       \
    NEXT;                                                                      \
  } while (0)
  NEXT;
op_push:
  st[sp++] = in->imm;
  NEXT;
op_arg:
  st[sp++] = (i64)(u64)args[in->a];
  NEXT;
op_strarg:
op_stringof: {
  size_t n = prog_->str_chars();
  if (in->op == OP_STRINGOF && in->b) // copyinstr(addr, max)
    n = std::min<u64>((u64)st[--sp], n);
  uintptr_t a = in->op == OP_STRARG ? args[in->a] : (uintptr_t)st[--sp];
  char *dst = ts->scratch[depth][nscratch++];
  if (!copy_string_in(pid_, a, dst, n + 1)) {
    fail(FLT_BADADDR, (u64)a);
    return;
  }
  st[sp++] = (i64)(uintptr_t)dst;
  NEXT;
}
op_var:
  switch ((Builtin)in->a) {
  case Builtin::Timestamp:
    st[sp++] = (i64)stamp();
    break;
  case Builtin::WallTimestamp: {
    timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    st[sp++] = (i64)t.tv_sec * 1000000000 + t.tv_nsec;
    break;
  }
  case Builtin::Cpu: st[sp++] = ts->cpu; break;
  case Builtin::Id: st[sp++] = probe; break;
  case Builtin::Epid: st[sp++] = e.epid; break;
  case Builtin::Tid:
    st[sp++] = thread_id();
    break;
  case Builtin::Execname: {
    char *dst = ts->scratch[depth][nscratch++];
    std::snprintf(dst, kStrSize, "%s", current_execname());
    st[sp++] = (i64)(uintptr_t)dst;
    break;
  }
  case Builtin::VTimestamp:
    if (!vnow)
      vnow = thread_cpu_ns();
    st[sp++] = (i64)vnow;
    break;
  case Builtin::StackDepth: st[sp++] = (i64)stack_depth(opts_.code); break;
  case Builtin::Caller: st[sp++] = (i64)stack_caller(opts_.code); break;
  case Builtin::CurThread: st[sp++] = (i64)current_task(ts->cpu); break;
  case Builtin::CurCpu: st[sp++] = (i64)cpu_info(ts->cpu); break;
  default:
    st[sp++] = (i64)(uintptr_t)e.pstr[in->a - (u8)Builtin::ProbeProv];
  }
  NEXT;
op_call:
  // Only functions with a host version reach here (see init()).
  sp -= in->b;
  st[sp] = builtin(in->c).host(&st[sp]);
  sp++;
  NEXT;
op_stack: {
  // The frame count, then the PCs, in a scratch buffer (kStrSize bytes
  // hold kMaxStackFrames and the count).
  u64 *buf = (u64 *)(void *)ts->scratch[depth][nscratch++];
  const ProbeFrame *pf = probe_frame();
  buf[0] = opts_.code && pf ? unwind(*opts_.code, *pf, buf + 1, in->a) : 0;
  st[sp++] = (i64)(uintptr_t)buf;
  NEXT;
}
op_rec_stack: {
  const u64 *buf = (const u64 *)(uintptr_t)st[--sp];
  std::memcpy(rec + roff, buf, 8 * (1 + buf[0]));
  roff += 8 * (1 + buf[0]);
  NEXT;
}
op_add: BINARY((i64)((u64)a + (u64)b));
op_sub: BINARY((i64)((u64)a - (u64)b));
op_mul: BINARY((i64)((u64)a * (u64)b));
op_div:
op_mod: {
  i64 b = st[--sp], a = st[sp - 1];
  if (b == 0) {
    fail(FLT_DIVZERO, 0);
    return;
  }
  if (in->a) // unsigned
    st[sp - 1] = (i64)(in->op == OP_DIV ? (u64)a / (u64)b : (u64)a % (u64)b);
  else if (b == -1)
    st[sp - 1] = in->op == OP_DIV ? (i64)(0 - (u64)a) : 0;
  else
    st[sp - 1] = in->op == OP_DIV ? a / b : a % b;
  NEXT;
}
op_shl: BINARY((i64)((u64)a << (b & 63)));
op_shr: BINARY(in->a ? (i64)((u64)a >> (b & 63)) : a >> (b & 63));
op_and: BINARY(a & b);
op_or: BINARY(a | b);
op_xor: BINARY(a ^ b);
op_neg:
  st[sp - 1] = (i64)(0 - (u64)st[sp - 1]);
  NEXT;
op_bnot:
  st[sp - 1] = ~st[sp - 1];
  NEXT;
op_lnot:
  st[sp - 1] = !st[sp - 1];
  NEXT;
op_bool:
  st[sp - 1] = st[sp - 1] != 0;
  NEXT;
op_eq: BINARY(a == b);
op_ne: BINARY(a != b);
op_lt: BINARY(in->a ? (u64)a < (u64)b : a < b);
op_le: BINARY(in->a ? (u64)a <= (u64)b : a <= b);
op_gt: BINARY(in->a ? (u64)a > (u64)b : a > b);
op_ge: BINARY(in->a ? (u64)a >= (u64)b : a >= b);
#define STRCMP                                                                 \
  sp--;                                                                        \
  cmp = strcmp((const char *)(uintptr_t)st[sp - 1],                            \
               (const char *)(uintptr_t)st[sp]);
op_seq:
  STRCMP st[sp - 1] = cmp == 0;
  NEXT;
op_sne:
  STRCMP st[sp - 1] = cmp != 0;
  NEXT;
op_slt:
  STRCMP st[sp - 1] = cmp < 0;
  NEXT;
op_sle:
  STRCMP st[sp - 1] = cmp <= 0;
  NEXT;
op_sgt:
  STRCMP st[sp - 1] = cmp > 0;
  NEXT;
op_sge:
  STRCMP st[sp - 1] = cmp >= 0;
  NEXT;
#undef STRCMP
op_trunc32:
  st[sp - 1] = (i32)st[sp - 1];
  NEXT;
op_sext: {
  int sh = 64 - in->a;
  st[sp - 1] = (i64)((u64)st[sp - 1] << sh) >> sh;
  NEXT;
}
op_zext:
  st[sp - 1] = (i64)((u64)st[sp - 1] & ((1ull << in->a) - 1));
  NEXT;
op_jz:
  if (!st[--sp])
    pc = code + in->c;
  NEXT;
op_jnz:
  if (st[--sp])
    pc = code + in->c;
  NEXT;
op_jmp:
  pc = code + in->c;
  NEXT;
op_dup:
  st[sp] = st[sp - 1];
  sp++;
  NEXT;
op_pop:
  sp--;
  NEXT;
op_pred:
  if (!st[--sp])
    return;
  NEXT;
op_reserve:
  rec = ring_reserve(ts, (u64)in->imm, rec_head);
  if (!rec)
    return; // DTrace drops the whole enabled probe's work
  roff = sizeof(RecHeader);
  stamp();
  NEXT;
op_rec_int:
  std::memcpy(rec + roff, &st[--sp], 8);
  roff += 8;
  NEXT;
op_rec_str: {
  const char *s = (const char *)(uintptr_t)st[--sp];
  u32 len = (u32)strnlen(s, kStrSize - 1);
  std::memcpy(rec + roff, &len, 4);
  std::memcpy(rec + roff + 8, s, len);
  roff += 8 + align8(len);
  NEXT;
}
op_exit: {
  i64 v = st[--sp];
  std::memcpy(rec + roff, &v, 8);
  roff += 8;
  if (start_exit()) {
    exit_status_.store((int)v);
    exit_.store(true, std::memory_order_release);
  }
  NEXT;
}
op_count0: {
  i64 *v = ts->keyless[(u32)in->imm];
  if (__builtin_expect(!v, 0)) {
    v = agg_lookup(ts, (u32)in->imm, nullptr, 0);
    if (!v)
      NEXT;
    ts->keyless[(u32)in->imm] = v;
  }
  wr(v, rd(v) + 1);
  NEXT;
}
op_agg: {
  const AggDef &d = prog_->aggs[(u32)in->imm];
  const i64 weight = d.weighted ? st[--sp] : 1;
  i64 val = d.fn == AggFn::Count ? 1 : st[--sp];
  sp -= in->b;
  i64 *v;
  if (in->b == 0) {
    v = ts->keyless[(u32)in->imm];
    if (!v && (v = agg_lookup(ts, (u32)in->imm, nullptr, 0)))
      ts->keyless[(u32)in->imm] = v;
  } else {
    // The key's bytes: an integer as 8 bytes; a string either by address,
    // as the 8-byte word address | 1, when its memory lives as long as the
    // program (literals, probe names: equal strings mostly share it), or
    // as a 0 byte, its characters and NUL.  One thread's table may so hold
    // a string twice; the merge when printing joins them by content.
    u8 *key = ts->keybuf[depth];
    u32 len = 0;
    for (u32 k = 0; k < in->b; k++) {
      if (d.keys[k] == Type::Stack) {
        const u64 *buf = (const u64 *)(uintptr_t)st[sp + k];
        std::memcpy(key + len, buf, 8 * (1 + buf[0]));
        len += 8 * (1 + (u32)buf[0]);
        continue;
      }
      if (d.keys[k] == Type::String) {
        const char *s = (const char *)(uintptr_t)st[sp + k];
        if ((in->c & (1u << k)) && !((uintptr_t)s & 1)) {
          u64 w = (u64)(uintptr_t)s | 1;
          std::memcpy(key + len, &w, 8);
          len += 8;
          continue;
        }
        u32 n = (u32)strnlen(s, kStrSize - 1);
        key[len] = kCopiedKey;
        std::memcpy(key + len + 1, s, n);
        key[len + 1 + n] = 0;
        len += n + 2;
      } else {
        std::memcpy(key + len, &st[sp + k], 8);
        len += 8;
      }
    }
    v = agg_lookup(ts, (u32)in->imm, key, len);
  }
  if (v)
    agg_apply(d, v, val, weight);
  NEXT;
}
op_commit: {
  auto *hdr = (RecHeader *)rec;
  hdr->size = (u32)align8(roff);
  hdr->epid = e.epid;
  hdr->ts = now;
  hdr->cpu = ts->cpu;
  hdr->spec = spec;
  ts->head.store(rec_head + hdr->size, std::memory_order_release);
  NEXT;
}
op_speculation:
  st[sp++] = speculation();
  NEXT;
op_speculate:
op_specend: {
  const i64 id = st[--sp];
  const u32 what = in->op == OP_SPECULATE ? 2 : in->a;
  u32 tag = 0;
  switch (spec_op((u64)id, what, tag)) {
  case SpecOp::kIllegal:
    fail(FLT_ILLOP, 0);
    return;
  case SpecOp::kEnd:
    return;
  case SpecOp::kOk:
    break;
  }
  if (what == 2) {
    spec = tag;
  } else {
    std::memcpy(rec + roff, &id, 8);
    roff += 8;
  }
  NEXT;
}
op_ldvar:
op_stvar: {
  const VarScope scope = (VarScope)in->a;
  const bool store = in->op == OP_STVAR;
  const i64 val = store ? st[--sp] : 0;
  if (scope == VarScope::Clause || self_slot(scope, in->b, false, in->c)) {
    i64 &slot = scope == VarScope::Clause ? locals[in->c] : ts->self[in->c];
    if (store)
      slot = val;
    else
      st[sp++] = slot;
    NEXT;
  }
  u64 key[2] = {var_id(scope, in->b, in->c), 0};
  if (in->b)
    key[1] = (u64)st[--sp];
  else if (scope == VarScope::Thread)
    key[1] = thread_id();
  if (!store) {
    const i64 *v = (const i64 *)vars.lookup(key, 0);
    st[sp++] = v ? rd(v) : 0;
    NEXT;
  }
  // As dlib/vars.c: 0 frees a thread-local or an associative element; a
  // variable that exists is written in place.
  if (val == 0 && (key[0] >> 32) != 0)
    vars.remove(key);
  else if (i64 *v = (i64 *)vars.lookup(key, 0))
    wr(v, val);
  else if (vars.update(key, &val, bpf::kUpdateAny, 0) < 0)
    dyndrops_.fetch_add(1, std::memory_order_relaxed);
  NEXT;
}
op_bounds:
  if ((u64)st[sp - 1] >= (u64)in->imm) {
    fail(FLT_BADINDEX, (u64)st[sp - 1]);
    return;
  }
  NEXT;
op_alloca: // memory is the BPF engine's (Consumer::init refuses these)
op_load:
op_store:
op_bcopy:
op_copyin:
op_rec_mem:
  fail(FLT_ILLOP, 0);
  return;
op_ret:
  return;
#undef NEXT
#undef BINARY
}

} // namespace mk::dt
