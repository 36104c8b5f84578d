// ObjBuilder: relocatable ELF objects built in memory, so each loader test
// carries its input beside its expectation.  ELF64/x86_64 and ELF32/i386;
// sections, one symbol table, and REL or RELA relocation sections.  Every
// header field the loader validates has a knob that overrides the value the
// builder would compute, so a test can break exactly one field.
#pragma once

#include "../../linker/base.h"

#include <elf.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace mkt {

using mk::i32;
using mk::i64;
using mk::u16;
using mk::u32;
using mk::u64;
using mk::u8;

// The file's layout: ELF64 for x86_64, ELF32 for i386.
enum class Target { X86_64, I386 };

// Little-endian bytes of `v` in `width` bytes, and concatenation, for
// writing section contents (and i386 implicit addends) inline.
std::vector<u8> le(u64 v, unsigned width);
std::vector<u8> cat(std::initializer_list<std::vector<u8>> parts);
inline std::vector<u8> zeros(size_t n) { return std::vector<u8>(n, 0); }

class ObjBuilder {
public:
  struct RelocEntry {
    u64 offset;
    u32 type;
    u32 sym; // written as is: may be out of range on purpose
    i64 addend;
  };

  struct SectionSpec {
    std::string name;
    u32 type = SHT_PROGBITS;
    u64 flags = 0;
    u64 align = 1;
    std::vector<u8> bytes;   // contents (not for SHT_NOBITS)
    u64 nobits_size = 0;     // size of an SHT_NOBITS section
    u64 entsize = 0; // relocation sections: 0 means the right size
    std::vector<RelocEntry> relocs; // SHT_REL / SHT_RELA: the entries
    // Knobs; empty: the value the builder computes.
    std::optional<u32> link, info;   // default: 0, or symtab/target for relocs
    std::optional<u64> offset, size; // raw sh_offset / sh_size
    std::optional<u32> name_offset;  // raw sh_name
  };

  struct SymbolSpec {
    std::string name;
    u32 shndx = SHN_UNDEF;
    u64 value = 0;
    u64 size = 0;
    u8 bind = STB_GLOBAL;
    u8 type = STT_NOTYPE;
    u8 visibility = STV_DEFAULT;
    std::optional<u32> name_offset; // knob: raw st_name
  };

  // ELF header knobs: raw values written instead of the computed ones.
  struct Header {
    u8 magic[4] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3};
    std::optional<u8> ei_class; // default: the target's
    u8 ei_data = ELFDATA2LSB;
    u8 ei_version = EV_CURRENT;
    u16 e_type = ET_REL;
    std::optional<u16> e_machine; // default: the target's
    u32 e_version = EV_CURRENT;
    std::optional<u64> e_shoff;
    std::optional<u16> e_shentsize, e_shnum, e_shstrndx;
  };

  // Knobs of the symbol table section (and how many there are).
  struct SymtabKnobs {
    unsigned count = 1; // 0: none; 2: a second, identical one
    std::optional<u64> entsize;
    std::optional<u32> link;
  };

  explicit ObjBuilder(Target t);
  Target target() const { return target_; }
  bool is64() const { return target_ == Target::X86_64; }

  // Sections; each returns the new section's index.
  u32 section(std::string name, u32 type, u64 flags, u64 align,
              std::vector<u8> bytes);
  u32 nobits(std::string name, u64 flags, u64 align, u64 size);
  u32 text(std::vector<u8> bytes, u64 align = 16) {
    return section(".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, align,
                   std::move(bytes));
  }
  u32 rodata(std::vector<u8> bytes, u64 align = 8) {
    return section(".rodata", SHT_PROGBITS, SHF_ALLOC, align, std::move(bytes));
  }
  u32 data(std::vector<u8> bytes, u64 align = 8) {
    return section(".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, align,
                   std::move(bytes));
  }
  u32 bss(u64 size, u64 align = 8) {
    return nobits(".bss", SHF_ALLOC | SHF_WRITE, align, size);
  }

  // Symbols; each returns the new symbol's index (0 is the null symbol).
  // Indices are handed out in call order: add locals first, as ELF wants.
  u32 symbol(std::string name, u32 shndx, u64 value = 0, u64 size = 0,
             u8 bind = STB_GLOBAL, u8 type = STT_NOTYPE);
  u32 undef(std::string name, u8 bind = STB_GLOBAL) {
    return symbol(std::move(name), SHN_UNDEF, 0, 0, bind);
  }
  // A COMMON symbol: st_value is its alignment.
  u32 common(std::string name, u64 size, u64 align) {
    return symbol(std::move(name), SHN_COMMON, align, size, STB_GLOBAL,
                  STT_OBJECT);
  }
  u32 section_symbol(u32 shndx) {
    return symbol("", shndx, 0, 0, STB_LOCAL, STT_SECTION);
  }

  // Relocations of section `target`, collected in ".rela<name>" (explicit
  // addend) or ".rel<name>" (the addend is what the section's bytes hold
  // at `offset`: write it there).  Either kind works in either class.
  void rela(u32 target, u64 offset, u32 type, u32 sym, i64 addend);
  void rel(u32 target, u64 offset, u32 type, u32 sym);
  // The relocation section of `target` (created by the first rel/rela).
  u32 reloc_section(u32 target, bool rela) const;

  // A section's spec, to turn its knobs; sec(0) is the null section, whose
  // size/link knobs carry the extended section count / shstrndx.
  SectionSpec &sec(u32 index) { return sections_.at(index); }
  SymbolSpec &sym(u32 index) { return symbols_.at(index); }

  Header hdr;
  SymtabKnobs symtab;

  std::vector<u8> build() const;

private:
  template <class Ehdr, class Shdr, class Sym, class Rel, class Rela>
  std::vector<u8> build_as() const;
  u32 reloc_section_for(u32 target, bool rela);

  Target target_;
  std::vector<SectionSpec> sections_; // [0] is the null section
  std::vector<SymbolSpec> symbols_;   // [0] is the null symbol
};

} // namespace mkt
