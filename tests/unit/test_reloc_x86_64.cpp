// x86_64 relocations (arch_x86_64.cpp + link.cpp, relocate): one test per
// type.  Each object is placed at kBase (0x10000000): .text at kBase, the
// GOT (if any) at kBase + 0x1000, .data on the next page after the GOT's
// slots.  Every check states the psABI formula with its names (S, A, P, G,
// GOT, Z) and the concrete bytes; every range-checked type also fails with
// the exact message when the value does not fit.  Values far from the
// image come from SHN_ABS symbols, since the whole image sits at one base.
#include "support.h"

#include <doctest/doctest.h>

using namespace mkt;

namespace {

// .text (32 bytes of 0xcc) at kBase, .data (32 bytes) after it.
struct X64 {
  ObjBuilder b{Target::X86_64};
  u32 text = b.text(std::vector<u8>(32, 0xcc));
  u32 data = b.data(zeros(32));

  Linked linked(const Externals &ext = {}) {
    auto l = link(b, kBase, ext);
    REQUIRE_OK(l);
    return std::move(*l);
  }
  std::string error(const Externals &ext = {}) {
    return message_of(link(b, kBase, ext));
  }
};

// The i32 a 4-byte field should hold for value v.
u64 lo32(u64 v) { return v & 0xffffffffu; }

} // namespace

TEST_CASE("x86_64 R_X86_64_NONE: nothing is written") {
  X64 t;
  u32 foo = t.b.symbol("foo", t.text, 0);
  t.b.rela(t.text, 4, R_X86_64_NONE, foo, 0x1234);
  Linked l = t.linked();
  CHECK(l.field(t.text, 0, 8) == 0xccccccccccccccccull);
}

TEST_CASE("x86_64 R_X86_64_64: S + A") {
  X64 t;
  u32 fn = t.b.symbol("fn", t.text, 0x10, 4, STB_GLOBAL, STT_FUNC);
  t.b.rela(t.data, 8, R_X86_64_64, fn, 8);
  Linked l = t.linked();
  const u64 S = l.values[fn], A = 8;
  CHECK(S == kBase + 0x10);
  CHECK(l.field(t.data, 8, 8) == S + A);
  CHECK(l.field(t.data, 8, 8) == 0x10000018);
}

TEST_CASE("x86_64 R_X86_64_64: full width, no range to check") {
  X64 t;
  u32 far = t.b.symbol("far", SHN_ABS, 0xffff800000001000ull);
  t.b.rela(t.data, 0, R_X86_64_64, far, -0x1000);
  Linked l = t.linked();
  CHECK(l.field(t.data, 0, 8) == 0xffff800000000000ull);
}

TEST_CASE("x86_64 R_X86_64_PC32: S + A - P") {
  X64 t;
  u32 var = t.b.symbol("var", t.data, 0x10, 8, STB_GLOBAL, STT_OBJECT);
  t.b.rela(t.text, 3, R_X86_64_PC32, var, -4); // mov var(%rip), %rax
  Linked l = t.linked();
  const u64 S = l.values[var], P = l.addr(t.text) + 3;
  const i64 A = -4;
  CHECK(l.field(t.text, 3, 4) == lo32(S + A - P));
  CHECK(l.field(t.text, 3, 4) == 0x1009); // 0x10001010 - 4 - 0x10000003
}

TEST_CASE("x86_64 R_X86_64_PC32: negative displacement") {
  X64 t;
  u32 fn = t.b.symbol("fn", t.text, 0, 1, STB_GLOBAL, STT_FUNC);
  t.b.rela(t.data, 4, R_X86_64_PC32, fn, 0);
  Linked l = t.linked();
  CHECK(l.sfield(t.data, 4, 4) == -0x1004);
}

TEST_CASE("x86_64 R_X86_64_PC32: range limits") {
  SUBCASE("largest that fits") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, kBase + 4 + 0x7fffffff);
    t.b.rela(t.text, 4, R_X86_64_PC32, foo, 0);
    CHECK(t.linked().field(t.text, 4, 4) == 0x7fffffff);
  }
  SUBCASE("smallest that fits") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, kBase + 4 - 0x80000000ull);
    t.b.rela(t.text, 4, R_X86_64_PC32, foo, 0);
    CHECK(t.linked().field(t.text, 4, 4) == 0x80000000);
  }
  SUBCASE("one too far forward") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, kBase + 4 + 0x80000000ull);
    t.b.rela(t.text, 4, R_X86_64_PC32, foo, 0);
    CHECK(t.error() == "t.o:(.text+0x4): relocation R_X86_64_PC32 against foo "
                       "out of range: 0x80000000 is not in [-2147483648, "
                       "2147483647]");
  }
  SUBCASE("one too far back") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, kBase + 4 - 0x80000001ull);
    t.b.rela(t.text, 4, R_X86_64_PC32, foo, 0);
    CHECK(t.error() == "t.o:(.text+0x4): relocation R_X86_64_PC32 against foo "
                       "out of range: -0x80000001 is not in [-2147483648, "
                       "2147483647]");
  }
}

TEST_CASE("x86_64 R_X86_64_PLT32: L + A - P, L = S (no PLT in a module)") {
  X64 t;
  u32 printf_ = t.b.undef("printf");
  t.b.rela(t.text, 1, R_X86_64_PLT32, printf_, -4); // call printf
  Linked l = t.linked({{"printf", 0x00401000}});
  const u64 S = 0x401000, P = kBase + 1;
  const i64 A = -4;
  CHECK(l.field(t.text, 1, 4) == lo32(S + A - P));
  CHECK(l.sfield(t.text, 1, 4) == -0xfbff005);
}

TEST_CASE("x86_64 R_X86_64_PLT32: out of range") {
  X64 t;
  u32 printf_ = t.b.undef("printf");
  t.b.rela(t.text, 1, R_X86_64_PLT32, printf_, -4);
  // S + A - P = 0x90000005 - 4 - 0x10000001 = 0x80000000
  CHECK(t.error({{"printf", 0x90000005}}) ==
        "t.o:(.text+0x1): relocation R_X86_64_PLT32 against printf out of "
        "range: 0x80000000 is not in [-2147483648, 2147483647]");
}

TEST_CASE("x86_64 R_X86_64_32: S + A, zero-extended") {
  X64 t;
  u32 hi = t.b.symbol("hi", SHN_ABS, 0x80001234); // fits only unsigned
  t.b.rela(t.text, 4, R_X86_64_32, hi, 0x10);
  Linked l = t.linked();
  CHECK(l.field(t.text, 4, 4) == 0x80001244);
}

TEST_CASE("x86_64 R_X86_64_32: out of range") {
  SUBCASE("above 4 GiB") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, 0xffffffff);
    t.b.rela(t.text, 4, R_X86_64_32, foo, 1);
    CHECK(t.error() == "t.o:(.text+0x4): relocation R_X86_64_32 against foo "
                       "out of range: 0x100000000 is not in [0, 4294967295]");
  }
  SUBCASE("negative") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, 0);
    t.b.rela(t.text, 4, R_X86_64_32, foo, -1);
    CHECK(t.error() == "t.o:(.text+0x4): relocation R_X86_64_32 against foo "
                       "out of range: -0x1 is not in [0, 4294967295]");
  }
}

TEST_CASE("x86_64 R_X86_64_32S: S + A, sign-extended") {
  X64 t;
  u32 neg = t.b.symbol("neg", SHN_ABS, 0xffffffff80001234ull);
  u32 pos = t.b.symbol("pos", SHN_ABS, 0x7ffffff0);
  t.b.rela(t.text, 0, R_X86_64_32S, neg, 0);
  t.b.rela(t.text, 4, R_X86_64_32S, pos, 0xf);
  Linked l = t.linked();
  CHECK(l.field(t.text, 0, 4) == 0x80001234);
  CHECK(l.field(t.text, 4, 4) == 0x7fffffff);
}

TEST_CASE("x86_64 R_X86_64_32S: out of range") {
  X64 t;
  u32 foo = t.b.symbol("foo", SHN_ABS, 0x80000000); // fine for 32, not 32S
  t.b.rela(t.text, 8, R_X86_64_32S, foo, 0);
  CHECK(t.error() == "t.o:(.text+0x8): relocation R_X86_64_32S against foo "
                     "out of range: 0x80000000 is not in [-2147483648, "
                     "2147483647]");
}

TEST_CASE("x86_64 R_X86_64_PC64: S + A - P, 64 bits") {
  X64 t;
  u32 far = t.b.symbol("far", SHN_ABS, 0x7f0000000000ull);
  t.b.rela(t.data, 8, R_X86_64_PC64, far, 0x20);
  Linked l = t.linked();
  const u64 S = 0x7f0000000000ull, A = 0x20, P = l.addr(t.data) + 8;
  CHECK(l.field(t.data, 8, 8) == S + A - P);
  CHECK(l.field(t.data, 8, 8) == 0x7effeffff018ull);
}

TEST_CASE("x86_64 R_X86_64_16: S + A, 16 bits") {
  X64 t;
  u32 port = t.b.symbol("port", SHN_ABS, 0xfff0);
  u32 neg = t.b.symbol("neg", SHN_ABS, 0);
  t.b.rela(t.text, 0, R_X86_64_16, port, 0xf); // 0xffff: fits unsigned
  t.b.rela(t.text, 2, R_X86_64_16, neg, -0x8000); // fits signed
  Linked l = t.linked();
  CHECK(l.field(t.text, 0, 2) == 0xffff);
  CHECK(l.field(t.text, 2, 2) == 0x8000);
  CHECK(l.field(t.text, 4, 1) == 0xcc); // nothing past the field
}

TEST_CASE("x86_64 R_X86_64_16: out of range") {
  SUBCASE("too large") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, 0x10000);
    t.b.rela(t.text, 2, R_X86_64_16, foo, 0);
    CHECK(t.error() == "t.o:(.text+0x2): relocation R_X86_64_16 against foo "
                       "out of range: 0x10000 is not in [-32768, 65535]");
  }
  SUBCASE("too small") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, 0);
    t.b.rela(t.text, 2, R_X86_64_16, foo, -0x8001);
    CHECK(t.error() == "t.o:(.text+0x2): relocation R_X86_64_16 against foo "
                       "out of range: -0x8001 is not in [-32768, 65535]");
  }
}

TEST_CASE("x86_64 R_X86_64_PC16: S + A - P, 16 bits") {
  X64 t;
  u32 lbl = t.b.symbol("lbl", t.text, 0x1e);
  t.b.rela(t.text, 2, R_X86_64_PC16, lbl, -2);
  t.b.rela(t.data, 0, R_X86_64_PC16, lbl, 0);
  Linked l = t.linked();
  const u64 S = kBase + 0x1e, P = kBase + 2;
  const i64 A = -2;
  CHECK(l.field(t.text, 2, 2) == ((S + A - P) & 0xffff));
  CHECK(l.field(t.text, 2, 2) == 0x1a);
  CHECK(l.sfield(t.data, 0, 2) == 0x1e - 0x1000);
}

TEST_CASE("x86_64 R_X86_64_PC16: out of range") {
  X64 t;
  u32 foo = t.b.symbol("foo", SHN_ABS, kBase + 2 + 0x8000);
  t.b.rela(t.text, 2, R_X86_64_PC16, foo, 0);
  CHECK(t.error() == "t.o:(.text+0x2): relocation R_X86_64_PC16 against foo "
                     "out of range: 0x8000 is not in [-32768, 32767]");
}

TEST_CASE("x86_64 R_X86_64_8: S + A, 8 bits") {
  X64 t;
  u32 v = t.b.symbol("v", SHN_ABS, 0xf0);
  t.b.rela(t.text, 0, R_X86_64_8, v, 0xf);  // 0xff: fits unsigned
  t.b.rela(t.text, 1, R_X86_64_8, v, -0x170); // -0x80: fits signed
  Linked l = t.linked();
  CHECK(l.field(t.text, 0, 1) == 0xff);
  CHECK(l.field(t.text, 1, 1) == 0x80);
  CHECK(l.field(t.text, 2, 1) == 0xcc);
}

TEST_CASE("x86_64 R_X86_64_8: out of range") {
  SUBCASE("too large") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, 0x100);
    t.b.rela(t.text, 5, R_X86_64_8, foo, 0);
    CHECK(t.error() == "t.o:(.text+0x5): relocation R_X86_64_8 against foo "
                       "out of range: 0x100 is not in [-128, 255]");
  }
  SUBCASE("too small") {
    X64 t;
    u32 foo = t.b.symbol("foo", SHN_ABS, 0);
    t.b.rela(t.text, 5, R_X86_64_8, foo, -0x81);
    CHECK(t.error() == "t.o:(.text+0x5): relocation R_X86_64_8 against foo "
                       "out of range: -0x81 is not in [-128, 255]");
  }
}

TEST_CASE("x86_64 R_X86_64_PC8: S + A - P, 8 bits") {
  X64 t;
  u32 lbl = t.b.symbol("lbl", t.text, 0x10);
  u32 back = t.b.symbol("back", t.text, 0x0);
  t.b.rela(t.text, 1, R_X86_64_PC8, lbl, -1);  // jmp lbl (eb rel8)
  t.b.rela(t.text, 0x11, R_X86_64_PC8, back, -1);
  Linked l = t.linked();
  CHECK(l.field(t.text, 1, 1) == 0xe);    // 0x10 - 1 - 1
  CHECK(l.sfield(t.text, 0x11, 1) == -0x12); // 0 - 1 - 0x11
}

TEST_CASE("x86_64 R_X86_64_PC8: out of range") {
  X64 t;
  u32 foo = t.b.symbol("foo", SHN_ABS, kBase + 1 + 0x80);
  t.b.rela(t.text, 1, R_X86_64_PC8, foo, 0);
  CHECK(t.error() == "t.o:(.text+0x1): relocation R_X86_64_PC8 against foo "
                     "out of range: 0x80 is not in [-128, 127]");
}

TEST_CASE("x86_64 R_X86_64_SIZE32: Z + A") {
  X64 t;
  u32 table = t.b.symbol("table", t.data, 0, 0x30, STB_GLOBAL, STT_OBJECT);
  t.b.rela(t.text, 4, R_X86_64_SIZE32, table, 8);
  Linked l = t.linked();
  CHECK(l.field(t.text, 4, 4) == 0x38);
}

TEST_CASE("x86_64 R_X86_64_SIZE32: out of range") {
  X64 t;
  u32 huge = t.b.symbol("huge", SHN_ABS, 0, 0x80000000ull);
  t.b.rela(t.text, 4, R_X86_64_SIZE32, huge, 0);
  CHECK(t.error() == "t.o:(.text+0x4): relocation R_X86_64_SIZE32 against "
                     "huge out of range: 0x80000000 is not in [-2147483648, "
                     "2147483647]");
}

TEST_CASE("x86_64 R_X86_64_SIZE64: Z + A") {
  X64 t;
  u32 huge = t.b.symbol("huge", SHN_ABS, 0, 0x123456789ull);
  t.b.rela(t.data, 8, R_X86_64_SIZE64, huge, -9);
  Linked l = t.linked();
  CHECK(l.field(t.data, 8, 8) == 0x123456780ull);
}

// ---- GOT forms: a per-module GOT in rodata, one slot per symbol ---------

TEST_CASE("x86_64 R_X86_64_GOTPCREL: GOT + G + A - P") {
  X64 t;
  u32 foo = t.b.undef("foo");
  u32 bar = t.b.undef("bar");
  t.b.rela(t.text, 3, R_X86_64_GOTPCREL, foo, -4);  // mov foo@GOTPCREL(%rip)
  t.b.rela(t.text, 10, R_X86_64_GOTPCREL, bar, -4);
  t.b.rela(t.text, 17, R_X86_64_GOTPCREL, foo, -4); // foo again: same slot
  Linked l = t.linked({{"foo", 0x401000}, {"bar", 0x402000}});
  const u64 GOT = l.pl.got_addr;
  CHECK(GOT == kBase + 0x1000);
  CHECK(l.G(foo) == 0);
  CHECK(l.G(bar) == 8);
  const i64 A = -4;
  CHECK(l.field(t.text, 3, 4) == lo32(GOT + l.G(foo) + A - (kBase + 3)));
  CHECK(l.field(t.text, 3, 4) == 0xff9);
  CHECK(l.field(t.text, 10, 4) == 0xffa); // 0x1008 - 4 - 10
  CHECK(l.field(t.text, 17, 4) == 0xfeb); // 0x1000 - 4 - 17
  // Each slot holds its symbol's address.
  CHECK(l.got_entry(0) == 0x401000);
  CHECK(l.got_entry(1) == 0x402000);
}

TEST_CASE("x86_64 R_X86_64_GOTPCRELX: GOT + G + A - P (the GOT load is kept)") {
  X64 t;
  u32 fn = t.b.symbol("fn", t.text, 0x18, 1, STB_GLOBAL, STT_FUNC);
  t.b.rela(t.text, 2, R_X86_64_GOTPCRELX, fn, -4); // call *fn@GOTPCREL(%rip)
  Linked l = t.linked();
  CHECK(l.field(t.text, 2, 4) == 0xffa); // 0x1000 + 0 - 4 - 2
  CHECK(l.got_entry(0) == kBase + 0x18);
}

TEST_CASE("x86_64 R_X86_64_REX_GOTPCRELX: GOT + G + A - P") {
  X64 t;
  u32 var = t.b.symbol("var", t.data, 8, 8, STB_GLOBAL, STT_OBJECT);
  t.b.rela(t.text, 3, R_X86_64_REX_GOTPCRELX, var, -4); // mov var@GOTPCREL(%rip), %rax
  Linked l = t.linked();
  CHECK(l.field(t.text, 3, 4) == 0xff9);
  CHECK(l.got_entry(0) == l.addr(t.data) + 8);
  CHECK(l.addr(t.data) == kBase + 0x2000); // the GOT page pushed .data on
}

TEST_CASE("x86_64 GOTPCREL forms: out of range") {
  // GOT + G + A - P = 0x10001000 + 0 + 0x7ffff004 - 0x10000004 = 0x80000000
  for (auto [type, name] : {std::pair<u32, const char *>{R_X86_64_GOTPCREL,
                                                         "R_X86_64_GOTPCREL"},
                            {R_X86_64_GOTPCRELX, "R_X86_64_GOTPCRELX"},
                            {R_X86_64_REX_GOTPCRELX, "R_X86_64_REX_GOTPCRELX"},
                            {43u, "R_X86_64_CODE_4_GOTPCRELX"}}) {
    CAPTURE(name);
    X64 t;
    u32 foo = t.b.undef("foo");
    t.b.rela(t.text, 4, type, foo, 0x7ffff004);
    CHECK(t.error({{"foo", 0x401000}}) ==
          mk::strf("t.o:(.text+0x4): relocation %s against foo out of range: "
                   "0x80000000 is not in [-2147483648, 2147483647]",
                   name));
  }
}

TEST_CASE("x86_64 R_X86_64_CODE_4_GOTPCRELX: GOT + G + A - P") {
  X64 t;
  u32 foo = t.b.undef("foo");
  t.b.rela(t.text, 4, 43 /* R_X86_64_CODE_4_GOTPCRELX */, foo, -4); // APX
  Linked l = t.linked({{"foo", 0x401000}});
  CHECK(l.field(t.text, 4, 4) == 0xff8); // 0x1000 + 0 - 4 - 4
  CHECK(l.got_entry(0) == 0x401000);
}

TEST_CASE("x86_64 R_X86_64_GOTPCREL64: GOT + G + A - P, 64 bits") {
  X64 t;
  u32 foo = t.b.undef("foo");
  u32 bar = t.b.undef("bar");
  t.b.rela(t.text, 16, R_X86_64_GOT64, foo, 0); // slot 0
  t.b.rela(t.text, 8, R_X86_64_GOTPCREL64, bar, 0); // slot 1
  Linked l = t.linked({{"foo", 1}, {"bar", 0x7f0000000000ull}});
  const u64 GOT = l.pl.got_addr, G = l.G(bar), P = kBase + 8;
  CHECK(l.field(t.text, 8, 8) == GOT + G + 0 - P);
  CHECK(l.field(t.text, 8, 8) == 0x1000);
  CHECK(l.got_entry(1) == 0x7f0000000000ull);
}

TEST_CASE("x86_64 R_X86_64_GOTPLT64: G + A, 64 bits") {
  X64 t;
  u32 fn = t.b.undef("fn");
  t.b.rela(t.text, 8, R_X86_64_GOTPLT64, fn, 0);
  Linked l = t.linked({{"fn", 0x401000}});
  CHECK(l.field(t.text, 8, 8) == 0);
  CHECK(l.got_entry(0) == 0x401000);
}

TEST_CASE("x86_64 R_X86_64_GOTPC32: GOT + A - P") {
  X64 t;
  u32 got = t.b.undef("_GLOBAL_OFFSET_TABLE_");
  t.b.rela(t.text, 3, R_X86_64_GOTPC32, got, -4); // lea _GLOBAL_OFFSET_TABLE_(%rip)
  Linked l = t.linked();
  const u64 GOT = l.pl.got_addr, P = kBase + 3;
  const i64 A = -4;
  CHECK(l.field(t.text, 3, 4) == lo32(GOT + A - P));
  CHECK(l.field(t.text, 3, 4) == 0xff9);
}

TEST_CASE("x86_64 R_X86_64_GOTPC32: out of range") {
  X64 t;
  u32 got = t.b.undef("_GLOBAL_OFFSET_TABLE_");
  // GOT + A - P = 0x10001000 - 0x80001004 - 0x10000004 = -0x80000008
  t.b.rela(t.text, 4, R_X86_64_GOTPC32, got, -0x80001004ll);
  CHECK(t.error() == "t.o:(.text+0x4): relocation R_X86_64_GOTPC32 against "
                     "_GLOBAL_OFFSET_TABLE_ out of range: -0x80000008 is not "
                     "in [-2147483648, 2147483647]");
}

TEST_CASE("x86_64 R_X86_64_GOTPC64: GOT + A - P, 64 bits") {
  X64 t;
  u32 got = t.b.undef("_GLOBAL_OFFSET_TABLE_");
  t.b.rela(t.text, 2, R_X86_64_GOTPC64, got, 2); // movabs $_GOT_-., %r11
  Linked l = t.linked();
  const u64 GOT = l.pl.got_addr, A = 2, P = kBase + 2;
  CHECK(l.field(t.text, 2, 8) == GOT + A - P);
  CHECK(l.field(t.text, 2, 8) == 0x1000);
}

TEST_CASE("x86_64 R_X86_64_GOT64: G + A, 64 bits") {
  X64 t;
  u32 foo = t.b.undef("foo");
  u32 bar = t.b.undef("bar");
  t.b.rela(t.text, 0, R_X86_64_GOT64, foo, 0); // movabs $foo@GOT, %rax
  t.b.rela(t.text, 8, R_X86_64_GOT64, bar, 0x10);
  Linked l = t.linked({{"foo", 0x401000}, {"bar", 0x7f0000001000ull}});
  CHECK(l.field(t.text, 0, 8) == l.G(foo) + 0);
  CHECK(l.field(t.text, 0, 8) == 0);
  CHECK(l.field(t.text, 8, 8) == 0x18); // G(bar) = 8, A = 0x10
  CHECK(l.got_entry(1) == 0x7f0000001000ull);
}

TEST_CASE("x86_64 R_X86_64_GOT32: G + A") {
  X64 t;
  u32 foo = t.b.undef("foo");
  u32 bar = t.b.undef("bar");
  t.b.rela(t.text, 16, R_X86_64_GOTPCREL, foo, -4); // slot 0
  t.b.rela(t.text, 4, R_X86_64_GOT32, bar, 4);      // slot 1
  Linked l = t.linked({{"foo", 1}, {"bar", 2}});
  CHECK(l.field(t.text, 4, 4) == 8 + 4);
  CHECK(l.got_entry(1) == 2);
}

TEST_CASE("x86_64 R_X86_64_GOT32: out of range") {
  X64 t;
  u32 foo = t.b.undef("foo");
  t.b.rela(t.text, 4, R_X86_64_GOT32, foo, 0x80000000ll); // G + A = 0x80000000
  CHECK(t.error({{"foo", 1}}) ==
        "t.o:(.text+0x4): relocation R_X86_64_GOT32 against foo out of range: "
        "0x80000000 is not in [-2147483648, 2147483647]");
}

TEST_CASE("x86_64 R_X86_64_GOTOFF64: S + A - GOT") {
  X64 t;
  u32 var = t.b.symbol("var", t.data, 0x10, 8, STB_LOCAL, STT_OBJECT);
  t.b.rela(t.text, 2, R_X86_64_GOTOFF64, var, 4); // movabs $var@GOTOFF, %rax
  Linked l = t.linked();
  const u64 S = l.values[var], A = 4, GOT = l.pl.got_addr;
  CHECK(l.field(t.text, 2, 8) == S + A - GOT);
  // No slots, so the zero-sized GOT ends where .data begins.
  CHECK(l.field(t.text, 2, 8) == 0x14);
}

TEST_CASE("x86_64 R_X86_64_GOTOFF64: a negative offset wraps to 64 bits") {
  X64 t;
  u32 fn = t.b.symbol("fn", t.text, 0, 1, STB_LOCAL, STT_FUNC);
  t.b.rela(t.data, 0, R_X86_64_GOTOFF64, fn, 0);
  Linked l = t.linked();
  CHECK(l.sfield(t.data, 0, 8) == -0x1000);
}

TEST_CASE("x86_64 R_X86_64_PLTOFF64: L + A - GOT, L = S") {
  X64 t;
  u32 ext = t.b.undef("ext_fn");
  t.b.rela(t.text, 2, R_X86_64_PLTOFF64, ext, 0); // movabs $ext_fn@PLTOFF, %rax
  Linked l = t.linked({{"ext_fn", 0x401000}});
  const u64 S = 0x401000, A = 0, GOT = l.pl.got_addr;
  CHECK(l.field(t.text, 2, 8) == S + A - GOT);
  CHECK(l.sfield(t.text, 2, 8) == 0x401000 - 0x10001000ll);
}

TEST_CASE("x86_64 large model: GOTPC64 + PLTOFF64 + GOT64 reach the target") {
  // What -mcmodel=large -fpic emits for `return ext(&var)`: the GOT address
  // from GOTPC64, a call through GOT + PLTOFF64, var's address from its slot.
  X64 t;
  u32 got = t.b.undef("_GLOBAL_OFFSET_TABLE_");
  u32 ext = t.b.undef("ext");
  u32 var = t.b.undef("var");
  t.b.rela(t.text, 0, R_X86_64_GOTPC64, got, 0);
  t.b.rela(t.text, 8, R_X86_64_PLTOFF64, ext, 0);
  t.b.rela(t.text, 16, R_X86_64_GOT64, var, 0);
  Linked l = t.linked({{"ext", 0x7f1234560000ull}, {"var", 0x7f00000000c0ull}});
  const u64 got_addr = kBase + 0 + l.field(t.text, 0, 8);
  CHECK(got_addr == l.pl.got_addr);
  CHECK(got_addr + l.field(t.text, 8, 8) == 0x7f1234560000ull);
  const u64 slot = got_addr + l.field(t.text, 16, 8);
  CHECK(mk::read_field(l.image.data() + (slot - kBase), 8) == 0x7f00000000c0ull);
}

TEST_CASE("x86_64 GOTPCRELX against a probe symbol, linked without a site handler") {
  // -fno-plt code calls a probe through the GOT.  A link without a site
  // handler (the link-only harness) resolves __dtrace_* like any symbol, so
  // the relocation needs a GOT slot like any other GOT-form relocation:
  // GOT + G + A - P, with the slot holding the symbol's address.
  X64 t;
  u32 probe = t.b.undef("__dtrace_sdt_test___fire");
  t.b.rela(t.text, 2, R_X86_64_GOTPCRELX, probe, -4); // call *p@GOTPCREL(%rip)
  Linked l = t.linked({{"__dtrace_sdt_test___fire", 0x401000}});
  CHECK(l.plan.wants_got);
  CHECK(l.plan.got_slot[probe] == 0);
  CHECK(l.pl.got_addr == kBase + 0x1000);
  // GOT + G + A - P = 0x10001000 + 0 - 4 - 0x10000002
  CHECK(l.field(t.text, 2, 4) == 0xffa);
  CHECK(l.got_entry(0) == 0x401000);
}

TEST_CASE("x86_64 SIZE32/SIZE64 against an undefined symbol are refused") {
  // Z is the size of the definition, which is outside the module: the
  // undefined entry's st_size (0) is not it, and the loader cannot know
  // the size of a kernel export, so the link fails rather than write 0.
  X64 t;
  u32 ext = t.b.undef("ext_table");
  t.b.rela(t.data, 8, R_X86_64_SIZE64, ext, 0);
  CHECK(t.error({{"ext_table", 0x401000}}) ==
        "t.o:(.data+0x8): relocation R_X86_64_SIZE64 against ext_table: the "
        "size of a symbol outside the module is unknown");
  X64 t32;
  u32 ext32 = t32.b.undef("ext_table");
  t32.b.rela(t32.text, 4, R_X86_64_SIZE32, ext32, 0);
  CHECK(t32.error({{"ext_table", 0x401000}}) ==
        "t.o:(.text+0x4): relocation R_X86_64_SIZE32 against ext_table: the "
        "size of a symbol outside the module is unknown");
}
