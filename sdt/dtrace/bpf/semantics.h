// What each ALU and conditional-jump operation computes, per RFC 9669, in
// one place: the interpreter runs it, the verifier folds constants with it,
// and the JIT's tests compare against it.  Division by zero is defined
// (quotient 0, remainder the dividend), shift counts are masked to the
// operand width, 32-bit results are zero-extended.
#pragma once

#include "insn.h"

namespace mk::bpf {

inline u64 bswap_n(u64 v, i32 bits) {
  switch (bits) {
  case 16: return __builtin_bswap16((u16)v);
  case 32: return __builtin_bswap32((u32)v);
  default: return __builtin_bswap64(v);
  }
}
inline u64 trunc_n(u64 v, i32 bits) {
  return bits >= 64 ? v : v & ((u64(1) << bits) - 1);
}

// dst op src for an ALU (is64 false) or ALU64 instruction; `off` selects
// SDIV/SMOD (1) and MOVSX widths (8/16/32); `imm` is END's width.
inline u64 alu_eval(u8 op, bool is64, u64 dst, u64 src, i16 off, i32 imm,
                    bool end_be, bool bswap) {
  if (is64) {
    switch (op) {
    case kADD: return dst + src;
    case kSUB: return dst - src;
    case kMUL: return dst * src;
    case kDIV:
      if (off == 1) {
        const i64 a = (i64)dst, b = (i64)src;
        if (b == 0) return 0;
        if (b == -1) return (u64)0 - dst; // INT64_MIN / -1 wraps
        return (u64)(a / b);
      }
      return src ? dst / src : 0;
    case kMOD:
      if (off == 1) {
        const i64 a = (i64)dst, b = (i64)src;
        if (b == 0) return dst;
        if (b == -1) return 0;
        return (u64)(a % b);
      }
      return src ? dst % src : dst;
    case kOR: return dst | src;
    case kAND: return dst & src;
    case kXOR: return dst ^ src;
    case kLSH: return dst << (src & 63);
    case kRSH: return dst >> (src & 63);
    case kARSH: return (u64)((i64)dst >> (src & 63));
    case kNEG: return (u64)0 - dst;
    case kMOV:
      switch (off) {
      case 8: return (u64)(i64)(i8)src;
      case 16: return (u64)(i64)(i16)src;
      case 32: return (u64)(i64)(i32)src;
      default: return src;
      }
    case kEND: return bswap ? bswap_n(dst, imm) : dst;
    }
    return 0;
  }
  const u32 a = (u32)dst, b = (u32)src;
  switch (op) {
  case kADD: return u32(a + b);
  case kSUB: return u32(a - b);
  case kMUL: return u32(a * b);
  case kDIV:
    if (off == 1) {
      const i32 x = (i32)a, y = (i32)b;
      if (y == 0) return 0;
      if (y == -1) return u32(0u - a);
      return u32(x / y);
    }
    return b ? u32(a / b) : 0;
  case kMOD:
    if (off == 1) {
      const i32 x = (i32)a, y = (i32)b;
      if (y == 0) return a;
      if (y == -1) return 0;
      return u32(x % y);
    }
    return b ? u32(a % b) : a;
  case kOR: return u32(a | b);
  case kAND: return u32(a & b);
  case kXOR: return u32(a ^ b);
  case kLSH: return u32(a << (b & 31));
  case kRSH: return u32(a >> (b & 31));
  case kARSH: return u32((i32)a >> (b & 31));
  case kNEG: return u32(0u - a);
  case kMOV:
    switch (off) {
    case 8: return u32((i32)(i8)b);
    case 16: return u32((i32)(i16)b);
    default: return b;
    }
  case kEND:
    // ALU-class END: to little-endian truncates (the host is little-endian),
    // to big-endian swaps; both zero-extend from the width.
    return end_be ? bswap_n(dst, imm) : trunc_n(dst, imm);
  }
  return 0;
}

// Whether a conditional jump is taken.
inline bool jmp_eval(u8 op, bool is64, u64 a, u64 b) {
  if (!is64) {
    a = (u32)a;
    b = (u32)b;
  }
  const i64 sa = is64 ? (i64)a : (i64)(i32)a;
  const i64 sb = is64 ? (i64)b : (i64)(i32)b;
  switch (op) {
  case kJEQ: return a == b;
  case kJNE: return a != b;
  case kJGT: return a > b;
  case kJGE: return a >= b;
  case kJLT: return a < b;
  case kJLE: return a <= b;
  case kJSET: return (a & b) != 0;
  case kJSGT: return sa > sb;
  case kJSGE: return sa >= sb;
  case kJSLT: return sa < sb;
  case kJSLE: return sa <= sb;
  }
  return false;
}

} // namespace mk::bpf
