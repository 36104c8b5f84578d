// A module's call-frame information is hostile input: the load-time check
// (check_eh_frame) names the record and field that is wrong, the loader
// refuses such a module and keeps nothing of it, and the readers the stack
// walker uses never read outside the section or the stack whatever the
// records say.
//
// Each malformed table is built here by hand, record by record, with a
// comment on the one field that is wrong.  The FDEs write their code
// range as absolute 4-byte values (augmentation "zR", encoding udata4), so
// a table means the same wherever it lies; the loader tests use the
// pc-relative form the compilers emit, relocated.
#include "kernel_support.h"
#include "support.h"

#include "../../kernel/kern_panic.h"
#include "../../kernel/kern_sysctl.h"
#include "../../kernel/shell.h"
#include "../../linker/arena.h"
#include "../../sdt/registry.h"
#include "../../sdt/unwind.h"

#include <doctest/doctest.h>

#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

using namespace mkt;

namespace {

constexpr unsigned kWord = sizeof(void *);
#if defined(__x86_64__)
constexpr u8 kSpReg = 7, kRaReg = 16;
constexpr Target kNative = Target::X86_64;
#else
constexpr u8 kSpReg = 4, kRaReg = 8;
constexpr Target kNative = Target::I386;
#endif
constexpr u8 kDataAlign = (u8)(0x80 - kWord); // sleb128 of -word

// The code the FDEs of these tables may describe.
const std::vector<mk::CodeRange> kCode = {{0x1000, 0x2000}};

// A record: its length, then `body` (CIE id or pointer first).
std::vector<u8> record(const std::vector<u8> &body) {
  return cat({le(body.size(), 4), body});
}

// The instructions every function starts with: CFA = sp + word, the
// return address at CFA - word.
const std::vector<u8> kEntryRules = {0x0c, kSpReg, (u8)kWord,
                                     (u8)(0x80 | kRaReg), 1};

// A CIE: version 1, code alignment 1, data alignment -word, the return
// address column, then augmentation `aug` with `aug_data` (for "zR" its
// length and the FDE encoding), then `insns`.  20 bytes of body with the
// defaults: the record is 24 bytes, so the FDE after it is at 0x18.
std::vector<u8> cie(const std::string &aug = "zR",
                    const std::vector<u8> &aug_data = {1, 0x03},
                    const std::vector<u8> &insns = kEntryRules,
                    u8 version = 1) {
  std::vector<u8> b = cat({le(0, 4), {version}});
  b.insert(b.end(), aug.begin(), aug.end());
  b.push_back(0);
  b.insert(b.end(), {1, kDataAlign, kRaReg});
  b.insert(b.end(), aug_data.begin(), aug_data.end());
  b.insert(b.end(), insns.begin(), insns.end());
  while (b.size() % 4)
    b.push_back(0); // DW_CFA_nop
  return record(b);
}

// An FDE whose CIE pointer field holds `cie_ptr`, describing [lo, lo +
// range), with augmentation data `aug_data` (its length first) and
// `insns`.  16 bytes of body with the defaults.
std::vector<u8> fde(u32 cie_ptr, u32 lo = 0x1000, u32 range = 0x10,
                    const std::vector<u8> &aug_data = {0},
                    const std::vector<u8> &insns = {}) {
  std::vector<u8> b = cat({le(cie_ptr, 4), le(lo, 4), le(range, 4),
                           aug_data, insns});
  while (b.size() % 4)
    b.push_back(0); // DW_CFA_nop
  return record(b);
}

// The CIE pointer of an FDE at `at` naming the CIE at `cie_at`: it counts
// back from the field, 4 bytes into the FDE.
u32 back_to(u32 at, u32 cie_at) { return at + 4 - cie_at; }

std::string check(const std::vector<u8> &t) {
  return message_of(mk::check_eh_frame(t.data(), t.size(), kCode));
}

} // namespace

// ---- the check, field by field ------------------------------------------------

TEST_CASE("eh_frame check: a well-formed table passes") {
  auto t = cat({cie(), fde(back_to(0x18, 0)), fde(back_to(0x2c, 0), 0x1010)});
  CHECK(check(t) == "");
  // A zero length ends the table; what follows is nobody's.
  t = cat({t, le(0, 4), {0xde, 0xad}});
  CHECK(check(t) == "");
  CHECK(check({}) == "");
}

TEST_CASE("eh_frame check: a CIE pointer outside the section") {
  // The FDE at 0x18: its CIE pointer counts 0x1000 bytes back from the
  // field, before the section (0x1c back would be the CIE).
  auto t = cat({cie(), fde(0x1000)});
  CHECK(check(t) ==
        ".eh_frame FDE at 0x18: CIE pointer 0x1000 outside the section");
  // One byte before the section.
  t = cat({cie(), fde(0x1d)});
  CHECK(check(t) ==
        ".eh_frame FDE at 0x18: CIE pointer 0x1d outside the section");
}

TEST_CASE("eh_frame check: a CIE pointer inside the section, not at a CIE") {
  // The second FDE (at 0x2c) names the first FDE (0x18), not the CIE.
  auto t = cat({cie(), fde(back_to(0x18, 0)), fde(back_to(0x2c, 0x18))});
  CHECK(check(t) == ".eh_frame FDE at 0x2c: CIE pointer 0x18 aims at 0x18, "
                    "which is not a CIE");
  // Into the middle of the CIE.
  t = cat({cie(), fde(back_to(0x18, 8))});
  CHECK(check(t) == ".eh_frame FDE at 0x18: CIE pointer 0x14 aims at 0x8, "
                    "which is not a CIE");
}

TEST_CASE("eh_frame check: lengths that leave the section") {
  // The FDE's length says 0x100 bytes; 12 are there.
  auto t = cat({cie(), le(0x100, 4), le(back_to(0x18, 0), 4), le(0x1000, 4),
                le(0x10, 4)});
  CHECK(check(t) == ".eh_frame record at 0x18: length runs past the "
                    "section's end");
  // 64-bit DWARF: the extended length 2^63 (the pointer arithmetic would
  // wrap).
  t = cat({cie(), le(0xffffffff, 4), le(1ull << 63, 8), le(0, 4)});
  CHECK(check(t) == ".eh_frame record at 0x18: length runs past the "
                    "section's end");
  // Two bytes after the CIE: not even a length field.
  t = cat({cie(), {1, 0}});
  CHECK(check(t) == ".eh_frame record at 0x18: length field cut off by the "
                    "section's end");
  // A length of 2: no room for the CIE pointer.
  t = cat({cie(), le(2, 4), {0, 0}});
  CHECK(check(t) == ".eh_frame record at 0x18: length too small for the CIE "
                    "pointer field");
}

TEST_CASE("eh_frame check: an FDE's code must be the module's") {
  // [0x3000, 0x3010): not in the module's code [0x1000, 0x2000).
  auto t = cat({cie(), fde(back_to(0x18, 0), 0x3000)});
  CHECK(check(t) == ".eh_frame FDE at 0x18: code [0x3000, 0x3010) is not "
                    "the module's");
  // [0x1ff0, 0x2010): runs past its end.
  t = cat({cie(), fde(back_to(0x18, 0), 0x1ff0, 0x20)});
  CHECK(check(t) == ".eh_frame FDE at 0x18: code [0x1ff0, 0x2010) is not "
                    "the module's");
  // The range wraps around the address space (8-byte fields, udata8).
  t = cat({cie("zR", {1, 0x04}),
           record(cat({le(back_to(0x18, 0), 4), le(0x1000, 8),
                       le(~0ull - 0x10, 8), {0}}))});
  CHECK(check(t) == ".eh_frame FDE at 0x18: code range wraps around the "
                    "address space");
  // A zero-length FDE (a function the compiler discarded) describes
  // nothing and may say anything.
  t = cat({cie(), fde(back_to(0x18, 0), 0xdead0000, 0)});
  CHECK(check(t) == "");
}

TEST_CASE("eh_frame check: augmentations") {
  // 'X' is no augmentation letter.
  CHECK(check(cie("zX", {1, 0})) ==
        ".eh_frame CIE at 0x0: augmentation not understood");
  // The augmentation data length says 0x40 bytes; the record has 8 left.
  CHECK(check(cie("zR", {0x40, 0x03})) ==
        ".eh_frame CIE at 0x0: augmentation data runs past the record");
  // "zPR" with length 1: the personality's encoding byte, no room for the
  // pointer it announces or for 'R'.
  CHECK(check(cie("zPR", {1, 0x9b})) ==
        ".eh_frame CIE at 0x0: personality encoding not understood");
  // An indirect FDE pointer encoding (0x9b): the reader would follow it.
  CHECK(check(cie("zR", {1, 0x9b})) ==
        ".eh_frame CIE at 0x0: FDE pointer encoding not understood");
  // Version 2 is no .eh_frame version.
  CHECK(check(cie("zR", {1, 0x03}, kEntryRules, 2)) ==
        ".eh_frame CIE at 0x0: CIE version not understood");
  // An FDE whose augmentation data length (0x7f) runs past its record.
  auto t = cat({cie(), fde(back_to(0x18, 0), 0x1000, 0x10, {0x7f})});
  CHECK(check(t) == ".eh_frame FDE at 0x18: augmentation data runs past the "
                    "record");
  // What GCC writes for C++: a personality (pcrel|sdata4|indirect: never
  // followed) and an LSDA encoding; accepted.
  CHECK(check(cie("zPLR", {7, 0x9b, 0, 0, 0, 0, 0x1b, 0x1b})) == "");
}

TEST_CASE("eh_frame check: call-frame instructions") {
  // def_cfa (0x0c) with its register but no offset: the record ends
  // (15 bytes of body, no padding after).
  auto t = cat({cie(), record(cat({le(back_to(0x18, 0), 4), le(0x1000, 4),
                                   le(0x10, 4), {0}, {0x0c, 7}}))});
  CHECK(check(t) == ".eh_frame FDE at 0x18: operand runs past the record "
                    "(opcode 0x0c at 0x29)");
  // def_cfa_expression (0x0f) whose length (2^63, uleb128) would step the
  // reader far past the record.
  t = cat({cie(), fde(back_to(0x18, 0), 0x1000, 0x10, {0},
                      {0x0f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                       0x80, 0x01})});
  CHECK(check(t) == ".eh_frame FDE at 0x18: operand runs past the record "
                    "(opcode 0x0f at 0x29)");
  // 0x2d (DW_CFA_GNU_window_save, SPARC's) means nothing on x86.
  t = cat({cie(), fde(back_to(0x18, 0), 0x1000, 0x10, {0}, {0x2d})});
  CHECK(check(t) == ".eh_frame FDE at 0x18: call-frame instruction not "
                    "understood (opcode 0x2d at 0x29)");
  // remember_state (0x0a) nine deep.
  t = cat({cie(), fde(back_to(0x18, 0), 0x1000, 0x10, {0},
                      std::vector<u8>(9, 0x0a))});
  CHECK(check(t) == ".eh_frame FDE at 0x18: remember_state nested deeper "
                    "than 8 (opcode 0x0a at 0x31)");
  // restore_state (0x0b) with nothing remembered.
  t = cat({cie(), fde(back_to(0x18, 0), 0x1000, 0x10, {0}, {0x0b})});
  CHECK(check(t) == ".eh_frame FDE at 0x18: restore_state without "
                    "remember_state (opcode 0x0b at 0x29)");
  // In the CIE's initial instructions: advance_loc4 (0x04) cut off.
  CHECK(check(cie("zR", {1, 0x03}, {0x04, 1, 2})) ==
        ".eh_frame CIE at 0x0: operand runs past the record (opcode 0x04 at "
        "0x11)");
}

// ---- the readers, on a section with no readable byte around it ---------------

namespace {

// `bytes` placed so that the section ends where an inaccessible page
// starts, with the page before it readable and two inaccessible ones
// before that: a read past the end, or more than a page before the start,
// faults.
class FencedSection {
public:
  explicit FencedSection(const std::vector<u8> &bytes) {
    page_ = (size_t)sysconf(_SC_PAGESIZE);
    REQUIRE(bytes.size() <= page_);
    map_ = (u8 *)mmap(nullptr, 4 * page_, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map_ != MAP_FAILED);
    REQUIRE(mprotect(map_ + 2 * page_, page_, PROT_READ | PROT_WRITE) == 0);
    at_ = map_ + 3 * page_ - bytes.size();
    std::memcpy(at_, bytes.data(), bytes.size());
    size_ = bytes.size();
  }
  ~FencedSection() { munmap(map_, 4 * page_); }
  FencedSection(const FencedSection &) = delete;
  FencedSection &operator=(const FencedSection &) = delete;
  const u8 *data() const { return at_; }
  u64 size() const { return size_; }

private:
  size_t page_ = 0;
  u8 *map_ = nullptr;
  u8 *at_ = nullptr;
  u64 size_ = 0;
};

} // namespace

TEST_CASE("eh_frame readers: a CIE pointer before the section is not "
          "followed") {
  // The FDE's CIE pointer aims 0x1800 bytes back: into the fence.
  FencedSection s(cat({cie(), fde(0x1800)}));
  mk::CodeImage::Fde out{};
  CHECK_FALSE(mk::find_fde(s.data(), s.size(), 0x1000, out));
  std::vector<mk::CodeImage::Fde> all;
  CHECK_FALSE(mk::parse_eh_frame(all, s.data(), s.size()));
}

TEST_CASE("eh_frame readers: lengths and operands at the section's end") {
  // The FDE's length claims 0x1000 bytes: the section ends after 12.
  FencedSection a(cat({cie(), le(0x1000, 4), le(back_to(0x18, 0), 4),
                       le(0x1000, 4), le(0x10, 4)}));
  mk::CodeImage::Fde out{};
  CHECK_FALSE(mk::find_fde(a.data(), a.size(), 0x1000, out));
  // A CIE whose augmentation string runs to the section's end.
  std::vector<u8> b = cat({le(12, 4), le(0, 4), {1, 'z', 'R', 'R', 'R'}});
  b.resize(b.size() + 3, 'R');
  FencedSection c(b);
  CHECK(message_of(mk::check_eh_frame(c.data(), c.size(), kCode)) ==
        ".eh_frame CIE at 0x0: augmentation string runs past the record");
  // The good table, fenced: found.
  FencedSection d(cat({cie(), fde(back_to(0x18, 0), 0x1000, 0x10)}));
  CHECK(mk::find_fde(d.data(), d.size(), 0x1008, out));
  CHECK(out.lo == 0x1000);
  CHECK(out.hi == 0x1010);
}

// ---- the loader ---------------------------------------------------------------

namespace {

// A module of one function (`ret`) and its .eh_frame as the compilers
// write it: "zR" with pc-relative 4-byte code addresses, relocated against
// .text.  `cie_ptr` is the FDE's CIE pointer field (0x1c is right);
// `target` the symbol its code address is relocated against (0: .text).
ObjBuilder module_with_eh_frame(u32 cie_ptr, bool extern_target = false) {
  ObjBuilder b(kNative);
  const u32 text = b.text({0xc3});
  std::vector<u8> eh = cat({cie("zR", {1, 0x1b}), fde(cie_ptr, 0, 1)});
  const u32 eh_frame = b.section(".eh_frame", SHT_PROGBITS, SHF_ALLOC, 4, eh);
  const u32 s_text = b.section_symbol(text);
  const u32 s_ext = b.undef("printf"); // a kernel export: not the module's
  const u32 target = extern_target ? s_ext : s_text;
  // The FDE's initial location at .eh_frame+0x20: S + A - P.
  if (kNative == Target::X86_64) {
    b.rela(eh_frame, 0x20, R_X86_64_PC32, target, 0);
  } else {
    // REL: the addend (0) is the field's contents.
    b.rel(eh_frame, 0x20, R_386_PC32, target);
  }
  return b;
}

// What a refused load must leave as it found it.
struct KernelState {
  size_t files, sysctls, commands, probes;
  u64 arena;
  explicit KernelState(mk::Kernel &k)
      : files(k.linker().files().size()),
        sysctls(k.sysctl().list("").size()),
        commands(k.shell().list().size()), probes(k.probes().live_probes()),
        arena(k.arena().used()) {}
  bool operator==(const KernelState &o) const {
    return files == o.files && sysctls == o.sysctls &&
           commands == o.commands && probes == o.probes && arena == o.arena;
  }
};

} // namespace

TEST_CASE("eh_frame at load: a module with a bad CIE pointer is refused, and "
          "nothing of it stays") {
  ModuleDir dir;
  // The good one: its CIE pointer counts back 0x1c bytes to the CIE.
  dir.write("good.ko", module_with_eh_frame(0x1c));
  // 0x1000 back: before .eh_frame.
  dir.write("bad.ko", module_with_eh_frame(0x1000));
  // A CIE pointer back to the FDE itself (0x18 is the FDE's start).
  dir.write("self.ko", module_with_eh_frame(0x4));
  // The code address relocated against a kernel function.
  dir.write("elsewhere.ko", module_with_eh_frame(0x1c, true));
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  KernelState before(k);
  auto r = k.linker().load(dir.path() + "/bad.ko");
  CHECK(message_of(r) ==
        "bad.ko: .eh_frame FDE at 0x18: CIE pointer 0x1000 outside the "
        "section");
  CHECK(KernelState(k) == before);
  r = k.linker().load(dir.path() + "/self.ko");
  CHECK(message_of(r) == "self.ko: .eh_frame FDE at 0x18: CIE pointer 0x4 "
                         "aims at 0x18, which is not a CIE");
  CHECK(KernelState(k) == before);
  r = k.linker().load(dir.path() + "/elsewhere.ko");
  CHECK(message_of(r).find("elsewhere.ko: .eh_frame FDE at 0x18: code [0x") ==
        0);
  CHECK(message_of(r).find(") is not the module's") != std::string::npos);
  CHECK(KernelState(k) == before);
  auto f = k.linker().load(dir.path() + "/good.ko");
  REQUIRE_OK(f);
  // Its one FDE is found where its code is.
  const mk::CodeImage *img = k.probes().code().image_at((*f)->address);
  REQUIRE(img != nullptr);
  mk::CodeImage::Fde fde{};
  CHECK(img->fde_at((*f)->sec_addr[1], fde));
  CHECK(fde.hi - fde.lo == 1);
  REQUIRE_OK(k.linker().unload(*f));
  CHECK(KernelState(k) == before);
}

// ---- the walk on a stack that lies ---------------------------------------------

namespace {

__attribute__((noinline)) int lying_target(int x) {
  __asm__ volatile("" ::: "memory");
  return x + 1;
}

} // namespace

TEST_CASE("unwind: a stack that lies stays inside the stack and the frame "
          "limit") {
  ModuleDir dir;
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const mk::CodeMap &code = k.probes().code();
  // A "stack" of one page, every word a return address just past the
  // first byte of a kernel function (whose entry rule moves the CFA one
  // word up): each word is a frame, up to the page's end, where an
  // inaccessible page lies.
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  auto *map = (u8 *)mmap(nullptr, 2 * page, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  REQUIRE(mprotect(map, page, PROT_READ | PROT_WRITE) == 0);
  auto *words = (uintptr_t *)map;
  for (size_t i = 0; i < page / kWord; i++)
    words[i] = (uintptr_t)&lying_target + 1;
  mk::ProbeFrame f;
  f.pc = (uintptr_t)&lying_target;
  f.sp = (uintptr_t)map;
  f.exact = true;
  std::vector<u64> pcs(4096);
  // This page is the thread's stack: the walk ends at its top.
  mk::unwind_set_thread_stacks({(uintptr_t)map, (uintptr_t)map + page}, {});
  size_t n = mk::unwind(code, f, pcs.data(), pcs.size());
  CHECK(n == page / kWord + 1);
  // At most `max` frames.
  CHECK(mk::unwind(code, f, pcs.data(), 48) == 48);
  // A stack pointer in neither of the thread's stacks: no read at all.
  f.sp = 0x1000;
  CHECK(mk::unwind(code, f, pcs.data(), pcs.size()) == 1);
  // The return address of a jump to nowhere: only from the stack.
  mk::ProbeFrame caller;
  CHECK_FALSE(mk::caller_of_jump(f, caller));
  f.sp = (uintptr_t)map + 8 * kWord;
  REQUIRE(mk::caller_of_jump(f, caller));
  CHECK(caller.pc == (uintptr_t)&lying_target + 1);
  CHECK(caller.sp == f.sp + kWord);
  mk::unwind_set_thread_stacks(mk::current_thread_stack(), {});
  munmap(map, 2 * page);
}
