// Linux-format modules (see kern_linux.h).  The layouts read here are
// Linux 6.1's on x86_64, and on i386 under Debian's 686 config: struct
// kernel_symbol with place-relative fields (CONFIG_HAVE_ARCH_PREL32_
// RELOCATIONS, both), struct modversion_info, struct kernel_param, struct
// jump_entry, whose pointers and longs are the kernel's own width (a
// kernel loads modules of its own architecture only).
#include "kern_linux.h"

#include "export.h"
#include "kern_linker.h"
#include "kern_linuxkpi_hook.h"
#include "kernel.h"

#include "kern_panic.h"

#include "../linker/code.h"
#include "../sdt/patch.h"
#include "../sdt/registry.h"
#include "../sdt/unwind.h"
#include "../sdt/x86.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <fstream>
#include <glob.h>
#include <cpuid.h>
#include <sys/stat.h>
#include <sstream>
#include <tuple>
#include <ucontext.h>
#include <unistd.h>

namespace mk {

namespace {

// A pointer or long of the module's.
constexpr size_t kPtr = sizeof(void *);
// unsigned long crc; char name[64 - sizeof(long)]
constexpr size_t kModversionSize = 64;
constexpr size_t kKernelSymbolSize = 12;
// name, mod, ops; u16 perm, s8 level, u8 flags; arg: 40 bytes, 20 on i386
constexpr size_t kKernelParamSize = 5 * kPtr;
constexpr size_t kJumpEntrySize = 8 + kPtr; // s32 code, target; long key

i32 rd32(const u8 *p) {
  i32 v;
  std::memcpy(&v, p, 4);
  return v;
}
// A pointer of the module's, and a long (signed).
u64 rdptr(const u8 *p) {
  uintptr_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
i64 rdlong(const u8 *p) {
  long v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Whether [addr, addr + len) lies in [lo, hi), with no sum to wrap: an
// address a module's table computes may be anything.
bool within(u64 addr, u64 len, u64 lo, u64 hi) {
  return addr >= lo && addr <= hi && hi - addr >= len;
}

// Each entry of the module's linked sections named `name`, `size` bytes
// each: fn(address, bytes through the image's view, index).  A section
// that is not a whole number of entries is refused with one line.
template <class F>
Result<void> each_entry(const std::string &who, const ObjectFile &obj,
                        const Placement &pl, std::string_view name, u64 size,
                        F &&fn) {
  for (size_t s = 0; s < obj.sections.size(); s++) {
    const Section &sec = obj.sections[s];
    if (sec.name != name || !pl.sec_addr[s])
      continue;
    if (sec.size % size)
      return error(strf("%s: %s: %llu bytes, not a multiple of %llu",
                        who.c_str(), sec.name.c_str(),
                        (unsigned long long)sec.size, (unsigned long long)size));
    for (u64 k = 0; k < sec.size; k += size)
      MK_TRY(fn(pl.sec_addr[s] + k, pl.sec_mem[s] + k,
                (unsigned long long)(k / size)));
  }
  return {};
}

// The allocated sections a Linux 6.1 module may carry, and what becomes of
// each: loaded as code or data (the link's layout decides where), or read
// by the loader here.  Anything else is refused by name.
bool known_section(const std::string &n) {
  static const char *const exact[] = {
      ".text", ".init.text", ".exit.text", ".noinstr.text", ".rodata",
      ".init.rodata", ".data", ".init.data", ".exit.data", ".ref.data",
      ".bss", ".data..read_mostly", ".data..ro_after_init", ".data.once",
      ".data..percpu", "__ksymtab", "__ksymtab_gpl", "__kcrctab",
      "__kcrctab_gpl", "__ksymtab_strings", "__param", "__mcount_loc",
      "__jump_table", "__bug_table", "__ex_table", "__versions", ".modinfo",
      ".gnu.linkonce.this_module", ".return_sites", ".retpoline_sites",
      ".orc_unwind", ".orc_unwind_ip", ".smp_locks", ".altinstructions",
      ".altinstr_replacement", ".static_call_sites", ".static_call.text",
      "__dyndbg",
      "__dyndbg_classes", ".printk_index", "__patchable_function_entries",
      // TRACE_EVENT: the tracepoints (read here), and what only Linux's
      // ftrace, perf and BPF would read (loaded as data, unused).
      "__tracepoints", "__tracepoints_ptrs", "__tracepoints_strings",
      "_ftrace_events", "_ftrace_eval_map", "__bpf_raw_tp_map"};
  for (const char *e : exact)
    if (n == e)
      return true;
  for (const char *p : {".text.", ".rodata.", ".data.", ".bss.", ".note."})
    if (n.compare(0, std::strlen(p), p) == 0)
      return true;
  return false;
}

std::vector<std::string> split_commas(const std::string &s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos)
      j = s.size();
    if (j > i)
      out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The x86 instructions a jump label switches between; the 5-byte NOP
// is the one Linux compiles in: x86_64's P6 NOP, i386's `ds lea
// 0x0(%esi,%eiz,1),%esi` (any i386 CPU runs it).
#if defined(__x86_64__)
constexpr u8 kJumpNop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
#else
constexpr u8 kJumpNop5[] = {0x3e, 0x8d, 0x74, 0x26, 0x00};
#endif
void jump_bytes(const JumpLabels::Entry &e, bool jump, u8 *out) {
  if (!jump) {
    static const u8 nop2[] = {0x66, 0x90};
    std::memcpy(out, e.len == 2 ? nop2 : kJumpNop5, e.len);
    return;
  }
  const i64 rel = (i64)(e.target - (e.code + e.len));
  if (e.len == 2) {
    out[0] = 0xeb;
    out[1] = (u8)(i8)rel;
  } else {
    out[0] = 0xe9;
    const i32 r = (i32)rel;
    std::memcpy(out + 1, &r, 4);
  }
}

// struct static_key begins with atomic_t enabled, its count.
std::atomic<int> &key_enabled(u64 key) {
  return *reinterpret_cast<std::atomic<int> *>((uintptr_t)key);
}

// The loaded Linux modules whose __bug_table the SIGILL handler reads,
// and whose __ex_table the SIGSEGV/SIGBUS/SIGFPE handler reads: slots they
// scan without a lock.  A module leaves its slot before its memory goes,
// and by then none of its code runs.
constexpr size_t kFaultSlots = 1024;
std::atomic<const LinuxModule *> g_fault_slots[kFaultSlots];

constexpr u16 kBugWarning = 1, kBugOnce = 2, kBugDone = 4;

// The ucontext slots the fault handlers read and write.
#if defined(__x86_64__)
constexpr int kRegPc = REG_RIP, kRegSp = REG_RSP, kRegAx = REG_RAX,
              kRegCx = REG_RCX, kRegDx = REG_RDX;
#else
constexpr int kRegPc = REG_EIP, kRegSp = REG_ESP, kRegAx = REG_EAX,
              kRegCx = REG_ECX, kRegDx = REG_EDX;
#endif

// WARN: Linux's report (cut here, the site, the call trace) and on past
// the ud2; BUG: its line, then the panic.
int linux_bug_hook(void *uctx) {
  auto *uc = (ucontext_t *)uctx;
  const u64 pc = (u64)(uintptr_t)uc->uc_mcontext.gregs[kRegPc];
  for (auto &slot : g_fault_slots) {
    const LinuxModule *m = slot.load(std::memory_order_acquire);
    if (!m || pc < m->text_lo || pc >= m->text_hi)
      continue;
    const auto end = m->bugs.begin() +
                     (std::ptrdiff_t)m->live_bugs.load(std::memory_order_acquire);
    auto it = std::lower_bound(
        m->bugs.begin(), end, pc,
        [](const LinuxModule::Bug &b, u64 a) { return b.addr < a; });
    if (it == end || it->addr != pc)
      return 0;
    const u8 *insn = (const u8 *)(uintptr_t)pc;
    if (insn[0] != 0x0f || insn[1] != 0x0b)
      return 0;
    Kernel *k = curkernel();
    if (!(*it->flags & kBugWarning)) {
      if (k)
        k->printf("kernel BUG at %s:%u! (module %s)\n", it->file, it->line,
                  m->name.c_str());
      return 2;
    }
    uc->uc_mcontext.gregs[kRegPc] += 2;
    if ((*it->flags & kBugOnce) && (*it->flags & kBugDone))
      return 1;
    if (*it->flags & kBugOnce)
      *it->flags |= kBugDone;
    if (!k)
      return 1;
    const CodeMap &code = k->probes().code();
    k->printf("------------[ cut here ]------------\n");
    k->printf("WARNING: CPU: %d PID: %d at %s:%u %s\n", current_cpu(),
              (int)gettid(), it->file, it->line, code.symbolize(pc).c_str());
    std::string mods;
    for (LinkerFile *f : k->linker().files())
      if (f->linux_mod)
        mods += " " + f->linux_mod->name;
    k->printf("Modules linked in:%s\n", mods.c_str());
    k->printf("Call Trace:\n");
    u64 pcs[32];
    const size_t n = unwind(code, x86::signal_frame(uctx), pcs, 32);
    for (size_t i = 1; i < n; i++)
      k->printf(" %s\n", code.symbolize(pcs[i]).c_str());
    k->printf("---[ end trace ]---\n");
    return 1;
  }
  return 0;
}

// Linux 6.1's exception-table types (arch/x86/include/asm/
// extable_fixup_types.h): the entry's data word holds the type in bits
// 0-7, a register (the instruction encoding's number) in 8-11, flags in
// 12-15 and a signed immediate in 16-31.
enum ExType : u8 {
  kExDefault = 1, kExFault = 2, kExUaccess = 3, kExCopy = 4, kExClearFs = 5,
  kExFpuRestore = 6, kExBpf = 7, kExWrmsr = 8, kExRdmsr = 9,
  kExWrmsrSafe = 10, kExRdmsrSafe = 11, kExWrmsrInMce = 12,
  kExRdmsrInMce = 13, kExDefaultMceSafe = 14, kExFaultMceSafe = 15,
  kExPopReg = 16, kExImmReg = 17, kExFaultSgx = 18, kExUcopyLen = 19,
  kExZeropad = 20,
};
constexpr u8 kExLastType = kExZeropad;
constexpr int kExClearAx = 1, kExClearDx = 2; // flags

// The ucontext slot of x86 register number `n` (rax, rcx, rdx, rbx, rsp,
// rbp, rsi, rdi, r8 ... r15; on i386 the first eight).
greg_t &reg_nr(ucontext_t *uc, unsigned n) {
#if defined(__x86_64__)
  static const int slot[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX,
                               REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                               REG_R8,  REG_R9,  REG_R10, REG_R11,
                               REG_R12, REG_R13, REG_R14, REG_R15};
  return uc->uc_mcontext.gregs[slot[n & 15]];
#else
  static const int slot[8] = {REG_EAX, REG_ECX, REG_EDX, REG_EBX,
                              REG_ESP, REG_EBP, REG_ESI, REG_EDI};
  return uc->uc_mcontext.gregs[slot[n & 7]];
#endif
}

// Linux's fixup_exception() for the types that mean something in a
// process: the faulting instruction's entry sends the thread to its fixup,
// after what the type sets (the trap number, an immediate in a register,
// registers cleared).  Segment, FPU, BPF, SGX, machine-check and zero-pad
// fixups are not: those faults stay panics.
bool linux_fault_hook(int sig, void *uctx) {
  (void)sig;
  auto *uc = (ucontext_t *)uctx;
  greg_t *g = uc->uc_mcontext.gregs;
  const u64 pc = (u64)(uintptr_t)g[kRegPc];
  for (auto &slot : g_fault_slots) {
    const LinuxModule *m = slot.load(std::memory_order_acquire);
    if (!m || pc < m->text_lo || pc >= m->text_hi)
      continue;
    const auto end =
        m->fixups.begin() +
        (std::ptrdiff_t)m->live_fixups.load(std::memory_order_acquire);
    auto it = std::lower_bound(
        m->fixups.begin(), end, pc,
        [](const LinuxModule::Fixup &f, u64 a) { return f.insn < a; });
    if (it == end || it->insn != pc)
      return false;
    const u8 type = (u8)(it->data & 0xff);
    const unsigned reg = (it->data >> 8) & 0xf;
    const int flags = (it->data >> 12) & 0xf;
    const i64 imm = (i64)(it->data >> 16); // arithmetic: signed
    const greg_t trapnr = g[REG_TRAPNO];
    Kernel *k = curkernel();
    switch (type) {
    case kExDefault:
    case kExDefaultMceSafe:
    case kExUaccess:
      break;
    case kExFault:
    case kExFaultMceSafe:
    case kExCopy:
      g[kRegAx] = trapnr;
      break;
    case kExRdmsr:
    case kExWrmsr:
      if (k)
        k->printf("unchecked MSR access error: %s at rIP: 0x%llx (%s)\n",
                  type == kExRdmsr ? "RDMSR" : "WRMSR",
                  (unsigned long long)pc,
                  k->probes().code().symbolize(pc).c_str());
      break;
    case kExRdmsrSafe:
    case kExWrmsrSafe:
      reg_nr(uc, reg) = -5; // -EIO
      break;
    case kExPopReg:
      g[kRegSp] += kPtr;
      reg_nr(uc, reg) = imm;
      break;
    case kExImmReg:
      reg_nr(uc, reg) = imm;
      break;
    case kExUcopyLen:
      g[kRegCx] = imm * g[kRegCx] + reg_nr(uc, reg);
      break;
    default:
      return false;
    }
    if (flags & kExClearAx)
      g[kRegAx] = 0;
    if (flags & kExClearDx)
      g[kRegDx] = 0;
    g[kRegPc] = (greg_t)it->fixup;
    return true;
  }
  return false;
}

// ---- CPU features, as alternatives see them ---------------------------------
//
// Linux numbers features as word * 32 + bit (arch/x86/include/asm/
// cpufeatures.h, 22 words, then 2 of bugs).  Here a feature is present
// when the CPU has it (CPUID) and user mode may use it: the instruction-set
// extensions (SSE*, AVX*, BMI, POPCNT, ERMS, FSRM, RDPID, CLFLUSHOPT ...),
// AVX only if the system saves its registers (XCR0).  Everything the
// kernel alone may use (SMAP's stac/clac, SMEP, PCID, LA57, XSAVES, MSRs),
// Linux's own flags (PTI, retpolines, REP_GOOD ...) and every bug are
// absent; X86_FEATURE_ALWAYS is present.  And XENPV counts as present:
// like a Xen PV guest, minikern runs Linux code without ring 0, so the
// paravirt calls stay calls rather than becoming cli, sti and popf.
constexpr unsigned kFeatureWords = 22, kBugWords = 2;
constexpr unsigned kFeatureAlways = 3 * 32 + 21, kFeatureXenPv = 8 * 32 + 16;

struct CpuWords {
  std::array<u32, kFeatureWords> w{};
};

u32 bits(std::initializer_list<unsigned> l) {
  u32 m = 0;
  for (unsigned b : l)
    m |= 1u << b;
  return m;
}

CpuWords read_cpu_words() {
  CpuWords c;
  unsigned a, b, cx, d;
  auto leaf = [&](unsigned l, unsigned sub) {
    a = b = cx = d = 0;
    return __get_cpuid_count(l, sub, &a, &b, &cx, &d) != 0;
  };
  // The words user-mode instructions come from, each with the bits that
  // may be taken as CPUID says.
  if (leaf(1, 0)) {
    c.w[0] = d & bits({0, 4, 8, 15, 19, 23, 24, 25, 26});
    c.w[4] = cx & bits({0, 1, 9, 12, 13, 19, 20, 22, 23, 25, 27, 28, 29, 30});
  }
  if (leaf(0x80000001, 0)) {
    c.w[1] = d & bits({20, 22, 25, 27, 29, 30, 31});
    c.w[6] = cx & bits({0, 5, 6, 7, 8, 11, 16, 21});
  }
  if (leaf(7, 0)) {
    c.w[9] = b & bits({3, 4, 5, 8, 9, 11, 16, 17, 18, 19, 23, 24, 26, 27,
                       28, 29, 30, 31});
    c.w[16] = cx & bits({1, 6, 8, 9, 10, 11, 12, 14, 22, 27, 28});
    c.w[18] = d & bits({2, 3, 4, 14, 23});
  }
  if (leaf(7, 1))
    c.w[12] = a & bits({4, 5});
  // AVX and AVX-512 need the system to save their registers.
  u64 xcr0 = 0;
  if (c.w[4] & (1u << 27)) {
    u32 lo, hi;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((u64)hi << 32) | lo;
  }
  if ((xcr0 & 6) != 6) {
    c.w[4] &= ~bits({12, 28, 29}); // FMA, AVX, F16C
    c.w[9] &= ~bits({5});          // AVX2
    c.w[12] &= ~bits({4});         // AVX-VNNI
  }
  if ((xcr0 & 0xe6) != 0xe6) {
    c.w[9] &= ~bits({16, 17, 26, 27, 28, 30, 31});
    c.w[16] &= ~bits({1, 6, 11, 12, 14});
    c.w[18] &= ~bits({2, 3, 23});
    c.w[12] &= ~bits({5});
  }
  c.w[3] |= 1u << (kFeatureAlways % 32);
  c.w[8] |= 1u << (kFeatureXenPv % 32);
  return c;
}

} // namespace

bool linux_cpu_has(unsigned feature) {
  static const CpuWords words = read_cpu_words();
  return feature < kFeatureWords * 32 &&
         (words.w[feature / 32] >> (feature % 32) & 1);
}

namespace {

// Linux's apply_alternatives() for one module: struct alt_instr { s32
// instr_offset, repl_offset; u16 cpuid; u8 instrlen, replacementlen; },
// packed, the offsets relative to their fields; cpuid's top bit inverts.
// Each original whose feature says so is overwritten, through the
// image's writable view before the module runs, with its replacement
// (relative operands re-aimed) and NOPs to its length.
constexpr size_t kAltInstrSize = 12;
constexpr u16 kAltInverted = 1u << 15;

// The ORC tables stack() and panics walk Linux frames with
// (sdt/unwind.cpp): .orc_unwind_ip (s32 each, relative to itself) and
// .orc_unwind (struct orc_entry of 6.1, 6 bytes) of one length, every
// address in the module's code [lo, hi] (hi: a section's end marker), and
// every entry's registers and type ones 6.1 defines, its unused bits zero.
Result<void> check_orc(const std::string &who, const ObjectFile &obj,
                       const Placement &pl, u64 lo, u64 hi) {
  u64 ips = 0, orcs = 0, nips = 0, norcs = 0;
  for (size_t s = 0; s < obj.sections.size(); s++) {
    const Section &sec = obj.sections[s];
    if (sec.name == ".orc_unwind_ip" && pl.sec_addr[s])
      ips = pl.sec_addr[s], nips = sec.size;
    else if (sec.name == ".orc_unwind" && pl.sec_addr[s])
      orcs = pl.sec_addr[s], norcs = sec.size;
  }
  if (!ips && !orcs)
    return {};
  if (!ips || !orcs || nips % 4 || norcs % 6 || nips / 4 != norcs / 6)
    return error(strf("%s: .orc_unwind_ip (%llu bytes, 4 an entry) and "
                      ".orc_unwind (%llu bytes, 6 an entry) do not describe "
                      "the same entries",
                      who.c_str(), (unsigned long long)nips,
                      (unsigned long long)norcs));
  constexpr unsigned kLastReg = 9, kLastType = 2; // SP_INDIRECT, REGS_PARTIAL
  for (u64 i = 0; i < nips / 4; i++) {
    const u64 field = ips + i * 4;
    const u64 ip = field + (i64)(i32)rd32((const u8 *)(uintptr_t)field);
    if (ip < lo || ip > hi)
      return error(strf("%s: .orc_unwind entry %llu: address 0x%llx is "
                        "outside the module's code",
                        who.c_str(), (unsigned long long)i,
                        (unsigned long long)ip));
    const u8 *e = (const u8 *)(uintptr_t)(orcs + i * 6);
    const unsigned sp_reg = e[4] & 0xf, bp_reg = e[4] >> 4, type = e[5] & 3;
    if (sp_reg > kLastReg || bp_reg > kLastReg || type > kLastType ||
        (e[5] & 0xf8))
      return error(strf("%s: .orc_unwind entry %llu: registers %u/%u, type "
                        "%u: not an entry Linux 6.1 writes",
                        who.c_str(), (unsigned long long)i, sp_reg, bp_reg,
                        type));
  }
  return {};
}

Result<void> apply_alternatives(const std::string &who, const ObjectFile &obj,
                                const Placement &pl, u64 text_lo,
                                u64 text_hi) {
  return each_entry(who, obj, pl, ".altinstructions", kAltInstrSize,
                    [&](u64 e, const u8 *p, unsigned long long n)
                        -> Result<void> {
    const u64 instr = e + (i64)rd32(p);
    const u64 repl = e + 4 + (i64)rd32(p + 4);
    u16 cpuid;
    std::memcpy(&cpuid, p + 8, 2);
    const u8 ilen = p[10], rlen = p[11];
    const unsigned feature = cpuid & ~kAltInverted;
    if (feature >= (kFeatureWords + kBugWords) * 32)
      return error(strf("%s: .altinstructions entry %llu: feature %u is "
                        "not one Linux 6.1 numbers",
                        who.c_str(), n, feature));
    if (!within(instr, ilen, text_lo, text_hi) ||
        !within(repl, rlen, text_lo, text_hi))
      return error(strf("%s: .altinstructions entry %llu: instruction "
                        "0x%llx (%u bytes) or replacement 0x%llx (%u "
                        "bytes) is outside the module's code",
                        who.c_str(), n, (unsigned long long)instr, ilen,
                        (unsigned long long)repl, rlen));
    if (rlen > ilen)
      return error(strf("%s: .altinstructions entry %llu: a replacement "
                        "of %u bytes for %u",
                        who.c_str(), n, rlen, ilen));
    if (linux_cpu_has(feature) == !!(cpuid & kAltInverted))
      return {}; // the original stays
    u8 *at = pl.image_mem + (instr - pl.image_base);
    std::vector<u8> buf(ilen);
    if (auto r = x86::move_code(pl.image_mem + (repl - pl.image_base), rlen,
                                repl, instr, buf.data());
        !r)
      return error(strf("%s: .altinstructions entry %llu: replacement at "
                        "0x%llx: %s",
                        who.c_str(), n, (unsigned long long)repl,
                        r.error().message.c_str()));
    x86::nop_fill(buf.data() + rlen, ilen - rlen);
    code::copy(at, buf.data(), ilen);
    return {};
  });
}

} // namespace

std::string linux_symvers_path() {
  // The newest installed (6.1.0-9 before 6.1.0-56).
  std::string path;
  glob_t g{};
#if defined(__x86_64__)
  const std::string pat = "/usr/src/linux-headers-6.1.*-amd64/Module.symvers";
#else
  // The 686 headers are unpacked into the set-up's cache, not installed
  // (scripts/linux-modules).
  const char *cache = std::getenv("MK_CACHE");
  const std::string pat =
      std::string(cache && *cache ? cache : "/var/cache/minikern") +
      "/linux-headers-6.1.*-686/Module.symvers";
#endif
  if (::glob(pat.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; i++)
      if (path.empty() || strverscmp(g.gl_pathv[i], path.c_str()) > 0)
        path = g.gl_pathv[i];
  globfree(&g);
  return path;
}

std::string linux_module_name(std::string n) {
  for (char &c : n)
    if (c == '-')
      c = '_';
  return n;
}

bool LinuxModule::gpl_compatible() const {
  // Linux's license_is_gpl_compatible().
  for (const char *l : {"GPL", "GPL v2", "GPL and additional rights",
                        "Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL"})
    if (license == l)
      return true;
  return false;
}

// ---- static keys -----------------------------------------------------------

Result<void> JumpLabels::add_module(const LinkerFile &f,
                                    const ObjectFile &obj,
                                    const Placement &pl,
                                    const std::function<bool(u64)> &key_ok) {
  std::vector<Entry> found;
  std::vector<u64> keys;
  MK_TRY(each_entry(f.name, obj, pl, "__jump_table", kJumpEntrySize,
                    [&](u64 at, const u8 *mem, unsigned long long n)
                        -> Result<void> {
    Entry e;
    e.owner = &f;
    e.code = at + (i64)rd32(mem);
    e.target = at + 4 + (i64)rd32(mem + 4);
    const u64 key = at + 8 + (u64)rdlong(mem + 8);
    e.branch = key & 1;
    const u64 kaddr = key & ~3ull;
    if (!key_ok(kaddr))
      return error(strf("%s: __jump_table entry %llu: key 0x%llx is "
                        "neither the module's data nor an exported key",
                        f.name.c_str(), n,
                        (unsigned long long)kaddr));
    // The site: inside the module's code, a 2- or 5-byte jmp or NOP.
    const u64 text_lo = pl.image_base + pl.text.off;
    if (!within(e.code, 5, text_lo, text_lo + pl.text.size) ||
        e.target < text_lo || e.target >= text_lo + pl.text.size)
      return error(strf("%s: __jump_table entry %llu: code 0x%llx or "
                        "target 0x%llx is outside the module's code",
                        f.name.c_str(), n,
                        (unsigned long long)e.code,
                        (unsigned long long)e.target));
    const u8 *b = pl.image_mem + (e.code - pl.image_base);
    if (b[0] == 0xeb || (b[0] == 0x66 && b[1] == 0x90))
      e.len = 2;
    else if (b[0] == 0xe9 || std::memcmp(b, kJumpNop5, 5) == 0)
      e.len = 5;
    else
      return error(strf("%s: __jump_table entry %llu: the site at 0x%llx "
                        "is neither a jump nor a NOP (%02x %02x)",
                        f.name.c_str(), n,
                        (unsigned long long)e.code, b[0], b[1]));
    found.push_back(e);
    keys.push_back(kaddr);
    return {};
  }));
  if (found.empty())
    return {};
  MutexLock g(mu_);
  // Each site as its key is now; the link's writable view is still open.
  for (size_t i = 0; i < found.size(); i++) {
    const Entry &e = found[i];
    const bool jump = (key_enabled(keys[i]).load() > 0) ^ e.branch;
    jump_bytes(e, jump, pl.image_mem + (e.code - pl.image_base));
    by_key_[keys[i]].push_back(e);
  }
  return {};
}

void JumpLabels::remove_module(const LinkerFile *f) {
  MutexLock g(mu_);
  for (auto it = by_key_.begin(); it != by_key_.end();) {
    auto &v = it->second;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const Entry &e) { return e.owner == f; }),
            v.end());
    it = v.empty() ? by_key_.erase(it) : std::next(it);
  }
}

void JumpLabels::remove_range(const LinkerFile *f, u64 lo, u64 hi) {
  MutexLock g(mu_);
  for (auto it = by_key_.begin(); it != by_key_.end();) {
    auto &v = it->second;
    std::erase_if(v, [&](const Entry &e) {
      return e.owner == f && e.code >= lo && e.code < hi;
    });
    it = v.empty() ? by_key_.erase(it) : std::next(it);
  }
}

void JumpLabels::update(u64 key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end())
    return;
  const bool on = key_enabled(key).load() > 0;
  std::vector<PatchOp> ops;
  for (const Entry &e : it->second) {
    PatchOp op{};
    op.addr = e.code;
    op.len = e.len;
    jump_bytes(e, on ^ e.branch, op.bytes);
    u8 now[8];
    if (k_.probes().patcher().read(e.code, now, e.len) &&
        same_bytes(now, op.bytes, e.len))
      continue;
    ops.push_back(op);
  }
  if (!ops.empty())
    k_.probes().patcher().apply(ops);
}

void JumpLabels::enable(void *key) {
  MutexLock g(mu_);
  if (key_enabled((u64)(uintptr_t)key).exchange(1) == 1)
    return;
  update((u64)(uintptr_t)key);
}

void JumpLabels::disable(void *key) {
  MutexLock g(mu_);
  if (key_enabled((u64)(uintptr_t)key).exchange(0) == 0)
    return;
  update((u64)(uintptr_t)key);
}

void JumpLabels::slow_inc(void *key) {
  MutexLock g(mu_);
  if (key_enabled((u64)(uintptr_t)key).fetch_add(1) == 0)
    update((u64)(uintptr_t)key);
}

void JumpLabels::slow_dec(void *key) {
  MutexLock g(mu_);
  auto &en = key_enabled((u64)(uintptr_t)key);
  if (en.load() <= 0) {
    k_.printf("WARNING: static key 0x%llx decremented below zero\n",
              (unsigned long long)(uintptr_t)key);
    return;
  }
  if (en.fetch_sub(1) == 1)
    update((u64)(uintptr_t)key);
}

int JumpLabels::count(void *key) const {
  return key_enabled((u64)(uintptr_t)key).load();
}

size_t JumpLabels::entries() const {
  MutexLock g(mu_);
  size_t n = 0;
  for (const auto &[k, v] : by_key_)
    n += v.size();
  return n;
}

// ---- static calls ----------------------------------------------------------

namespace {

// struct static_call_site { s32 addr, key; }, both relative to their
// fields; the key's low bits are flags (tail call, init).
constexpr size_t kStaticCallSiteSize = 8;
constexpr u64 kStaticCallFlags = 3;

// What a static call's site or trampoline becomes for `func` (Linux's
// arch_static_call_transform()): a call or jmp to it; with no function a
// NOP in place of a call, a ret in place of a jump.  False when `func` is
// out of a rel32's reach.
bool static_call_bytes(u64 at, bool tail, u64 func, u8 *out) {
  static const u8 nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00},
                  ret5[] = {0xc3, 0xcc, 0xcc, 0xcc, 0xcc};
  if (!func) {
    std::memcpy(out, tail ? ret5 : nop5, 5);
    return true;
  }
  const i64 rel = (i64)(func - (at + 5));
  if (rel != (i64)(i32)rel)
    return false;
  out[0] = tail ? 0xe9 : 0xe8;
  const i32 r = (i32)rel;
  std::memcpy(out + 1, &r, 4);
  return true;
}

// A trampoline ends its jmp with Linux's signature, ud1 %esp,%ecx.
constexpr u8 kTrampSignature[] = {0x0f, 0xb9, 0xcc};

} // namespace

Result<void> StaticCalls::add_module(const LinkerFile &f,
                                     const std::string &who,
                                     const ObjectFile &obj,
                                     const Placement &pl, u64 text_lo,
                                     u64 text_hi,
                                     const std::function<bool(u64)> &key_ok,
                                     const std::function<bool(u64)> &api_tramp) {
  std::vector<std::pair<u64, Site>> found; // key, site
  MK_TRY(each_entry(who, obj, pl, ".static_call_sites", kStaticCallSiteSize,
                    [&](u64 e, const u8 *p, unsigned long long n)
                        -> Result<void> {
    Site site;
    site.owner = &f;
    site.addr = e + (i64)rd32(p);
    const u64 key = (e + 4 + (i64)rd32(p + 4)) & ~kStaticCallFlags;
    // A call through the Linux API's trampoline (cond_resched ...):
    // no module may update it, it stays a call to the trampoline.
    if (api_tramp(key))
      return {};
    if (!key_ok(key))
      return error(strf("%s: .static_call_sites entry %llu: key 0x%llx is "
                        "neither the module's data nor an exported "
                        "static call",
                        who.c_str(), n, (unsigned long long)key));
    if (!within(site.addr, 5, text_lo, text_hi))
      return error(strf("%s: .static_call_sites entry %llu: site 0x%llx "
                        "is outside the module's code",
                        who.c_str(), n, (unsigned long long)site.addr));
    const u8 *b = pl.image_mem + (site.addr - pl.image_base);
    if (b[0] != 0xe8 && b[0] != 0xe9)
      return error(strf("%s: .static_call_sites entry %llu: the site at "
                        "0x%llx is neither a call nor a jump (%02x)",
                        who.c_str(), n, (unsigned long long)site.addr,
                        b[0]));
    site.tail = b[0] == 0xe9;
    found.emplace_back(key, site);
    return {};
  }));
  if (found.empty())
    return {};
  MutexLock g(mu_);
  // Each site straight at its key's function; the link's writable view is
  // still open.  One out of reach keeps calling the trampoline.
  for (const auto &[key, site] : found) {
    const u64 func = __atomic_load_n((const u64 *)(uintptr_t)key,
                                     __ATOMIC_ACQUIRE);
    u8 bytes[5];
    if (static_call_bytes(site.addr, site.tail, func, bytes))
      std::memcpy(pl.image_mem + (site.addr - pl.image_base), bytes, 5);
    by_key_[key].push_back(site);
  }
  return {};
}

void StaticCalls::remove_module(const LinkerFile *f) {
  remove_range(f, 0, ~0ull);
}

void StaticCalls::remove_range(const LinkerFile *f, u64 lo, u64 hi) {
  MutexLock g(mu_);
  for (auto it = by_key_.begin(); it != by_key_.end();) {
    std::erase_if(it->second, [&](const Site &s) {
      return s.owner == f && s.addr >= lo && s.addr < hi;
    });
    it = it->second.empty() ? by_key_.erase(it) : std::next(it);
  }
}

void StaticCalls::update(void *key, void *tramp, void *func) {
  MutexLock g(mu_);
  if (key) // (i386's static_call_update() has set it)
    __atomic_store_n((void **)key, func, __ATOMIC_RELEASE);
  PatchEngine &patcher = k_.probes().patcher();
  std::vector<PatchOp> ops;
  auto aim = [&](u64 at, bool tail, u64 to) {
    PatchOp op{};
    op.addr = at;
    op.len = 5;
    if (!static_call_bytes(at, tail, to, op.bytes))
      return false;
    u8 now[5];
    if (!patcher.read(at, now, 5) || !same_bytes(now, op.bytes, 5))
      ops.push_back(op);
    return true;
  };
  const u64 t = (u64)(uintptr_t)tramp, fn = (u64)(uintptr_t)func;
  u8 sig[sizeof kTrampSignature];
  const bool have_tramp =
      t && patcher.read(t + 5, sig, sizeof sig) &&
      same_bytes(sig, kTrampSignature, sizeof sig) && aim(t, true, fn);
  if (t && !have_tramp)
    k_.printf("static_call_update: 0x%llx is not a trampoline minikern can "
              "aim at 0x%llx\n",
              (unsigned long long)t, (unsigned long long)fn);
  if (auto it = by_key_.find((u64)(uintptr_t)key); it != by_key_.end())
    for (const Site &s : it->second)
      if (!aim(s.addr, s.tail, fn) && have_tramp)
        aim(s.addr, s.tail, t);
  if (!ops.empty())
    patcher.apply(ops);
}

size_t StaticCalls::sites() const {
  MutexLock g(mu_);
  size_t n = 0;
  for (const auto &[k, v] : by_key_)
    n += v.size();
  return n;
}

// ---- the module format --------------------------------------------------------

LinuxModules::LinuxModules(Kernel &k) : k_(k), jumps_(k), calls_(k) {
  set_bug_hook(linux_bug_hook);
  set_fault_hook(linux_fault_hook);
}
LinuxModules::~LinuxModules() = default;

bool LinuxModules::is_linux(const ObjectFile &obj) {
  return obj.find_section(".gnu.linkonce.this_module") != nullptr;
}

const char *LinuxModules::vermagic_flags() {
#if defined(__x86_64__)
  return "SMP preempt mod_unload modversions ";
#else
  // Debian's 686 flavour is built for the Geode LX (MODULE_PROC_FAMILY).
  return "SMP preempt mod_unload modversions GEODE ";
#endif
}

// The Linux API's exports, with the CRCs Linux 6.1's vmlinux gives them
// (Module.symvers of the installed linux-headers package): read at the
// first Linux module's load, not at boot.
void LinuxModules::load_symvers() {
  api_read_ = true;
  if (linux_modules_coming)
    linux_modules_coming();
  const linux_export *const *e;
  SET_FOREACH(e, linux_export_set) {
    LinuxSymbol s;
    s.value = (u64)(uintptr_t)(*e)->le_addr;
    s.gpl = (*e)->le_flags & LE_GPL;
    api_.emplace((*e)->le_name, s);
  }
  std::string path = k_.opts().linux_symvers;
  if (path.empty())
    path = linux_symvers_path();
  std::ifstream in(path);
  if (!in) {
    k_.log("linux: no Module.symvers (%s): the Linux API's exports have no "
           "CRCs\n",
           path.empty() ? "no linux-headers-6.1 package" : path.c_str());
    return;
  }
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    // 0xCRC <tab> symbol <tab> module <tab> EXPORT_SYMBOL[_GPL] <tab> ns
    size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1),
           t3 = line.find('\t', t2 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos ||
        t3 == std::string::npos)
      continue;
    if (line.compare(t2 + 1, t3 - t2 - 1, "vmlinux") != 0)
      continue;
    auto it = api_.find(line.substr(t1 + 1, t2 - t1 - 1));
    if (it == api_.end())
      continue;
    it->second.crc = (u32)std::strtoul(line.c_str(), nullptr, 16);
    // EXPORT_SYMBOL_NS: the namespace a module must import (vmlinux puts
    // efi_embedded_fw_list in TEST_FIRMWARE).
    if (size_t t4 = line.find('\t', t3 + 1); t4 != std::string::npos)
      it->second.ns = line.substr(t4 + 1);
    n++;
  }
  k_.log("linux: %zu Linux API exports, %zu with CRCs from %s\n", api_.size(),
         n, path.c_str());
}

Result<std::shared_ptr<LinuxModule>>
LinuxModules::check(const ObjectFile &obj, const std::string &fname) {
  if (!api_read_)
    load_symvers();
  auto m = std::make_shared<LinuxModule>();
  std::string vermagic;
  bool have_vermagic = false;
  for (const auto &[k, v] : read_modinfo(obj)) {
    if (k == "name")
      m->name = v;
    else if (k == "license")
      m->license = v;
    else if (k == "vermagic") {
      vermagic = v;
      have_vermagic = true;
    } else if (k == "depends")
      m->depends = split_commas(v);
    else if (k == "softdep") {
      // "pre: a b post: c": modprobe loads the pre ones first.
      bool pre = false;
      std::istringstream in(v);
      for (std::string w; in >> w;)
        if (w == "pre:" || w == "post:")
          pre = w == "pre:";
        else if (pre)
          m->softdep_pre.push_back(w);
    }
    else if (k == "import_ns")
      m->imports.push_back(v);
  }
  if (m->name.empty())
    m->name = linux_module_name(fname.substr(0, fname.rfind(".ko")));
  const std::string who = m->name;
  if (!have_vermagic)
    return error(who + ": no version magic in .modinfo");
  const size_t sp = vermagic.find(' ');
  const std::string release = vermagic.substr(0, sp);
  if (sp == std::string::npos || release.compare(0, 4, "6.1.") != 0 ||
      vermagic.substr(sp + 1) != vermagic_flags())
    return error(strf("%s: version magic '%s' should be '%s %s'",
                      who.c_str(), vermagic.c_str(),
                      release.compare(0, 4, "6.1.") == 0 ? release.c_str()
                                                         : "6.1.0",
                      vermagic_flags()));
  for (const Section &s : obj.sections)
    if ((s.flags & SHF_ALLOC) && !known_section(s.name))
      return error(strf("%s: section %s is not one a Linux module is "
                        "loaded with here",
                        who.c_str(), s.name.c_str()));
  if (const Section *v = obj.find_section("__versions"); v && v->data) {
    if (v->size % kModversionSize)
      return error(strf("%s: __versions: size %llu is not a multiple of %zu",
                        who.c_str(), (unsigned long long)v->size,
                        kModversionSize));
    for (u64 k = 0; k < v->size; k += kModversionSize) {
      const char *name = (const char *)v->data + k + kPtr;
      if (!std::memchr(name, 0, kModversionSize - kPtr))
        return error(strf("%s: __versions entry %llu: name not terminated",
                          who.c_str(), (unsigned long long)(k / 64)));
      m->versions[name] = (u32)rdptr(v->data + k);
    }
  }
  return m;
}

std::optional<LinuxSymbol>
LinuxModules::resolve(const LinuxModule &m, const std::string &name,
                      std::vector<std::string> &problems) {
  const LinuxSymbol *s = nullptr;
  if (auto it = api_.find(name); it != api_.end())
    s = &it->second;
  for (size_t i = 0; !s && i < loaded_.size(); i++)
    if (auto it = loaded_[i]->linux_mod->exports.find(name);
        it != loaded_[i]->linux_mod->exports.end())
      s = &it->second;
  if (!s || (s->gpl && !m.gpl_compatible())) {
    problems.push_back(strf("Unknown symbol %s (err -2)", name.c_str()));
    return std::nullopt;
  }
  if (s->crc) {
    auto v = m.versions.find(name);
    if (m.versions.empty()) {
      problems.push_back(strf("no symbol version for %s", name.c_str()));
      return std::nullopt;
    }
    if (v == m.versions.end()) {
      // A broken toolchain: Linux warns once and lets it go.
      if (!m.warned_versions)
        k_.printf("%s: no symbol version for %s\n", m.name.c_str(),
                  name.c_str());
      m.warned_versions = true;
    }
    else if (v->second != *s->crc) {
      problems.push_back(
          strf("disagrees about version of symbol %s", name.c_str()));
      return std::nullopt;
    }
  }
  if (!s->ns.empty() &&
      std::find(m.imports.begin(), m.imports.end(), s->ns) ==
          m.imports.end()) {
    problems.push_back(strf("module uses symbol (%s) from namespace %s, but "
                            "does not import it.",
                            name.c_str(), s->ns.c_str()));
    return std::nullopt;
  }
  return *s;
}

// struct tracepoint (6.1): name, static_key key (two words: 16 bytes, 8
// on i386), static_call_key *, static_call_tramp, iterator, regfunc, unregfunc,
// tracepoint_func *funcs.  __tracepoints_ptrs holds a place-relative int
// per tracepoint (CONFIG_HAVE_ARCH_PREL32_RELOCATIONS).
constexpr u64 kTracepointSize = 9 * kPtr; // 72, 36 on i386

static Result<void> read_tracepoints(const std::string &who,
                                     const ObjectFile &obj, const Placement &pl,
                                     const ImageReader &img, LinuxModule &m) {
  u64 lo = 0, hi = 0; // the module's __tracepoints
  for (size_t s = 0; s < obj.sections.size(); s++)
    if (obj.sections[s].name == "__tracepoints" && pl.sec_addr[s])
      lo = pl.sec_addr[s], hi = lo + obj.sections[s].size;
  return each_entry(who, obj, pl, "__tracepoints_ptrs", 4,
                    [&](u64 e, const u8 *ptr, unsigned long long n)
                        -> Result<void> {
    const u64 tp = e + (i64)rd32(ptr);
    const std::string what = strf("__tracepoints_ptrs entry %llu", n);
    if (!within(tp, kTracepointSize, lo, hi) || (tp - lo) % kPtr)
      return error(strf("%s: %s: 0x%llx is not a tracepoint of the "
                        "module's __tracepoints",
                        who.c_str(), what.c_str(), (unsigned long long)tp));
    const u8 *p = (const u8 *)(uintptr_t)tp;
    auto name = img.string(rdptr(p), what + " name");
    if (!name)
      return name.take_error();
    const std::string tpw = who + ": tracepoint " + *name;
    // What enabling it writes: its static call's key, its function list
    // (in the struct itself, checked writable with it).
    if (auto r = img.writable(tp, kTracepointSize, kPtr, tpw); !r)
      return r.take_error();
    if (auto r = img.writable(rdptr(p + 3 * kPtr), kPtr, kPtr,
                              tpw + " static call key");
        !r)
      return r.take_error();
    for (const auto &[off, field, optional] :
         {std::tuple{4 * kPtr, "static call trampoline", false},
          std::tuple{5 * kPtr, "iterator", false},
          std::tuple{6 * kPtr, "regfunc", true},
          std::tuple{7 * kPtr, "unregfunc", true}})
      if (auto fn = img.function(rdptr(p + off), tpw + " " + field, optional);
          !fn)
        return fn.take_error();
    m.tracepoints.push_back({tp, *name});
    return {};
  });
}

Result<void> LinuxModules::read_linked(LinuxModule &m, const ObjectFile &obj,
                                       const LinkedImage &li, LinkerFile &f) {
  const Placement &pl = li.pl;
  const ImageReader img(obj, pl);
  const std::string &who = m.name;
  // Exports: struct kernel_symbol { int value_offset, name_offset,
  // namespace_offset; }, each relative to its own field.
  for (const bool gpl : {false, true}) {
    const char *tab = gpl ? "__ksymtab_gpl" : "__ksymtab";
    const char *crcs = gpl ? "__kcrctab_gpl" : "__kcrctab";
    const Section *crc_sec = nullptr;
    const u8 *crc_mem = nullptr; // the CRCs through the image's view
    u64 n = 0;
    for (size_t s = 0; s < obj.sections.size(); s++) {
      if (obj.sections[s].name == crcs && pl.sec_addr[s]) {
        crc_sec = &obj.sections[s];
        crc_mem = pl.sec_mem[s];
      }
      if (obj.sections[s].name == tab && pl.sec_addr[s])
        n += obj.sections[s].size / kKernelSymbolSize;
    }
    if (crc_sec && crc_sec->size != n * 4)
      return error(strf("%s: %s has %llu entries for %llu exports",
                        who.c_str(), crcs,
                        (unsigned long long)(crc_sec->size / 4),
                        (unsigned long long)n));
    u64 i = 0; // the export's number over every section of the table
    MK_TRY(each_entry(who, obj, pl, tab, kKernelSymbolSize,
                      [&](u64 e, const u8 *p, unsigned long long) -> Result<void> {
      const std::string what = strf("%s entry %llu", tab, (unsigned long long)i);
      auto name = img.string(e + 4 + (i64)rd32(p + 4), what + " name");
      if (!name)
        return name.take_error();
      LinuxSymbol sym;
      sym.value = e + (i64)rd32(p);
      sym.owner = &f;
      sym.gpl = gpl;
      if (rd32(p + 8)) {
        auto ns = img.string(e + 8 + (i64)rd32(p + 8), what + " namespace");
        if (!ns)
          return ns.take_error();
        sym.ns = *ns;
      }
      // EXPORT_PER_CPU_SYMBOL: an offset in the module's per-CPU space.
      const bool percpu = sym.value >= m.percpu_off &&
                          sym.value < m.percpu_off + m.percpu_size;
      if (!percpu && (sym.value < pl.image_base ||
                      sym.value >= pl.image_base + pl.image_size))
        return error(strf("%s: export %s: 0x%llx is outside the module",
                          who.c_str(), *name, (unsigned long long)sym.value));
      if (crc_sec)
        sym.crc = (u32)rd32(crc_mem + i * 4);
      std::string owner;
      if (api_.count(*name))
        owner = "kernel";
      for (LinkerFile *o : loaded_)
        if (o->linux_mod->exports.count(*name))
          owner = o->linux_mod->name;
      if (!owner.empty() || m.exports.count(*name))
        return error(strf("%s: exports duplicate symbol %s (owned by %s)",
                          who.c_str(), *name,
                          owner.empty() ? who.c_str() : owner.c_str()));
      m.exports.emplace(*name, std::move(sym));
      i++;
      return {};
    }));
  }
  // init_module and cleanup_module: module_init()'s and module_exit()'s
  // aliases of the module's own functions.
  for (size_t i = 1; i < obj.symbols.size(); i++) {
    const Symbol &s = obj.symbols[i];
    if (s.shndx == SHN_UNDEF || s.shndx >= SHN_LORESERVE)
      continue;
    const bool init = s.name == "init_module", exit = s.name == "cleanup_module";
    if (!init && !exit)
      continue;
    auto fn = img.function(li.values[i], who + ": " + s.name.str());
    if (!fn)
      return fn.take_error();
    (init ? m.init : m.exit) = *fn;
    m.has_init |= init;
  }
  // Parameters: struct kernel_param { const char *name; struct module
  // *mod; const struct kernel_param_ops *ops; u16 perm; s8 level; u8
  // flags; void *arg; }.
  MK_TRY(each_entry(who, obj, pl, "__param", kKernelParamSize,
                    [&](u64 kp, const u8 *p, unsigned long long n)
                        -> Result<void> {
    const std::string what = strf("parameter %llu", n);
    auto name = img.string(rdptr(p), what + " name");
    if (!name)
      return name.take_error();
    const u64 ops = rdptr(p + 2 * kPtr);
    // The ops are the Linux API's (param_ops_int ...) or the module's,
    // whose set and get are its own functions or the API's
    // (param_get_int ...).
    auto is_api = [&](u64 v) {
      for (const auto &[n, sym] : api_)
        if (sym.value == v)
          return true;
      return false;
    };
    if (!is_api(ops)) {
      auto r = img.record(ops, 4 * kPtr, kPtr,
                          strf("parameter %s ops", *name));
      if (!r)
        return r.take_error();
      for (u64 off : {kPtr, 2 * kPtr}) {
        const u64 fn = rdptr((const u8 *)(uintptr_t)(ops + off));
        if (is_api(fn))
          continue;
        if (auto r = img.function(fn, strf("parameter %s ops", *name), true);
            !r)
          return r.take_error();
      }
    }
    LinuxParam prm;
    prm.name = *name;
    prm.kp = kp;
    std::memcpy(&prm.perm, p + 3 * kPtr, 2);
    m.params.push_back(std::move(prm));
    return {};
  }));
  // WARN and BUG sites: struct bug_entry { int bug_addr_disp, file_disp;
  // unsigned short line, flags; }, the displacements from their fields
  // (on i386, without GENERIC_BUG_RELATIVE_POINTERS, the two addresses
  // themselves).
  m.text_lo = pl.image_base + pl.text.off;
  m.text_hi = m.text_lo + pl.text.size;
  MK_TRY(each_entry(who, obj, pl, "__bug_table", 12,
                    [&](u64 e, const u8 *p, unsigned long long n)
                        -> Result<void> {
    LinuxModule::Bug b;
    b.addr = kPtr == 8 ? e + (i64)rd32(p) : rdptr(p);
    const std::string what = strf("__bug_table entry %llu", n);
    // Its flags, which WARN_ONCE writes.
    if (auto r = img.writable(e + 10, 2, 2, who + ": " + what + " flags"); !r)
      return r.take_error();
    auto file = img.string(kPtr == 8 ? e + 4 + (i64)rd32(p + 4) : rdptr(p + 4),
                           what + " file");
    if (!file)
      return file.take_error();
    if (!within(b.addr, 2, m.text_lo, m.text_hi))
      return error(strf("%s: %s: 0x%llx is outside the module's code",
                        who.c_str(), what.c_str(),
                        (unsigned long long)b.addr));
    b.file = *file;
    std::memcpy(&b.line, p + 8, 2);
    b.flags = (u16 *)(uintptr_t)(e + 10);
    m.bugs.push_back(b);
    return {};
  }));
  std::sort(m.bugs.begin(), m.bugs.end(),
            [](const LinuxModule::Bug &a, const LinuxModule::Bug &b) {
              return a.addr < b.addr;
            });
  m.live_bugs.store(m.bugs.size(), std::memory_order_release);
  // Faults code expects: struct exception_table_entry { int insn, fixup,
  // data; }, the first two relative to their fields.  Both addresses in
  // the module's code, the type one Linux 6.1 defines.
  MK_TRY(each_entry(who, obj, pl, "__ex_table", 12,
                    [&](u64 e, const u8 *p, unsigned long long n)
                        -> Result<void> {
    LinuxModule::Fixup fx;
    fx.insn = e + (i64)rd32(p);
    fx.fixup = e + 4 + (i64)rd32(p + 4);
    fx.data = rd32(p + 8);
    for (const auto &[addr, what] :
         {std::pair{fx.insn, "instruction"}, std::pair{fx.fixup, "fixup"}})
      if (addr < m.text_lo || addr >= m.text_hi)
        return error(strf("%s: __ex_table entry %llu: %s 0x%llx is "
                          "outside the module's code",
                          who.c_str(), n, what, (unsigned long long)addr));
    const u8 type = (u8)(fx.data & 0xff);
    if (type == 0 || type > kExLastType)
      return error(strf("%s: __ex_table entry %llu: fixup type %u is not "
                        "one Linux 6.1 defines",
                        who.c_str(), n, type));
    m.fixups.push_back(fx);
    return {};
  }));
  std::sort(m.fixups.begin(), m.fixups.end(),
            [](const LinuxModule::Fixup &a, const LinuxModule::Fixup &b) {
              return a.insn < b.insn;
            });
  m.live_fixups.store(m.fixups.size(), std::memory_order_release);
  MK_TRY(read_tracepoints(who, obj, pl, img, m));
  MK_TRY(check_orc(who, obj, pl, m.text_lo, m.text_hi));
  // A key is the module's own (its two words in the module's writable
  // data) or one the kernel or a loaded Linux module exports.
  auto key_ok = [&](u64 key) {
    if (img.writable(key, 2 * kPtr, 4, "static key"))
      return true;
    for (const auto &[n, s] : api_)
      if (s.value == key)
        return true;
    for (LinkerFile *o : loaded_)
      for (const auto &[n, s] : o->linux_mod->exports)
        if (s.value == key)
          return true;
    return false;
  };
  if (auto r = jumps_.add_module(f, obj, pl, key_ok); !r)
    return r;
  auto api_tramp = [&](u64 a) {
    for (const auto &[n, s] : api_)
      if (s.value == a)
        return true;
    return false;
  };
  if (auto r = calls_.add_module(f, who, obj, pl, m.text_lo, m.text_hi,
                                 key_ok, api_tramp);
      !r)
    return r;
  // Return thunks: `jmp __x86_return_thunk` at every .return_sites entry
  // becomes a plain `ret` (what Linux does on a CPU that needs no return
  // thunk), when it is that jump.
  const u64 thunk = api_.count("__x86_return_thunk")
                        ? api_["__x86_return_thunk"].value
                        : 0;
  for (size_t s = 0; s < obj.sections.size() && thunk; s++) {
    const Section &sec = obj.sections[s];
    if (sec.name != ".return_sites" || !pl.sec_addr[s] || sec.size % 4)
      continue;
    const u64 text_lo = pl.image_base + pl.text.off;
    for (u64 k = 0; k < sec.size; k += 4) {
      const u64 site = pl.sec_addr[s] + k +
                       (i64)rd32((const u8 *)(uintptr_t)(pl.sec_addr[s] + k));
      if (site < text_lo || site + 5 > text_lo + pl.text.size)
        continue;
      u8 *b = pl.image_mem + (site - pl.image_base);
      if (b[0] != 0xe9 || site + 5 + (i64)rd32(b + 1) != thunk)
        continue;
      static const u8 ret[] = {0xc3, 0xcc, 0xcc, 0xcc, 0xcc};
      std::memcpy(b, ret, 5);
    }
  }
  // Alternatives, after the return thunks, in Linux's order.
  return apply_alternatives(who, obj, pl, m.text_lo, m.text_hi);
}

Result<void> LinuxModules::set_params(LinuxModule &m, LinkerFile &f,
                                      const std::vector<std::string> &args) {
  // struct kernel_param_ops { unsigned flags; set, get, free }, called
  // with Linux's convention.
  using SetFn = int(LKAPI *)(const char *, const void *);
  using GetFn = int(LKAPI *)(char *, const void *);
  auto ops_of = [](const LinuxParam &p) {
    return rdptr((const u8 *)(uintptr_t)(p.kp + 2 * kPtr));
  };
  for (const std::string &a : args) {
    const size_t eq = a.find('=');
    const std::string name = linux_module_name(a.substr(0, eq));
    auto p = std::find_if(m.params.begin(), m.params.end(),
                          [&](const LinuxParam &x) {
                            return linux_module_name(x.name) == name;
                          });
    if (p == m.params.end()) {
      k_.printf("%s: unknown parameter '%s' ignored\n", m.name.c_str(),
                name.c_str());
      continue;
    }
    const u64 ops = ops_of(*p);
    auto set = (SetFn)(uintptr_t)rdptr((const u8 *)(uintptr_t)(ops + kPtr));
    const std::string val = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (!set || set(eq == std::string::npos ? nullptr : val.c_str(),
                    (const void *)(uintptr_t)p->kp) < 0)
      return error(strf("%s: `%s' invalid for parameter `%s'", m.name.c_str(),
                        val.c_str(), p->name.c_str()));
  }
  for (const LinuxParam &p : m.params) {
    if (!(p.perm & 0444))
      continue; // Linux shows it nowhere either
    const u64 ops = ops_of(p);
    Sysctl::Node n;
    n.name = "module." + m.name + "." + p.name;
    n.kind = CTLTYPE_STRING;
    n.flags = (p.perm & 0222) ? CTLFLAG_RW : CTLFLAG_RD;
    n.descr = "parameter " + p.name + " of Linux module " + m.name;
    n.owner = &f;
    const u64 kp = p.kp;
    n.get = [ops, kp] {
      auto get =
          (GetFn)(uintptr_t)rdptr((const u8 *)(uintptr_t)(ops + 2 * kPtr));
      if (!get)
        return std::string();
      std::string buf(4096, '\0');
      int len = get(buf.data(), (const void *)(uintptr_t)kp);
      buf.resize(len > 0 && len < 4096 ? (size_t)len : 0);
      while (!buf.empty() && buf.back() == '\n')
        buf.pop_back();
      return buf;
    };
    if (p.perm & 0222)
      n.set = [ops, kp, name = p.name](const std::string &v) -> Result<void> {
        auto set =
            (SetFn)(uintptr_t)rdptr((const u8 *)(uintptr_t)(ops + kPtr));
        if (!set || set(v.c_str(), (const void *)(uintptr_t)kp) < 0)
          return error(strf("`%s' invalid for parameter `%s'", v.c_str(),
                            name.c_str()));
        return {};
      };
    if (auto r = k_.sysctl().add(std::move(n)); !r)
      return error(m.name + ": " + r.error().message);
  }
  return {};
}

void LinuxModules::free_params(const LinuxModule &m) {
  if (!k_.opts().run_module_code)
    return;
  for (const LinuxParam &p : m.params) {
    const u64 ops = rdptr((const u8 *)(uintptr_t)(p.kp + 2 * kPtr));
    auto fr = (void(LKAPI *)(void *))(uintptr_t)rdptr(
        (const u8 *)(uintptr_t)(ops + 3 * kPtr));
    if (fr)
      fr((void *)(uintptr_t)rdptr((const u8 *)(uintptr_t)(p.kp + 4 * kPtr)));
  }
}

Result<void> LinuxModules::alloc_percpu(LinuxModule &m,
                                        const ObjectFile &obj) {
  for (size_t s = 0; s < obj.sections.size(); s++) {
    const Section &sec = obj.sections[s];
    if (sec.name != ".data..percpu" || !(sec.flags & SHF_ALLOC) || !sec.size)
      continue;
    const u64 align = sec.align ? sec.align : 1;
    auto off = k_.percpu().alloc(sec.size, align);
    if (!off)
      return error(strf("%s: .data..percpu (%llu bytes, aligned to %llu): %s",
                        m.name.c_str(), (unsigned long long)sec.size,
                        (unsigned long long)align,
                        off.error().message.c_str()));
    m.percpu_sec = (u32)s;
    m.percpu_off = *off;
    m.percpu_size = sec.size;
    return {};
  }
  return {};
}

void LinuxModules::place_percpu(const LinuxModule &m, Placement &pl) {
  if (m.percpu_size)
    pl.sec_addr[m.percpu_sec] = m.percpu_off;
}

void LinuxModules::copy_percpu(const LinuxModule &m, Placement &pl) {
  if (!m.percpu_size)
    return;
  k_.percpu().fill(m.percpu_off, pl.sec_mem[m.percpu_sec], m.percpu_size);
  pl.sec_mem[m.percpu_sec] = nullptr;
}

void LinuxModules::add_loaded(LinkerFile *f) {
  loaded_.push_back(f);
  if (f->linux_mod->bugs.empty() && f->linux_mod->fixups.empty())
    return;
  for (auto &slot : g_fault_slots) {
    const LinuxModule *none = nullptr;
    if (!slot.load(std::memory_order_relaxed) &&
        slot.compare_exchange_strong(none, f->linux_mod.get()))
      return;
  }
  k_.printf("%s: more than %zu Linux modules with WARN sites or exception "
            "tables: its warnings and expected faults are reported as "
            "faults\n",
            f->linux_mod->name.c_str(), kFaultSlots);
}

void LinuxModules::remove_loaded(const LinkerFile *f) {
  // Read before the compare-exchange: a locked one on each of the 1 024
  // slots cost an unload 7 µs.  (Slots are the process's: kernels in
  // one process share them.)
  for (auto &slot : g_fault_slots) {
    const LinuxModule *mine = f->linux_mod.get();
    if (slot.load(std::memory_order_relaxed) == mine)
      slot.compare_exchange_strong(mine, nullptr);
  }
  loaded_.erase(std::remove(loaded_.begin(), loaded_.end(), f), loaded_.end());
  jumps_.remove_module(f);
  calls_.remove_module(f);
  // Its code no longer runs: its per-CPU space goes back (once: a failed
  // load may come here twice).
  if (LinuxModule *m = f->linux_mod.get(); m && m->percpu_size) {
    k_.percpu().free(m->percpu_off);
    m->percpu_size = 0;
  }
}

void LinuxModules::free_init(LinuxModule &m, const LinkerFile *f) {
  const LinuxModule::Range t = m.init_text;
  if (t.lo < t.hi) {
    // Init text follows the rest of the module's code: its WARN sites are
    // the last of the sorted table.
    size_t n = 0;
    while (n < m.bugs.size() && m.bugs[n].addr < t.lo)
      n++;
    m.live_bugs.store(n, std::memory_order_release);
    n = 0;
    while (n < m.fixups.size() && m.fixups[n].insn < t.lo)
      n++;
    m.live_fixups.store(n, std::memory_order_release);
    jumps_.remove_range(f, t.lo, t.hi);
    calls_.remove_range(f, t.lo, t.hi);
  }
  m.init = 0;
}

namespace {
// Each .ko file under the module path's directories, breadth first (a
// directory's files before its subdirectories'), until `fn` says stop.
template <class F> void for_each_ko(const std::vector<std::string> &path, F fn) {
  std::vector<std::string> dirs(path.begin(), path.end());
  for (size_t i = 0; i < dirs.size(); i++) {
    DIR *d = opendir(dirs[i].c_str());
    if (!d)
      continue;
    std::vector<std::string> sub;
    bool stop = false;
    // readdir64: a 32-bit process's readdir fails on a directory whose
    // offsets are 64-bit hashes (ext4's, as a 64-bit kernel hands them out).
    while (dirent64 *e = readdir64(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == "..")
        continue;
      const std::string p = dirs[i] + "/" + n;
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".ko") == 0) {
        stop = stop || fn(n.substr(0, n.size() - 3), p);
        continue;
      }
      struct stat64 st;
      if (::stat64(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        sub.push_back(p);
    }
    closedir(d);
    if (stop)
      return;
    std::sort(sub.begin(), sub.end());
    dirs.insert(dirs.end(), sub.begin(), sub.end());
  }
}

// A file's .modinfo, read with its section headers alone (not the whole
// file), ELF64 or ELF32 as the kernel's own class; empty if it has none or
// is not such a file.
std::string modinfo_of(const std::string &path) {
#if defined(__x86_64__)
  using Ehdr = Elf64_Ehdr;
  using Shdr = Elf64_Shdr;
  constexpr unsigned char kClass = ELFCLASS64;
#else
  using Ehdr = Elf32_Ehdr;
  using Shdr = Elf32_Shdr;
  constexpr unsigned char kClass = ELFCLASS32;
#endif
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  std::string out;
  Ehdr eh;
  auto at = [&](void *buf, size_t n, u64 off) {
    return ::pread(fd, buf, n, (off_t)off) == (ssize_t)n;
  };
  if (at(&eh, sizeof eh, 0) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == kClass && eh.e_shentsize == sizeof(Shdr) &&
      eh.e_shnum && eh.e_shnum < 65280 && eh.e_shstrndx < eh.e_shnum) {
    std::vector<Shdr> sh(eh.e_shnum);
    if (at(sh.data(), sh.size() * sizeof(Shdr), eh.e_shoff)) {
      const Shdr &names = sh[eh.e_shstrndx];
      std::string strtab(std::min<u64>(names.sh_size, 1 << 20), '\0');
      if (at(strtab.data(), strtab.size(), names.sh_offset))
        for (const Shdr &s : sh)
          if (s.sh_name < strtab.size() &&
              std::strcmp(strtab.c_str() + s.sh_name, ".modinfo") == 0 &&
              s.sh_type == SHT_PROGBITS && s.sh_size < (1 << 20)) {
            out.resize(s.sh_size);
            if (!at(out.data(), out.size(), s.sh_offset))
              out.clear();
            break;
          }
    }
  }
  ::close(fd);
  return out;
}
} // namespace

std::optional<std::string>
LinuxModules::find_file(const std::string &name) const {
  const std::string want = linux_module_name(name);
  std::optional<std::string> hit;
  for_each_ko(k_.opts().module_path,
              [&](const std::string &n, const std::string &p) {
                if (!hit && linux_module_name(n) == want)
                  hit = p;
                return hit.has_value();
              });
  return hit;
}

std::vector<std::string> LinuxModules::find_alias(const std::string &alias) const {
  MutexLock g(alias_mu_);
  if (!aliases_) {
    std::unordered_map<std::string, std::vector<std::string>> index;
    for_each_ko(k_.opts().module_path,
                [&](const std::string &, const std::string &p) {
                  const std::string info = modinfo_of(p);
                  for (auto &[k, v] : parse_modinfo(info.data(), info.size()))
                    if (k == "alias" && v.find_first_of("*?[") == std::string::npos)
                      index[v].push_back(p);
                  return false;
                });
    aliases_ = std::move(index);
  }
  auto it = aliases_->find(alias);
  return it == aliases_->end() ? std::vector<std::string>{} : it->second;
}

} // namespace mk
