// Validation (object.cpp, parse_object): every malformed object is built by
// hand with a comment on the one field that is wrong, and is refused with
// the exact one-line message naming the file and the problem.
#include "support.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace mkt;

namespace {

// The smallest valid object: .text, one global function, one relocation.
// Sections: 1 .text, 2 .rela.text (or .rel.text), then 3 .symtab,
// 4 .strtab, 5 .shstrtab.
struct Minimal {
  ObjBuilder b;
  u32 text, relsec, foo;
  explicit Minimal(Target t) : b(t) {
    text = b.text(zeros(16));
    foo = b.symbol("foo", text, 0, 16, STB_GLOBAL, STT_FUNC);
    if (t == Target::X86_64) {
      b.rela(text, 0, R_X86_64_64, foo, 0);
      relsec = b.reloc_section(text, true);
    } else {
      b.rel(text, 0, R_386_32, foo);
      relsec = b.reloc_section(text, false);
    }
  }
};

std::string parse_error(const ObjBuilder &b) { return message_of(parse(b)); }
std::string parse_error(std::vector<u8> bytes) {
  return message_of(mk::parse_object(std::move(bytes), "t.o", "t.o"));
}

u64 built_shoff(const ObjBuilder &b) {
  std::vector<u8> f = b.build();
  if (b.is64()) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, f.data(), sizeof eh);
    return eh.e_shoff;
  }
  Elf32_Ehdr eh;
  std::memcpy(&eh, f.data(), sizeof eh);
  return eh.e_shoff;
}

} // namespace

TEST_CASE("validate: the minimal objects are accepted") {
  for (Target t : {Target::X86_64, Target::I386}) {
    Minimal m(t);
    auto obj = parse(m.b);
    REQUIRE_OK(obj);
    CHECK(obj->name == "t.o");
    CHECK(obj->arch->name() == std::string(t == Target::X86_64 ? "x86_64"
                                                                 : "i386"));
    CHECK(obj->sections.size() == 6);
    CHECK(obj->symtab_index == 3);
    CHECK(obj->symbols.size() == 2);
    CHECK(obj->symbols[1].name == "foo");
    REQUIRE(obj->relocs.size() == 1);
    CHECK(obj->relocs[0].target == m.text);
    CHECK(obj->relocs[0].relocs.size() == 1);
  }
}

TEST_CASE("validate: file too short") {
  Minimal m(Target::X86_64);
  std::vector<u8> f = m.b.build();
  // Shorter than e_ident.
  CHECK(parse_error(std::vector<u8>(f.begin(), f.begin() + 10)) ==
        "t.o: file too short for an ELF header");
  // A valid ELF64 e_ident, but cut before the end of the 64-byte header.
  CHECK(parse_error(std::vector<u8>(f.begin(), f.begin() + 40)) ==
        "t.o: file too short for an ELF header");
  CHECK(parse_error(std::vector<u8>{}) ==
        "t.o: file too short for an ELF header");
}

TEST_CASE("validate: bad magic") {
  Minimal m(Target::X86_64);
  m.b.hdr.magic[1] = 'e'; // e_ident[EI_MAG1]: "\x7f" "eLF"
  CHECK(parse_error(m.b) == "t.o: not an ELF file (bad magic)");
}

TEST_CASE("validate: bad class") {
  Minimal m(Target::X86_64);
  m.b.hdr.ei_class = 3; // e_ident[EI_CLASS]: neither ELFCLASS32 nor 64
  CHECK(parse_error(m.b) == "t.o: invalid ELF class 3");
  m.b.hdr.ei_class = ELFCLASSNONE;
  CHECK(parse_error(m.b) == "t.o: invalid ELF class 0");
}

TEST_CASE("validate: big-endian") {
  Minimal m(Target::X86_64);
  m.b.hdr.ei_data = ELFDATA2MSB; // e_ident[EI_DATA]: big-endian
  CHECK(parse_error(m.b) ==
        "t.o: unsupported ELF data encoding 2 (need little-endian)");
}

TEST_CASE("validate: bad version") {
  Minimal m(Target::X86_64);
  SUBCASE("e_ident[EI_VERSION]") {
    m.b.hdr.ei_version = 2; // e_ident[EI_VERSION]: not EV_CURRENT
    CHECK(parse_error(m.b) == "t.o: unsupported ELF version 2");
  }
  SUBCASE("e_version") {
    m.b.hdr.e_version = 2; // e_version: not EV_CURRENT
    CHECK(parse_error(m.b) == "t.o: unsupported ELF version 2");
  }
}

TEST_CASE("validate: wrong machine") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_machine = EM_AARCH64; // e_machine: no backend for it
  CHECK(parse_error(m.b) == "t.o: unsupported machine 183");
}

TEST_CASE("validate: class and machine disagree") {
  SUBCASE("ELF32 file claiming x86_64") {
    Minimal m(Target::I386);
    m.b.hdr.e_machine = EM_X86_64; // e_machine: x86_64 objects are ELF64
    CHECK(parse_error(m.b) ==
          "t.o: ELF class ELF32 does not match machine x86_64");
  }
  SUBCASE("ELF64 file claiming i386") {
    Minimal m(Target::X86_64);
    m.b.hdr.e_machine = EM_386; // e_machine: i386 objects are ELF32
    CHECK(parse_error(m.b) ==
          "t.o: ELF class ELF64 does not match machine i386");
  }
}

TEST_CASE("validate: not ET_REL") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_type = ET_DYN; // e_type: a shared object
  CHECK(parse_error(m.b) == "t.o: not a relocatable object (e_type ET_DYN)");
  m.b.hdr.e_type = ET_EXEC; // e_type: an executable
  CHECK(parse_error(m.b) == "t.o: not a relocatable object (e_type ET_EXEC)");
  Minimal m32(Target::I386);
  m32.b.hdr.e_type = ET_CORE; // e_type: a core file
  CHECK(parse_error(m32.b) ==
        "t.o: not a relocatable object (e_type ET_CORE)");
}

TEST_CASE("validate: wrong e_shentsize") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_shentsize = 40; // e_shentsize: the ELF32 size in an ELF64 file
  CHECK(parse_error(m.b) == "t.o: section header entry size 40, expected 64");
  Minimal m32(Target::I386);
  m32.b.hdr.e_shentsize = 64; // e_shentsize: the ELF64 size in an ELF32 file
  CHECK(parse_error(m32.b) ==
        "t.o: section header entry size 64, expected 40");
}

TEST_CASE("validate: no section header table") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_shoff = 0; // e_shoff: no table
  CHECK(parse_error(m.b) == "t.o: no section header table");
}

TEST_CASE("validate: section header table outside the file") {
  Minimal m(Target::X86_64);
  const u64 fsize = m.b.build().size();
  SUBCASE("starts past the end") {
    m.b.hdr.e_shoff = fsize; // e_shoff: just past the last byte
    CHECK(parse_error(m.b) == "t.o: section header table lies outside the file");
  }
  SUBCASE("offset overflows") {
    m.b.hdr.e_shoff = ~0ull - 8; // e_shoff + e_shentsize wraps around
    CHECK(parse_error(m.b) == "t.o: section header table lies outside the file");
  }
  SUBCASE("too many entries") {
    const u64 shoff = built_shoff(m.b);
    m.b.hdr.e_shnum = 200; // e_shnum: 200 headers do not fit after e_shoff
    CHECK(parse_error(m.b) ==
          mk::strf("t.o: section header table (200 entries at 0x%llx) lies "
                   "outside the file",
                   (unsigned long long)shoff));
  }
  SUBCASE("ELF32: too many entries") {
    Minimal m32(Target::I386);
    const u64 shoff = built_shoff(m32.b);
    m32.b.hdr.e_shnum = 100; // e_shnum: 100 headers do not fit
    CHECK(parse_error(m32.b) ==
          mk::strf("t.o: section header table (100 entries at 0x%llx) lies "
                   "outside the file",
                   (unsigned long long)shoff));
  }
}

TEST_CASE("validate: section contents outside the file") {
  Minimal m(Target::X86_64);
  SUBCASE("past the end") {
    m.b.sec(m.text).offset = 0x100000; // .text sh_offset: far past the end
    CHECK(parse_error(m.b) == "t.o: section 1: contents (0x10 bytes at "
                              "0x100000) lie outside the file");
  }
  SUBCASE("offset + size overflows") {
    m.b.sec(m.text).offset = ~0ull - 7; // sh_offset + sh_size wraps around
    CHECK(parse_error(m.b) == "t.o: section 1: contents (0x10 bytes at "
                              "0xfffffffffffffff8) lie outside the file");
  }
  SUBCASE("size too large") {
    m.b.sec(m.text).size = 0x7fffffff; // .text sh_size: larger than the file
    // .text is the first section: right after the 64-byte ELF header.
    CHECK(parse_error(m.b) == "t.o: section 1: contents (0x7fffffff bytes at "
                              "0x40) lie outside the file");
  }
  SUBCASE("ELF32") {
    Minimal m32(Target::I386);
    m32.b.sec(m32.text).offset = 0xfffffff8; // sh_offset: near 4 GiB
    CHECK(parse_error(m32.b) == "t.o: section 1: contents (0x10 bytes at "
                                "0xfffffff8) lie outside the file");
  }
}

TEST_CASE("validate: a NOBITS section may lie anywhere") {
  Minimal m(Target::X86_64);
  u32 bss = m.b.bss(0x100000);
  m.b.sec(bss).offset = 0x7fff0000; // irrelevant: NOBITS has no contents
  REQUIRE_OK(parse(m.b));
}

TEST_CASE("validate: alignment not a power of two") {
  Minimal m(Target::X86_64);
  m.b.sec(m.text).align = 12; // .text sh_addralign: not a power of two
  CHECK(parse_error(m.b) == "t.o: section 1: alignment 12 is not a power of two");
}

TEST_CASE("validate: shstrndx out of range") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_shstrndx = 6; // e_shstrndx: one past the last section
  CHECK(parse_error(m.b) ==
        "t.o: section name string table index out of range");
}

TEST_CASE("validate: section names not in a string table") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_shstrndx = 1; // e_shstrndx: .text, a PROGBITS section
  CHECK(parse_error(m.b) == "t.o: section name table is not a string table");
}

TEST_CASE("validate: no sections") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_shnum = 0; // e_shnum 0, and section 0's sh_size 0 as well
  CHECK(parse_error(m.b) == "t.o: no sections");
}

TEST_CASE("validate: extended section numbering is read from section 0") {
  Minimal m(Target::X86_64);
  m.b.hdr.e_shnum = 0;            // the count lives in section 0's sh_size
  m.b.sec(0).size = 6;
  m.b.hdr.e_shstrndx = SHN_XINDEX; // the index lives in section 0's sh_link
  m.b.sec(0).link = 5;
  auto obj = parse(m.b);
  REQUIRE_OK(obj);
  CHECK(obj->sections.size() == 6);
  CHECK(obj->sections[1].name == ".text");
}

TEST_CASE("validate: section name offset outside the name table") {
  Minimal m(Target::X86_64);
  m.b.sec(m.text).name_offset = 0x1000; // .text sh_name: past .shstrtab
  CHECK(parse_error(m.b) ==
        "t.o: section 1: name offset 4096 outside the section name table");
}

TEST_CASE("validate: no symbol table") {
  ObjBuilder b(Target::X86_64);
  b.text(zeros(4));
  b.symtab.count = 0; // no SHT_SYMTAB section at all
  CHECK(parse_error(b) == "t.o: no symbol table");
}

TEST_CASE("validate: two symbol tables") {
  Minimal m(Target::X86_64);
  m.b.symtab.count = 2; // a second SHT_SYMTAB section
  CHECK(parse_error(m.b) == "t.o: 2 symbol tables (expected exactly one)");
}

TEST_CASE("validate: symbol table entry size") {
  Minimal m(Target::X86_64);
  m.b.symtab.entsize = 16; // .symtab sh_entsize: Elf32_Sym's in ELF64
  CHECK(parse_error(m.b) == "t.o: symbol table entry size 16, expected 24");
  Minimal m32(Target::I386);
  m32.b.symtab.entsize = 24; // .symtab sh_entsize: Elf64_Sym's in ELF32
  CHECK(parse_error(m32.b) == "t.o: symbol table entry size 24, expected 16");
}

TEST_CASE("validate: symbol table sh_link") {
  Minimal m(Target::X86_64);
  SUBCASE("not a string table") {
    m.b.symtab.link = 1; // .symtab sh_link: .text
    CHECK(parse_error(m.b) ==
          "t.o: symbol table: string table index 1 is not a string table");
  }
  SUBCASE("out of range") {
    m.b.symtab.link = 99; // .symtab sh_link: no such section
    CHECK(parse_error(m.b) ==
          "t.o: symbol table: string table index 99 is not a string table");
  }
  SUBCASE("zero") {
    m.b.symtab.link = 0; // .symtab sh_link: SHN_UNDEF
    CHECK(parse_error(m.b) ==
          "t.o: symbol table: string table index 0 is not a string table");
  }
}

TEST_CASE("validate: symbol string table not NUL-terminated") {
  Minimal m(Target::X86_64);
  u32 str = m.b.section(".mystrtab", SHT_STRTAB, 0, 1, {'f', 'o', 'o'});
  m.b.symtab.link = str; // .symtab sh_link: a string table without its NUL
  CHECK(parse_error(m.b) ==
        "t.o: symbol string table is empty or not NUL-terminated");
}

TEST_CASE("validate: symbol name offset outside the string table") {
  Minimal m(Target::X86_64);
  m.b.sym(m.foo).name_offset = 0x1000; // foo st_name: past .strtab's end
  CHECK(parse_error(m.b) ==
        "t.o: symbol 1: name offset 4096 outside the string table");
  Minimal m32(Target::I386);
  m32.b.sym(m32.foo).name_offset = 5; // st_name == sh_size of "\0foo\0"
  CHECK(parse_error(m32.b) ==
        "t.o: symbol 1: name offset 5 outside the string table");
}

TEST_CASE("validate: symbol section index out of range") {
  Minimal m(Target::X86_64);
  m.b.symbol("bar", 40); // bar st_shndx: there are 6 sections
  CHECK(parse_error(m.b) == "t.o: symbol 2 (bar): section index 40 out of range");
  Minimal m2(Target::I386);
  m2.b.symbol("baz", 6); // baz st_shndx: one past the last section
  CHECK(parse_error(m2.b) == "t.o: symbol 2 (baz): section index 6 out of range");
}

TEST_CASE("validate: symbol in an unsupported special section") {
  Minimal m(Target::X86_64);
  m.b.symbol("bar", SHN_LOPROC); // bar st_shndx: processor-specific
  CHECK(parse_error(m.b) ==
        "t.o: symbol 2 (bar): unsupported special section index 0xff00");
}

TEST_CASE("validate: extended symbol section index without SHT_SYMTAB_SHNDX") {
  Minimal m(Target::X86_64);
  m.b.symbol("big", SHN_XINDEX); // big st_shndx: "see SHT_SYMTAB_SHNDX"
  CHECK(parse_error(m.b) == "t.o: symbol 2 (big): extended section index "
                            "without SHT_SYMTAB_SHNDX");
}

TEST_CASE("validate: relocation section sh_link") {
  Minimal m(Target::X86_64);
  m.b.sec(m.relsec).link = 1; // .rela.text sh_link: .text, not .symtab
  CHECK(parse_error(m.b) == "t.o: .rela.text: sh_link 1 is not the symbol table");
  Minimal m32(Target::I386);
  m32.b.sec(m32.relsec).link = 4; // .rel.text sh_link: .strtab
  CHECK(parse_error(m32.b) == "t.o: .rel.text: sh_link 4 is not the symbol table");
}

TEST_CASE("validate: relocation section sh_info") {
  Minimal m(Target::X86_64);
  SUBCASE("zero") {
    m.b.sec(m.relsec).info = 0; // .rela.text sh_info: the null section
    CHECK(parse_error(m.b) ==
          "t.o: .rela.text: sh_info 0 does not name a section to relocate");
  }
  SUBCASE("out of range") {
    m.b.sec(m.relsec).info = 6; // .rela.text sh_info: past the last section
    CHECK(parse_error(m.b) ==
          "t.o: .rela.text: sh_info 6 does not name a section to relocate");
  }
  SUBCASE("itself") {
    m.b.sec(m.relsec).info = m.relsec; // .rela.text sh_info: a RELA section
    CHECK(parse_error(m.b) ==
          "t.o: .rela.text: sh_info 2 does not name a section to relocate");
  }
}

TEST_CASE("validate: relocation section entry size") {
  Minimal m(Target::X86_64);
  m.b.sec(m.relsec).entsize = 16; // .rela.text sh_entsize: Elf64_Rel's
  CHECK(parse_error(m.b) == "t.o: .rela.text: entry size 16, expected 24");
  Minimal m32(Target::I386);
  m32.b.sec(m32.relsec).entsize = 12; // .rel.text sh_entsize: Elf32_Rela's
  CHECK(parse_error(m32.b) == "t.o: .rel.text: entry size 12, expected 8");
}

TEST_CASE("validate: relocation section size") {
  Minimal m(Target::X86_64);
  m.b.sec(m.relsec).size = 25; // .rela.text sh_size: one entry and a byte
  CHECK(parse_error(m.b) ==
        "t.o: .rela.text: size is not a multiple of its entry size");
}

TEST_CASE("validate: REL relocation in a section with no contents") {
  Minimal m(Target::I386);
  u32 bss = m.b.bss(16, 4);
  m.b.rel(bss, 4, R_386_32, m.foo); // REL: the addend would be in .bss
  CHECK(parse_error(m.b) ==
        "t.o:(.bss+0x4): REL relocation in a section with no contents");
}

TEST_CASE("validate: relocation field outside its section") {
  Minimal m(Target::X86_64);
  // r_offset 14: the 4-byte field would end at 18, .text has 16 bytes.
  m.b.rela(m.text, 14, R_X86_64_PC32, m.foo, -4);
  CHECK(parse_error(m.b) == "t.o:(.text+0xe): relocation R_X86_64_PC32: field "
                            "of 4 bytes lies outside .text (size 0x10)");
}

TEST_CASE("validate: relocation field offset overflows") {
  Minimal m(Target::X86_64);
  // r_offset near 2^64: offset + width wraps around to a small number.
  m.b.rela(m.text, ~0ull - 3, R_X86_64_64, m.foo, 0);
  CHECK(parse_error(m.b) ==
        "t.o:(.text+0xfffffffffffffffc): relocation R_X86_64_64: field of 8 "
        "bytes lies outside .text (size 0x10)");
}

TEST_CASE("validate: relocation field outside its section (i386 REL)") {
  Minimal m(Target::I386);
  // r_offset 15: the 2-byte field would end at 17, .text has 16 bytes.
  m.b.rel(m.text, 15, R_386_16, m.foo);
  CHECK(parse_error(m.b) == "t.o:(.text+0xf): relocation R_386_16: field of "
                            "2 bytes lies outside .text (size 0x10)");
}

TEST_CASE("validate: relocation symbol index out of range") {
  Minimal m(Target::X86_64);
  m.b.rela(m.text, 8, R_X86_64_64, 7, 0); // r_info symbol: only 2 symbols
  CHECK(parse_error(m.b) == "t.o:(.text+0x8): relocation R_X86_64_64: symbol "
                            "index 7 out of range (2 symbols)");
  Minimal m32(Target::I386);
  m32.b.rel(m32.text, 4, R_386_PC32, 2); // r_info symbol: one past the last
  CHECK(parse_error(m32.b) == "t.o:(.text+0x4): relocation R_386_PC32: symbol "
                              "index 2 out of range (2 symbols)");
}

TEST_CASE("validate: a call into the middle of an undefined function") {
  // The field of `call ext` ends the instruction: addend -4 lands on ext.
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(16));
  u32 ext = b.undef("ext");
  u32 local = b.symbol("local", text, 0, 16, STB_LOCAL, STT_FUNC);
  b.rela(text, 1, R_X86_64_PLT32, ext, -4);      // call ext
  b.rela(text, 6, R_X86_64_PLT32, local, 8 - 4); // call local+8: its own code
  b.rela(text, 11, R_X86_64_PLT32, ext, -0x30004);
  b.reloc_section(text, true);
  CHECK(parse_error(b) ==
        "t.o:(.text+0xb): relocation R_X86_64_PLT32 against ext: the call "
        "lands at ext-0x30000, not at the function's start (a call's addend "
        "is -4)");
  // i386 REL: the addend is the field's contents.
  std::vector<u8> code(16, 0);
  const i32 a = -4, far = 0x10 - 4;
  std::memcpy(&code[1], &a, 4);
  std::memcpy(&code[6], &far, 4);
  ObjBuilder b32(Target::I386);
  u32 text32 = b32.text(code);
  u32 ext32 = b32.undef("ext");
  b32.rel(text32, 1, R_386_PLT32, ext32);
  b32.rel(text32, 6, R_386_PLT32, ext32);
  b32.reloc_section(text32, false);
  CHECK(parse_error(b32) ==
        "t.o:(.text+0x6): relocation R_386_PLT32 against ext: the call lands "
        "at ext+0x10, not at the function's start (a call's addend is -4)");
}

TEST_CASE("validate: unknown relocation type") {
  Minimal m(Target::X86_64);
  m.b.rela(m.text, 8, 200, m.foo, 0); // r_info type: not in the psABI
  CHECK(parse_error(m.b) == "t.o:(.text+0x8): relocation type 200 against foo: "
                            "unknown relocation type");
  Minimal m32(Target::I386);
  m32.b.rel(m32.text, 8, 99, m32.foo); // r_info type: not in the psABI
  CHECK(parse_error(m32.b) == "t.o:(.text+0x8): relocation type 99 against "
                              "foo: unknown relocation type");
}

TEST_CASE("validate: TLS relocations are refused") {
  Minimal m(Target::X86_64);
  m.b.rela(m.text, 8, R_X86_64_TPOFF32, m.foo, 0); // thread-local access
  CHECK(parse_error(m.b) ==
        "t.o:(.text+0x8): relocation R_X86_64_TPOFF32 against foo: "
        "thread-local storage is not supported in a kernel module");
  Minimal m2(Target::X86_64);
  m2.b.rela(m2.text, 8, R_X86_64_GOTTPOFF, m2.foo, -4); // initial-exec TLS
  CHECK(parse_error(m2.b) ==
        "t.o:(.text+0x8): relocation R_X86_64_GOTTPOFF against foo: "
        "thread-local storage is not supported in a kernel module");
  Minimal m32(Target::I386);
  m32.b.rel(m32.text, 8, R_386_TLS_LE, m32.foo); // local-exec TLS
  CHECK(parse_error(m32.b) ==
        "t.o:(.text+0x8): relocation R_386_TLS_LE against foo: "
        "thread-local storage is not supported in a kernel module");
}

TEST_CASE("validate: dynamic relocations are refused") {
  Minimal m(Target::X86_64);
  m.b.rela(m.text, 8, R_X86_64_RELATIVE, 0, 0); // only in linked objects
  CHECK(parse_error(m.b) ==
        "t.o:(.text+0x8): relocation R_X86_64_RELATIVE against *ABS*: "
        "dynamic relocation in a relocatable object");
  Minimal m32(Target::I386);
  m32.b.rel(m32.text, 8, R_386_GLOB_DAT, m32.foo); // only in linked objects
  CHECK(parse_error(m32.b) ==
        "t.o:(.text+0x8): relocation R_386_GLOB_DAT against foo: "
        "dynamic relocation in a relocatable object");
}

TEST_CASE("validate: relocation against a section symbol names the section") {
  Minimal m(Target::X86_64);
  u32 data = m.b.data(zeros(8));
  u32 s = m.b.section_symbol(data);
  m.b.rela(m.text, 8, 250, s, 0); // r_info type: unknown
  CHECK(parse_error(m.b) == "t.o:(.text+0x8): relocation type 250 against "
                            ".data: unknown relocation type");
}

TEST_CASE("read_modinfo: key=value strings, without linking") {
  ObjBuilder b(Target::X86_64);
  const char info[] = "name=hello\0version=1\0no equals sign\0\0"
                      "license=BSD\0description=a=b";
  b.section(".modinfo", SHT_PROGBITS, 0, 1,
            std::vector<u8>(info, info + sizeof info - 1));
  auto obj = parse(b);
  REQUIRE_OK(obj);
  auto kv = mk::read_modinfo(*obj);
  REQUIRE(kv.size() == 4);
  CHECK(kv[0] == std::pair<std::string, std::string>("name", "hello"));
  CHECK(kv[1] == std::pair<std::string, std::string>("version", "1"));
  CHECK(kv[2] == std::pair<std::string, std::string>("license", "BSD"));
  // The last entry has no NUL; the first '=' splits.
  CHECK(kv[3] == std::pair<std::string, std::string>("description", "a=b"));
}

namespace {
// A DER element of `tag` holding `parts`.
std::vector<u8> der(u8 tag, std::initializer_list<std::vector<u8>> parts) {
  std::vector<u8> body;
  for (const auto &p : parts)
    body.insert(body.end(), p.begin(), p.end());
  std::vector<u8> out{tag};
  if (body.size() < 128) {
    out.push_back((u8)body.size());
  } else {
    out.push_back(0x82);
    out.push_back((u8)(body.size() >> 8));
    out.push_back((u8)body.size());
  }
  out.insert(out.end(), body.begin(), body.end());
  return out;
}
const std::vector<u8> kOidData = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01};
const std::vector<u8> kOidSigned = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02};
const std::vector<u8> kOne = {0x02, 0x01, 0x01};
std::vector<u8> signer_info() {
  return der(0x30, {kOne, der(0x30, {der(0x30, {}), kOne}), der(0x30, {}),
                    der(0x30, {}), der(0x04, {{0xaa, 0xbb}})});
}
// A module signature's message: the content info around `signed_data`.
std::vector<u8> message(std::vector<u8> signed_data) {
  return der(0x30, {kOidSigned, der(0xa0, {signed_data})});
}
std::string shape_error(const std::vector<u8> &m) {
  mk::AppendedSignature s;
  s.present = true;
  s.pkcs7 = m.data();
  s.pkcs7_len = m.size();
  auto r = mk::check_pkcs7_shape("m.ko", s);
  return r ? "" : r.error().message;
}
} // namespace

TEST_CASE("module signatures: the structural check takes a detached "
          "one-signer signedData and names what else it finds") {
  const auto eci = der(0x30, {kOidData});
  CHECK(shape_error(message(der(0x30, {kOne, der(0x31, {}), eci,
                                       der(0x31, {signer_info()})}))) == "");
  // With certificates and signed attributes, as some signers add.
  CHECK(shape_error(message(der(0x30, {kOne, der(0x31, {}), eci, der(0xa0, {der(0x30, {})}),
                                       der(0x31, {signer_info()})}))) == "");
  const std::string m = "m.ko: malformed module signature: ";
  // The content inside: not detached.
  CHECK(shape_error(message(der(0x30, {kOne, der(0x31, {}),
                                       der(0x30, {kOidData, der(0xa0, {der(0x04, {{1}})})}),
                                       der(0x31, {signer_info()})}))) ==
        m + "not a detached PKCS#7 signedData");
  CHECK(shape_error(message(der(0x30, {kOne, der(0x31, {}), eci,
                                       der(0x31, {signer_info(), signer_info()})}))) ==
        m + "it must have exactly one signer");
  CHECK(shape_error(message(der(0x30, {kOne, der(0x31, {}), eci, der(0x31, {})}))) ==
        m + "it must have exactly one signer");
  CHECK(shape_error(message(der(0x30, {kOne, der(0x31, {}), eci}))) ==
        m + "not a PKCS#7 signedData (no signer infos at its end)");
  // A signer info without its signature.
  CHECK(shape_error(message(der(0x30, {kOne, der(0x31, {}), eci,
                                       der(0x31, {der(0x30, {kOne, der(0x30, {}), der(0x30, {}),
                                                              der(0x30, {})})})}))) ==
        m + "its signer info has no signature");
  // An inner length that overruns its parent.
  auto good = message(der(0x30, {kOne, der(0x31, {}), eci, der(0x31, {signer_info()})}));
  auto broken = good;
  broken[broken.size() - 3] = 0x7f; // the signature OCTET STRING's length
  CHECK(shape_error(broken) == m + "not a PKCS#7 message (its DER elements do not nest)");
  CHECK(shape_error(std::vector<u8>(good.begin(), good.end() - 1)).find(
            "not a PKCS#7 message (no DER SEQUENCE spanning its") != std::string::npos);
  CHECK(shape_error(der(0x30, {kOidData, der(0xa0, {})})) ==
        m + "not a PKCS#7 signedData message");
}
