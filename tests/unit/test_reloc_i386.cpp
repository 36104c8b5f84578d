// i386 relocations (arch_i386.cpp + link.cpp): one test per type.  i386
// objects use REL: the addend is the field's contents, read once by
// parse_object (sign-extended to the field's width) so that relocate sees
// explicit addends; the bytes each test writes into .text are those
// implicit addends.  The image sits at kBase: .text first, the GOT (if
// any) at kBase + 0x1000.  32-bit fields wrap modulo 2^32; 8- and 16-bit
// fields are range-checked and fail with the exact message.
#include "support.h"

#include <doctest/doctest.h>

using namespace mkt;

namespace {

Linked linked(const ObjBuilder &b, const Externals &ext = {}) {
  auto l = link(b, kBase, ext);
  REQUIRE_OK(l);
  return std::move(*l);
}
std::string error(const ObjBuilder &b, const Externals &ext = {}) {
  return message_of(link(b, kBase, ext));
}

u64 lo32(u64 v) { return v & 0xffffffffu; }

} // namespace

TEST_CASE("i386 REL: implicit addends are read at parse time, sign-extended") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(cat({le(0x12345678, 4), le(0xfffffffc, 4), le(0xfffe, 2),
                         le(0x80, 1), le(0x7f, 1), le(0x7fff, 2)}));
  u32 foo = b.undef("foo");
  b.rel(text, 0, R_386_32, foo);
  b.rel(text, 4, R_386_PC32, foo);
  b.rel(text, 8, R_386_16, foo);
  b.rel(text, 10, R_386_8, foo);
  b.rel(text, 11, R_386_PC8, foo);
  b.rel(text, 12, R_386_PC16, foo);
  b.rel(text, 12, R_386_NONE, foo);
  auto obj = parse(b);
  REQUIRE_OK(obj);
  REQUIRE(obj->relocs.size() == 1);
  const auto &r = obj->relocs[0].relocs;
  REQUIRE(r.size() == 7);
  CHECK(r[0].addend == 0x12345678);
  CHECK(r[1].addend == -4);
  CHECK(r[2].addend == -2);
  CHECK(r[3].addend == -128);
  CHECK(r[4].addend == 127);
  CHECK(r[5].addend == 0x7fff);
  CHECK(r[6].addend == 0); // NONE has no field to read
  CHECK(r[1].type == R_386_PC32);
  CHECK(r[1].sym == foo);
  CHECK(r[1].offset == 4);
}

TEST_CASE("i386 RELA: an explicit addend, the field's contents ignored") {
  ObjBuilder b(Target::I386);
  u32 data = b.data(le(0xdeadbeef, 4), 4);
  u32 foo = b.symbol("foo", SHN_ABS, 0x1000);
  b.rela(data, 0, R_386_32, foo, 0x10);
  Linked l = linked(b);
  CHECK(l.field(data, 0, 4) == 0x1010);
}

TEST_CASE("x86_64 REL: the same normalisation for an ELF64 REL section") {
  ObjBuilder b(Target::X86_64);
  u32 data = b.data(le(0xfffffffffffffff8ull, 8));
  u32 foo = b.symbol("foo", SHN_ABS, 0x1000);
  b.rel(data, 0, R_X86_64_64, foo);
  auto obj = parse(b);
  REQUIRE_OK(obj);
  CHECK(obj->relocs[0].relocs[0].addend == -8);
  CHECK(linked(b).field(data, 0, 8) == 0xff8);
}

TEST_CASE("i386 R_386_NONE: nothing is written") {
  ObjBuilder b(Target::I386);
  u32 text = b.text({0x90, 0x90, 0x90, 0x90});
  u32 foo = b.symbol("foo", SHN_ABS, 0x1234);
  b.rel(text, 0, R_386_NONE, foo);
  CHECK(linked(b).field(text, 0, 4) == 0x90909090);
}

TEST_CASE("i386 R_386_32: S + A") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(zeros(32));
  u32 data = b.data(cat({le(8, 4), le(0, 4)}), 4);
  u32 fn = b.symbol("fn", text, 0x10, 4, STB_GLOBAL, STT_FUNC);
  b.rel(data, 0, R_386_32, fn); // .long fn+8
  Linked l = linked(b);
  const u64 S = l.values[fn], A = 8;
  CHECK(l.field(data, 0, 4) == lo32(S + A));
  CHECK(l.field(data, 0, 4) == 0x10000018);
}

TEST_CASE("i386 R_386_32: wraps modulo 2^32, never out of range") {
  ObjBuilder b(Target::I386);
  u32 data = b.data(le(0x20, 4), 4);
  u32 top = b.symbol("top", SHN_ABS, 0xfffffff0);
  b.rel(data, 0, R_386_32, top);
  CHECK(linked(b).field(data, 0, 4) == 0x10);
}

TEST_CASE("i386 R_386_PC32: S + A - P") {
  ObjBuilder b(Target::I386);
  // call fn: e8 with the implicit addend -4.
  u32 text = b.text(cat({{0xe8}, le(0xfffffffc, 4), zeros(27)}));
  u32 fn = b.symbol("fn", text, 0x10, 4, STB_GLOBAL, STT_FUNC);
  b.rel(text, 1, R_386_PC32, fn);
  Linked l = linked(b);
  const u64 S = kBase + 0x10, P = kBase + 1;
  const i64 A = -4;
  CHECK(l.field(text, 1, 4) == lo32(S + A - P));
  CHECK(l.field(text, 1, 4) == 0xb);
  CHECK(l.field(text, 0, 1) == 0xe8);
}

TEST_CASE("i386 R_386_PC32: a backward reach wraps, never out of range") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(cat({{0xe8}, le(0xfffffffc, 4)}));
  u32 low = b.symbol("low", SHN_ABS, 0x1000);
  b.rel(text, 1, R_386_PC32, low);
  Linked l = linked(b);
  CHECK(l.field(text, 1, 4) == lo32(0x1000 - 4 - (kBase + 1)));
}

TEST_CASE("i386 R_386_PLT32: L + A - P, L = S") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(cat({{0xe8}, le(0xfffffffc, 4)})); // call printf@PLT
  u32 printf_ = b.undef("printf");
  b.rel(text, 1, R_386_PLT32, printf_);
  Linked l = linked(b, {{"printf", 0x08049000}});
  const u64 S = 0x08049000, P = kBase + 1;
  const i64 A = -4;
  CHECK(l.field(text, 1, 4) == lo32(S + A - P));
  CHECK(l.sfield(text, 1, 4) == -0x7fb7005);
}

// ---- GOT forms: PIC code holds the GOT base in a register (%ebx) --------

TEST_CASE("i386 R_386_GOTPC: GOT + A - P") {
  ObjBuilder b(Target::I386);
  // add $_GLOBAL_OFFSET_TABLE_+2, %ebx (81 c3 imm32): A = 2 is the distance
  // from the thunk's return address to the field.
  u32 text = b.text(cat({{0x81, 0xc3}, le(2, 4)}));
  u32 got = b.undef("_GLOBAL_OFFSET_TABLE_");
  b.rel(text, 2, R_386_GOTPC, got);
  Linked l = linked(b);
  const u64 GOT = l.pl.got_addr, A = 2, P = kBase + 2;
  CHECK(GOT == kBase + 0x1000);
  CHECK(l.field(text, 2, 4) == lo32(GOT + A - P));
  CHECK(l.field(text, 2, 4) == 0x1000);
}

TEST_CASE("i386 R_386_GOTOFF: S + A - GOT") {
  ObjBuilder b(Target::I386);
  // lea var@GOTOFF+4(%ebx), %eax (8d 83 disp32)
  u32 text = b.text(cat({{0x8d, 0x83}, le(4, 4)}));
  u32 data = b.data(zeros(16), 4);
  u32 var = b.symbol("var", data, 8, 4, STB_LOCAL, STT_OBJECT);
  b.rel(text, 2, R_386_GOTOFF, var);
  b.undef("_GLOBAL_OFFSET_TABLE_");
  Linked l = linked(b);
  const u64 S = l.values[var], A = 4, GOT = l.pl.got_addr;
  CHECK(l.field(text, 2, 4) == lo32(S + A - GOT));
  CHECK(l.field(text, 2, 4) == 0xc); // zero GOT slots: .data starts at GOT
}

TEST_CASE("i386 R_386_GOTOFF: below the GOT wraps") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(cat({{0x8d, 0x83}, le(0, 4)}));
  u32 fn = b.symbol("fn", text, 0, 1, STB_LOCAL, STT_FUNC);
  b.rel(text, 2, R_386_GOTOFF, fn);
  Linked l = linked(b);
  CHECK(l.sfield(text, 2, 4) == -0x1000);
}

TEST_CASE("i386 R_386_GOT32 with a base register: G + A") {
  ObjBuilder b(Target::I386);
  // mov foo@GOT(%ebx), %eax (8b 83 disp32: ModRM mod=10, r/m=011 = %ebx)
  // mov bar@GOT(%ebx), %ecx (8b 8b disp32)
  u32 text = b.text(cat({{0x8b, 0x83}, le(0, 4), {0x8b, 0x8b}, le(0, 4)}));
  u32 foo = b.undef("foo");
  u32 bar = b.undef("bar");
  b.rel(text, 2, R_386_GOT32, foo);
  b.rel(text, 8, R_386_GOT32, bar);
  Linked l = linked(b, {{"foo", 0x08049000}, {"bar", 0x0804a000}});
  CHECK(l.G(foo) == 0);
  CHECK(l.G(bar) == 4);
  CHECK(l.field(text, 2, 4) == l.G(foo) + 0);
  CHECK(l.field(text, 8, 4) == 4);
  CHECK(l.got_entry(0) == 0x08049000);
  CHECK(l.got_entry(1) == 0x0804a000);
}

TEST_CASE("i386 R_386_GOT32X with a base register: G + A") {
  ObjBuilder b(Target::I386);
  // call *foo@GOT(%ebx) (ff 93 disp32: mod=10, r/m=011), addend 0;
  // mov bar@GOT+8(%ebx), %eax (8b 83 disp32), addend 8.
  u32 text = b.text(cat({{0xff, 0x93}, le(0, 4), {0x8b, 0x83}, le(8, 4)}));
  u32 foo = b.undef("foo");
  u32 bar = b.undef("bar");
  b.rel(text, 2, R_386_GOT32X, foo);
  b.rel(text, 8, R_386_GOT32X, bar);
  Linked l = linked(b, {{"foo", 0x08049000}, {"bar", 0x0804a000}});
  CHECK(l.field(text, 2, 4) == 0);
  CHECK(l.field(text, 8, 4) == 4 + 8);
  CHECK(l.got_entry(0) == 0x08049000);
  CHECK(l.got_entry(1) == 0x0804a000);
}

TEST_CASE("i386 R_386_GOT32X without a base register: GOT + G + A") {
  ObjBuilder b(Target::I386);
  // -fno-pic -fno-plt: call *foo@GOT (ff 15 disp32: ModRM mod=00, r/m=101,
  // disp32 alone) and mov bar@GOT, %eax (8b 05 disp32).
  u32 text = b.text(cat({{0xff, 0x15}, le(0, 4), {0x8b, 0x05}, le(0, 4)}));
  u32 foo = b.undef("foo");
  u32 bar = b.undef("bar");
  b.rel(text, 2, R_386_GOT32X, foo);
  b.rel(text, 8, R_386_GOT32X, bar);
  Linked l = linked(b, {{"foo", 0x08049000}, {"bar", 0x0804a000}});
  const u64 GOT = l.pl.got_addr;
  CHECK(l.field(text, 2, 4) == lo32(GOT + l.G(foo) + 0));
  CHECK(l.field(text, 2, 4) == 0x10001000);
  CHECK(l.field(text, 8, 4) == 0x10001004);
  // Dereferencing the field reaches the target.
  CHECK(mk::read_field(l.image.data() + (l.field(text, 8, 4) - kBase), 4) ==
        0x0804a000);
}

TEST_CASE("i386 R_386_GOT32 without a base register: GOT + G + A") {
  ObjBuilder b(Target::I386);
  // mov foo@GOT+4, %ecx (8b 0d disp32: ModRM mod=00, r/m=101)
  u32 text = b.text(cat({{0x8b, 0x0d}, le(4, 4)}));
  u32 foo = b.undef("foo");
  b.rel(text, 2, R_386_GOT32, foo);
  Linked l = linked(b, {{"foo", 0x08049000}});
  CHECK(l.field(text, 2, 4) == 0x10001004);
}

TEST_CASE("i386 R_386_GOT32X at the start of a section: no ModRM, G + A") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(le(0, 4));
  u32 foo = b.undef("foo");
  b.rel(text, 0, R_386_GOT32X, foo);
  Linked l = linked(b, {{"foo", 1}});
  CHECK(l.field(text, 0, 4) == 0);
}

TEST_CASE("i386 R_386_SIZE32: Z + A") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(le(4, 4));
  u32 data = b.data(zeros(0x40), 4);
  u32 table = b.symbol("table", data, 0, 0x40, STB_GLOBAL, STT_OBJECT);
  b.rel(text, 0, R_386_SIZE32, table);
  CHECK(linked(b).field(text, 0, 4) == 0x44);
}

TEST_CASE("i386 R_386_SIZE32 against an undefined symbol is refused") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(le(0, 4));
  u32 ext = b.undef("ext_table");
  b.rel(text, 0, R_386_SIZE32, ext);
  CHECK(error(b, {{"ext_table", 0x08049000}}) ==
        "t.o:(.text+0x0): relocation R_386_SIZE32 against ext_table: the size "
        "of a symbol outside the module is unknown");
}

TEST_CASE("i386 R_386_16: S + A, 16 bits") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(cat({le(0xf, 2), le(0x8000, 2), {0xcc}}));
  u32 v = b.symbol("v", SHN_ABS, 0xfff0);
  u32 zero = b.symbol("zero", SHN_ABS, 0);
  b.rel(text, 0, R_386_16, v);    // 0xfff0 + 0xf = 0xffff: fits unsigned
  b.rel(text, 2, R_386_16, zero); // 0 + -0x8000: fits signed
  Linked l = linked(b);
  CHECK(l.field(text, 0, 2) == 0xffff);
  CHECK(l.field(text, 2, 2) == 0x8000);
  CHECK(l.field(text, 4, 1) == 0xcc);
}

TEST_CASE("i386 R_386_16: out of range") {
  // S + A = 0xfff0 + 0x10; an implicit 16-bit addend cannot push an
  // absolute value below -0x8000, so only the top end can overflow.
  ObjBuilder b(Target::I386);
  u32 text = b.text(le(0x10, 2));
  u32 foo = b.symbol("foo", SHN_ABS, 0xfff0);
  b.rel(text, 0, R_386_16, foo);
  CHECK(error(b) == "t.o:(.text+0x0): relocation R_386_16 against foo out "
                    "of range: 0x10000 is not in [-32768, 65535]");
}

TEST_CASE("i386 R_386_PC16: S + A - P, 16 bits") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(cat({zeros(2), le(0xfffe, 2), zeros(0x1c)}));
  u32 lbl = b.symbol("lbl", text, 0x1e);
  b.rel(text, 2, R_386_PC16, lbl);
  Linked l = linked(b);
  const u64 S = kBase + 0x1e, P = kBase + 2;
  const i64 A = -2;
  CHECK(l.field(text, 2, 2) == ((S + A - P) & 0xffff));
  CHECK(l.field(text, 2, 2) == 0x1a);
}

TEST_CASE("i386 R_386_PC16: out of range") {
  SUBCASE("forward") {
    ObjBuilder b(Target::I386);
    u32 text = b.text(zeros(4));
    u32 foo = b.symbol("foo", SHN_ABS, kBase + 2 + 0x8000);
    b.rel(text, 2, R_386_PC16, foo);
    CHECK(error(b) == "t.o:(.text+0x2): relocation R_386_PC16 against foo "
                      "out of range: 0x8000 is not in [-32768, 32767]");
  }
  SUBCASE("backward") {
    ObjBuilder b(Target::I386);
    u32 text = b.text(zeros(4));
    u32 foo = b.symbol("foo", SHN_ABS, kBase + 2 - 0x8001);
    b.rel(text, 2, R_386_PC16, foo);
    CHECK(error(b) == "t.o:(.text+0x2): relocation R_386_PC16 against foo "
                      "out of range: -0x8001 is not in [-32768, 32767]");
  }
}

TEST_CASE("i386 R_386_8: S + A, 8 bits") {
  ObjBuilder b(Target::I386);
  u32 text = b.text({0x0f, 0x80, 0xcc});
  u32 v = b.symbol("v", SHN_ABS, 0xf0);
  u32 zero = b.symbol("zero", SHN_ABS, 0);
  b.rel(text, 0, R_386_8, v);    // 0xf0 + 0xf = 0xff: fits unsigned
  b.rel(text, 1, R_386_8, zero); // 0 + -0x80: fits signed
  Linked l = linked(b);
  CHECK(l.field(text, 0, 1) == 0xff);
  CHECK(l.field(text, 1, 1) == 0x80);
  CHECK(l.field(text, 2, 1) == 0xcc);
}

TEST_CASE("i386 R_386_8: out of range") {
  ObjBuilder b(Target::I386);
  u32 text = b.text({0x00, 0x01});
  u32 foo = b.symbol("foo", SHN_ABS, 0xff);
  b.rel(text, 1, R_386_8, foo); // 0xff + 1
  CHECK(error(b) == "t.o:(.text+0x1): relocation R_386_8 against foo out of "
                    "range: 0x100 is not in [-128, 255]");
}

TEST_CASE("i386 R_386_PC8: S + A - P, 8 bits") {
  ObjBuilder b(Target::I386);
  // jmp lbl (eb rel8, addend -1); at 0x11 a jump back to the start.
  u32 text = b.text(cat({{0xeb, 0xff}, zeros(15), {0xeb, 0xff}}));
  u32 lbl = b.symbol("lbl", text, 0x10);
  u32 back = b.symbol("back", text, 0);
  b.rel(text, 1, R_386_PC8, lbl);
  b.rel(text, 0x12, R_386_PC8, back);
  Linked l = linked(b);
  CHECK(l.field(text, 1, 1) == 0xe);      // 0x10 - 1 - 1
  CHECK(l.sfield(text, 0x12, 1) == -0x13); // 0 - 1 - 0x12
}

TEST_CASE("i386 R_386_PC8: out of range") {
  SUBCASE("forward") {
    ObjBuilder b(Target::I386);
    u32 text = b.text({0xeb, 0x00});
    u32 foo = b.symbol("foo", SHN_ABS, kBase + 1 + 0x80);
    b.rel(text, 1, R_386_PC8, foo);
    CHECK(error(b) == "t.o:(.text+0x1): relocation R_386_PC8 against foo out "
                      "of range: 0x80 is not in [-128, 127]");
  }
  SUBCASE("backward") {
    ObjBuilder b(Target::I386);
    u32 text = b.text({0xeb, 0xff}); // A = -1
    u32 foo = b.symbol("foo", SHN_ABS, kBase + 1 - 0x80);
    b.rel(text, 1, R_386_PC8, foo);
    CHECK(error(b) == "t.o:(.text+0x1): relocation R_386_PC8 against foo out "
                      "of range: -0x81 is not in [-128, 127]");
  }
}
