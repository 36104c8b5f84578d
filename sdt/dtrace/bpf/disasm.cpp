// The disassembler: each instruction in the C-like syntax llvm-objdump and
// the Linux verifier log use, so a listing from `dtrace -S` reads like the
// output of the tools people already know.
#include "bpf.h"

namespace mk::bpf {

namespace {

const char *alu_sym(u8 op) {
  switch (op) {
  case kADD: return "+=";
  case kSUB: return "-=";
  case kMUL: return "*=";
  case kDIV: return "/=";
  case kOR: return "|=";
  case kAND: return "&=";
  case kLSH: return "<<=";
  case kRSH: return ">>=";
  case kMOD: return "%=";
  case kXOR: return "^=";
  case kMOV: return "=";
  case kARSH: return "s>>=";
  }
  return nullptr;
}

const char *jmp_sym(u8 op) {
  switch (op) {
  case kJEQ: return "==";
  case kJGT: return ">";
  case kJGE: return ">=";
  case kJSET: return "&";
  case kJNE: return "!=";
  case kJSGT: return "s>";
  case kJSGE: return "s>=";
  case kJLT: return "<";
  case kJLE: return "<=";
  case kJSLT: return "s<";
  case kJSLE: return "s<=";
  }
  return nullptr;
}

const char *size_name(u8 code, bool sx = false) {
  switch (mem_size(code)) {
  case kB: return sx ? "s8" : "u8";
  case kH: return sx ? "s16" : "u16";
  case kW: return sx ? "s32" : "u32";
  default: return "u64";
  }
}

std::string mem_ref(const Insn &i, unsigned base) {
  if (i.off < 0)
    return strf("(r%u - %d)", base, -(int)i.off);
  return strf("(r%u + %d)", base, (int)i.off);
}

std::string unknown(const Insn &i) {
  return strf("<unknown opcode 0x%02x>", i.code);
}

std::string atomic(const Insn &i) {
  const bool dw = mem_size(i.code) == kDW;
  const char r = dw ? 'r' : 'w';
  const char *ty = dw ? "u64" : "u32";
  const std::string addr = mem_ref(i, i.dst);
  const i32 op = i.imm;
  if (op == kXCHG)
    return strf("%c%u = xchg%s_%s(r%u %c %d, %c%u)", r, i.src, dw ? "" : "32",
                dw ? "64" : "32", i.dst, i.off < 0 ? '-' : '+',
                i.off < 0 ? -(int)i.off : (int)i.off, r, i.src);
  if (op == kCMPXCHG)
    return strf("%c0 = cmpxchg%s_%s(r%u %c %d, %c0, %c%u)", r, dw ? "" : "32",
                dw ? "64" : "32", i.dst, i.off < 0 ? '-' : '+',
                i.off < 0 ? -(int)i.off : (int)i.off, r, r, i.src);
  const char *name = nullptr, *sym = nullptr;
  switch (op & ~kFETCH) {
  case kADD: name = "add"; sym = "+="; break;
  case kOR: name = "or"; sym = "|="; break;
  case kAND: name = "and"; sym = "&="; break;
  case kXOR: name = "xor"; sym = "^="; break;
  default: return strf("<unknown atomic 0x%x>", op);
  }
  if (op & kFETCH)
    return strf("%c%u = atomic_fetch_%s((%s *)%s, %c%u)", r, i.src, name, ty,
                addr.c_str(), r, i.src);
  return strf("lock *(%s *)%s %s %c%u", ty, addr.c_str(), sym, r, i.src);
}

} // namespace

std::string disasm(const Insn &i, const Insn *next) {
  const u8 cls = insn_class(i.code);
  switch (cls) {
  case kALU:
  case kALU64: {
    const char r = cls == kALU64 ? 'r' : 'w';
    const u8 op = alu_op(i.code);
    if (op == kNEG)
      return strf("%c%u = -%c%u", r, i.dst, r, i.dst);
    if (op == kEND) {
      if (cls == kALU64)
        return strf("r%u = bswap%d r%u", i.dst, i.imm, i.dst);
      return strf("r%u = %s%d r%u", i.dst, (i.code & kX) ? "be" : "le", i.imm,
                  i.dst);
    }
    const char *sym = alu_sym(op);
    if (!sym)
      return unknown(i);
    if (op == kMOV && (i.code & kX) && i.off != 0)
      return strf("%c%u = (s%d)%c%u", r, i.dst, i.off, r, i.src);
    std::string s = sym;
    if ((op == kDIV || op == kMOD) && i.off == 1)
      s = "s" + s; // SDIV, SMOD
    if (i.code & kX)
      return strf("%c%u %s %c%u", r, i.dst, s.c_str(), r, i.src);
    return strf("%c%u %s %d", r, i.dst, s.c_str(), i.imm);
  }
  case kJMP:
  case kJMP32: {
    const u8 op = alu_op(i.code);
    if (op == kJA) {
      if (cls == kJMP32)
        return strf("gotol %+d", i.imm);
      return strf("goto %+d", (int)i.off);
    }
    if (op == kCALL) {
      if (i.src == kPseudoCall)
        return strf("call %+d", i.imm);
      if (i.code & kX)
        return strf("callx r%u", i.dst);
      return strf("call %d", i.imm);
    }
    if (op == kEXIT)
      return "exit";
    const char *sym = jmp_sym(op);
    if (!sym)
      return unknown(i);
    const char r = cls == kJMP ? 'r' : 'w';
    if (i.code & kX)
      return strf("if %c%u %s %c%u goto %+d", r, i.dst, sym, r, i.src,
                  (int)i.off);
    return strf("if %c%u %s %d goto %+d", r, i.dst, sym, i.imm, (int)i.off);
  }
  case kLD:
    if (is_ld_imm64(i)) {
      const u64 v = (u64)(u32)i.imm | ((u64)(next ? (u32)next->imm : 0) << 32);
      if (i.src == kPseudoMapHandle)
        return strf("r%u = map[%d] ll", i.dst, i.imm);
      if (i.src == kPseudoMapValue)
        return strf("r%u = map[%d]+%d ll", i.dst, i.imm, next ? next->imm : 0);
      return strf("r%u = %lld ll", i.dst, (long long)v);
    }
    return unknown(i);
  case kLDX:
    if (mem_mode(i.code) == kMEM || mem_mode(i.code) == kMEMSX)
      return strf("r%u = *(%s *)%s", i.dst,
                  size_name(i.code, mem_mode(i.code) == kMEMSX),
                  mem_ref(i, i.src).c_str());
    return unknown(i);
  case kST:
    if (mem_mode(i.code) == kMEM)
      return strf("*(%s *)%s = %d", size_name(i.code), mem_ref(i, i.dst).c_str(),
                  i.imm);
    return unknown(i);
  case kSTX:
    if (mem_mode(i.code) == kMEM)
      return strf("*(%s *)%s = r%u", size_name(i.code),
                  mem_ref(i, i.dst).c_str(), i.src);
    if (mem_mode(i.code) == kATOMIC)
      return atomic(i);
    return unknown(i);
  }
  return unknown(i);
}

std::string disasm_program(const std::vector<Insn> &insns) {
  std::string out;
  for (size_t pc = 0; pc < insns.size(); pc++) {
    const Insn &i = insns[pc];
    const u8 *b = reinterpret_cast<const u8 *>(&i);
    out += strf("%5zu: %02x %02x %02x %02x %02x %02x %02x %02x  ", pc, b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
    const bool wide = is_ld_imm64(i) && pc + 1 < insns.size();
    out += disasm(i, wide ? &insns[pc + 1] : nullptr);
    out += '\n';
    if (wide)
      pc++;
  }
  return out;
}

} // namespace mk::bpf
