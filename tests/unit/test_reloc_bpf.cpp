// BPF relocations (arch_bpf.cpp + link.cpp): one test per type.  BPF objects
// are ELF64 REL with e_machine EM_BPF; relocations name whole instructions
// and the value goes into the imm field(s), so each test writes the
// instruction with its implicit addend and checks the instruction after
// linking.  .text sits at kBase (0x10000000), .data on the next page.
#include "support.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace mkt;

namespace {

// <elf.h> has R_BPF_NONE, R_BPF_64_64 and R_BPF_64_32; LLVM's data types:
constexpr u32 R_BPF_64_ABS64 = 2, R_BPF_64_ABS32 = 3, R_BPF_64_NODYLD32 = 4;
using mk::i16;

// One 8-byte instruction slot.
std::vector<u8> insn(u8 code, u8 regs, i16 off, i32 imm) {
  return cat({le(code, 1), le(regs, 1), le((u16)off, 2), le((u32)imm, 4)});
}
std::vector<u8> call_insn(i32 imm) { return insn(0x85, 0x10, 0, imm); }
std::vector<u8> exit_insn() { return insn(0x95, 0, 0, 0); }
std::vector<u8> ld_imm64(u8 dst, u64 v) {
  return cat({insn(0x18, dst, 0, (i32)(u32)v), insn(0, 0, 0, (i32)(u32)(v >> 32))});
}

// .text: call -1; ld_imm64 r1, 4; exit; f: exit  (40 bytes) at kBase.
struct Bpf {
  ObjBuilder b{Target::X86_64};
  u32 text, data;
  Bpf() {
    b.hdr.e_machine = EM_BPF;
    text = b.text(cat({call_insn(-1), ld_imm64(1, 4), exit_insn(), exit_insn()}), 8);
    data = b.data(cat({le(0x10, 8), le(0x20, 4), le(0, 4)}));
  }
  Linked linked(const Externals &ext = {}) {
    auto l = link(b, kBase, ext);
    REQUIRE_OK(l);
    return std::move(*l);
  }
  std::string error(const Externals &ext = {}) {
    return message_of(link(b, kBase, ext));
  }
};

i32 imm(const Linked &l, u32 sec, u64 insn_off) {
  return (i32)l.field(sec, insn_off + 4, 4);
}

} // namespace

TEST_CASE("bpf R_BPF_NONE: nothing is written") {
  Bpf t;
  u32 f = t.b.symbol("f", t.text, 32, 8, STB_GLOBAL, STT_FUNC);
  t.b.rel(t.text, 0, R_BPF_NONE, f);
  Linked l = t.linked();
  CHECK(imm(l, t.text, 0) == -1);
}

TEST_CASE("bpf R_BPF_64_32: a call, in instructions from the next one") {
  Bpf t;
  u32 f = t.b.symbol("f", t.text, 32, 8, STB_GLOBAL, STT_FUNC);
  t.b.rel(t.text, 0, R_BPF_64_32, f); // imm -1: A = -8 bytes
  Linked l = t.linked();
  const i64 S = (i64)l.values[f], P = (i64)l.addr(t.text), A = -8;
  CHECK(imm(l, t.text, 0) == (S + A - P) / 8);
  CHECK(imm(l, t.text, 0) == 3); // f is 4 slots after the call: skip 3
  CHECK(l.field(t.text, 0, 4) == 0x1085); // code and registers unchanged
}

TEST_CASE("bpf R_BPF_64_32: backwards, to a symbol outside the module") {
  Bpf t;
  u32 g = t.b.undef("helper_fn");
  t.b.rel(t.text, 0, R_BPF_64_32, g);
  Linked l = t.linked({{"helper_fn", kBase - 0x80}});
  CHECK(imm(l, t.text, 0) == -0x80 / 8 - 1);
}

TEST_CASE("bpf R_BPF_64_32: the implicit addend counts instructions") {
  // A call of a static function in another section: clang leaves the
  // callee's instruction offset there minus one in imm.
  Bpf t;
  u32 other = t.b.section(".text.other", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
                          8, cat({exit_insn(), exit_insn(), exit_insn()}));
  u32 sec = t.b.section_symbol(other);
  std::memcpy(&t.b.sec(t.text).bytes[4], "\x01\x00\x00\x00", 4); // slot 2 - 1
  t.b.rel(t.text, 0, R_BPF_64_32, sec);
  Linked l = t.linked();
  const i64 target = (i64)l.addr(other) + 16, P = (i64)l.addr(t.text);
  CHECK(imm(l, t.text, 0) == (target - (P + 8)) / 8);
}

TEST_CASE("bpf R_BPF_64_32: out of range and misaligned targets are refused") {
  Bpf t;
  u32 far = t.b.symbol("far", SHN_ABS, 0x10000000000ull);
  t.b.rel(t.text, 0, R_BPF_64_32, far);
  CHECK(t.error() ==
        "t.o:(.text+0x0): relocation R_BPF_64_32 against far out of range: "
        "0x1ffdffffff is not in [-2147483648, 2147483647]");
  Bpf u;
  u32 odd = u.b.symbol("odd", u.text, 33, 1, STB_GLOBAL, STT_FUNC);
  u.b.rel(u.text, 0, R_BPF_64_32, odd);
  CHECK(u.error() == "t.o:(.text+0x0): relocation R_BPF_64_32 against odd: "
                     "0x19 is not a multiple of 8");
}

TEST_CASE("bpf R_BPF_64_64: S + A split over the two imm fields") {
  Bpf t;
  u32 big = t.b.symbol("big", SHN_ABS, 0x123456789000ull);
  t.b.rel(t.text, 8, R_BPF_64_64, big); // the ld_imm64 holds A = 4
  Linked l = t.linked();
  CHECK(l.field(t.text, 8 + 4, 4) == 0x56789004);  // low half
  CHECK(l.field(t.text, 16 + 4, 4) == 0x1234);     // high half
  CHECK(l.field(t.text, 8, 4) == 0x118);           // code, dst r1, off 0
  CHECK(l.field(t.text, 16, 4) == 0);              // second slot's code
}

TEST_CASE("bpf R_BPF_64_64: data addresses, full width") {
  Bpf t;
  u32 var = t.b.symbol("var", t.data, 8, 4, STB_GLOBAL, STT_OBJECT);
  t.b.rel(t.text, 8, R_BPF_64_64, var);
  Linked l = t.linked();
  const u64 v = l.values[var] + 4;
  CHECK((l.field(t.text, 12, 4) | l.field(t.text, 20, 4) << 32) == v);
}

TEST_CASE("bpf R_BPF_64_ABS64 and R_BPF_64_ABS32: S + A in data") {
  Bpf t;
  u32 f = t.b.symbol("f", t.text, 32, 8, STB_GLOBAL, STT_FUNC);
  t.b.rel(t.data, 0, R_BPF_64_ABS64, f); // A = 0x10
  t.b.rel(t.data, 8, R_BPF_64_ABS32, f); // A = 0x20
  t.b.rel(t.data, 12, R_BPF_64_NODYLD32, f);
  Linked l = t.linked();
  const u64 S = l.values[f];
  CHECK(l.field(t.data, 0, 8) == S + 0x10);
  CHECK(l.field(t.data, 8, 4) == S + 0x20);
  CHECK(l.field(t.data, 12, 4) == S);
}

TEST_CASE("bpf R_BPF_64_ABS32: an address above 4 GiB is refused") {
  Bpf t;
  u32 far = t.b.symbol("far", SHN_ABS, 0x100000000ull);
  t.b.rel(t.data, 8, R_BPF_64_ABS32, far);
  CHECK(t.error() ==
        "t.o:(.data+0x8): relocation R_BPF_64_ABS32 against far out of range: "
        "0x100000020 is not in [0, 4294967295]");
}

TEST_CASE("bpf: an unknown relocation type names the site") {
  Bpf t;
  u32 f = t.b.symbol("f", t.text, 32, 8, STB_GLOBAL, STT_FUNC);
  t.b.rel(t.text, 0, 7, f);
  CHECK(t.error() == "t.o:(.text+0x0): relocation type 7 against f: unknown "
                     "relocation type");
}
