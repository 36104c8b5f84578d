// The x86_64 JIT: one pass over a verified program emitting native code,
// then the jumps are patched and the pages sealed read+exec.
//
// ABI.  BPF registers live in native ones chosen so that helper calls need
// no shuffling: r1..r5 are the SysV argument registers (rdi, rsi, rdx, rcx,
// r8), r0 is rax (the return register), r6..r9 are callee-saved (rbx, r13,
// r14, r15) and r10, the frame pointer, is rbp.  The RunCtx arrives in r9
// and stays there, or, when r9 is needed (it is the helpers' sixth
// argument), lives in r12 for the whole run; r10 and r11 are scratch.  The
// BPF stack is a buffer of the Runner's, never the native stack, so no store of a program can reach a return address.
// BPF-to-BPF calls are native calls: the callee pushes r6..r10, lowers rbp
// by one frame and pops them at exit.  The entry saves only the
// callee-saved registers the program needs (plan_entry: without BPF-to-BPF
// calls r10 lives in no register, and the RunCtx stays in r9 unless that
// is clobbered); a failed run-time check jumps to a stub that records the
// instruction and unwinds to the entry's frame.
//
// Only the checks the verifier asked for are emitted: an access through a
// pointer with an unknown offset compares (address - region base) with the
// region's span (one subtraction, one compare, a never-taken branch); a
// backward jump taken decrements the loop budget.
#include "bpf.h"

#include "../../../linker/code.h"

#include <cstring>

namespace mk::bpf {

#if defined(__x86_64__)

namespace {

enum : u8 {
  RAX = 0, RCX = 1, RDX = 2, RBX = 3, RSP = 4, RBP = 5, RSI = 6, RDI = 7,
  R8 = 8, R9 = 9, R10 = 10, R11 = 11, R12 = 12, R13 = 13, R14 = 14, R15 = 15,
};
constexpr u8 kMap[kRegs] = {RAX, RDI, RSI, RDX, RCX, R8, RBX, R13, R14, R15, RBP};

constexpr i32 kOffBudget = offsetof(RunCtx, budget);
constexpr i32 kOffNativeSp = offsetof(RunCtx, native_sp);
constexpr i32 kOffFault = offsetof(RunCtx, fault);
constexpr i32 kOffFaultPc = offsetof(RunCtx, fault_pc);
constexpr i32 kOffFaultAddr = offsetof(RunCtx, fault_addr);
constexpr i32 kOffStackTop = offsetof(RunCtx, stack_top);
constexpr i32 kOffRegions = sizeof(RunCtx);

i32 region_base(u16 r) { return kOffRegions + r * (i32)sizeof(Region); }
i32 region_span(u16 r, unsigned w) {
  const unsigned k = w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3;
  return region_base(r) + 8 + 8 * (i32)k;
}

bool is_byte_low(u8 r) { return r >= 4 && r < 8; } // spl..dil need a REX

class Asm {
public:
  std::vector<u8> b;

  void byte(u8 v) { b.push_back(v); }
  void d32(u32 v) {
    for (int k = 0; k < 4; k++)
      byte(u8(v >> (8 * k)));
  }
  void d64(u64 v) {
    for (int k = 0; k < 8; k++)
      byte(u8(v >> (8 * k)));
  }
  size_t pos() const { return b.size(); }

  void rex(bool w, u8 reg, u8 rm, bool force = false) {
    const u8 r = 0x40 | (w ? 8 : 0) | ((reg & 8) ? 4 : 0) | ((rm & 8) ? 1 : 0);
    if (r != 0x40 || force)
      byte(r);
  }
  void modrm(u8 mod, u8 reg, u8 rm) { byte(u8(mod << 6 | (reg & 7) << 3 | (rm & 7))); }
  // ModRM (+SIB, +displacement) for [base + disp].
  void mem(u8 reg, u8 base, i32 disp) {
    const u8 mod = disp == 0 && (base & 7) != 5 ? 0
                   : (disp >= -128 && disp <= 127) ? 1 : 2;
    modrm(mod, reg, base);
    if ((base & 7) == 4)
      byte(0x24);
    if (mod == 1)
      byte(u8(disp));
    else if (mod == 2)
      d32((u32)disp);
  }
  // op reg, rm (register form).
  void rr(std::initializer_list<u8> op, bool w, u8 reg, u8 rm, bool force = false) {
    rex(w, reg, rm, force);
    for (u8 o : op)
      byte(o);
    modrm(3, reg, rm);
  }
  // op reg, [base + disp].
  void rm(std::initializer_list<u8> op, bool w, u8 reg, u8 base, i32 disp,
          bool force = false, bool p66 = false) {
    if (p66)
      byte(0x66);
    rex(w, reg, base, force);
    for (u8 o : op)
      byte(o);
    mem(reg, base, disp);
  }

  void mov_rr(bool w, u8 dst, u8 src) { rr({0x89}, w, src, dst); }
  void mov_imm64(u8 dst, u64 v) {
    if (v <= 0xffffffffull) {
      rex(false, 0, dst);
      byte(0xb8 + (dst & 7));
      d32((u32)v);
    } else if ((i64)v >= INT32_MIN && (i64)v <= INT32_MAX) {
      rr({0xc7}, true, 0, dst);
      d32((u32)v);
    } else {
      rex(true, 0, dst);
      byte(0xb8 + (dst & 7));
      d64(v);
    }
  }
  void push(u8 r) {
    if (r & 8)
      byte(0x41);
    byte(0x50 + (r & 7));
  }
  void pop(u8 r) {
    if (r & 8)
      byte(0x41);
    byte(0x58 + (r & 7));
  }
  // op r/m, imm32 (group 1: digit 0 add, 1 or, 4 and, 5 sub, 6 xor, 7 cmp).
  void alu_ri(u8 digit, bool w, u8 dst, i32 imm) {
    if (imm >= -128 && imm <= 127) {
      rr({0x83}, w, digit, dst);
      byte(u8(imm));
    } else {
      rr({0x81}, w, digit, dst);
      d32((u32)imm);
    }
  }
  // jcc/jmp/call rel32 with a fixup; returns the displacement's offset.
  size_t jcc(u8 cc) {
    byte(0x0f);
    byte(0x80 | cc);
    d32(0);
    return pos() - 4;
  }
  size_t jmp() {
    byte(0xe9);
    d32(0);
    return pos() - 4;
  }
  size_t call() {
    byte(0xe8);
    d32(0);
    return pos() - 4;
  }
  void patch(size_t at, size_t target) {
    const i32 rel = (i32)((i64)target - (i64)(at + 4));
    std::memcpy(&b[at], &rel, 4);
  }
};

// Condition codes (the low nibble of jcc).
enum : u8 { CC_B = 2, CC_AE = 3, CC_E = 4, CC_NE = 5, CC_BE = 6, CC_A = 7,
            CC_L = 0xc, CC_GE = 0xd, CC_LE = 0xe, CC_G = 0xf };

u8 cond_of(u8 op) {
  switch (op) {
  case kJEQ: return CC_E;
  case kJNE: return CC_NE;
  case kJGT: return CC_A;
  case kJGE: return CC_AE;
  case kJLT: return CC_B;
  case kJLE: return CC_BE;
  case kJSGT: return CC_G;
  case kJSGE: return CC_GE;
  case kJSLT: return CC_L;
  case kJSLE: return CC_LE;
  case kJSET: return CC_NE;
  }
  return CC_E;
}

// The registers a pushed-around slow-path call must keep.
constexpr u8 kVolatile[] = {RAX, RDI, RSI, RDX, RCX, R8, R11};

class Jit {
public:
  explicit Jit(const Program &p) : p_(p), code_(p.insns()), info_(p.info()) {}
  bool plain() const { return plain_; } // after compile( )

  std::vector<u8> compile() {
    const u32 n = (u32)code_.size();
    label_.assign(n, 0);
    std::vector<bool> is_func(n, false);
    for (u32 f : p_.functions())
      is_func[f] = true;
    // Where control may arrive other than from the previous instruction.
    is_target_.assign(n + 1, false);
    for (u32 pc = 0; pc < n; pc++) {
      const Insn &i = code_[pc];
      const u8 cls = insn_class(i.code);
      if (is_func[pc])
        is_target_[pc] = true;
      if (is_ld_imm64(i)) {
        pc++;
        continue;
      }
      if ((cls == kJMP || cls == kJMP32) && alu_op(i.code) != kCALL &&
          alu_op(i.code) != kEXIT) {
        const i64 t = (i64)pc + 1 +
                      (cls == kJMP32 && alu_op(i.code) == kJA ? i.imm : i.off);
        if (t >= 0 && t <= (i64)n)
          is_target_[t] = true;
      }
    }
    func_label_.assign(n, 0);

    // Entry: u64 entry(r1, r2, r3, r4, r5, RunCtx *rc): the arguments are
    // already where the BPF registers live.  Only what the program uses is
    // saved: an empty clause costs a call and a return.
    plan_entry();
    for (u8 r : saved_)
      a_.push(r);
    if (pad_)
      a_.alu_ri(5, true, RSP, 8); // keeps calls 16-aligned
    if (need_ctx_ && ctx_ != R9)
      a_.mov_rr(true, ctx_, R9);
    if (has_subcalls_) // faults in a callee unwind to here
      a_.rm({0x89}, true, RSP, ctx_, kOffNativeSp); // mov [ctx+sp], rsp
    if (need_rbp_)
      a_.rm({0x8b}, true, RBP, R9, kOffStackTop);

    u32 func_start = 0;
    for (u32 pc = 0; pc < n; pc++) {
      if (is_func[pc]) {
        func_start = pc;
        func_label_[pc] = a_.pos();
        if (pc != 0) {
          for (u8 r : {RBX, R13, R14, R15, RBP})
            a_.push(r);
          a_.alu_ri(5, true, RBP, (i32)kFrameSize); // sub rbp, 512
        }
      }
      label_[pc] = a_.pos();
      const Insn &i = code_[pc];
      if (!info_[pc].reached) {
        fault_jump(pc, Fault::Unreachable, false);
        if (is_ld_imm64(i))
          label_[++pc] = a_.pos();
        continue;
      }
      emit(pc, func_start == 0);
      if (is_ld_imm64(i))
        label_[++pc] = a_.pos();
    }

    // The epilogue of the entry, also where faults unwind to.
    epilogue_ = a_.pos();
    if (pad_)
      a_.alu_ri(0, true, RSP, 8);
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it)
      a_.pop(*it);
    a_.byte(0xc3);
    // Fault stubs: record the instruction, the kind, the address (r11).
    for (const Stub &s : stubs_) {
      a_.patch(s.at, a_.pos());
      a_.rm({0xc7}, false, 0, ctx_, kOffFaultPc);
      a_.d32(s.pc);
      a_.rm({0xc7}, false, 0, ctx_, kOffFault);
      a_.d32((u32)s.kind);
      if (s.with_addr)
        a_.rm({0x89}, true, R11, ctx_, kOffFaultAddr);
      if (has_subcalls_)
        a_.rm({0x8b}, true, RSP, ctx_, kOffNativeSp); // unwind every frame
      a_.byte(0x31);                                // xor eax, eax
      a_.byte(0xc0);
      a_.patch(a_.jmp(), epilogue_);
    }
    for (auto [at, pc] : jumps_)
      a_.patch(at, label_[pc]);
    for (auto [at, pc] : calls_)
      a_.patch(at, func_label_[pc]);
    for (size_t at : to_epilogue_)
      a_.patch(at, epilogue_);
    return std::move(a_.b);
  }

private:
  // What the entry must set up, from what the program does:
  //  - the RunCtx (checks, helpers, loops, faults, per-CPU lookups).  It
  //    stays in r9, where it arrives, unless something clobbers r9 (a
  //    helper call takes it as its sixth argument; divisions and fetching
  //    atomics use it as scratch): then in r12, saved;
  //  - the frame pointer.  Without BPF-to-BPF calls r10 is one fixed frame
  //    at a known offset from the RunCtx (runner_stack_top), so r10-based
  //    accesses address the RunCtx directly and r10 needs no register;
  //    with them (or r10 used other than as a base or copied), rbp, saved;
  //  - r6..r9 when the program writes them (callee-saved natively);
  //  - the native stack pointer to unwind to, only when a fault can happen
  //    in a callee's frame.
  // A program that touches none of these (an empty clause, a keyless
  // count( )) saves nothing: its entry is its first instruction.
  void plan_entry() {
    bool uses[kRegs] = {}, calls = false, clobbers_r9 = false;
    bool r10_other = false; // r10 used other than as a base or a copy
    for (size_t pc = 0; pc < code_.size(); pc++) {
      const Insn &i = code_[pc];
      const InsnInfo &in = info_[pc];
      const u8 cls = insn_class(i.code);
      // Code the verifier proved dead becomes a stub reporting a fault
      // (an engine bug if it ever ran).  It leaves the code plain: the
      // stub still returns safely, only unreported.
      if (!in.reached) {
        need_ctx_ = true;
        if (is_ld_imm64(i))
          pc++;
        continue;
      }
      if (in.check != Check::None || in.back_edge)
        need_ctx_ = true, plain_ = false;
      if (i.code == (kJMP | kCALL)) {
        need_ctx_ = true;
        if (i.src == kPseudoCall) {
          calls = clobbers_r9 = has_subcalls_ = true;
          uses[10] = true;
        } else if (!inlinable_lookup(pc)) {
          calls = clobbers_r9 = true;
          plain_ = false;
        }
        continue;
      }
      if (i.code == (kJMP | kEXIT))
        continue;
      if (in.check == Check::AnyRegion)
        calls = clobbers_r9 = true; // any_region_allows( ) clobbers r9
      if (is_ld_imm64(i)) {
        uses[i.dst] = true;
        pc++;
        continue;
      }
      const bool alu = cls == kALU || cls == kALU64;
      const bool atomic = cls == kSTX && mem_mode(i.code) == kATOMIC;
      if (alu && (alu_op(i.code) == kDIV || alu_op(i.code) == kMOD))
        clobbers_r9 = true; // divmod( ) keeps rax there
      if (atomic && (i.imm & kFETCH) && (i.imm & ~kFETCH) != kADD)
        clobbers_r9 = true; // the compare-exchange loop
      // r10 may be a load's or a plain store's base, or copied whole into
      // another register; any other use keeps it in rbp.
      const bool reads_src = cls == kLDX || cls == kSTX ||
                             ((alu || cls == kJMP || cls == kJMP32) && (i.code & kX));
      if (reads_src && i.src == 10) {
        const bool copy = cls == kALU64 && alu_op(i.code) == kMOV && i.off == 0;
        if (cls != kLDX && !copy)
          r10_other = true;
      }
      if (i.dst == 10 && (atomic || !(cls == kST || cls == kSTX)))
        r10_other = true;
      uses[i.dst] = true;
      if (reads_src)
        uses[i.src] = true;
    }
    virtual_r10_ = uses[10] && !has_subcalls_ && !r10_other;
    if (virtual_r10_)
      need_ctx_ = true;
    need_rbp_ = uses[10] && !virtual_r10_;
    if (need_rbp_)
      saved_.push_back(RBP);
    for (unsigned r = 6; r <= 9; r++)
      if (uses[r])
        saved_.push_back(kMap[r]);
    ctx_ = clobbers_r9 ? R12 : R9;
    if (need_ctx_ && ctx_ == R12)
      saved_.push_back(R12);
    top_off_ = (i64)runner_stack_top(p_.env());
    // At entry rsp is 8 past a 16-byte boundary.
    pad_ = calls && saved_.size() % 2 == 0;
  }

  // The native base and displacement of [bpf register + off].
  struct Base {
    u8 reg;
    i32 disp;
  };
  Base base_of(u8 bpf_reg, i16 off) const {
    if (bpf_reg == 10 && virtual_r10_)
      return {ctx_, (i32)(top_off_ + off)};
    return {kMap[bpf_reg], off};
  }

  struct Stub {
    size_t at;
    u32 pc;
    Fault kind;
    bool with_addr;
  };

  void fault_jump(u32 pc, Fault kind, bool with_addr, u8 cc = 0xff) {
    const size_t at = cc == 0xff ? a_.jmp() : a_.jcc(cc);
    stubs_.push_back(Stub{at, pc, kind, with_addr});
  }

  void jump_to(u32 target) { jumps_.push_back({a_.jmp(), target}); }
  void jcc_to(u8 cc, u32 target) { jumps_.push_back({a_.jcc(cc), target}); }

  // The run-time check of an access at r11 the verifier asked for.
  void check(u32 pc, unsigned w, bool write) {
    const InsnInfo &in = info_[pc];
    if (in.check == Check::Region) {
      a_.mov_rr(true, R10, R11);
      a_.rm({0x2b}, true, R10, ctx_, region_base(in.region)); // sub r10, base
      a_.rm({0x3b}, true, R10, ctx_, region_span(in.region, w)); // cmp r10, span
      fault_jump(pc, Fault::OutOfBounds, true, CC_AE);
      return;
    }
    // AnyRegion: ask any_region_allows(rc, addr, w, write).
    for (u8 r : kVolatile)
      a_.push(r);
    a_.alu_ri(5, true, RSP, 8);
    a_.mov_rr(true, RDI, ctx_);
    a_.mov_rr(true, RSI, R11);
    a_.mov_imm64(RDX, w);
    a_.mov_imm64(RCX, write ? 1 : 0);
    a_.mov_imm64(RAX, (u64)(uintptr_t)&any_region_allows);
    a_.rr({0xff}, false, 2, RAX); // call rax
    a_.rr({0x0f, 0xb6}, false, R10, RAX); // movzx r10d, al
    a_.alu_ri(0, true, RSP, 8);
    for (int k = (int)sizeof kVolatile - 1; k >= 0; k--)
      a_.pop(kVolatile[k]);
    a_.rr({0x85}, false, R10, R10); // test r10d, r10d
    fault_jump(pc, Fault::OutOfBounds, true, CC_E);
  }

  // The operand of a memory access: [base + off], or [r11] when checked.
  struct Mem {
    u8 base;
    i32 disp;
  };
  Mem address(u32 pc, u8 bpf_base, i16 off, unsigned w, bool write) {
    const Base b = base_of(bpf_base, off);
    if (info_[pc].check == Check::None)
      return {b.reg, b.disp};
    a_.rm({0x8d}, true, R11, b.reg, b.disp); // lea r11, [base + off]
    check(pc, w, write);
    return {R11, 0};
  }

  void load(u8 dst, Mem m, unsigned w, bool sx) {
    switch (w) {
    case 1: a_.rm({0x0f, u8(sx ? 0xbe : 0xb6)}, sx, dst, m.base, m.disp); break;
    case 2: a_.rm({0x0f, u8(sx ? 0xbf : 0xb7)}, sx, dst, m.base, m.disp); break;
    case 4:
      if (sx)
        a_.rm({0x63}, true, dst, m.base, m.disp);
      else
        a_.rm({0x8b}, false, dst, m.base, m.disp);
      break;
    default: a_.rm({0x8b}, true, dst, m.base, m.disp); break;
    }
  }
  void store_reg(Mem m, u8 src, unsigned w) {
    switch (w) {
    case 1: a_.rm({0x88}, false, src, m.base, m.disp, is_byte_low(src)); break;
    case 2: a_.rm({0x89}, false, src, m.base, m.disp, false, true); break;
    case 4: a_.rm({0x89}, false, src, m.base, m.disp); break;
    default: a_.rm({0x89}, true, src, m.base, m.disp); break;
    }
  }
  void store_imm(Mem m, i32 imm, unsigned w) {
    switch (w) {
    case 1: a_.rm({0xc6}, false, 0, m.base, m.disp); a_.byte(u8(imm)); break;
    case 2:
      a_.rm({0xc7}, false, 0, m.base, m.disp, false, true);
      a_.byte(u8(imm));
      a_.byte(u8(imm >> 8));
      break;
    case 4: a_.rm({0xc7}, false, 0, m.base, m.disp); a_.d32((u32)imm); break;
    default: a_.rm({0xc7}, true, 0, m.base, m.disp); a_.d32((u32)imm); break;
    }
  }

  void shift(u8 digit, bool w, u8 dst, u8 src) {
    if (src == RCX) {
      a_.rr({0xd3}, w, digit, dst);
      return;
    }
    a_.mov_rr(true, R11, RCX);
    if (dst == RCX) {
      a_.mov_rr(true, RCX, src);
      a_.rr({0xd3}, w, digit, R11);
      a_.mov_rr(true, RCX, R11);
      if (!w)
        a_.mov_rr(false, RCX, RCX);
      return;
    }
    a_.mov_rr(true, RCX, src);
    a_.rr({0xd3}, w, digit, dst);
    a_.mov_rr(true, RCX, R11);
  }

  void divmod(const Insn &i, bool w) {
    const u8 dst = kMap[i.dst];
    const bool mod = alu_op(i.code) == kMOD, sgn = i.off == 1;
    if (i.code & kX)
      a_.mov_rr(true, R11, kMap[i.src]);
    else
      a_.mov_imm64(R11, w ? (u64)(i64)i.imm : (u64)(u32)i.imm);
    a_.mov_rr(true, R9, RAX);
    a_.mov_rr(true, R10, RDX);
    a_.mov_rr(w, RAX, dst); // 32-bit: zero-extends
    a_.rr({0x85}, w, R11, R11);
    const size_t to_zero = a_.jcc(CC_E);
    size_t to_minus1 = 0;
    if (sgn) {
      a_.alu_ri(7, w, R11, -1);
      to_minus1 = a_.jcc(CC_E);
    }
    if (sgn) {
      if (w) a_.byte(0x48);
      a_.byte(0x99); // cqo / cdq
      a_.rr({0xf7}, w, 7, R11); // idiv r11
    } else {
      a_.rr({0x31}, false, RDX, RDX); // xor edx, edx
      a_.rr({0xf7}, w, 6, R11); // div r11
    }
    if (mod)
      a_.mov_rr(w, RAX, RDX);
    const size_t done1 = a_.jmp();
    size_t done2 = 0;
    if (sgn) {
      a_.patch(to_minus1, a_.pos());
      if (mod)
        a_.rr({0x31}, false, RAX, RAX);
      else
        a_.rr({0xf7}, w, 3, RAX); // neg: INT_MIN / -1 wraps
      done2 = a_.jmp();
    }
    a_.patch(to_zero, a_.pos());
    if (!mod)
      a_.rr({0x31}, false, RAX, RAX); // x / 0 = 0; x % 0 = x
    a_.patch(done1, a_.pos());
    if (sgn)
      a_.patch(done2, a_.pos());
    a_.mov_rr(w, dst, RAX);
    if (dst != RAX)
      a_.mov_rr(true, RAX, R9);
    if (dst != RDX)
      a_.mov_rr(true, RDX, R10);
  }

  void alu(const Insn &i) {
    const bool w = insn_class(i.code) == kALU64;
    const u8 op = alu_op(i.code);
    const u8 dst = kMap[i.dst];
    const bool x = i.code & kX;
    const u8 src = kMap[i.src];
    switch (op) {
    case kADD: case kSUB: case kOR: case kAND: case kXOR: {
      const u8 rr_op = op == kADD ? 0x01 : op == kSUB ? 0x29 : op == kOR ? 0x09
                       : op == kAND ? 0x21 : 0x31;
      const u8 digit = op == kADD ? 0 : op == kSUB ? 5 : op == kOR ? 1
                       : op == kAND ? 4 : 6;
      if (x)
        a_.rr({rr_op}, w, src, dst);
      else
        a_.alu_ri(digit, w, dst, i.imm);
      break;
    }
    case kMUL:
      if (x) {
        a_.rr({0x0f, 0xaf}, w, dst, src);
      } else {
        a_.rr({0x69}, w, dst, dst);
        a_.d32((u32)i.imm);
      }
      break;
    case kDIV:
    case kMOD:
      divmod(i, w);
      break;
    case kLSH: case kRSH: case kARSH: {
      const u8 digit = op == kLSH ? 4 : op == kRSH ? 5 : 7;
      if (x) {
        shift(digit, w, dst, src);
      } else {
        a_.rr({0xc1}, w, digit, dst);
        a_.byte(u8(i.imm & (w ? 63 : 31)));
      }
      break;
    }
    case kNEG:
      a_.rr({0xf7}, w, 3, dst);
      break;
    case kMOV:
      if (x && i.src == 10 && virtual_r10_) { // r10 = the RunCtx + top
        a_.rm({0x8d}, true, dst, ctx_, (i32)top_off_); // lea dst, [ctx+top]
        break;
      }
      if (!x) {
        if (w)
          a_.mov_imm64(dst, (u64)(i64)i.imm);
        else
          a_.mov_imm64(dst, (u64)(u32)i.imm);
      } else if (i.off == 8) {
        a_.rr({0x0f, 0xbe}, w, dst, src, is_byte_low(src));
      } else if (i.off == 16) {
        a_.rr({0x0f, 0xbf}, w, dst, src);
      } else if (i.off == 32) {
        a_.rr({0x63}, true, dst, src);
      } else {
        a_.mov_rr(w, dst, src);
      }
      if (!w && i.off)
        a_.mov_rr(false, dst, dst); // movsx to 32 bits, then zero-extend
      break;
    case kEND:
      if (!w && !x) { // to little-endian: truncate
        if (i.imm == 16)
          a_.rr({0x0f, 0xb7}, false, dst, dst);
        else if (i.imm == 32)
          a_.mov_rr(false, dst, dst);
        break;
      }
      if (i.imm == 16) {
        a_.byte(0x66);
        a_.rr({0xc1}, false, 1, dst); // ror r16, 8
        a_.byte(8);
        a_.rr({0x0f, 0xb7}, false, dst, dst);
      } else {
        a_.rex(i.imm == 64, 0, dst);
        a_.byte(0x0f);
        a_.byte(0xc8 + (dst & 7));
      }
      break;
    }
  }

  void atomic(u32 pc, const Insn &i) {
    const bool w = mem_size(i.code) == kDW;
    const unsigned width = w ? 8 : 4;
    const u8 src = kMap[i.src];
    a_.rm({0x8d}, true, R11, kMap[i.dst], i.off); // lea r11, [dst + off]
    if (info_[pc].check != Check::None)
      check(pc, width, true);
    const i32 op = i.imm;
    if (op == kXCHG) {
      a_.rm({0x87}, w, src, R11, 0);
      return;
    }
    if (op == kCMPXCHG) {
      a_.byte(0xf0);
      a_.rm({0x0f, 0xb1}, w, src, R11, 0);
      if (!w)
        a_.mov_rr(false, RAX, RAX);
      return;
    }
    const i32 base = op & ~kFETCH;
    if (!(op & kFETCH) || base == kADD) {
      a_.byte(0xf0);
      if (op & kFETCH) {
        a_.rm({0x0f, 0xc1}, w, src, R11, 0); // lock xadd
        return;
      }
      const u8 o = base == kADD ? 0x01 : base == kOR ? 0x09
                   : base == kAND ? 0x21 : 0x31;
      a_.rm({o}, w, src, R11, 0);
      return;
    }
    // Fetching or/and/xor: a compare-exchange loop on rax.
    a_.mov_rr(true, R10, RAX); // keep r0 (and the operand if it is r0)
    const u8 operand = src == RAX ? u8(R10) : src;
    a_.rm({0x8b}, w, RAX, R11, 0);
    const size_t loop = a_.pos();
    a_.mov_rr(true, R9, RAX);
    const u8 o = base == kOR ? 0x09 : base == kAND ? 0x21 : 0x31;
    a_.rr({o}, w, operand, R9);
    a_.byte(0xf0);
    a_.rm({0x0f, 0xb1}, w, R9, R11, 0);
    a_.patch(a_.jcc(CC_NE), loop);
    if (!w)
      a_.mov_rr(false, RAX, RAX);
    if (src != RAX) {
      a_.mov_rr(true, src, RAX);
      a_.mov_rr(true, RAX, R10);
    }
  }

  // map_lookup_elem on an array map known at load time, inline: the
  // value's address is slab + (cpu * entries + key) * stride, or 0 when
  // the key (or the CPU) is out of range.  Same answers as Map::lookup.
  // The array map a helper call at `pc` looks up, when the JIT can do the
  // lookup inline; nullptr otherwise.
  const Map *inlinable_lookup(u32 pc) const {
    const Helper *h = p_.env().helper((u32)code_[pc].imm);
    const i32 mi = info_[pc].map;
    if (!h || h->id != kHelperMapLookup || mi < 0 ||
        h->fn != map_helpers()[0].fn)
      return nullptr;
    const Map &m = *p_.env().maps[mi];
    const MapSpec &spec = m.spec();
    if (spec.type != MapType::Array && spec.type != MapType::PerCpuArray)
      return nullptr;
    const u64 per_cpu = u64(spec.max_entries) * m.value_stride();
    if (m.value_stride() > 0x7fffffff || per_cpu > 0x7fffffff ||
        spec.max_entries > 0x7fffffff)
      return nullptr;
    return &m;
  }

  bool inline_array_lookup(u32 pc) {
    const Map *mp = inlinable_lookup(pc);
    if (!mp)
      return false;
    const Map &m = *mp;
    const MapSpec &spec = m.spec();
    const u64 per_cpu = u64(spec.max_entries) * m.value_stride();
    const InsnInfo &in = info_[pc];
    if (in.key_seen == InsnInfo::ConstKey) {
      // The verifier proved the key: its value's offset is a constant, and
      // out of range the answer is always null.  Only the CPU is read.
      if (in.key >= spec.max_entries) {
        a_.rr({0x31}, false, RAX, RAX);
        return true;
      }
      const u64 value = (u64)(uintptr_t)m.slab() + in.key * m.value_stride();
      if (!m.per_cpu()) {
        a_.mov_imm64(RAX, value);
        return true;
      }
      // rax = value + cpu * entries * stride, or 0 when the CPU has no
      // copy: no branch.
      const i32 cpu = (i32)offsetof(RunCtx, cpu);
      a_.rm({0x8b}, false, RAX, ctx_, cpu); // mov eax, [ctx + cpu]
      a_.rr({0x69}, true, RAX, RAX);        // imul rax, rax, entries * stride
      a_.d32((u32)per_cpu);
      a_.mov_imm64(R11, value);
      a_.rr({0x01}, true, R11, RAX);        // add rax, r11
      a_.rr({0x31}, false, R11, R11);       // xor r11d, r11d
      a_.rm({0x81}, false, 7, ctx_, cpu);   // cmp dword [ctx + cpu], ncpus
      a_.d32(m.ncpus());
      a_.rr({0x0f, 0x43}, true, RAX, R11);  // cmovae rax, r11
      return true;
    }
    a_.rm({0x8b}, false, RAX, RSI, 0); // mov eax, [rsi]: the key
    a_.alu_ri(7, false, RAX, (i32)spec.max_entries);
    const size_t null1 = a_.jcc(CC_AE);
    size_t null2 = 0;
    a_.rr({0x69}, true, RAX, RAX); // imul rax, rax, stride
    a_.d32(m.value_stride());
    if (m.per_cpu()) {
      a_.rm({0x8b}, false, R11, ctx_, (i32)offsetof(RunCtx, cpu));
      a_.alu_ri(7, false, R11, (i32)m.ncpus());
      null2 = a_.jcc(CC_AE);
      a_.rr({0x69}, true, R11, R11); // imul r11, r11, entries * stride
      a_.d32((u32)per_cpu);
      a_.rr({0x01}, true, R11, RAX); // add rax, r11
    }
    a_.mov_imm64(R11, (u64)(uintptr_t)m.slab());
    a_.rr({0x01}, true, R11, RAX); // add rax, r11
    const size_t done = a_.jmp();
    a_.patch(null1, a_.pos());
    if (m.per_cpu())
      a_.patch(null2, a_.pos());
    a_.rr({0x31}, false, RAX, RAX);
    a_.patch(done, a_.pos());
    return true;
  }

  // A load of the 8 bytes the previous instruction stored at the same
  // stack slot (bpfgen's value stack does this at nearly every step): the
  // value is still in a register, or an immediate, so the load becomes a
  // move and no store-to-load forwarding sits on the dependency chain.
  // Not when control may arrive at the load from elsewhere.
  bool forwarded_load(u32 pc) {
    const Insn &l = code_[pc];
    if (pc == 0 || is_target_[pc] || l.src != 10 || mem_mode(l.code) != kMEM ||
        size_bytes(l.code) != 8 || info_[pc].check != Check::None)
      return false;
    const Insn &st = code_[pc - 1];
    const u8 cls = insn_class(st.code);
    if ((cls != kST && cls != kSTX) || mem_mode(st.code) != kMEM ||
        size_bytes(st.code) != 8 || st.dst != 10 || st.off != l.off ||
        !info_[pc - 1].reached || info_[pc - 1].check != Check::None)
      return false;
    if (cls == kST) {
      a_.mov_imm64(kMap[l.dst], (u64)(i64)st.imm);
      return true;
    }
    if (st.src == 10) // r10 may live in no register (virtual_r10_)
      return false;
    if (st.src != l.dst)
      a_.mov_rr(true, kMap[l.dst], kMap[st.src]);
    return true;
  }

  void budget(u32 pc) {
    a_.rm({0x83}, true, 5, ctx_, kOffBudget); // sub qword [r12+budget], 1
    a_.byte(1);
    fault_jump(pc, Fault::LoopBudget, false, CC_B);
  }

  void emit(u32 pc, bool in_entry) {
    const Insn &i = code_[pc];
    const u8 cls = insn_class(i.code);
    switch (cls) {
    case kALU:
    case kALU64:
      alu(i);
      return;
    case kLD: {
      const Env &env = p_.env();
      u64 v;
      if (i.src == kPseudoMapHandle)
        v = (u64)(uintptr_t)env.maps[i.imm];
      else if (i.src == kPseudoMapValue)
        v = (u64)(uintptr_t)env.maps[i.imm]->slab() + (u64)(u32)code_[pc + 1].imm;
      else
        v = (u64)(u32)i.imm | ((u64)(u32)code_[pc + 1].imm << 32);
      a_.mov_imm64(kMap[i.dst], v);
      return;
    }
    case kLDX: {
      const unsigned w = size_bytes(i.code);
      if (forwarded_load(pc))
        return;
      const Mem m = address(pc, i.src, i.off, w, false);
      load(kMap[i.dst], m, w, mem_mode(i.code) == kMEMSX);
      return;
    }
    case kST: {
      const unsigned w = size_bytes(i.code);
      store_imm(address(pc, i.dst, i.off, w, true), i.imm, w);
      return;
    }
    case kSTX:
      if (mem_mode(i.code) == kATOMIC) {
        atomic(pc, i);
        return;
      }
      store_reg(address(pc, i.dst, i.off, size_bytes(i.code), true),
                kMap[i.src], size_bytes(i.code));
      return;
    case kJMP:
    case kJMP32: {
      const u8 op = alu_op(i.code);
      if (op == kEXIT) {
        if (in_entry && saved_.empty() && !pad_) {
          a_.byte(0xc3); // the epilogue would be this ret alone
        } else if (in_entry) {
          to_epilogue_.push_back(a_.jmp());
        } else {
          for (u8 r : {RBP, R15, R14, R13, RBX})
            a_.pop(r);
          a_.byte(0xc3);
        }
        return;
      }
      if (op == kCALL) {
        if (i.src == kPseudoCall) {
          calls_.push_back({a_.call(), pc + 1 + i.imm});
          return;
        }
        if (inline_array_lookup(pc))
          return;
        const Helper *h = p_.env().helper((u32)i.imm);
        a_.mov_rr(true, R9, ctx_);
        a_.mov_imm64(R11, (u64)(uintptr_t)h->fn);
        a_.rr({0xff}, false, 2, R11); // call r11
        if (h->may_abort) {
          a_.rm({0x83}, false, 7, ctx_, kOffFault); // cmp dword [fault], 0
          a_.byte(0);
          fault_jump(pc, Fault::Aborted, false, CC_NE);
        }
        return;
      }
      const bool back = info_[pc].back_edge;
      if (op == kJA) {
        const u32 t = pc + 1 + (cls == kJMP32 ? i.imm : i.off);
        if (back)
          budget(pc);
        jump_to(t);
        return;
      }
      const bool w = cls == kJMP;
      const u8 dst = kMap[i.dst];
      if (op == kJSET) {
        if (i.code & kX) {
          a_.rr({0x85}, w, kMap[i.src], dst);
        } else {
          a_.rr({0xf7}, w, 0, dst);
          a_.d32((u32)i.imm);
        }
      } else if (i.code & kX) {
        a_.rr({0x39}, w, kMap[i.src], dst);
      } else {
        a_.alu_ri(7, w, dst, i.imm);
      }
      const u32 t = pc + 1 + i.off;
      const u8 cc = cond_of(op);
      if (!back) {
        jcc_to(cc, t);
        return;
      }
      const size_t skip = a_.jcc(cc ^ 1); // not taken: go on
      budget(pc);
      jump_to(t);
      a_.patch(skip, a_.pos());
      return;
    }
    }
  }

  const Program &p_;
  const std::vector<Insn> &code_;
  const std::vector<InsnInfo> &info_;
  Asm a_;
  std::vector<size_t> label_, func_label_;
  std::vector<bool> is_target_;
  std::vector<std::pair<size_t, u32>> jumps_, calls_;
  std::vector<size_t> to_epilogue_;
  std::vector<Stub> stubs_;
  size_t epilogue_ = 0;
  std::vector<u8> saved_;
  bool need_ctx_ = false, need_rbp_ = false, pad_ = false;
  bool has_subcalls_ = false, virtual_r10_ = false;
  bool plain_ = true; // no fault, loop or helper call: see JitCode::plain
  u8 ctx_ = R12;  // where the RunCtx lives: r9 or r12
  i64 top_off_ = 0; // the stack's top, from the RunCtx
};

} // namespace

bool jit_available() { return true; }

Result<std::unique_ptr<JitCode>> jit_compile(const Program &prog,
                                             CodeAllocator *alloc) {
  Jit jit(prog);
  std::vector<u8> code = jit.compile();
  void *mem = alloc->allocate(code.size());
  if (!mem)
    return error(strf("%s: cannot allocate %zu bytes of code",
                      prog.name().c_str(), code.size()));
  code::copy(static_cast<u8 *>(mem), code.data(), code.size()); // the one writer of code
  void *entry = alloc->seal(mem, code.size());
  if (!entry) {
    alloc->release(mem, code.size());
    return error(strf("%s: cannot make the code executable",
                      prog.name().c_str()));
  }
  return std::make_unique<JitCode>(alloc, entry, code.size(), jit.plain());
}

u64 jit_run(const JitCode &code, RunCtx &rc, const u64 args[5]) {
  return reinterpret_cast<JitEntry>(const_cast<void *>(code.entry()))(
      args[0], args[1], args[2], args[3], args[4], &rc);
}

#else

bool jit_available() { return false; }

Result<std::unique_ptr<JitCode>> jit_compile(const Program &prog,
                                             CodeAllocator *) {
  return error(strf("%s: there is no JIT for this architecture",
                    prog.name().c_str()));
}

u64 jit_run(const JitCode &, RunCtx &, const u64 *) { return 0; }

#endif

} // namespace mk::bpf
