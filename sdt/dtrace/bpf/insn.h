// The eBPF instruction encoding of RFC 9669: one 8-byte slot per
// instruction (two for the 64-bit immediate load), opcode = class | op |
// source (ALU/JMP) or class | mode | size (loads and stores).  Only
// encoding lives here; semantics are in interp.cpp, the checks in
// verifier.cpp.
#pragma once

#include "../../../linker/base.h"

namespace mk::bpf {

struct Insn {
  u8 code;
  u8 dst : 4;
  u8 src : 4;
  i16 off;
  i32 imm;
};
static_assert(sizeof(Insn) == 8, "an instruction is one 8-byte slot");

// Classes (low three bits).
inline constexpr u8 kLD = 0x00, kLDX = 0x01, kST = 0x02, kSTX = 0x03,
    kALU = 0x04, kJMP = 0x05, kJMP32 = 0x06, kALU64 = 0x07;
// ALU and JMP: source bit and operation (high four bits).
inline constexpr u8 kK = 0x00, kX = 0x08;
inline constexpr u8 kADD = 0x00, kSUB = 0x10, kMUL = 0x20, kDIV = 0x30,
    kOR = 0x40, kAND = 0x50, kLSH = 0x60, kRSH = 0x70, kNEG = 0x80,
    kMOD = 0x90, kXOR = 0xa0, kMOV = 0xb0, kARSH = 0xc0, kEND = 0xd0;
inline constexpr u8 kJA = 0x00, kJEQ = 0x10, kJGT = 0x20, kJGE = 0x30,
    kJSET = 0x40, kJNE = 0x50, kJSGT = 0x60, kJSGE = 0x70, kCALL = 0x80,
    kEXIT = 0x90, kJLT = 0xa0, kJLE = 0xb0, kJSLT = 0xc0, kJSLE = 0xd0;
// Loads and stores: size (bits 3-4) and mode (bits 5-7).
inline constexpr u8 kW = 0x00, kH = 0x08, kB = 0x10, kDW = 0x18;
inline constexpr u8 kIMM = 0x00, kABS = 0x20, kIND = 0x40, kMEM = 0x60,
    kMEMSX = 0x80, kATOMIC = 0xc0;
// Atomic operations (imm of an ATOMIC store).
inline constexpr i32 kFETCH = 0x01, kXCHG = 0xe0 | kFETCH,
    kCMPXCHG = 0xf0 | kFETCH;

// Source register meanings of the 64-bit immediate load (ld_imm64) and of
// call.  The same numbers as Linux, so a linked program loads there too.
// ld_imm64: imm is a map index; the value is the map itself.
inline constexpr u8 kPseudoMapHandle = 1;
// ld_imm64: imm is a map index, the next imm an offset into its value.
inline constexpr u8 kPseudoMapValue = 2;
// call: imm is the callee's offset in instructions.
inline constexpr u8 kPseudoCall = 1;

inline u8 insn_class(u8 code) { return code & 0x07; }
inline u8 alu_op(u8 code) { return code & 0xf0; }
inline u8 mem_size(u8 code) { return code & 0x18; }
inline u8 mem_mode(u8 code) { return code & 0xe0; }
inline unsigned size_bytes(u8 code) {
  switch (mem_size(code)) {
  case kB: return 1;
  case kH: return 2;
  case kW: return 4;
  default: return 8;
  }
}
inline bool is_ld_imm64(const Insn &i) { return i.code == (kLD | kIMM | kDW); }

// Sizes fixed by the ABI this engine implements.
constexpr unsigned kRegs = 11;          // r0..r10
constexpr unsigned kFrameSize = 512;    // bytes of stack per call frame
constexpr unsigned kMaxCallDepth = 8;   // frames, the entry function's included
constexpr unsigned kStackSize = kFrameSize * kMaxCallDepth;

} // namespace mk::bpf
