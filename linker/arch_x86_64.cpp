// x86_64 backend.
//
// The psABI's small code model assumes code and data within 2 GiB of each
// other: calls and PC-relative data references are 32-bit signed (PC32,
// PLT32), and -fno-pic code also takes absolute addresses in 32-bit fields
// (R_X86_64_32 zero-extended, 32S sign-extended), so such modules must sit
// below 2 GiB.  That is why the kernel is linked at a fixed low address and
// the module arena is reserved near it.  -mcmodel=large code uses 64-bit
// absolute addresses (R_X86_64_64) and GOT-relative forms (GOTOFF64, GOTPC64,
// PLTOFF64), which work anywhere.  Every relocation is RELA: the addend is in
// the entry, never in the field.  There is no PLT in a module: a PLT32 call
// goes straight to its target, which the arena keeps within rel32 reach.
// GOT-based forms (from -fpic, -fno-plt, the large model) use a per-module
// GOT; GOTPCRELX forms may be relaxed by a static linker, minikern keeps the
// GOT load, which reaches the same final target.
#include "arch.h"

#include <elf.h>

namespace mk {
namespace {

#define TYPES(X)                                                               \
  X(NONE, 0) X(64, 1) X(PC32, 2) X(GOT32, 3) X(PLT32, 4) X(COPY, 5)            \
  X(GLOB_DAT, 6) X(JUMP_SLOT, 7) X(RELATIVE, 8) X(GOTPCREL, 9) X(32, 10)       \
  X(32S, 11) X(16, 12) X(PC16, 13) X(8, 14) X(PC8, 15) X(DTPMOD64, 16)         \
  X(DTPOFF64, 17) X(TPOFF64, 18) X(TLSGD, 19) X(TLSLD, 20) X(DTPOFF32, 21)     \
  X(GOTTPOFF, 22) X(TPOFF32, 23) X(PC64, 24) X(GOTOFF64, 25) X(GOTPC32, 26)    \
  X(GOT64, 27) X(GOTPCREL64, 28) X(GOTPC64, 29) X(GOTPLT64, 30)                \
  X(PLTOFF64, 31) X(SIZE32, 32) X(SIZE64, 33) X(GOTPC32_TLSDESC, 34)           \
  X(TLSDESC_CALL, 35) X(TLSDESC, 36) X(IRELATIVE, 37) X(RELATIVE64, 38)        \
  X(GOTPCRELX, 41) X(REX_GOTPCRELX, 42) X(CODE_4_GOTPCRELX, 43)                \
  X(CODE_4_GOTTPOFF, 44) X(CODE_4_GOTPC32_TLSDESC, 45)

class X86_64 final : public Arch {
public:
  X86_64() { build_table(); }
  u16 machine() const override { return EM_X86_64; }
  const char *name() const override { return "x86_64"; }
  int elf_class() const override { return ELFCLASS64; }
  bool uses_rela() const override { return true; }
  u32 got_entry_size() const override { return 8; }
  u32 call_type() const override { return 4; } // R_X86_64_PLT32

  std::string type_name(u32 type) const override {
    switch (type) {
#define NAME(n, v)                                                             \
  case v:                                                                      \
    return "R_X86_64_" #n;
      TYPES(NAME)
#undef NAME
    }
    return strf("type %u", type);
  }

  RelocKind classify(u32 type) const override {
    using E = RelExpr;
    using R = Range;
    auto ok = [](E e, u8 w, R r) { return RelocKind{RelocHowto{e, w, r}}; };
    switch (type) {
    case 0: return ok(E::None, 0, R::Wrap);           // NONE
    case 1: return ok(E::Abs, 8, R::Wrap);            // 64: S + A
    case 2:                                           // PC32: S + A - P
    case 4: return ok(E::PC, 4, R::Signed);           // PLT32: L + A - P, L = S
    case 3: return ok(E::GotSlotOff, 4, R::Signed);   // GOT32: G + A
    case 9:                                           // GOTPCREL: G + GOT + A - P
    case 41:                                          // GOTPCRELX
    case 42:                                          // REX_GOTPCRELX
    case 43: return ok(E::GotSlotPC, 4, R::Signed);   // CODE_4_GOTPCRELX
    case 10: return ok(E::Abs, 4, R::Unsigned);       // 32: S + A, zero-extended
    case 11: return ok(E::Abs, 4, R::Signed);         // 32S: S + A, sign-extended
    case 12: return ok(E::Abs, 2, R::Either);         // 16
    case 13: return ok(E::PC, 2, R::Signed);          // PC16
    case 14: return ok(E::Abs, 1, R::Either);         // 8
    case 15: return ok(E::PC, 1, R::Signed);          // PC8
    case 24: return ok(E::PC, 8, R::Wrap);            // PC64: S + A - P
    case 25: return ok(E::GotRel, 8, R::Wrap);        // GOTOFF64: S + A - GOT
    case 26: return ok(E::GotBasePC, 4, R::Signed);   // GOTPC32: GOT + A - P
    case 27:                                          // GOT64: G + A
    case 30: return ok(E::GotSlotOff, 8, R::Wrap);    // GOTPLT64: G + A
    case 28: return ok(E::GotSlotPC, 8, R::Wrap);     // GOTPCREL64: G + GOT - P + A
    case 29: return ok(E::GotBasePC, 8, R::Wrap);     // GOTPC64: GOT - P + A
    case 31: return ok(E::GotRel, 8, R::Wrap);        // PLTOFF64: L - GOT + A
    case 32: return ok(E::Size, 4, R::Signed);        // SIZE32: Z + A
    case 33: return ok(E::Size, 8, R::Wrap);          // SIZE64: Z + A
    case 16: case 17: case 18: case 19: case 20: case 21: case 22: case 23:
    case 34: case 35: case 36: case 44: case 45:
      return RelocKind{{}, "thread-local storage is not supported in a "
                           "kernel module"};
    case 5: case 6: case 7: case 8: case 37: case 38:
      return RelocKind{{}, "dynamic relocation in a relocatable object"};
    }
    return RelocKind{};
  }
};

} // namespace

const Arch &x86_64_arch() {
  static const X86_64 backend;
  return backend;
}

} // namespace mk
