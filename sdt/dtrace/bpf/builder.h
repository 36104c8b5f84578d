// Constructors of single instructions, for code that generates BPF (the D
// compiler, tests, the benchmark): `alu64(kADD, 1, 2)` reads better than a
// brace-initialised opcode.
#pragma once

#include "insn.h"

#include <vector>

namespace mk::bpf::ins {

inline Insn make(u8 code, u8 dst, u8 src, i16 off, i32 imm) {
  Insn i{};
  i.code = code;
  i.dst = dst & 0xf;
  i.src = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}
// dst op= src / dst op= imm, 64 and 32 bits.
inline Insn alu64(u8 op, u8 dst, u8 src) { return make(kALU64 | op | kX, dst, src, 0, 0); }
inline Insn alu64i(u8 op, u8 dst, i32 imm) { return make(kALU64 | op | kK, dst, 0, 0, imm); }
inline Insn alu32(u8 op, u8 dst, u8 src) { return make(kALU | op | kX, dst, src, 0, 0); }
inline Insn alu32i(u8 op, u8 dst, i32 imm) { return make(kALU | op | kK, dst, 0, 0, imm); }
inline Insn mov64(u8 dst, u8 src) { return alu64(kMOV, dst, src); }
inline Insn mov64i(u8 dst, i32 imm) { return alu64i(kMOV, dst, imm); }
inline Insn mov32i(u8 dst, i32 imm) { return alu32i(kMOV, dst, imm); }
// SDIV/SMOD (off 1) and MOVSX (off 8/16/32).
inline Insn alu64off(u8 op, u8 dst, u8 src, i16 off) { return make(kALU64 | op | kX, dst, src, off, 0); }
inline Insn alu64ioff(u8 op, u8 dst, i32 imm, i16 off) { return make(kALU64 | op | kK, dst, 0, off, imm); }
// Loads and stores: size is kB, kH, kW or kDW.
inline Insn ldx(u8 size, u8 dst, u8 src, i16 off) { return make(kLDX | kMEM | size, dst, src, off, 0); }
inline Insn ldxsx(u8 size, u8 dst, u8 src, i16 off) { return make(kLDX | kMEMSX | size, dst, src, off, 0); }
inline Insn stx(u8 size, u8 dst, i16 off, u8 src) { return make(kSTX | kMEM | size, dst, src, off, 0); }
inline Insn st(u8 size, u8 dst, i16 off, i32 imm) { return make(kST | kMEM | size, dst, 0, off, imm); }
inline Insn atomic(u8 size, u8 dst, i16 off, u8 src, i32 op) { return make(kSTX | kATOMIC | size, dst, src, off, op); }
// ld_imm64 takes two slots.
inline void ld64(std::vector<Insn> &v, u8 dst, u64 imm) {
  v.push_back(make(kLD | kIMM | kDW, dst, 0, 0, (i32)(u32)imm));
  v.push_back(make(0, 0, 0, 0, (i32)(u32)(imm >> 32)));
}
inline void ld_map(std::vector<Insn> &v, u8 dst, u32 map) {
  v.push_back(make(kLD | kIMM | kDW, dst, kPseudoMapHandle, 0, (i32)map));
  v.push_back(make(0, 0, 0, 0, 0));
}
inline void ld_map_value(std::vector<Insn> &v, u8 dst, u32 map, u32 off) {
  v.push_back(make(kLD | kIMM | kDW, dst, kPseudoMapValue, 0, (i32)map));
  v.push_back(make(0, 0, 0, 0, (i32)off));
}
// Jumps: off counts instructions after the jump.
inline Insn ja(i16 off) { return make(kJMP | kJA, 0, 0, off, 0); }
inline Insn jmp(u8 op, u8 dst, u8 src, i16 off) { return make(kJMP | op | kX, dst, src, off, 0); }
inline Insn jmpi(u8 op, u8 dst, i32 imm, i16 off) { return make(kJMP | op | kK, dst, 0, off, imm); }
inline Insn jmp32i(u8 op, u8 dst, i32 imm, i16 off) { return make(kJMP32 | op | kK, dst, 0, off, imm); }
inline Insn call(i32 helper) { return make(kJMP | kCALL, 0, 0, 0, helper); }
inline Insn call_local(i32 rel) { return make(kJMP | kCALL, 0, kPseudoCall, 0, rel); }
inline Insn exit() { return make(kJMP | kEXIT, 0, 0, 0, 0); }

} // namespace mk::bpf::ins
