// Lowering a clause's bytecode to eBPF, linking it with the D library and
// loading it into the engine (see bpfgen.h).
//
// Frame layout (r10-relative): the clause-local variables first, then the
// bytecode's value stack, one 8-byte slot per entry (its depth at every
// instruction is known at compile time: the bytecode's jumps are forward
// and structured), then one word for map keys.  r6 holds the context, r7
// the lane's scratch space (looked up once at entry when a clause copies
// strings in or walks a stack).
#include "bpfgen.h"

#include "bpf/builder.h"

#include <mutex>

extern "C" const unsigned char mk_dlib_start[], mk_dlib_end[];

namespace mk::dt {

using namespace mk::bpf;
using namespace mk::bpf::ins;

// The library object, embedded at build time (dlib_embed.cpp).
Result<const BpfLibrary *> embedded_dlib() {
  static std::once_flag once;
  static std::unique_ptr<BpfLibrary> lib;
  static std::string why;
  std::call_once(once, [] {
    std::vector<u8> bytes(mk_dlib_start, mk_dlib_end);
    auto l = BpfLibrary::parse(std::move(bytes), "bpf_dlib.o");
    if (l)
      lib = std::make_unique<BpfLibrary>(std::move(*l));
    else
      why = l.error().message;
  });
  if (!lib)
    return error("the D library: " + why);
  return lib.get();
}

namespace {

constexpr i16 kStack0 = -8; // value stack [0]
constexpr i16 kKeySlot = kStack0 - 8 * (i16)kStackDepth; // a map key
constexpr u8 R_CTX = 6, R_SCRATCH = 7;
constexpr i32 kENOENT = 2;

// Bytecode depth effects: pushes minus pops.
int depth_effect(const Insn &in, const Program &p) {
  switch (in.op) {
  case OP_PUSH: case OP_ARG: case OP_STRARG: case OP_VAR: case OP_DUP:
  case OP_STACK: case OP_SPECULATION:
    return 1;
  case OP_STRINGOF:
    return in.b ? -1 : 0;
  case OP_NEG: case OP_BNOT: case OP_LNOT:
  case OP_BOOL: case OP_TRUNC32: case OP_SEXT: case OP_ZEXT: case OP_JMP:
  case OP_RESERVE: case OP_COUNT0: case OP_COMMIT: case OP_RET:
  case OP_BOUNDS: case OP_ALLOCA: case OP_LOAD:
    return 0;
  case OP_STORE: case OP_BCOPY:
    return -2;
  case OP_COPYIN:
    return -1;
  case OP_AGG:
    return -(int)in.b - (p.aggs[in.imm].fn == AggFn::Count ? 0 : 1) -
           (p.aggs[in.imm].weighted ? 1 : 0);
  case OP_LDVAR:
  case OP_CALL:
    return 1 - (int)in.b;
  case OP_STVAR:
    return -1 - (int)in.b;
  default: // binary operators, comparisons, jz/jnz, pop, pred, rec_*, exit
    return -1;
  }
}

class Lowering {
public:
  Lowering(const Program &p, const CompiledClause &c, const BpfTarget &t,
           const BpfTarget::One *one)
      : p_(p), c_(c), t_(t), one_(one) {}

  Result<void> run();

  std::vector<bpf::Insn> code;
  std::vector<SymbolRef> refs;
  std::vector<u8> action_at;
  bool needs_ctx = false;

private:
  static i16 slot(int i) { return (i16)(kStack0 - 8 * i); }
  static i16 local(u32 i) {
    return (i16)(offsetof(FireCtx, local) + 8 * i);
  }
  void put(bpf::Insn i) {
    code.push_back(i);
    action_at.push_back(action_);
  }
  // What a helper that may fault is told of where it is called from:
  // the action, and the BPF pc of the call (the next instruction after
  // the one loading this).
  i32 site() const { return (i32)(action_ | (u32)(code.size() + 1) << 8); }
  void ld_imm(u8 dst, u64 v) {
    put(make(kLD | kIMM | kDW, dst, 0, 0, (i32)(u32)v));
    put(make(0, 0, 0, 0, (i32)(u32)(v >> 32)));
  }
  // ld_imm64 of a symbol the link resolves.
  void ld_sym(u8 dst, const std::string &sym, i64 addend = 0) {
    refs.push_back({SymbolRef::Imm64, (u32)code.size(), sym, addend});
    ld_imm(dst, 0);
  }
  void call_lib(const std::string &fn) {
    refs.push_back({SymbolRef::Call, (u32)code.size(), fn, 0});
    put(call(0));
  }
  void pop(u8 reg) { put(ldx(kDW, reg, 10, slot(--sp_))); }
  void push(u8 reg) { put(stx(kDW, 10, slot(sp_++), reg)); }
  // A jump to the exit block or to bytecode instruction `bc`.
  void jump_to(bpf::Insn j, i64 bc) {
    fix_.push_back({(u32)code.size(), bc});
    put(j);
  }
  void exit_if_zero(u8 reg) { jump_to(jmpi(kJEQ, reg, 0, 0), -1); }
  void ctx_field(u8 dst, size_t off) {
    needs_ctx = true;
    put(ldx(kDW, dst, R_CTX, (i16)off));
  }
  void scratch_ptr(u8 dst, u32 k) {
    put(mov64(dst, R_SCRATCH));
    put(alu64i(kADD, dst, (i32)(k * kStrSize)));
  }
  Result<void> insn(const dt::Insn &in, size_t pc);
  Result<void> wide_var(const dt::Insn &in);
  void key_ptr(u8 dst) {
    put(mov64(dst, R_SCRATCH));
    put(alu64i(kADD, dst, (i32)kScratchKey));
  }

  const Program &p_;
  const CompiledClause &c_;
  const BpfTarget &t_;
  const BpfTarget::One *one_;
  int sp_ = 0;
  u8 action_ = 0;
  u32 nscratch_ = 0;
  struct Fix {
    u32 at;
    i64 bc; // -1: the exit block
  };
  std::vector<Fix> fix_;
};

Result<void> Lowering::run() {
  const std::vector<dt::Insn> &bc = c_.code;
  bool scratch = false, ctx = false;
  for (const dt::Insn &in : bc) {
    // (A this-> string's imm names its buffer in dt_scratch.)
    scratch |= ((in.op == OP_LDVAR || in.op == OP_STVAR) && in.imm) ||
               in.op == OP_STRARG || in.op == OP_STRINGOF || in.op == OP_STACK ||
               (in.op == OP_VAR && (Builtin)in.a == Builtin::Execname) ||
               (in.op == OP_CALL && (builtin(in.c).flags & (BF_DST | BF_STATE))) ||
               in.op == OP_LOAD;
    // What reads r6: arguments, the probe's fields, a thread-local's key.
    ctx |= in.op == OP_ARG || in.op == OP_STRARG ||
           (in.op == OP_VAR && (Builtin)in.a <= Builtin::ProbeName &&
            (Builtin)in.a != Builtin::Timestamp &&
            (Builtin)in.a != Builtin::WallTimestamp) ||
           (in.op == OP_VAR && ((Builtin)in.a == Builtin::CurThread ||
                                (Builtin)in.a == Builtin::CurCpu)) ||
           ((in.op == OP_LDVAR || in.op == OP_STVAR) &&
            (VarScope)in.a != VarScope::Global);
  }
  // Depth before each bytecode instruction.
  std::vector<int> depth(bc.size() + 1, -1);
  {
    int d = 0;
    bool flows = true;
    for (size_t i = 0; i < bc.size(); i++) {
      if (!flows)
        d = depth[i];
      else if (depth[i] >= 0 && depth[i] != d)
        return error(strf("bytecode %zu: stack depth %d and %d meet", i,
                          depth[i], d));
      depth[i] = d;
      if (d < 0)
        return error(strf("bytecode %zu is unreachable", i));
      d += depth_effect(bc[i], p_);
      if (d < 0 || d > (int)kStackDepth)
        return error(strf("bytecode %zu: stack depth %d", i, d));
      const u8 op = bc[i].op;
      if (op == OP_JZ || op == OP_JNZ || op == OP_JMP)
        depth[bc[i].c] = d;
      flows = op != OP_JMP && op != OP_RET;
    }
  }
  std::vector<u32> at(bc.size() + 1, 0);
  // Entry: the context, the scratch space.
  if (ctx)
    put(mov64(R_CTX, 1));
  if (scratch) {
    put(st(kW, 10, kKeySlot, 0));
    ld_sym(1, "dt_scratch");
    put(mov64(2, 10));
    put(alu64i(kADD, 2, kKeySlot));
    put(call(kHelperMapLookup));
    exit_if_zero(0);
    put(mov64(R_SCRATCH, 0));
  }
  for (size_t i = 0; i < bc.size(); i++) {
    at[i] = (u32)code.size();
    action_ = i < c_.action_at.size() ? c_.action_at[i] : 0;
    sp_ = depth[i];
    MK_TRY(insn(bc[i], i));
  }
  at[bc.size()] = (u32)code.size();
  const u32 exit_at = (u32)code.size();
  put(mov64i(0, 0));
  put(ins::exit());
  for (const Fix &f : fix_) {
    const u32 target = f.bc < 0 ? exit_at : at[f.bc];
    const i64 off = (i64)target - (i64)(f.at + 1);
    if (off < INT16_MIN || off > INT16_MAX)
      return error("a jump of the clause is out of reach");
    code[f.at].off = (i16)off;
  }
  return {};
}

Result<void> Lowering::insn(const dt::Insn &in, size_t pc) {
  switch ((Op)in.op) {
  case OP_PUSH:
    if (in.b == 1) {
      ld_sym(1, "dt_strtab", t_.literal_off.at(in.c));
      push(1);
    } else if (in.imm >= INT32_MIN && in.imm <= INT32_MAX) {
      put(st(kDW, 10, slot(sp_++), (i32)in.imm));
    } else {
      ld_imm(1, (u64)in.imm);
      push(1);
    }
    return {};
  case OP_ARG:
    ctx_field(1, offsetof(FireCtx, arg) + 8 * in.a);
    push(1);
    return {};
  case OP_STRARG:
  case OP_STRINGOF: {
    const u32 k = nscratch_++;
    // copyinstr(addr, max): at most max bytes (the helper keeps to the
    // buffer's strsize).
    if (in.op == OP_STRINGOF && in.b)
      pop(5);
    else
      put(mov64i(5, (i32)p_.str_chars()));
    if (in.op == OP_STRARG)
      ctx_field(3, offsetof(FireCtx, arg) + 8 * in.a);
    else
      pop(3);
    scratch_ptr(1, k);
    put(mov64i(2, (i32)(p_.str_chars() + 1))); // strsize, and the NUL
    put(mov64i(4, site()));
    put(call(H_COPYIN));
    jump_to(jmpi(kJNE, 0, 0, 0), -1);
    scratch_ptr(1, k);
    push(1);
    return {};
  }
  case OP_STACK: {
    const u32 k = nscratch_++;
    scratch_ptr(1, k);
    put(mov64i(2, (i32)kStrSize));
    put(mov64i(3, in.a));
    put(call(H_STACK));
    scratch_ptr(1, k);
    push(1);
    return {};
  }
  case OP_VAR:
    switch ((Builtin)in.a) {
    case Builtin::Timestamp:
      put(call(H_TIMESTAMP));
      push(0);
      return {};
    case Builtin::WallTimestamp:
      put(call(H_WALLTIMESTAMP));
      push(0);
      return {};
    case Builtin::VTimestamp:
      put(call(H_VTIMESTAMP));
      push(0);
      return {};
    case Builtin::StackDepth:
      put(call(H_STACKDEPTH));
      push(0);
      return {};
    case Builtin::Caller:
      put(call(H_CALLER));
      push(0);
      return {};
    case Builtin::CurThread:
    case Builtin::CurCpu:
      put(ldx(kDW, 1, R_CTX, offsetof(FireCtx, cpu)));
      put(call((Builtin)in.a == Builtin::CurThread ? H_CURTHREAD : H_CURCPU));
      push(0);
      return {};
    case Builtin::Execname: {
      const u32 k = nscratch_++;
      scratch_ptr(1, k);
      put(mov64i(2, (i32)kStrSize));
      put(call(H_EXECNAME));
      scratch_ptr(1, k);
      push(1);
      return {};
    }
    case Builtin::Cpu:
      put(ldx(kDW, 1, R_CTX, offsetof(FireCtx, cpu)));
      push(1);
      return {};
    case Builtin::Tid:
      put(ldx(kDW, 1, R_CTX, offsetof(FireCtx, tid)));
      push(1);
      return {};
    case Builtin::Id:
    case Builtin::Epid: {
      const bool id = (Builtin)in.a == Builtin::Id;
      if (one_)
        ld_sym(1, id ? "dt_probe_id" : "dt_epid");
      else
        ctx_field(1, id ? offsetof(FireCtx, probe) : offsetof(FireCtx, epid));
      push(1);
      return {};
    }
    default: {
      const u32 n = in.a - (u8)Builtin::ProbeProv;
      if (one_) {
        ld_sym(1, "dt_strtab", one_->str[n]);
      } else {
        ld_sym(1, "dt_strtab");
        ctx_field(2, offsetof(FireCtx, str) + 8 * n);
        put(alu64(kADD, 1, 2));
      }
      push(1);
      return {};
    }
    }
  case OP_CALL: {
    // The library function's arguments in r1..r5: a scratch buffer for
    // the string it makes, the D arguments (defaults for those omitted),
    // the lane's state.
    const BuiltinFn &f = builtin(in.c);
    const u32 dst = nscratch_;
    u8 r = 1;
    if (f.flags & BF_DST)
      scratch_ptr(r++, nscratch_++);
    const int base = sp_ - in.b;
    for (u32 i = 0; i < f.nargs; i++, r++) {
      if (in.a >> i & 1) // NULL: the state itself (see dt_strtok)
        scratch_ptr(r, kMaxScratch);
      else if (i < in.b)
        put(ldx(kDW, r, 10, slot(base + (int)i)));
      else if (f.dflt[i] >= INT32_MIN && f.dflt[i] <= INT32_MAX)
        put(mov64i(r, (i32)f.dflt[i]));
      else
        ld_imm(r, (u64)f.dflt[i]);
    }
    if (f.flags & BF_STATE)
      scratch_ptr(r++, kMaxScratch);
    sp_ = base;
    if (f.helper) {
      // A native helper reads no more than strsize characters of a string
      // (a probe's name may be longer: it was never cut).
      put(mov64i(r, (i32)p_.str_chars()));
      put(call((i32)f.helper));
    } else
      call_lib(f.lib);
    push(0);
    // The library makes strings of up to kStrSize - 1 characters; a
    // smaller strsize cuts the result (one store: strjoin of two strings
    // that fit may not).
    if ((f.flags & BF_DST) && p_.str_chars() < kStrSize - 1) {
      scratch_ptr(1, dst);
      put(st(kB, 1, (i16)p_.str_chars(), 0));
    }
    return {};
  }
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_SHL: case OP_SHR:
  case OP_AND: case OP_OR: case OP_XOR: {
    static const u8 alu[] = {kADD, kSUB, kMUL, 0, 0, kLSH, kARSH, kAND, kOR, kXOR};
    pop(2);
    pop(1);
    put(alu64(in.op == OP_SHR && in.a ? kRSH : alu[in.op - OP_ADD], 1, 2));
    push(1);
    return {};
  }
  case OP_ALLOCA: // (size, action): the address, 0 after a fault
    pop(1);
    put(mov64i(2, site()));
    put(call(H_ALLOCA));
    jump_to(jmpi(kJEQ, 0, 0, 0), -1);
    push(0);
    return {};
  case OP_REC_MEM: // (addr, size, action): 0, or 1 after a fault
    pop(1);
    put(mov64i(2, (i32)in.imm));
    put(mov64i(3, site()));
    put(call(H_REC_MEM));
    jump_to(jmpi(kJNE, 0, 0, 0), -1);
    return {};
  case OP_COPYIN: // (src, size, action): the copy's address, 0 after a fault
    pop(2);
    pop(1);
    put(mov64i(3, site()));
    put(call(H_COPYIN_MEM));
    jump_to(jmpi(kJEQ, 0, 0, 0), -1);
    push(0);
    return {};
  case OP_LOAD: { // (addr, size | signed << 8, action): 0, or 1
    const i16 word = (i16)scratch_mem_word(p_);
    pop(1);
    put(mov64i(2, in.a | in.b << 8));
    put(mov64i(3, site()));
    put(call(H_LOAD));
    jump_to(jmpi(kJNE, 0, 0, 0), -1);
    put(ldx(kDW, 1, R_SCRATCH, word));
    push(1);
    return {};
  }
  case OP_STORE: // (addr, value, size, action): 0, or 1 after a fault
    pop(2);
    pop(1);
    put(mov64i(3, in.a));
    put(mov64i(4, site()));
    put(call(H_STORE));
    jump_to(jmpi(kJNE, 0, 0, 0), -1);
    return {};
  case OP_BCOPY: // (src, dst, size, action): 0, or 1 after a fault
    pop(3);
    pop(2);
    pop(1);
    put(mov64i(4, site()));
    put(call(H_BCOPY));
    jump_to(jmpi(kJNE, 0, 0, 0), -1);
    put(mov64i(1, 0));
    push(1);
    return {};
  case OP_BOUNDS:
    // An index past a fixed-size array: DTrace's DTRACEFLT_BADINDEX, with
    // the index.
    put(ldx(kDW, 2, 10, slot(sp_ - 1)));
    put(jmpi(kJLT, 2, (i32)in.imm, 4));
    put(mov64i(1, 11));
    put(mov64i(3, site()));
    put(call(H_FAULT));
    jump_to(ja(0), -1);
    return {};
  case OP_DIV:
  case OP_MOD:
    pop(2);
    pop(1);
    // D's divide-by-zero is an error, where BPF's result would be 0.
    put(jmpi(kJNE, 2, 0, 5));
    put(mov64i(1, 4)); // DTrace's DTRACEFLT_DIVZERO
    put(mov64i(2, 0));
    put(mov64i(3, site()));
    put(call(H_FAULT));
    jump_to(ja(0), -1);
    put(alu64off(in.op == OP_DIV ? kDIV : kMOD, 1, 2, in.a ? 0 : 1)); // a: unsigned
    // DTrace's signed remainder takes the sign of the quotient (it divides
    // the magnitudes and negates if exactly one is negative): -7 % 2 is
    // -1 as in C, but 7 % -2 is -1 and -7 % -2 is 1.  BPF's SMOD takes the
    // dividend's sign, so a negative divisor negates it once more.
    if (in.op == OP_MOD && !in.a) {
      put(jmpi(kJSGE, 2, 0, 1));
      put(make(kALU64 | kNEG | kK, 1, 0, 0, 0));
    }
    push(1);
    return {};
  case OP_NEG:
    pop(1);
    put(make(kALU64 | kNEG | kK, 1, 0, 0, 0));
    push(1);
    return {};
  case OP_BNOT:
    pop(1);
    put(alu64i(kXOR, 1, -1));
    push(1);
    return {};
  case OP_LNOT:
  case OP_BOOL:
    pop(1);
    put(mov64i(0, 1));
    put(jmpi(in.op == OP_LNOT ? kJEQ : kJNE, 1, 0, 1));
    put(mov64i(0, 0));
    push(0);
    return {};
  case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
    static const u8 j[] = {kJEQ, kJNE, kJSLT, kJSLE, kJSGT, kJSGE};
    static const u8 uj[] = {kJEQ, kJNE, kJLT, kJLE, kJGT, kJGE};
    pop(2);
    pop(1);
    put(mov64i(0, 1));
    put(jmp((in.a ? uj : j)[in.op - OP_EQ], 1, 2, 1));
    put(mov64i(0, 0));
    push(0);
    return {};
  }
  case OP_SEQ: case OP_SNE: case OP_SLT: case OP_SLE: case OP_SGT: case OP_SGE: {
    static const u8 j[] = {kJEQ, kJNE, kJSLT, kJSLE, kJSGT, kJSGE};
    pop(2);
    pop(1);
    call_lib("dt_strcmp");
    put(mov64(1, 0));
    put(mov64i(0, 1));
    put(jmpi(j[in.op - OP_SEQ], 1, 0, 1));
    put(mov64i(0, 0));
    push(0);
    return {};
  }
  case OP_TRUNC32:
  case OP_SEXT: {
    const i32 sh = in.op == OP_TRUNC32 ? 32 : 64 - in.a;
    pop(1);
    put(alu64i(kLSH, 1, sh));
    put(alu64i(kARSH, 1, sh));
    push(1);
    return {};
  }
  case OP_ZEXT:
    pop(1);
    if (in.a == 32) {
      put(alu32(kMOV, 1, 1));
    } else if (in.a < 32) {
      put(alu64i(kAND, 1, (i32)((1u << in.a) - 1)));
    } else { // a struct's bitfield of 33..63 bits
      put(alu64i(kLSH, 1, 64 - in.a));
      put(alu64i(kRSH, 1, 64 - in.a));
    }
    push(1);
    return {};
  case OP_JZ:
  case OP_JNZ:
    pop(1);
    jump_to(jmpi(in.op == OP_JZ ? kJEQ : kJNE, 1, 0, 0), in.c);
    return {};
  case OP_JMP:
    jump_to(ja(0), in.c);
    return {};
  case OP_DUP:
    put(ldx(kDW, 1, 10, slot(sp_ - 1)));
    push(1);
    return {};
  case OP_POP:
    sp_--;
    return {};
  case OP_PRED:
    pop(1);
    exit_if_zero(1);
    return {};
  case OP_RESERVE:
    put(mov64i(1, (i32)in.imm));
    put(call(H_RESERVE));
    exit_if_zero(0);
    return {};
  case OP_REC_INT:
  case OP_REC_STR:
  case OP_REC_STACK:
    pop(1);
    put(call(in.op == OP_REC_INT ? H_REC_INT
             : in.op == OP_REC_STR ? H_REC_STR : H_REC_STACK));
    return {};
  case OP_EXIT:
    pop(1);
    put(call(H_EXIT));
    return {};
  case OP_COMMIT:
    put(call(H_COMMIT));
    return {};
  case OP_SPECULATION:
    put(call(H_SPECULATION));
    push(0);
    return {};
  case OP_SPECULATE:
  case OP_SPECEND:
    // 1: the clause ends there (after a fault, or a speculate( ) of no
    // active speculation).
    pop(1);
    put(mov64i(2, in.op == OP_SPECULATE ? 2 : in.a));
    put(mov64i(3, site()));
    put(call(H_SPEC));
    jump_to(jmpi(kJNE, 0, 0, 0), -1);
    return {};
  case OP_COUNT0:
    // The lane's own counter: no other thread writes it.
    put(st(kW, 10, kKeySlot, (i32)in.imm));
    ld_sym(1, "dt_keyless");
    put(mov64(2, 10));
    put(alu64i(kADD, 2, kKeySlot));
    put(call(kHelperMapLookup));
    put(jmpi(kJEQ, 0, 0, 3));
    put(ldx(kDW, 1, 0, 0));
    put(alu64i(kADD, 1, 1));
    put(stx(kDW, 0, 0, 1));
    return {};
  case OP_AGG: {
    const AggDef &d = p_.aggs[in.imm];
    const bool has_val = d.fn != AggFn::Count;
    const int base = sp_ - in.b - (has_val ? 1 : 0) - (d.weighted ? 1 : 0);
    for (u32 k = 0; k < in.b; k++) {
      const Type t = d.keys[k];
      put(ldx(kDW, 1, 10, slot(base + (int)k)));
      put(mov64i(2, t == Type::String ? 1 : t == Type::Stack ? 2 : 0));
      put(mov64i(3, (in.c >> k) & 1));
      put(call(H_AGG_KEY));
    }
    put(mov64i(1, (i32)in.imm));
    if (has_val)
      put(ldx(kDW, 2, 10, slot(base + (int)in.b)));
    else
      put(mov64i(2, 1));
    if (d.weighted)
      put(ldx(kDW, 3, 10, slot(base + (int)in.b + 1)));
    else
      put(mov64i(3, 1));
    put(call(H_AGG));
    return {};
  }
  case OP_LDVAR:
  case OP_STVAR: {
    const VarScope scope = (VarScope)in.a;
    const bool store = in.op == OP_STVAR;
    if (scope == VarScope::Clause && in.imm) {
      // A string: its buffer is its value, a store copies into it.
      put(mov64(1, R_SCRATCH));
      put(alu64i(kADD, 1, (i32)scratch_local_str(p_, (u32)in.imm - 1)));
      if (!store) {
        push(1);
        return {};
      }
      pop(2);
      call_lib("dt_strcpy");
      return {};
    }
    if (in.imm)
      return wide_var(in);
    if (store)
      pop(3);
    if (scope == VarScope::Global && !in.b) {
      // A global integer: its word in dt_gvars, addressed directly.
      ld_sym(2, "dt_gvars", 8 * (i64)in.c);
      if (store) {
        put(stx(kDW, 2, 0, 3));
      } else {
        put(ldx(kDW, 1, 2, 0));
        push(1);
      }
      return {};
    }
    if (scope == VarScope::Clause || self_slot(scope, in.b, false, in.c)) {
      const i16 at = scope == VarScope::Clause
                         ? local(in.c)
                         : (i16)(offsetof(FireCtx, self) + 8 * in.c);
      if (store) {
        put(stx(kDW, R_CTX, at, 3));
      } else {
        put(ldx(kDW, 1, R_CTX, at));
        push(1);
      }
      return {};
    }
    // dlib/vars.c's id: the kind in the top 32 bits (0 global, 1
    // thread-local, 2 associative), the variable's number below.
    const u64 kind = scope == VarScope::Thread ? 1 : in.b ? 2 : 0;
    if (in.b)
      pop(2);
    else if (scope == VarScope::Thread)
      put(ldx(kDW, 2, R_CTX, offsetof(FireCtx, tid)));
    else
      put(mov64i(2, 0));
    ld_imm(1, kind << 32 | in.c);
    if (!store) {
      call_lib("dt_var_get");
      put(ldx(kDW, 1, 0, 0));
      push(1);
      return {};
    }
    call_lib("dt_var_set");
    // A store that failed for want of room is a drop (deleting what was
    // never set is not).
    put(jmpi(kJSGE, 0, 0, 2));
    put(jmpi(kJEQ, 0, -kENOENT, 1));
    put(call(H_DYNDROP));
    return {};
  }
  case OP_RET:
    jump_to(ja(0), -1);
    return {};
  }
  return error(strf("bytecode %zu: operation %u has no BPF lowering", pc, in.op));
}

// A variable in dt_wvars: its key (the variable's id, then the thread, 0,
// or the key components: an integer in 8 bytes, a string padded with NULs
// to kStrSize) built in the lane's scratch space and zero-filled to the
// map's key size, then one call of the library.
Result<void> Lowering::wide_var(const dt::Insn &in) {
  const VarDef &d = p_.vars.at(in.imm - 1);
  const bool store = in.op == OP_STVAR;
  const VarScope scope = (VarScope)in.a;
  const int base = sp_ - (store ? 1 : 0) - in.b;
  const u64 kind = scope == VarScope::Thread ? 1 : in.b ? 2 : 0;
  key_ptr(1);
  ld_imm(2, kind << 32 | in.c);
  put(stx(kDW, 1, 0, 2));
  u32 off = 8;
  if (!in.b) {
    if (scope == VarScope::Thread)
      put(ldx(kDW, 2, R_CTX, offsetof(FireCtx, tid)));
    else
      put(mov64i(2, 0));
    put(stx(kDW, 1, 8, 2));
    off = 16;
  }
  for (u32 k = 0; k < in.b; k++) {
    put(ldx(kDW, 2, 10, slot(base + (int)k)));
    if (d.keys[k] == Type::String) {
      key_ptr(1);
      put(alu64i(kADD, 1, (i32)off));
      call_lib("dt_strpad");
      off += kStrSize;
    } else {
      key_ptr(1);
      put(stx(kDW, 1, (i16)off, 2));
      off += 8;
    }
  }
  key_ptr(1);
  for (; off < p_.wkey_size; off += 8)
    put(st(kDW, 1, (i16)off, 0));
  if (!store) {
    sp_ = base;
    call_lib("dt_wvar_get");
    if (d.type == Type::String) {
      push(0);
    } else {
      put(ldx(kDW, 1, 0, 0));
      push(1);
    }
    return {};
  }
  put(ldx(kDW, 2, 10, slot(sp_ - 1)));
  // Thread-locals and array elements are freed by storing 0 or "".
  put(mov64i(3, scope == VarScope::Global && !in.b ? 0 : 1));
  sp_ = base;
  call_lib(d.type == Type::String ? "dt_wvar_set_str" : "dt_wvar_set_int");
  put(jmpi(kJSGE, 0, 0, 2));
  put(jmpi(kJEQ, 0, -kENOENT, 1));
  put(call(H_DYNDROP));
  return {};
}

} // namespace

Result<BpfClause> bpf_compile(const Program &p, u32 ci, const BpfTarget &t,
                              const BpfTarget::One *one) {
  const CompiledClause &c = p.clauses[ci];
  const std::string name = strf("clause %u (%s)", ci + 1, c.descs.c_str());
  Lowering low(p, c, t, one);
  if (auto r = low.run(); !r)
    return error(name + ": " + r.error().message);
  BpfClause out;
  out.own = (u32)low.code.size();
  out.action_at = std::move(low.action_at);
  out.needs_ctx = low.needs_ctx;
  // Constants: the maps, the strings, and the ECB's numbers.
  auto bind = [&](const std::string &sym, i64 addend) -> Result<Imm64Binding> {
    if (sym == "dt_strtab")
      return Imm64Binding{kPseudoMapValue, M_STRTAB, (i32)addend};
    if (sym == ".rodata")
      return Imm64Binding{kPseudoMapValue, M_RODATA, (i32)addend};
    if (sym == "dt_vars")
      return Imm64Binding{kPseudoMapHandle, M_VARS, 0};
    if (sym == "dt_gvars")
      return Imm64Binding{kPseudoMapValue, M_GVARS, (i32)addend};
    if (sym == "dt_wvars")
      return Imm64Binding{kPseudoMapHandle, M_WVARS, 0};
    if (sym == "dt_keyless")
      return Imm64Binding{kPseudoMapHandle, M_KEYLESS, 0};
    if (sym == "dt_scratch")
      return Imm64Binding{kPseudoMapHandle, M_SCRATCH, 0};
    if (sym == "dt_epid" && one)
      return Imm64Binding{0, (i32)one->epid, 0};
    if (sym == "dt_probe_id" && one)
      return Imm64Binding{0, (i32)one->probe, 0};
    return error("no binding for " + sym);
  };
  auto linked = link_program(std::move(low.code), std::move(low.refs), *t.lib,
                             bind, name);
  if (!linked)
    return linked.take_error();
  out.linked = std::move(*linked);
  LoadOptions lo;
  lo.name = name;
  lo.engine = t.engine;
  auto prog = bpf::Program::load(out.linked.code, *t.env, lo);
  if (!prog)
    return prog.take_error();
  out.prog = std::move(*prog);
  return out;
}

std::string bpf_listing(const BpfClause &c) {
  const LinkedProgram &p = c.linked;
  std::string out;
  for (u32 pc = 0; pc < p.code.size(); pc++) {
    const bpf::Insn &i = p.code[pc];
    const bool wide = is_ld_imm64(i) && pc + 1 < p.code.size();
    const std::string &fn = p.origin(pc);
    std::string text = disasm(i, wide ? &p.code[pc + 1] : nullptr);
    if (i.code == (kJMP | kCALL) && i.src == 0 && c.prog)
      if (const Helper *h = c.prog->env().helper((u32)i.imm))
        text += "  ; " + h->name;
    out += strf("%5u %-16s %s\n", pc, fn.empty() ? "clause" : fn.c_str(),
                text.c_str());
    if (wide)
      pc++;
  }
  return out;
}

} // namespace mk::dt
