// The CPU as Linux code asks about it, and the FPU in kernel mode: what
// Debian's arch/x86/crypto modules (crc32c-intel, crct10dif-pclmul) call
// before and around their SSE4.2 and PCLMULQDQ code.
//
// boot_cpu_data is 6.1's struct cpuinfo_x86 (288 bytes on x86_64, offsets
// measured with a probe module built by Debian's kbuild): family, model,
// stepping and vendor from CPUID, and x86_capability[] the feature words
// the loader applies alternatives by (linux_cpu_has(): what user mode may
// use), so a module's boot_cpu_has() and x86_match_cpu() agree with its
// .altinstructions.  x86_64 only, as the loader of Linux modules.
#include "lkpi.h"

#if defined(__x86_64__)

#include "../kern_linux.h"

#include <algorithm>
#include <cpuid.h>
#include <cstring>

namespace lkpi {

namespace {
// struct cpuinfo_x86.
constexpr size_t kCpuFamily = 0, kCpuVendor = 1, kCpuModel = 2,
                 kCpuStepping = 3, kCpuidLevel = 36, kCapability = 40,
                 kVendorId = 136, kModelId = 152, kCacheAlignment = 220,
                 kClflushSize = 262, kCpuinfoSize = 288;
constexpr unsigned kCapWords = 22; // NCAPINTS (then NBUGINTS, all clear)

// struct x86_cpu_id (mod_devicetable.h).
struct x86_cpu_id {
  u16 vendor, family, model, steppings, feature;
  unsigned long driver_data;
};
static_assert(sizeof(x86_cpu_id) == 24 && offsetof(x86_cpu_id, driver_data) == 16);
constexpr u16 kVendorAny = 0xffff;

u8 vendor_of(const char id[12]) {
  static const struct {
    const char *id;
    u8 vendor;
  } known[] = {{"GenuineIntel", 0}, {"AuthenticAMD", 2}, {"CentaurHauls", 5},
               {"HygonGenuine", 9}, {"  Shanghai  ", 10}};
  for (const auto &k : known)
    if (std::memcmp(id, k.id, 12) == 0)
      return k.vendor;
  return 0xff; // X86_VENDOR_UNKNOWN
}
} // namespace

alignas(64) u8 boot_cpu_data[kCpuinfoSize];

namespace {
// Filled before anything runs, as Linux's early_cpu_init() does.
struct BootCpu {
  BootCpu() {
    u8 *c = boot_cpu_data;
    unsigned a = 0, b = 0, cx = 0, d = 0;
    __get_cpuid(0, &a, &b, &cx, &d);
    std::memcpy(c + kCpuidLevel, &a, 4);
    char id[12];
    std::memcpy(id, &b, 4), std::memcpy(id + 4, &d, 4), std::memcpy(id + 8, &cx, 4);
    std::memcpy(c + kVendorId, id, 12);
    c[kCpuVendor] = vendor_of(id);
    if (__get_cpuid(1, &a, &b, &cx, &d)) {
      unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
      if (family == 0xf)
        family += (a >> 20) & 0xff;
      if (family >= 6)
        model += ((a >> 16) & 0xf) << 4;
      c[kCpuFamily] = (u8)family;
      c[kCpuModel] = (u8)model;
      c[kCpuStepping] = a & 0xf;
      const u16 clflush = (u16)(((b >> 8) & 0xff) * 8);
      std::memcpy(c + kClflushSize, &clflush, 2);
    }
    const int align = 64;
    std::memcpy(c + kCacheAlignment, &align, 4);
    if (__get_cpuid(0x80000000, &a, &b, &cx, &d) && a >= 0x80000004)
      for (unsigned l = 0; l < 3; l++) {
        __get_cpuid(0x80000002 + l, &a, &b, &cx, &d);
        const unsigned r[4] = {a, b, cx, d};
        std::memcpy(c + kModelId + 16 * l, r, 16);
      }
    for (unsigned f = 0; f < kCapWords * 32; f++)
      if (mk::linux_cpu_has(f))
        c[kCapability + f / 8] |= (u8)(1u << (f % 8));
  }
} g_boot_cpu;

bool cpu_has(unsigned feature) {
  return feature < kCapWords * 32 &&
         (boot_cpu_data[kCapability + feature / 8] >> (feature % 8) & 1);
}

// What kernel_fpu_begin_mask() found, to put back at kernel_fpu_end(): a
// module's SIMD code runs with the default control words, and the
// thread's own settings survive it.
struct FpuSave {
  bool in_kernel_fpu = false;
  u32 mxcsr = 0;
  u16 fcw = 0;
};
thread_local FpuSave t_fpu;
constexpr unsigned kKfpu387 = 1, kKfpuMxcsr = 2;

// WARN_ON_FPU's line: kernel FPU sections do not nest.
void fpu_warning(const char *fn) {
  const int cpu = mk::PerCpu::current_index();
  console_line(4, lformat("WARNING: CPU: %d PID: %d at arch/x86/kernel/fpu/core.c %s\n",
                          cpu < 0 ? 0 : cpu, cpu < 0 ? 0 : cpu + 1, fn));
}
} // namespace

const x86_cpu_id *x86_match_cpu(const x86_cpu_id *m) {
  const u8 *c = boot_cpu_data;
  for (; m->vendor | m->family | m->model | m->feature; m++) {
    if (m->vendor != kVendorAny && c[kCpuVendor] != m->vendor)
      continue;
    if (m->family && c[kCpuFamily] != m->family)
      continue;
    if (m->model && c[kCpuModel] != m->model)
      continue;
    if (m->steppings && !((1u << c[kCpuStepping]) & m->steppings))
      continue;
    if (m->feature && !cpu_has(m->feature))
      continue;
    return m;
  }
  return nullptr;
}

// No interrupt here can find the FPU in use: a module may always use it.
bool irq_fpu_usable() { return true; }

void kernel_fpu_begin_mask(unsigned mask) {
  FpuSave &s = t_fpu;
  if (s.in_kernel_fpu)
    fpu_warning("kernel_fpu_begin_mask");
  s.in_kernel_fpu = true;
  asm volatile("stmxcsr %0" : "=m"(s.mxcsr));
  asm volatile("fnstcw %0" : "=m"(s.fcw));
  if (mask & kKfpuMxcsr) {
    const u32 def = 0x1f80; // MXCSR_DEFAULT
    asm volatile("ldmxcsr %0" : : "m"(def));
  }
  if (mask & kKfpu387) {
    const u16 def = 0x37f; // fninit's control word
    asm volatile("fldcw %0" : : "m"(def));
  }
}

void kernel_fpu_end() {
  FpuSave &s = t_fpu;
  if (!s.in_kernel_fpu)
    fpu_warning("kernel_fpu_end");
  s.in_kernel_fpu = false;
  asm volatile("ldmxcsr %0" : : "m"(s.mxcsr));
  asm volatile("fldcw %0" : : "m"(s.fcw));
}

// Whether the system saves the register states `needed` asks for
// (XCR0, as Linux's fpu_kernel_cfg.max_features), and the name of the
// highest missing one (or of the highest asked for) in *name.
int cpu_has_xfeatures(u64 needed, const char **name) {
  static const char *const names[] = {
      "x87 floating point registers", "SSE registers", "AVX registers",
      "MPX bounds registers", "MPX CSR", "AVX-512 opmask",
      "AVX-512 Hi256", "AVX-512 ZMM_Hi256", "Processor Trace (unused)",
      "Protection Keys User registers", "PASID state",
      "unknown xstate feature"};
  u64 xcr0 = 3; // x87 and SSE, without XSAVE
  if (cpu_has(4 * 32 + 27)) { // OSXSAVE
    u32 lo, hi;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((u64)hi << 32) | lo;
  }
  const u64 missing = needed & ~xcr0;
  if (name) {
    const u64 print = missing ? missing : needed;
    const int top = print ? 63 - __builtin_clzll(print) : 0;
    *name = names[std::min<int>(top, (int)(sizeof names / sizeof *names) - 1)];
  }
  return missing ? 0 : 1;
}

LINUX_EXPORT(boot_cpu_data);
LINUX_EXPORT_GPL(cpu_has_xfeatures);
LINUX_EXPORT(x86_match_cpu);
LINUX_EXPORT(irq_fpu_usable);
LINUX_EXPORT_GPL(kernel_fpu_begin_mask);
LINUX_EXPORT_GPL(kernel_fpu_end);

} // namespace lkpi

#endif // __x86_64__
