// BPF backend (EM_BPF, ELF64, little-endian, REL).
//
// BPF code is a sequence of 8-byte instructions: code, registers, a 16-bit
// offset and a 32-bit immediate at byte 4.  Relocations name whole
// instructions, so r_offset is where the instruction starts and the value
// goes into its imm field(s):
//
//   R_BPF_64_64    ld_imm64, two slots: S + A split over the first slot's
//                  imm (low 32 bits, at P + 4) and the second's (high 32
//                  bits, at P + 12).  Constants, map handles, data addresses.
//   R_BPF_64_32    call: PC-relative in instructions, from the instruction
//                  after the call: imm = (S + A - P) / 8, where the implicit
//                  addend A is imm * 8 (clang leaves imm = -1 for a global
//                  callee, which makes it (S - (P + 8)) / 8; a call of a
//                  static function in another section holds its
//                  instruction offset there minus one).
//   R_BPF_64_ABS64 plain data: S + A in 8 bytes at P.
//   R_BPF_64_ABS32 plain data: S + A in 4 bytes at P (an address below
//                  4 GiB).  R_BPF_64_NODYLD32 is the same for .BTF and
//                  .BTF.ext, which no dynamic loader is to touch.
//
// Every entry is REL: the addend is in the instruction or the data field.
// There are no GOT or PLT forms.  (These are LLVM's numbers, which libbpf and
// Linux use; binutils before 2.41 numbered types 2-4 differently, see
// tests/reloc/README.md.)
#include "arch.h"
#include "code.h"

#include <elf.h>

#ifndef EM_BPF
#define EM_BPF 247
#endif

namespace mk {
namespace {

enum : u32 {
  R_NONE = 0, R_64_64 = 1, R_ABS64 = 2, R_ABS32 = 3, R_NODYLD32 = 4,
  R_64_32 = 10,
};

constexpr unsigned kInsn = 8; // bytes per instruction slot
constexpr unsigned kImm = 4;  // the imm field's offset in a slot

i32 imm_at(const u8 *insn) {
  i32 v;
  __builtin_memcpy(&v, insn + kImm, 4);
  return v;
}

class Bpf final : public Arch {
public:
  Bpf() { build_table(); }
  u16 machine() const override { return EM_BPF; }
  const char *name() const override { return "bpf"; }
  int elf_class() const override { return ELFCLASS64; }
  bool uses_rela() const override { return false; }
  u32 got_entry_size() const override { return 8; }

  std::string type_name(u32 type) const override {
    switch (type) {
    case R_NONE: return "R_BPF_NONE";
    case R_64_64: return "R_BPF_64_64";
    case R_ABS64: return "R_BPF_64_ABS64";
    case R_ABS32: return "R_BPF_64_ABS32";
    case R_NODYLD32: return "R_BPF_64_NODYLD32";
    case R_64_32: return "R_BPF_64_32";
    }
    return strf("type %u", type);
  }

  RelocKind classify(u32 type) const override {
    using E = RelExpr;
    using R = Range;
    auto ok = [](RelocHowto h) { return RelocKind{h}; };
    switch (type) {
    case R_NONE: return ok({E::None, 0, R::Wrap});
    // S + A over two imm fields
    case R_64_64: return ok({E::Abs, 8, R::Wrap, FieldKind::Custom, 16});
    // (S + A - P) / 8 into imm, A = imm * 8
    case R_64_32: return ok({E::PC, 4, R::Signed, FieldKind::Custom, 8, kInsn});
    case R_ABS64: return ok({E::Abs, 8, R::Wrap});       // S + A
    case R_ABS32:                                         // S + A
    case R_NODYLD32: return ok({E::Abs, 4, R::Unsigned}); // S + A
    }
    return RelocKind{};
  }

  i64 read_addend(u32 type, const u8 *at) const override {
    if (type == R_64_32)
      return (i64)imm_at(at) * kInsn;
    // ld_imm64: the value the two imm fields hold.
    return (i64)((u64)(u32)imm_at(at) | (u64)(u32)imm_at(at + kInsn) << 32);
  }

  void encode(u32 type, u8 *view, u64 value) const override {
    code::store(view + kImm, 4, value);
    if (type == R_64_64)
      code::store(view + kInsn + kImm, 4, value >> 32);
  }
};

} // namespace

const Arch &bpf_arch() {
  static const Bpf backend;
  return backend;
}

} // namespace mk
