// i386 backend.
//
// Every address fits the 32-bit fields, so 32-bit fields wrap modulo 2^32 as
// the hardware does and are never out of range; only 8- and 16-bit fields can
// overflow.  Relocations are REL: the addend is the field's current contents,
// read once when the object is parsed (object.cpp), after which this backend
// sees explicit addends like any other.  PIC code reaches the GOT through a
// base register (usually %ebx) loaded with _GLOBAL_OFFSET_TABLE_ via GOTPC,
// and addresses data as GOTOFF from it; GOT32/GOT32X then give the slot's
// offset from the GOT base.  Without a base register (-fno-pic code built
// -fno-plt) GOT32X is the slot's absolute address instead, which is why
// refine() looks at the instruction's ModRM byte.
#include "arch.h"

#include <elf.h>

namespace mk {
namespace {

#define TYPES(X)                                                               \
  X(NONE, 0) X(32, 1) X(PC32, 2) X(GOT32, 3) X(PLT32, 4) X(COPY, 5)            \
  X(GLOB_DAT, 6) X(JMP_SLOT, 7) X(RELATIVE, 8) X(GOTOFF, 9) X(GOTPC, 10)       \
  X(32PLT, 11) X(TLS_TPOFF, 14) X(TLS_IE, 15) X(TLS_GOTIE, 16) X(TLS_LE, 17)   \
  X(TLS_GD, 18) X(TLS_LDM, 19) X(16, 20) X(PC16, 21) X(8, 22) X(PC8, 23)       \
  X(TLS_GD_32, 24) X(TLS_GD_PUSH, 25) X(TLS_GD_CALL, 26) X(TLS_GD_POP, 27)     \
  X(TLS_LDM_32, 28) X(TLS_LDM_PUSH, 29) X(TLS_LDM_CALL, 30)                    \
  X(TLS_LDM_POP, 31) X(TLS_LDO_32, 32) X(TLS_IE_32, 33) X(TLS_LE_32, 34)       \
  X(TLS_DTPMOD32, 35) X(TLS_DTPOFF32, 36) X(TLS_TPOFF32, 37) X(SIZE32, 38)     \
  X(TLS_GOTDESC, 39) X(TLS_DESC_CALL, 40) X(TLS_DESC, 41) X(IRELATIVE, 42)     \
  X(GOT32X, 43)

class I386 final : public Arch {
public:
  I386() { build_table(); }
  u16 machine() const override { return EM_386; }
  const char *name() const override { return "i386"; }
  int elf_class() const override { return ELFCLASS32; }
  bool uses_rela() const override { return false; }
  u32 got_entry_size() const override { return 4; }
  u32 call_type() const override { return 4; } // R_386_PLT32

  std::string type_name(u32 type) const override {
    switch (type) {
#define NAME(n, v)                                                             \
  case v:                                                                      \
    return "R_386_" #n;
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
    case 0: return ok(E::None, 0, R::Wrap);          // NONE
    case 1: return ok(E::Abs, 4, R::Wrap);           // 32: S + A
    case 2:                                          // PC32: S + A - P
    case 4: return ok(E::PC, 4, R::Wrap);            // PLT32: L + A - P, L = S
    case 3:                                          // GOT32: G + A
    case 43: return ok(E::GotSlotOff, 4, R::Wrap);   // GOT32X: G + A (see refine)
    case 9: return ok(E::GotRel, 4, R::Wrap);        // GOTOFF: S + A - GOT
    case 10: return ok(E::GotBasePC, 4, R::Wrap);    // GOTPC: GOT + A - P
    case 20: return ok(E::Abs, 2, R::Either);        // 16
    case 21: return ok(E::PC, 2, R::Signed);         // PC16
    case 22: return ok(E::Abs, 1, R::Either);        // 8
    case 23: return ok(E::PC, 1, R::Signed);         // PC8
    case 38: return ok(E::Size, 4, R::Wrap);         // SIZE32: Z + A
    case 14: case 15: case 16: case 17: case 18: case 19: case 24: case 25:
    case 26: case 27: case 28: case 29: case 30: case 31: case 32: case 33:
    case 34: case 35: case 36: case 37: case 39: case 40: case 41:
      return RelocKind{{}, "thread-local storage is not supported in a "
                           "kernel module"};
    case 5: case 6: case 7: case 8: case 42:
      return RelocKind{{}, "dynamic relocation in a relocatable object"};
    }
    return RelocKind{};
  }

  bool refines() const override { return true; }
  RelExpr refine(u32 type, RelExpr expr, const u8 *section,
                 u64 field_off) const override {
    // GOT32/GOT32X in an instruction with no base register (ModRM mod=00,
    // r/m=101: disp32 alone) address the slot absolutely: G + GOT + A.
    if ((type == 3 || type == 43) && field_off >= 1 && section &&
        (section[field_off - 1] & 0xc7) == 0x05)
      return RelExpr::GotSlotAbs;
    return expr;
  }
};

} // namespace

const Arch &i386_arch() {
  static const I386 backend;
  return backend;
}

} // namespace mk
