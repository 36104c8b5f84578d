// Layout (link.cpp, plan_link): SHF_ALLOC sections go to three page-aligned
// regions, text, rodata (+ the GOT) and data (+ bss + COMMON), each section
// at its own alignment; the image's alignment is the largest of the page
// size and every section's.  The page size is fixed at 0x1000 here.
#include "support.h"

#include <doctest/doctest.h>

using namespace mkt;
using mk::Layout;
using mk::Region;

namespace {

mk::LinkPlan plan_of(const ObjBuilder &b) {
  auto obj = parse(b);
  REQUIRE_OK(obj);
  auto plan = mk::plan_link(*obj, kPage);
  REQUIRE_OK(plan);
  return std::move(*plan);
}

constexpr u64 AX = SHF_ALLOC | SHF_EXECINSTR;
constexpr u64 WA = SHF_ALLOC | SHF_WRITE;

} // namespace

TEST_CASE("layout: regions are page-aligned, sections at their alignment") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.section(".text", SHT_PROGBITS, AX, 16, zeros(0x11));
  u32 data = b.section(".data", SHT_PROGBITS, WA, 4, zeros(5));
  u32 bss = b.nobits(".bss", WA, 128, 0x10); // before .data.rel in the file
  u32 hot = b.section(".text.hot", SHT_PROGBITS, AX, 64, zeros(8));
  u32 ro = b.section(".rodata", SHT_PROGBITS, SHF_ALLOC, 8, zeros(3));
  u32 cst = b.section(".rodata.cst16", SHT_PROGBITS, SHF_ALLOC | SHF_MERGE, 16,
                      zeros(16));
  u32 drel = b.section(".data.rel", SHT_PROGBITS, WA, 32, zeros(8));
  u32 note = b.section(".comment", SHT_PROGBITS, 0, 1, zeros(10));
  mk::LinkPlan p = plan_of(b);
  const Layout &L = p.layout;

  // text: .text at 0, .text.hot at the next multiple of 64.
  CHECK(L.text_off == 0);
  CHECK(L.sec_off[text] == 0);
  CHECK(L.sec_off[hot] == 0x40);
  CHECK(L.text_size == 0x48);
  // rodata starts on the next page.
  CHECK(L.ro_off == 0x1000);
  CHECK(L.sec_off[ro] == 0x1000);
  CHECK(L.sec_off[cst] == 0x1010);
  CHECK(L.ro_size == 0x20);
  // data, then bss after every PROGBITS data section.
  CHECK(L.data_off == 0x2000);
  CHECK(L.sec_off[data] == 0x2000);
  CHECK(L.sec_off[drel] == 0x2020);
  CHECK(L.sec_off[bss] == 0x2080);
  CHECK(L.data_size == 0x90);
  CHECK(L.total == 0x3000);
  CHECK(L.align == 0x1000);
  // Regions, and a section not loaded at all.
  CHECK(L.sec_region[text] == Region::Text);
  CHECK(L.sec_region[hot] == Region::Text);
  CHECK(L.sec_region[ro] == Region::Rodata);
  CHECK(L.sec_region[cst] == Region::Rodata);
  CHECK(L.sec_region[data] == Region::Data);
  CHECK(L.sec_region[bss] == Region::Data);
  CHECK(L.sec_off[note] == Layout::kNotLoaded);
  CHECK(L.sec_region[note] == Region::None);
  CHECK(L.sec_off[0] == Layout::kNotLoaded);
  CHECK_FALSE(p.wants_got);
}

TEST_CASE("layout: empty regions take no space") {
  ObjBuilder b(Target::X86_64);
  u32 data = b.data(zeros(24));
  const Layout &L = plan_of(b).layout;
  CHECK(L.text_size == 0);
  CHECK(L.ro_size == 0);
  CHECK(L.data_off == 0);
  CHECK(L.sec_off[data] == 0);
  CHECK(L.total == 0x1000);
}

TEST_CASE("layout: COMMON symbols in bss, each at its alignment") {
  ObjBuilder b(Target::X86_64);
  u32 data = b.data(zeros(4), 4);
  u32 bss = b.bss(0x13, 8);
  u32 c1 = b.common("c1", 4, 8);     // st_value 8: 8-byte aligned
  u32 c2 = b.common("c2", 1, 0x100); // st_value 0x100
  u32 c3 = b.common("c3", 2, 0);     // st_value 0: no constraint
  const Layout &L = plan_of(b).layout;
  CHECK(L.sec_off[data] == 0);
  CHECK(L.sec_off[bss] == 8);
  CHECK(L.common_off[c1] == 0x20); // 8 + 0x13 = 0x1b, aligned up to 8
  CHECK(L.common_off[c2] == 0x100);
  CHECK(L.common_off[c3] == 0x101);
  CHECK(L.data_size == 0x103);
  CHECK(L.common_off[0] == Layout::kNotLoaded);
}

TEST_CASE("layout: COMMON symbols get zeroed space in the image") {
  ObjBuilder b(Target::X86_64);
  b.data(zeros(8));
  u32 c = b.common("counter", 16, 16);
  auto l = link(b, kBase);
  REQUIRE_OK(l);
  CHECK(l->values[c] == kBase + 0x10);
  CHECK(l->values[c] == l->pl.common_addr[c]);
  for (u64 i = 0; i < 16; i++)
    CHECK(l->image[0x10 + i] == 0);
}

TEST_CASE("layout: COMMON alignment must be a power of two") {
  ObjBuilder b(Target::X86_64);
  b.data(zeros(8));
  b.common("odd", 4, 12); // st_value 12: not a power of two
  auto obj = parse(b);
  REQUIRE_OK(obj);
  CHECK(message_of(mk::plan_link(*obj, kPage)) ==
        "t.o: COMMON symbol odd: alignment 12 is not a power of two");
}

TEST_CASE("layout: a section aligned beyond the page raises the image's alignment") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(0x10));
  u32 big = b.section(".data.page_aligned", SHT_PROGBITS, WA, 0x4000,
                      zeros(0x10));
  const Layout &L = plan_of(b).layout;
  CHECK(L.align == 0x4000);
  CHECK(L.sec_off[text] == 0);
  CHECK(L.sec_off[big] == 0x4000);
  CHECK(L.sec_off[big] % 0x4000 == 0);
  CHECK(L.total == 0x5000);
}

TEST_CASE("layout: the GOT is placed in rodata when a GOT-relative relocation is present") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(16));
  u32 ro = b.rodata(zeros(5));
  u32 foo = b.undef("foo");
  u32 bar = b.undef("bar");
  b.rela(text, 0, R_X86_64_GOTPCREL, foo, -4);
  b.rela(text, 4, R_X86_64_REX_GOTPCRELX, bar, -4);
  b.rela(text, 8, R_X86_64_GOTPCRELX, foo, -4); // foo again: same slot
  mk::LinkPlan p = plan_of(b);
  const Layout &L = p.layout;
  CHECK(p.wants_got);
  CHECK(p.got_slots == 2);
  CHECK(p.got_slot[foo] == 0);
  CHECK(p.got_slot[bar] == 1);
  CHECK(p.got_slot[0] == -1);
  CHECK(L.sec_off[ro] == 0x1000);
  CHECK(L.got_off == 0x1008); // after .rodata, 8-byte aligned
  CHECK(L.got_off >= L.ro_off);
  CHECK(L.got_off + 16 == L.ro_off + L.ro_size);
  CHECK(L.data_off == 0x2000);
}

TEST_CASE("layout: no GOT without a GOT-relative relocation") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(8));
  u32 foo = b.undef("foo");
  b.rela(text, 0, R_X86_64_PC32, foo, -4);
  mk::LinkPlan p = plan_of(b);
  CHECK_FALSE(p.wants_got);
  CHECK(p.got_slots == 0);
  CHECK(p.layout.ro_size == 0);
}

TEST_CASE("layout: GOT-base relocations want a GOT but no slot") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(16));
  u32 foo = b.undef("foo");
  b.rela(text, 0, R_X86_64_GOTOFF64, foo, 0);
  mk::LinkPlan p = plan_of(b);
  CHECK(p.wants_got);
  CHECK(p.got_slots == 0);
  CHECK(p.layout.got_off == 0x1000);
}

TEST_CASE("layout: an undefined _GLOBAL_OFFSET_TABLE_ wants a GOT") {
  ObjBuilder b(Target::X86_64);
  b.text(zeros(16));
  b.undef("_GLOBAL_OFFSET_TABLE_");
  mk::LinkPlan p = plan_of(b);
  CHECK(p.wants_got);
  CHECK(p.got_slots == 0);
}

TEST_CASE("layout: GOT relocations in sections that are not loaded need no GOT") {
  ObjBuilder b(Target::X86_64);
  b.text(zeros(8));
  u32 dbg = b.section(".debug_info", SHT_PROGBITS, 0, 1, zeros(8));
  u32 foo = b.undef("foo");
  b.rela(dbg, 0, R_X86_64_GOTPCREL, foo, 0);
  mk::LinkPlan p = plan_of(b);
  CHECK_FALSE(p.wants_got);
  CHECK(p.got_slot[foo] == -1);
  CHECK(p.reloc_count == 0);
}

TEST_CASE("layout: i386 GOT entries are 4 bytes, 4-byte aligned") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(zeros(16));
  b.rodata(zeros(3));
  u32 foo = b.undef("foo");
  u32 bar = b.undef("bar");
  b.rel(text, 2, R_386_GOT32X, foo);
  b.rel(text, 8, R_386_GOT32, bar);
  mk::LinkPlan p = plan_of(b);
  CHECK(p.got_slots == 2);
  CHECK(p.layout.got_off == 0x1004);
  CHECK(p.layout.ro_size == 0xc);
}

TEST_CASE("layout: the image placed at a base, sections copied") {
  ObjBuilder b(Target::I386);
  u32 text = b.text({0x90, 0xc3});
  u32 data = b.data({1, 2, 3, 4}, 4);
  u32 bss = b.bss(8, 4);
  auto l = link(b, 0x08000000);
  REQUIRE_OK(l);
  CHECK(l->addr(text) == 0x08000000);
  CHECK(l->addr(data) == 0x08001000);
  CHECK(l->addr(bss) == 0x08001004);
  CHECK(l->field(text, 0, 2) == 0xc390);
  CHECK(l->field(data, 0, 4) == 0x04030201);
  CHECK(l->pl.sec_mem[data] == l->image.data() + 0x1000);
  CHECK(l->pl.image_base == 0x08000000);
}

TEST_CASE("copy: an image linked into dirty memory has every byte defined") {
  // The kernel reuses freed arena pages as they are: the copy stage must
  // write every byte of the image, zeros wherever no section has contents.
  ObjBuilder b(Target::X86_64);
  u32 text = b.section(".text", SHT_PROGBITS, AX, 16, {0x90, 0x90, 0xc3});
  u32 ro = b.section(".rodata", SHT_PROGBITS, SHF_ALLOC, 8, {1, 2, 3});
  u32 bss = b.nobits(".bss", WA, 64, 0x40);
  u32 common = b.symbol("shared", SHN_COMMON, 16, 32, STB_GLOBAL, STT_OBJECT);
  (void)common;
  auto obj = parse(b);
  REQUIRE_OK(obj);
  std::vector<u8> image;
  mk::LinkOptions o;
  o.page_size = kPage;
  o.allocate = [&](u64 size, u64) -> mk::Result<mk::ImageMemory> {
    image.assign(size, 0xab); // what a previous module left
    return mk::ImageMemory{kBase, image.data()};
  };
  auto l = mk::link_image(*obj, o);
  REQUIRE_OK(l);
  const mk::Layout &L = l->plan.layout;
  std::vector<u8> want(L.total, 0);
  want[L.sec_off[text] + 0] = 0x90;
  want[L.sec_off[text] + 1] = 0x90;
  want[L.sec_off[text] + 2] = 0xc3;
  want[L.sec_off[ro] + 0] = 1;
  want[L.sec_off[ro] + 1] = 2;
  want[L.sec_off[ro] + 2] = 3;
  (void)bss; // zeros, like the COMMON symbol and every gap
  CHECK(image == want);
}

TEST_CASE("layout: init sections end each region on pages of their own") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.section(".text", SHT_PROGBITS, AX, 16, zeros(0x30));
  u32 itext = b.section(".init.text", SHT_PROGBITS, AX, 1, zeros(0x20));
  u32 exit = b.section(".exit.text", SHT_PROGBITS, AX, 1, zeros(5));
  u32 iro = b.section(".init.rodata", SHT_PROGBITS, SHF_ALLOC, 8, zeros(9));
  u32 ro = b.section(".rodata", SHT_PROGBITS, SHF_ALLOC, 8, zeros(3));
  u32 data = b.section(".data", SHT_PROGBITS, WA, 8, zeros(8));
  u32 idata = b.section(".init.data", SHT_PROGBITS, WA, 8, zeros(12));
  u32 bss = b.nobits(".bss", WA, 8, 0x10);
  auto obj = parse(b);
  REQUIRE_OK(obj);
  auto plan = mk::plan_link(*obj, kPage, [](const mk::Section &s) {
    return s.name.compare(0, 5, ".init") == 0;
  });
  REQUIRE_OK(plan);
  const Layout &L = plan->layout;
  // Kept code first (.exit.text is kept), then the init code on a page of
  // its own: the region ends with it.
  CHECK(L.sec_off[text] == 0);
  CHECK(L.sec_off[exit] == 0x30);
  CHECK(L.init_text_off == 0x1000);
  CHECK(L.sec_off[itext] == 0x1000);
  CHECK(L.text_size == 0x1020);
  CHECK(L.ro_off == 0x2000);
  CHECK(L.sec_off[ro] == 0x2000);
  CHECK(L.init_ro_off == 0x3000);
  CHECK(L.sec_off[iro] == 0x3000);
  CHECK(L.data_off == 0x4000);
  CHECK(L.sec_off[data] == 0x4000);
  CHECK(L.sec_off[bss] == 0x4008); // bss stays with the kept data
  CHECK(L.init_data_off == 0x5000);
  CHECK(L.sec_off[idata] == 0x5000);
  CHECK(L.total == 0x6000);
  // Without the predicate nothing moves apart, and no region has an init
  // part (its offset is the region's end).
  const Layout &P = plan_of(b).layout;
  CHECK(P.sec_off[itext] == 0x30); // in file order
  CHECK(P.init_text_off == P.text_size);
  CHECK(P.init_data_off == P.data_off + P.data_size);
  CHECK(P.total == 0x3000);
}
