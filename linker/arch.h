// The interface between the machine-independent loader and one backend per
// architecture.  A backend maps each psABI relocation type to an arch-neutral
// expression (RelExpr) plus the field it writes; the core computes the value
// with the psABI formula and writes it through one range-checked helper.
// Adding an architecture means adding one file with its Arch and a line in
// arch_for_machine(); the core never switches on e_machine.
#pragma once

#include "base.h"

#include <optional>
#include <string>

namespace mk {

// What a relocation computes, in psABI terms.  S: symbol value, A: addend,
// P: address of the field, G: offset of the symbol's GOT slot from the GOT
// base, GOT: address of the GOT, Z: symbol size.
enum class RelExpr : u8 {
  None,        // nothing
  Abs,         // S + A
  PC,          // S + A - P
  GotSlotPC,   // GOT + G + A - P   (address of the slot, PC-relative)
  GotSlotAbs,  // GOT + G + A       (absolute address of the slot)
  GotSlotOff,  // G + A             (slot offset from the GOT base)
  GotBasePC,   // GOT + A - P
  GotRel,      // S + A - GOT
  Size,        // Z + A
};

// The expression needs the symbol's GOT slot / the GOT's address.
inline bool needs_got_slot(RelExpr e) {
  return e == RelExpr::GotSlotPC || e == RelExpr::GotSlotAbs ||
         e == RelExpr::GotSlotOff;
}
inline bool needs_got_base(RelExpr e) {
  return e == RelExpr::GotBasePC || e == RelExpr::GotRel;
}
// Either: the module needs a GOT.
inline bool is_got_relative(RelExpr e) {
  return needs_got_slot(e) || needs_got_base(e);
}

// Which values a field of `width` bytes accepts.
enum class Range : u8 {
  Wrap,      // any value; the field keeps the low bits (full-width fields)
  Signed,    // [-2^(n-1), 2^(n-1))
  Unsigned,  // [0, 2^n)
  Either,    // signed or unsigned: [-2^(n-1), 2^n)
};

// Where a relocation's value is stored.
enum class FieldKind : u8 {
  Plain,  // `width` little-endian bytes at P
  Custom, // spread over an instruction: the backend's encode() writes it
          // and read_addend() reads a REL entry's addend (BPF's imm fields)
};

struct RelocHowto {
  RelExpr expr;
  u8 width; // bytes of the value: its range; for Plain fields, what is stored
  Range range;
  FieldKind field = FieldKind::Plain;
  u8 footprint = 0; // bytes at P the entry may touch (0: `width`)
  u8 scale = 1;     // the field holds value / scale (BPF calls: instructions)
  u8 bytes_at_p() const { return footprint ? footprint : width; }
};

// How a relocation type is handled, or why it is refused.
struct RelocKind {
  std::optional<RelocHowto> howto; // empty: refused
  const char *refusal = nullptr;   // why, when refused ("TLS", …)
};

class Arch;

// classify() for every type number, computed once per backend: the
// relocation loops look a type up here instead of calling the backend per
// entry.
class RelocTable {
public:
  explicit RelocTable(const Arch &arch);
  const RelocKind &operator[](u32 type) const {
    return type < kSize ? table_[type] : unknown_;
  }
  // For the parser's tight loop (type < kSize): the bytes an entry may
  // touch at P, or kRefused (more than any section holds) when the type is
  // refused; whether the type is GOT-relative.
  static constexpr u64 kRefused = 1ull << 62;
  u64 reach(u32 type) const { return reach_[type]; }
  bool got_relative(u32 type) const { return got_[type]; }
  const Arch &arch() const { return arch_; }
  static constexpr u32 kSize = 256;

private:
  const Arch &arch_;
  RelocKind table_[kSize];
  RelocKind unknown_;
  u64 reach_[kSize];
  bool got_[kSize];
};

class Arch {
public:
  virtual ~Arch() = default;
  virtual u16 machine() const = 0;
  virtual const char *name() const = 0; // "x86_64", "i386"
  virtual int elf_class() const = 0;    // ELFCLASS32 / ELFCLASS64
  virtual bool uses_rela() const = 0;   // RELA (explicit) or REL (implicit addends)
  virtual u32 got_entry_size() const = 0;
  // "R_X86_64_PC32"; an unknown number is rendered as "type N".
  virtual std::string type_name(u32 type) const = 0;
  virtual RelocKind classify(u32 type) const = 0;
  // Some types mean different things by the instruction they sit in (i386
  // GOT32X with or without a base register).  `section` holds the
  // section's bytes as the object has them; `field_off` is the field's
  // offset there.  Only ObjectFile::howto() calls this.
  virtual RelExpr refine(u32 type, RelExpr expr, const u8 *section,
                         u64 field_off) const {
    (void)type, (void)section, (void)field_off;
    return expr;
  }
  // The type of a call or jump to a function (`call f`: PLT32), whose
  // 4-byte field ends the instruction, so that addend -4 lands on the
  // symbol itself; kNoCallType when the arch has none.  The parser refuses
  // such a call into an undefined symbol at any other addend: it would
  // enter some other module's or the kernel's function in its middle.
  static constexpr u32 kNoCallType = ~0u;
  virtual u32 call_type() const { return kNoCallType; }
  // Whether refine() can change anything (spares the call per relocation).
  virtual bool refines() const { return false; }
  // FieldKind::Custom only: a REL entry's implicit addend, in bytes, read
  // from the instruction at `at` (the entry's r_offset) ...
  virtual i64 read_addend(u32 type, const u8 *at) const {
    (void)type, (void)at;
    return 0;
  }
  // ... and the store of a value already divided by the scale and checked
  // against the range, through the code write primitive (code.h).
  virtual void encode(u32 type, u8 *view, u64 value) const {
    (void)type, (void)view, (void)value;
  }

  // The backend's classification of every type.
  const RelocTable &table() const { return *table_; }

protected:
  // Each backend's constructor ends with this (classify() is callable
  // from there, not from Arch's own constructor).
  void build_table() { table_.emplace(*this); }

private:
  std::optional<RelocTable> table_;
};

// The backend for an ELF e_machine, or nullptr: the one factory.
const Arch *arch_for_machine(u16 machine);
// The backends, each defined in its own file.
const Arch &x86_64_arch();
const Arch &i386_arch();
const Arch &bpf_arch();

} // namespace mk
