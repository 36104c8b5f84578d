// Linux alternatives' two machine pieces: which CPU features count as
// present (kernel/kern_linux.h linux_cpu_has: CPUID's user-mode features,
// never a kernel-only one), and moving a replacement's instructions to
// the original's address (sdt/patch.h x86::move_code: relative operands
// re-aimed at the same target).
#include "../../kernel/kern_linux.h"
#include "../../sdt/patch.h"

#include <doctest/doctest.h>

#include <cpuid.h>
#include <cstring>
#include <vector>

using mk::u64;
using mk::u8;

#if defined(__x86_64__)
namespace {
constexpr unsigned feature(unsigned word, unsigned bit) {
  return word * 32 + bit;
}
bool cpuid_bit(unsigned leaf, unsigned sub, int reg, unsigned bit) {
  unsigned r[4] = {};
  if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]))
    return false;
  return r[reg] >> bit & 1;
}
} // namespace

TEST_CASE("alternatives: features present are the CPU's user-mode ones") {
  CHECK(mk::linux_cpu_has(feature(3, 21)));  // X86_FEATURE_ALWAYS
  CHECK(mk::linux_cpu_has(feature(0, 26)));  // SSE2: every x86_64
  CHECK(mk::linux_cpu_has(feature(1, 29)));  // long mode
  CHECK(mk::linux_cpu_has(feature(8, 16)));  // XENPV: paravirt calls stay
  // ERMS, FSRM and POPCNT as CPUID says.
  CHECK(mk::linux_cpu_has(feature(9, 9)) == cpuid_bit(7, 0, 1, 9));
  CHECK(mk::linux_cpu_has(feature(18, 4)) == cpuid_bit(7, 0, 3, 4));
  CHECK(mk::linux_cpu_has(feature(4, 23)) == cpuid_bit(1, 0, 2, 23));
  // Kernel-only, whatever the CPU has: SMAP, SMEP, PCID, INVPCID, LA57,
  // XSAVES; Linux's own PTI and REP_GOOD; a bug; out of range.
  for (unsigned f : {feature(9, 20), feature(9, 7), feature(4, 17),
                     feature(9, 10), feature(16, 16), feature(10, 3),
                     feature(7, 11), feature(3, 16), feature(22, 0),
                     feature(100, 0)})
    CHECK_FALSE(mk::linux_cpu_has(f));
}

TEST_CASE("alternatives: moved instructions keep their targets") {
  // call rel32 to 0x2000 and mov 0x10(%rip),%eax, written at 0x1000,
  // moved to 0x1800: each displacement grows by 0x800 - the move.
  const u8 src[] = {0xe8, 0xfb, 0x0f, 0x00, 0x00,             // call 0x2000
                    0x8b, 0x05, 0x10, 0x00, 0x00, 0x00};      // mov 0x10(%rip)
  u8 out[sizeof src];
  REQUIRE(mk::x86::move_code(src, sizeof src, 0x1000, 0x1800, out));
  int32_t d;
  std::memcpy(&d, out + 1, 4);
  CHECK(0x1800 + 5 + d == 0x2000);
  std::memcpy(&d, out + 7, 4);
  CHECK(0x1800 + 11 + d == 0x1000 + 11 + 0x10);
  // A jump inside the moved bytes moves with them.
  const u8 loop[] = {0x90, 0xeb, 0xfd}; // nop; jmp back to the nop
  u8 lout[3];
  REQUIRE(mk::x86::move_code(loop, 3, 0x1000, 0x9000, lout));
  CHECK(std::memcmp(loop, lout, 3) == 0);
  // A short jump out of the bytes that no longer reaches is refused.
  const u8 jmp8[] = {0xeb, 0x10};
  u8 jout[2];
  auto r = mk::x86::move_code(jmp8, 2, 0x1000, 0x9000, jout);
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "the displacement to 0x1012 no longer fits in 1 byte");
}
#endif
