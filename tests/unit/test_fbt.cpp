// Function-boundary tracing (sdt/fbt.h) and what it rests on: entry sites as
// the loader and the site recorder find them (site.h), hand-built modules
// whose functions become probes in a live kernel, the per-thread guard,
// the stack walker (unwind.h) and profile probe names (profile.h).  The
// kernel's own objects in this binary are built like the kernel's, with
// entry sites; this file's are not.
#include "kernel_support.h"
#include "support.h"

#include "../../kernel/kern_panic.h"
#include "../../kernel/kernel.h"
#include "../../sdt/profile.h"
#include "../../sdt/registry.h"
#include "../../sdt/site.h"
#include "../../sdt/unwind.h"

#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <cstdio>
#include <fstream>
#include <map>
#include <pthread.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mkt;

namespace {

#if defined(__x86_64__)
constexpr Target kNative = Target::X86_64;
#else
constexpr Target kNative = Target::I386;
#endif

const std::vector<u8> kNop5 = {0x0f, 0x1f, 0x44, 0x00, 0x00};

// A call of `hook` at the start of .text, then `tail`: the object, and its
// .text section.
struct EntryObject {
  ObjBuilder b{kNative};
  u32 text = 0;
  EntryObject(const std::string &hook, std::vector<u8> insn,
              std::vector<u8> tail) {
    std::vector<u8> code = insn;
    code.insert(code.end(), tail.begin(), tail.end());
    text = b.text(code);
    b.symbol("f", text, 0, code.size(), STB_GLOBAL, STT_FUNC);
    u32 s = b.undef(hook);
    if (kNative == Target::X86_64) {
      b.rela(text, 1, R_X86_64_PLT32, s, -4);
    } else {
      b.rel(text, 1, R_386_PC32, s); // the addend, -4, is in the bytes
    }
  }
};

const std::vector<u8> kCall = {0xe8, 0xfc, 0xff, 0xff, 0xff};
const std::vector<u8> kJmp = {0xe9, 0xfc, 0xff, 0xff, 0xff};


// f(x) = x + 1, after its entry site: the code after the site.
std::vector<u8> add_one() {
  if (kNative == Target::X86_64)
    return {0x48, 0x8d, 0x47, 0x01, 0xc3}; // lea 1(%rdi),%rax; ret
  return {0x8b, 0x44, 0x24, 0x04, 0x40, 0xc3}; // mov 4(%esp),%eax; inc; ret
}

struct Seen {
  std::vector<std::vector<uintptr_t>> entries, returns;
  u32 entry_id = 0;
};

void record(void *ctx, u32 id, const uintptr_t *args) {
  auto *s = (Seen *)ctx;
  (id == s->entry_id ? s->entries : s->returns)
      .push_back(std::vector<uintptr_t>(args, args + 3));
}

std::vector<u32> ids_of(mk::Kernel &k, const std::string &desc) {
  std::vector<u32> ids;
  for (const auto &p : k.probes().match(mk::ProbeDesc::parse(desc)))
    ids.push_back(p.id);
  return ids;
}

} // namespace

TEST_CASE("fbt site model: calls of the entry hooks") {
  auto obj = parse(EntryObject("__fentry__", kCall, add_one()).b);
  REQUIRE_OK(obj);
  const mk::RelocSection &rs = obj->relocs.at(0);
  auto f = mk::find_entry_call(*obj, rs.target, rs.relocs[0],
                               obj->sections[rs.target].data);
  REQUIRE_OK(f);
  CHECK(f->insn_off == 0);
  CHECK(f->len == 5);
  CHECK(mk::is_entry_symbol("__fentry__"));
  CHECK(mk::is_entry_symbol("mcount"));
  CHECK(!mk::is_entry_symbol("__dtrace_sdt_x___y"));

  // A jump to the hook is no call: the message names the place and a way out.
  auto bad = parse(EntryObject("mcount", kJmp, add_one()).b);
  REQUIRE_OK(bad);
  const mk::RelocSection &brs = bad->relocs.at(0);
  CHECK(message_of(mk::find_entry_call(*bad, brs.target, brs.relocs[0],
                                       bad->sections[brs.target].data)) ==
        std::string("t.o:(.text+0x1): function-entry hook mcount is not called "
                    "here (") +
            (kNative == Target::X86_64 ? "R_X86_64_PLT32" : "R_386_PC32") +
            ", bytes e9 fc ff ff ff); build the module with FBT=patchable");
}

TEST_CASE("fbt site model: gcc's large-model calls of __fentry__") {
  if (kNative != Target::X86_64)
    return;
  // movabs $__fentry__,%r10; call *%r10: the site is the movabs's first 5
  // bytes, the 13 the padding the loader makes NOPs.
  {
    ObjBuilder b{kNative};
    std::vector<u8> code = {0x49, 0xba, 0, 0, 0, 0, 0, 0, 0, 0, 0x41, 0xff, 0xd2};
    for (u8 c : add_one())
      code.push_back(c);
    u32 text = b.text(code);
    b.symbol("f", text, 0, code.size(), STB_GLOBAL, STT_FUNC);
    b.rela(text, 2, R_X86_64_64, b.undef("__fentry__"), 0);
    auto obj = parse(b);
    REQUIRE_OK(obj);
    const mk::RelocSection &rs = obj->relocs.at(0);
    auto f = mk::find_entry_call(*obj, rs.target, rs.relocs[0],
                                 obj->sections[rs.target].data);
    REQUIRE_OK(f);
    CHECK(f->insn_off == 0);
    CHECK(f->len == 5);
    CHECK(f->span == 13);
  }
  // PIC: the GOT's address into %r10, __fentry__'s offset from it added,
  // call *%r10 (36 bytes; the relocation is the second movabs's).
  {
    ObjBuilder b{kNative};
    std::vector<u8> code = {
        0x49, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0,       // movabs $GOT-.,%r11
        0x4c, 0x8d, 0x15, 0xef, 0xff, 0xff, 0xff, // lea -0x11(%rip),%r10
        0x4d, 0x01, 0xda,                         // add %r11,%r10
        0x49, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0,       // movabs $__fentry__@PLTOFF,%r11
        0x4d, 0x01, 0xda,                         // add %r11,%r10
        0x41, 0xff, 0xd2};                        // call *%r10
    for (u8 c : add_one())
      code.push_back(c);
    u32 text = b.text(code);
    b.symbol("f", text, 0, code.size(), STB_GLOBAL, STT_FUNC);
    b.rela(text, 0x16, R_X86_64_PLTOFF64, b.undef("__fentry__"), 0);
    auto obj = parse(b);
    REQUIRE_OK(obj);
    const mk::RelocSection &rs = obj->relocs.at(0);
    auto f = mk::find_entry_call(*obj, rs.target, rs.relocs[0],
                                 obj->sections[rs.target].data);
    REQUIRE_OK(f);
    CHECK(f->insn_off == 0);
    CHECK(f->len == 5);
    CHECK(f->span == 0x24);
  }
  // The movabs without its call is no call: refused.
  {
    ObjBuilder b{kNative};
    std::vector<u8> code = {0x49, 0xba, 0, 0, 0, 0, 0, 0, 0, 0, 0xc3};
    u32 text = b.text(code);
    b.symbol("f", text, 0, code.size(), STB_GLOBAL, STT_FUNC);
    b.rela(text, 2, R_X86_64_64, b.undef("__fentry__"), 0);
    auto obj = parse(b);
    REQUIRE_OK(obj);
    const mk::RelocSection &rs = obj->relocs.at(0);
    CHECK(message_of(mk::find_entry_call(*obj, rs.target, rs.relocs[0],
                                         obj->sections[rs.target].data)) ==
          "t.o:(.text+0x2): function-entry hook __fentry__ is not called here "
          "(R_X86_64_64, bytes 49 ba 00 00 00 00); build the module with "
          "FBT=patchable");
  }
}

TEST_CASE("fbt site model: NOP areas and where a site sits") {
  const u8 gcc5[] = {0x90, 0x90, 0x90, 0x90, 0x90};
  const u8 clang64[] = {0x0f, 0x1f, 0x44, 0x00, 0x08};
  const u8 clang32[] = {0x66, 0x90, 0x66, 0x90, 0x90};
  const u8 long6[] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00};
  const u8 not_nop[] = {0x90, 0x90, 0xcc, 0x90, 0x90};
  const u8 cut[] = {0x90, 0x0f, 0x1f, 0x44, 0x00};
  CHECK(mk::is_nop_area(gcc5, 5));
  CHECK(mk::is_nop_area(clang64, 5));
  CHECK(mk::is_nop_area(clang32, 5));
  CHECK(mk::is_nop_area(long6, 6));
  CHECK(!mk::is_nop_area(not_nop, 5));
  CHECK(!mk::is_nop_area(cut, 5)); // a NOP running past the area

  const bool is64 = kNative == Target::X86_64;
  const u8 plain[] = {0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3};
  const u8 endbr[] = {0xf3, 0x0f, 0x1e, (u8)(is64 ? 0xfa : 0xfb), 0x90, 0xc3};
  const u8 frame64[] = {0x55, 0x48, 0x89, 0xe5, 0x53, 0xe8, 0, 0, 0, 0};
  const u8 frame32[] = {0x55, 0x89, 0xe5, 0x53, 0xe8, 0, 0, 0, 0};
  auto style = [&](const u8 *f, u64 n, u64 at) {
    auto r = mk::entry_style(f, n, at, is64, [] { return std::string("m.ko: f"); });
    return r ? std::string(*r == mk::EntryStyle::AtEntry ? "entry" : "frame")
             : r.error().message;
  };
  CHECK(style(plain, sizeof plain, 0) == "entry");
  CHECK(style(endbr, sizeof endbr, 4) == "entry");
  if (is64)
    CHECK(style(frame64, sizeof frame64, 5) == "frame");
  else
    CHECK(style(frame32, sizeof frame32, 4) == "frame");
  CHECK(style(plain, sizeof plain, 1) ==
        "m.ko: f: entry site at +0x1 is neither the function's first "
        "instruction nor after a frame-pointer prologue");
}

TEST_CASE("fbt: a C++ function's probe name is its own, not its return type") {
  // Template functions carry their return type in the mangled name; the
  // name was cut at the first '(' of the demangled text, so every
  // function returning decltype(...) was one probe named "decltype " and
  // every one returning decltype(auto) another named "decltype".
  const std::pair<const char *, const char *> names[] = {
      {"_Z4getxI1SEDtdtfp_1xET_", "getx<S>"}, // decltype ({parm#1}.x) getx<S>(S)
      {"_Z2daIiEDcT_", "da<int>"},            // decltype(auto) da<int>(int)
      {"_Z4callIZ3usevEUlvE_EDTclfp_EET_", "call<use()::{lambda()#1}>"},
      {"_Z2tvIiEvT_", "tv<int>"},             // void tv<int>(int)
      {"_Z2ulIiEmT_", "ul<int>"},             // unsigned long ul<int>(int)
      {"_ZgtIiEbRK1ST_", "operator><int>"},   // bool operator><int>(S const&, int)
      {"_ZNK1ScvmEv", "S::operator unsigned long"},
      {"_ZNK1SltERKS_", "S::operator<"},
      {"_ZNKR1S3getEv", "S::get"},            // S::get() const &
      {"_Z5outeri", "outer"},
      {"_Z5outeri.constprop.0", "outer"},
      {"_ZN12_GLOBAL__N_14anonEi", "anon"},   // (anonymous namespace)::anon(int)
      // A lambda goes by the function it is in, as before.
      {"_ZZ5outeriENKUliE_clEi", "outer"},
      {"memdev_write", "memdev_write"},
  };
  for (const auto &[mangled, want] : names) {
    CAPTURE(mangled);
    CHECK(mk::pretty_function(mangled) == want);
  }
}

#if defined(__x86_64__)
TEST_CASE("fbt: a jump into a patched entry past its stub's load is a "
          "panic naming it") {
  // A stub loads the function's FbtFunc into %r11, then jumps to the
  // entry code.  Module code that reaches the stub's jump another way
  // (a wild jump; a return through a stack it moved) brings whatever
  // %r11 holds: a misaligned value, or an aligned address that is no
  // FbtFunc, which the entry code must not read as one.
  alignas(64) static u64 not_a_func[16] = {};
  for (const uintptr_t r11 : {(uintptr_t)not_a_func + 8, (uintptr_t)not_a_func}) {
    CAPTURE(r11 % 64);
    ModuleDir dir;
    dir.write("fm.ko", EntryObject("__fentry__", kCall, add_one()).b);
    const std::string err_path = dir.path() + "/stderr";
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(err, 2);
      dup2(open("/dev/null", O_WRONLY), 1);
      mk::Kernel k(kernel_options(dir.path()));
      if (!k.boot())
        _exit(98);
      auto file = k.linker().load("fm");
      if (!file)
        _exit(97);
      Seen seen;
      if (!k.probes().enable(ids_of(k, "fbt:fm:f:entry"), record, &seen))
        _exit(96);
      // The site is now `jmp stub`; the stub: movabs $func, %r11 (10
      // bytes), then its jmp.
      const u8 *site = (const u8 *)(*file)->address;
      if (site[0] != 0xe9)
        _exit(95);
      i32 rel;
      std::memcpy(&rel, site + 1, 4);
      const uintptr_t stub_jmp = (uintptr_t)site + 5 + rel + 10;
      asm volatile("mov %0, %%r11\n\tcall *%1"
                   :
                   : "r"(r11), "r"(stub_jmp)
                   : "r11", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",
                     "r10", "memory");
      _exit(99); // the entry code was to stop the kernel
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    std::ifstream in(err_path);
    const std::string err((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
    INFO(err);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == mk::kPanicStatus);
    char want[128];
    std::snprintf(want, sizeof want,
                  "fbt: the entry trampoline was reached without a function "
                  "(0x%016lx): a jump into a patched entry\n",
                  (unsigned long)r11);
    CHECK(err.find(want) != std::string::npos);
    CHECK(err.find("panic: kernel stopped (exit status 3)") != std::string::npos);
  }
}
#endif

TEST_CASE("fbt: a module's function: entry arguments, return value, once each") {
  ModuleDir dir;
  dir.write("fm.ko", EntryObject("__fentry__", kCall, add_one()).b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto file = k.linker().load("fm");
  REQUIRE_OK(file);
  auto fn = (long (*)(long))(uintptr_t)(*file)->address; // .text comes first
  // Loaded, the call is a NOP: the function runs as if it had none.
  CHECK(std::vector<u8>((u8 *)(*file)->address, (u8 *)(*file)->address + 5) ==
        kNop5);
  CHECK(fn(1) == 2);

  Seen seen;
  auto entry = ids_of(k, "fbt:fm:f:entry"), ret = ids_of(k, "fbt:fm:f:return");
  REQUIRE(entry.size() == 1);
  REQUIRE(ret.size() == 1);
  seen.entry_id = entry[0];
  auto e = k.probes().enable({entry[0], ret[0]}, record, &seen);
  REQUIRE_OK(e);
  CHECK(fn(41) == 42);
  CHECK(fn(7) == 8);
  k.probes().disable(*e);
  CHECK(fn(3) == 4);
  REQUIRE(seen.entries.size() == 2);
  REQUIRE(seen.returns.size() == 2);
  CHECK(seen.entries[0][0] == 41);
  CHECK(seen.entries[1][0] == 7);
  CHECK(seen.returns[0][0] == 0); // which ret: not known
  CHECK(seen.returns[0][1] == 42);
  CHECK(seen.returns[1][1] == 8);

  // The same in breakpoint mode (FreeBSD's): arg0 of a return is the
  // offset of its ret.
  Seen trap;
  trap.entry_id = entry[0];
  auto b = k.probes().enable({entry[0], ret[0]}, record, &trap,
                             mk::PatchMode::Breakpoint);
  REQUIRE_OK(b);
  CHECK(fn(5) == 6);
  k.probes().disable(*b);
  REQUIRE(trap.entries.size() == 1);
  REQUIRE(trap.returns.size() == 1);
  CHECK(trap.entries[0][0] == 5);
  CHECK(trap.returns[0][0] == 5 + add_one().size() - 1);
  CHECK(trap.returns[0][1] == 6);
  CHECK(std::vector<u8>((u8 *)(*file)->address, (u8 *)(*file)->address + 5) ==
        kNop5);

  // Breakpoint mode leaves nothing behind: its ret is a ret again; call
  // mode afterwards (which leaves rets alone) and breakpoint mode once
  // more each see one entry and one return per call.
  const u8 *body = (const u8 *)(*file)->address + 5;
  CHECK(std::vector<u8>(body, body + add_one().size()) == add_one());
  Seen call2;
  call2.entry_id = entry[0];
  auto c = k.probes().enable({entry[0], ret[0]}, record, &call2);
  REQUIRE_OK(c);
  CHECK(fn(9) == 10);
  CHECK(std::vector<u8>(body, body + add_one().size()) == add_one());
  k.probes().disable(*c);
  CHECK(call2.entries.size() == 1);
  CHECK(call2.returns.size() == 1);
  Seen trap2;
  trap2.entry_id = entry[0];
  auto b2 = k.probes().enable({entry[0], ret[0]}, record, &trap2,
                              mk::PatchMode::Breakpoint);
  REQUIRE_OK(b2);
  CHECK(fn(11) == 12);
  k.probes().disable(*b2);
  REQUIRE(trap2.returns.size() == 1);
  CHECK(trap2.entries.size() == 1);
  CHECK(trap2.returns[0][1] == 12);
  CHECK(std::vector<u8>(body, body + add_one().size()) == add_one());
  REQUIRE_OK(k.linker().unload(*file));
}

#if defined(__x86_64__)
namespace {

// What a handler with SSE code may do to the vector registers.
void clobber_vector(uintptr_t, uintptr_t, uintptr_t, uintptr_t) {
  __asm__ volatile("xorps %%xmm0, %%xmm0\n\txorps %%xmm1, %%xmm1\n\t"
                   "xorps %%xmm2, %%xmm2\n\txorps %%xmm3, %%xmm3\n\t"
                   "xorps %%xmm4, %%xmm4\n\txorps %%xmm5, %%xmm5\n\t"
                   "xorps %%xmm6, %%xmm6\n\txorps %%xmm7, %%xmm7"
                   ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                   "xmm7");
}

void clobbering(void *ctx, u32, const uintptr_t *) {
  ++*(long *)ctx;
  clobber_vector(0, 0, 0, 0);
}

// A callback that keeps the vector registers, as one the registry is told
// of must: integer work of its own, the rest (every other firing) through
// mk_call_keeping_vector.
__attribute__((target("general-regs-only"))) void keeping(void *ctx, u32,
                                                          const uintptr_t *) {
  if (++*(long *)ctx % 2 == 0)
    mk::mk_call_keeping_vector(clobber_vector, 0, 0, 0, 0);
}

} // namespace

TEST_CASE("fbt: a traced function's vector arguments and return value "
          "survive its handlers") {
  // f(a, b) = 2a + b in doubles: addsd %xmm0,%xmm0; addsd %xmm1,%xmm0; ret
  const std::vector<u8> body = {0xf2, 0x0f, 0x58, 0xc0, 0xf2,
                                0x0f, 0x58, 0xc1, 0xc3};
  ModuleDir dir;
  dir.write("fd.ko", EntryObject("__fentry__", kCall, body).b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto file = k.linker().load("fd");
  REQUIRE_OK(file);
  auto fn = (double (*)(double, double))(uintptr_t)(*file)->address;
  auto ids = ids_of(k, "fbt:fd:f:");
  REQUIRE(ids.size() == 2);
  // A callback that clobbers them (the trampolines save them around it),
  // then one the registry knows keeps them (they are saved only around
  // what it calls through mk_call_keeping_vector).
  k.probes().mark_keeps_vector(keeping);
  for (mk::ProbeCallback cb : {clobbering, keeping}) {
    CAPTURE(cb == keeping);
    long n = 0;
    auto e = k.probes().enable(ids, cb, &n);
    REQUIRE_OK(e);
    for (int i = 0; i < 6; i++)
      CHECK(fn(1.5 + i, 0.25) == 3.25 + 2 * i);
    k.probes().disable(*e);
    CHECK(n == 12);
  }
  REQUIRE_OK(k.linker().unload(*file));
}
#endif

#if !defined(__x86_64__)
TEST_CASE("fbt: an i386 function's ret $4, in call and breakpoint mode") {
  // stdcall: the function pops its argument (mov 4(%esp),%eax; inc;
  // ret $4).  Its return comes back through the trampoline in call mode
  // and through the int3 on its `ret $4` in breakpoint mode, each time
  // with the stack pointer where the caller expects it.
  const std::vector<u8> body = {0x8b, 0x44, 0x24, 0x04, 0x40, 0xc2, 0x04, 0x00};
  ModuleDir dir;
  dir.write("fs.ko", EntryObject("__fentry__", kCall, body).b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto file = k.linker().load("fs");
  REQUIRE_OK(file);
  using Stdcall = long(__attribute__((stdcall)) *)(long);
  auto fn = (Stdcall)(uintptr_t)(*file)->address;
  auto entry = ids_of(k, "fbt:fs:f:entry"), ret = ids_of(k, "fbt:fs:f:return");
  REQUIRE(entry.size() == 1);
  REQUIRE(ret.size() == 1);
  for (mk::PatchMode mode : {mk::PatchMode::Call, mk::PatchMode::Breakpoint}) {
    CAPTURE((int)mode);
    Seen seen;
    seen.entry_id = entry[0];
    auto e = k.probes().enable({entry[0], ret[0]}, record, &seen, mode);
    REQUIRE_OK(e);
    CHECK(fn(41) == 42);
    CHECK(fn(7) == 8);
    k.probes().disable(*e);
    CHECK(fn(1) == 2);
    REQUIRE(seen.entries.size() == 2);
    REQUIRE(seen.returns.size() == 2);
    CHECK(seen.returns[0][1] == 42);
    CHECK(seen.returns[1][1] == 8);
  }
  const u8 *code = (const u8 *)(*file)->address + 5;
  CHECK(std::vector<u8>(code, code + body.size()) == body);
  REQUIRE_OK(k.linker().unload(*file));
}
#endif

namespace {

// What a handler that resets the x87 unit saw: each probe's firings'
// probe frames.
using X87Seen = std::map<u32, std::vector<mk::ProbeFrame>>;

void reset_x87(void *ctx, u32 id, const uintptr_t *) {
  const mk::ProbeFrame *pf = mk::probe_frame();
  mk::ProbeFrame seen = pf ? *pf : mk::ProbeFrame{};
  // The return address lies where the frame says (pc 0 if not).
  if (!seen.pc_loc || *(const uintptr_t *)seen.pc_loc != seen.pc)
    seen.pc = 0;
  (*(X87Seen *)ctx)[id].push_back(seen);
  // Empties the x87 stack, as any handler doing long double arithmetic
  // may leave it: a value the function returns there must survive.
  __asm__ volatile("fninit");
}

// How many values the x87 stack holds.
int x87_depth() {
  unsigned short sw;
  __asm__ volatile("fnstsw %0" : "=m"(sw));
  return (8 - ((sw >> 11) & 7)) & 7;
}

} // namespace

TEST_CASE("fbt: returns on the x87 stack survive handlers; probe frames") {
  // f() = 1.0L (fld1; ret): a long double comes back in st(0) on both
  // arches.  g() returns nothing on the x87 stack.
  ModuleDir dir;
  dir.write("fx.ko", EntryObject("__fentry__", kCall, {0xd9, 0xe8, 0xc3}).b);
  dir.write("fy.ko", EntryObject("__fentry__", kCall, add_one()).b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto fx = k.linker().load("fx");
  REQUIRE_OK(fx);
  auto fy = k.linker().load("fy");
  REQUIRE_OK(fy);
  auto f = (long double (*)())(uintptr_t)(*fx)->address;
  auto g = (long (*)(long))(uintptr_t)(*fy)->address;

  X87Seen seen;
  auto entry = ids_of(k, "fbt:fx:f:entry"), ret = ids_of(k, "fbt:fx:f:return");
  auto gids = ids_of(k, "fbt:fy:f:");
  REQUIRE(entry.size() == 1);
  REQUIRE(ret.size() == 1);
  REQUIRE(gids.size() == 2);
  auto e = k.probes().enable({entry[0], ret[0], gids[0], gids[1]}, reset_x87,
                             &seen);
  REQUIRE_OK(e);
  // The first call of each (the return code learns what the function
  // leaves on the x87 stack), then the next ones, on the fast path once
  // this thread is a reader.
  for (int i = 0; i < 4; i++) {
    CHECK(f() == 1.0L);
    CHECK(x87_depth() == 0);
    CHECK(g(i) == i + 1);
    CHECK(x87_depth() == 0);
  }
  k.probes().disable(*e);
  // Each call's entry and return frames agree: the caller's, at the
  // call's return address, which lies where the frame says.
  for (auto [in_id, out_id] : {std::pair{entry[0], ret[0]}, {gids[0], gids[1]}}) {
    REQUIRE(seen[in_id].size() == 4);
    REQUIRE(seen[out_id].size() == 4);
    for (size_t i = 0; i < 4; i++) {
      const mk::ProbeFrame &in = seen[in_id][i], &out = seen[out_id][i];
      CHECK(in.pc != 0);
      CHECK(in.pc == out.pc);
      CHECK(in.pc_loc == out.pc_loc);
      CHECK(in.sp == in.pc_loc + sizeof(uintptr_t));
      CHECK(out.sp == in.sp);
      CHECK(in.fp == out.fp);
    }
  }
  REQUIRE_OK(k.linker().unload(*fy));
  REQUIRE_OK(k.linker().unload(*fx));
}

TEST_CASE("fbt: patch areas become one NOP; bad lists are refused") {
  ModuleDir dir;
  const bool is64 = kNative == Target::X86_64;
  // gcc's -fpatchable-function-entry=5: five 1-byte NOPs, listed.
  {
    ObjBuilder b(kNative);
    std::vector<u8> code = {0x90, 0x90, 0x90, 0x90, 0x90};
    for (u8 c : add_one())
      code.push_back(c);
    u32 text = b.text(code);
    u32 list = b.section("__patchable_function_entries", SHT_PROGBITS,
                         SHF_ALLOC | SHF_WRITE, is64 ? 8 : 4, zeros(is64 ? 8 : 4));
    u32 tsym = b.section_symbol(text);
    b.symbol("g", text, 0, code.size(), STB_GLOBAL, STT_FUNC);
    if (is64)
      b.rela(list, 0, R_X86_64_64, tsym, 0);
    else
      b.rel(list, 0, R_386_32, tsym);
    dir.write("pm.ko", b);
  }
  // An __mcount_loc entry that points at no NOP area.
  {
    ObjBuilder b(kNative);
    std::vector<u8> code = add_one();
    u32 text = b.text(code);
    u32 list = b.section("__mcount_loc", SHT_PROGBITS, SHF_ALLOC,
                         is64 ? 8 : 4, zeros(is64 ? 8 : 4));
    u32 tsym = b.section_symbol(text);
    b.symbol("h", text, 0, code.size(), STB_GLOBAL, STT_FUNC);
    if (is64)
      b.rela(list, 0, R_X86_64_64, tsym, 0);
    else
      b.rel(list, 0, R_386_32, tsym);
    dir.write("bad.ko", b);
  }
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const u64 used = k.arena().used();
  auto pm = k.linker().load("pm");
  REQUIRE_OK(pm);
  CHECK(std::vector<u8>((u8 *)(*pm)->address, (u8 *)(*pm)->address + 5) == kNop5);
  CHECK(ids_of(k, "fbt:pm:g:").size() == 2);
  REQUIRE_OK(k.linker().unload(*pm));

  auto bad = k.linker().load("bad");
  CHECK(message_of(bad) ==
        std::string("bad.ko:(.text+0x0): the patch area is not 5 bytes of NOPs (") +
            (is64 ? "48 8d 47 01 c3" : "8b 44 24 04 40") +
            "); build with -fpatchable-function-entry=5");
  // Nothing of it is left behind.
  CHECK(k.linker().find("bad.ko") == nullptr);
  CHECK(ids_of(k, "fbt:bad::").empty());
  CHECK(k.arena().used() == used);
}

TEST_CASE("fbt: a module's probes are made when a description could name "
          "them") {
  ModuleDir dir;
  const bool is64 = kNative == Target::X86_64;
  // f: an entry site at its first byte.  g: a call of __fentry__ after a
  // NOP, neither first nor after a frame-pointer prologue.
  {
    ObjBuilder b(kNative);
    std::vector<u8> code = kCall;
    for (u8 c : add_one())
      code.push_back(c);
    const u32 g_at = (u32)code.size();
    code.push_back(0x90);
    for (u8 c : kCall)
      code.push_back(c);
    code.push_back(0xc3);
    const u32 text = b.text(code);
    b.symbol("f", text, 0, g_at, STB_GLOBAL, STT_FUNC);
    b.symbol("g", text, g_at, code.size() - g_at, STB_GLOBAL, STT_FUNC);
    const u32 s = b.undef("__fentry__");
    for (u32 at : {1u, g_at + 2})
      if (is64)
        b.rela(text, at, R_X86_64_PLT32, s, -4);
      else
        b.rel(text, at, R_386_PC32, s);
    dir.write("lazy.ko", b);
  }
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const size_t before = k.probes().live_probes();
  auto m = k.linker().load("lazy");
  REQUIRE_OK(m);
  // Loaded with both sites NOPs, and no probe made.
  CHECK(std::vector<u8>((u8 *)(*m)->address, (u8 *)(*m)->address + 5) == kNop5);
  CHECK(k.probes().live_probes() == before);
  // A description of another module's probes makes none of these.
  CHECK(ids_of(k, "fbt:memdev::").empty());
  CHECK(k.probes().live_probes() == before);
  k.console().clear_dmesg();
  // f's probes now; g's site is refused with a line on the console.
  CHECK(ids_of(k, "fbt:lazy::").size() == 2);
  CHECK(ids_of(k, "fbt:lazy:f:entry").size() == 1);
  CHECK(k.console().dmesg().find(
            "fbt: lazy.ko:(.text+0x" + std::string(is64 ? "b" : "c") +
            "): g: entry site at +0x1 is neither the function's first "
            "instruction nor after a frame-pointer prologue; no probes for "
            "it") != std::string::npos);
  // An unload takes them; a module that goes before anyone asked takes
  // its table with it.
  REQUIRE_OK(k.linker().unload(*m));
  CHECK(k.probes().live_probes() == before);
  auto again = k.linker().load("lazy");
  REQUIRE_OK(again);
  REQUIRE_OK(k.linker().unload(*again));
  CHECK(ids_of(k, "fbt:lazy::").empty());
  CHECK(k.probes().live_probes() == before);
}

TEST_CASE("fbt: a retained enabling takes a module's entry probes at its "
          "load") {
  ModuleDir dir;
  dir.write("fm.ko", EntryObject("__fentry__", kCall, add_one()).b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  std::atomic<int> fired{0};
  auto en = k.probes().enable(
      {}, [](void *c, u32, const uintptr_t *) { ++*(std::atomic<int> *)c; },
      &fired, mk::PatchMode::Call, {mk::ProbeDesc::parse("fbt:fm::entry")});
  REQUIRE_OK(en);
  auto m = k.linker().load("fm");
  REQUIRE_OK(m);
  const auto f = (long (*)(long))(*m)->address;
  CHECK(f(41) == 42);
  CHECK(fired == 1);
  REQUIRE_OK(k.linker().unload(*m));
  k.probes().disable(*en);
}

TEST_CASE("fbt: a relocation into a large-model entry sequence's padding "
          "is refused") {
  if (kNative != Target::X86_64)
    return;
  // gcc -mcmodel=large -fpic's entry sequence, its two relocations listed
  // in the other order: the GOT's address would land in the NOPs the
  // loader made of the sequence, which the function runs.
  ModuleDir dir;
  {
    ObjBuilder b{kNative};
    std::vector<u8> code = {
        0x49, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0,       // movabs $GOT-.,%r11
        0x4c, 0x8d, 0x15, 0xef, 0xff, 0xff, 0xff, // lea -0x11(%rip),%r10
        0x4d, 0x01, 0xda,                         // add %r11,%r10
        0x49, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0,       // movabs $__fentry__@PLTOFF,%r11
        0x4d, 0x01, 0xda,                         // add %r11,%r10
        0x41, 0xff, 0xd2};                        // call *%r10
    for (u8 c : add_one())
      code.push_back(c);
    const u32 text = b.text(code);
    b.symbol("f", text, 0, code.size(), STB_GLOBAL, STT_FUNC);
    b.rela(text, 0x16, R_X86_64_PLTOFF64, b.undef("__fentry__"), 0);
    b.rela(text, 2, R_X86_64_GOTPC64, b.undef("_GLOBAL_OFFSET_TABLE_"), 2);
    dir.write("late.ko", b);
  }
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const u64 used = k.arena().used();
  auto m = k.linker().load("late");
  CHECK(message_of(m) == "late.ko:(.text+0x0): a relocation after the entry "
                         "call's own wrote into its sequence");
  CHECK(k.linker().find("late.ko") == nullptr);
  CHECK(k.arena().used() == used);
}

namespace {
std::atomic<int> g_guard_calls{0};
void calls_traced_code(void *, u32, const uintptr_t *) {
  g_guard_calls++;
  // The kernel's own strf has an entry site and its probe is enabled: a
  // handler calling it must not fire it again.
  (void)mk::strf("%d", 1);
}
} // namespace

TEST_CASE("fbt: a handler calling traced code does not re-enter itself") {
  ModuleDir dir;
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto ids = ids_of(k, "fbt:kernel:strf?abi*:entry");
  REQUIRE(ids.size() == 1);
  g_guard_calls = 0;
  auto e = k.probes().enable(ids, calls_traced_code, nullptr);
  REQUIRE_OK(e);
  (void)mk::strf("%d", 2);
  (void)mk::strf("%d", 3);
  k.probes().disable(*e);
  CHECK(g_guard_calls == 2);
}

namespace {
// Three frames to walk; noinline and an asm barrier keep them frames.
__attribute__((noinline)) size_t walk_c(const mk::CodeMap &c, u64 *pcs) {
  size_t n = mk::unwind(c, mk::current_frame(), pcs, 8);
  __asm__ volatile("" ::: "memory");
  return n;
}
__attribute__((noinline)) size_t walk_b(const mk::CodeMap &c, u64 *pcs) {
  size_t n = walk_c(c, pcs);
  __asm__ volatile("" ::: "memory");
  return n;
}
__attribute__((noinline)) size_t walk_a(const mk::CodeMap &c, u64 *pcs) {
  size_t n = walk_b(c, pcs);
  __asm__ volatile("" ::: "memory");
  return n;
}
} // namespace

TEST_CASE("unwind: the caller's frames, named as stack() prints them") {
  ModuleDir dir;
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  u64 pcs[8];
  size_t n = walk_a(k.probes().code(), pcs);
  REQUIRE(n >= 3);
  auto name = [&](size_t i) {
    std::string s = k.probes().code().symbolize(pcs[i]);
    return s.substr(0, s.find('+'));
  };
  CHECK(name(0) == "kernel`walk_c");
  CHECK(name(1) == "kernel`walk_b");
  CHECK(name(2) == "kernel`walk_a");
  CHECK(k.probes().code().symbolize(1) == "0x1");
}

namespace {
void count_a(void *, u32, const uintptr_t *) {}
void count_b(void *, u32, const uintptr_t *) {}

std::vector<int> enablings_on(mk::Kernel &k, u32 id) {
  std::vector<int> out;
  for (const mk::HandlerInfo &h : k.probes().handlers(id))
    out.push_back(h.enabling);
  return out;
}
} // namespace

TEST_CASE("fbt: enabling a batch whose probes had different handlers before") {
  // Probes that shared a list before a batch share one after it: each
  // probe must still end up with exactly its own enablings.
  ModuleDir dir;
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto all = ids_of(k, "fbt:kernel::");
  REQUIRE(all.size() >= 40);
  all.resize(40);
  const std::vector<u32> half(all.begin(), all.begin() + all.size() / 2);
  auto a = k.probes().enable(half, count_a, nullptr);
  REQUIRE_OK(a);
  auto b = k.probes().enable(all, count_b, nullptr);
  REQUIRE_OK(b);
  for (size_t i = 0; i < all.size(); i++)
    CHECK(enablings_on(k, all[i]) ==
          (i < half.size() ? std::vector<int>{*a, *b} : std::vector<int>{*b}));
  k.probes().disable(*a);
  for (u32 id : all)
    CHECK(enablings_on(k, id) == std::vector<int>{*b});
  auto c = k.probes().enable(half, count_a, nullptr);
  REQUIRE_OK(c);
  k.probes().disable(*b);
  for (size_t i = 0; i < all.size(); i++)
    CHECK(enablings_on(k, all[i]) ==
          (i < half.size() ? std::vector<int>{*c} : std::vector<int>{}));
  k.probes().disable(*c);
  for (u32 id : all)
    CHECK(enablings_on(k, id).empty());
}

TEST_CASE("code map: a module's tables, built when first wanted, agree with "
          "reading its .eh_frame in place") {
  // build/ARCH/unit-tests sits beside build/ARCH/test-modules/.
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(len > 0);
  std::string dir(exe, (size_t)len);
  dir = dir.substr(0, dir.rfind('/')) + "/test-modules";
  mk::Kernel k(kernel_options(dir));
  REQUIRE(k.boot());
  auto f = k.linker().load("fbt_check");
  REQUIRE_OK(f);
  const mk::CodeMap &code = k.probes().code();
  const mk::CodeImage *img = code.image_at((*f)->address);
  REQUIRE(img != nullptr);
  REQUIRE(img->eh_frame != nullptr);
  // No stack walker yet: every lookup reads the section in place.
  std::vector<std::pair<u64, u64>> scanned; // per pc: the FDE's range
  size_t found = 0;
  for (u64 pc = img->lo; pc < img->hi; pc++) {
    mk::CodeImage::Fde fde{};
    if (img->fde_at(pc, fde)) {
      CHECK(pc >= fde.lo);
      CHECK(pc < fde.hi);
      found++;
    }
    scanned.emplace_back(fde.lo, fde.hi);
  }
  CHECK(found > 0);
  // A walker comes: the table is built, and answers the same.
  code.use_unwind(+1);
  size_t i = 0;
  for (u64 pc = img->lo; pc < img->hi; pc++, i++) {
    mk::CodeImage::Fde fde{};
    (void)img->fde_at(pc, fde);
    if (std::make_pair(fde.lo, fde.hi) != scanned[i])
      FAIL("pc 0x" << std::hex << pc << ": table and scan disagree");
  }
  code.use_unwind(-1);
  // The function table, built on the first name asked for.
  bool named = false;
  for (u64 pc = img->lo; pc < img->hi && !named; pc++) {
    mk::CodeImage::Fde fde{};
    if (img->fde_at(pc, fde) && fde.lo == pc) {
      const std::string s = code.symbolize(pc);
      CHECK(s.rfind("fbt_check`", 0) == 0);
      CHECK(s.find('+') == std::string::npos); // a function's first byte
      named = true;
    }
  }
  CHECK(named);
  REQUIRE_OK(k.linker().unload(*f));
}

TEST_CASE("profile: probe names, units and the rate limit") {
  auto ns = [](const char *n) -> long long {
    auto r = mk::parse_profile_name(n);
    return r ? (long long)r->interval_ns * (r->tick ? -1 : 1) : 0;
  };
  CHECK(ns("profile-997") == 1000000000ll / 997);
  CHECK(ns("profile-97hz") == 1000000000ll / 97);
  CHECK(ns("profile-250us") == 250000);
  CHECK(ns("profile-5ms") == 5000000);
  CHECK(ns("tick-1s") == -1000000000ll);
  CHECK(ns("tick-1sec") == -1000000000ll);
  CHECK(ns("tick-2min") == -120000000000ll);
  CHECK(ns("tick-5000") == -200000);
  CHECK(ns("tick-5001") == 0);       // faster than DTrace allows
  CHECK(ns("profile-100us") == 0);   // the same
  CHECK(ns("profile-0") == 0);
  CHECK(ns("profile-10parsecs") == 0);
  CHECK(ns("profile-") == 0);
  CHECK(ns("tock-1") == 0);
}

TEST_CASE("profile: a timer fires on the CPU thread, on demand") {
  ModuleDir dir;
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  CHECK(ids_of(k, "profile:::profile-997").size() == 1); // DTrace's set
  auto ids = ids_of(k, "profile-1234"); // made as it is named
  REQUIRE(ids.size() == 1);
  CHECK(ids_of(k, "profile:::profile-*").size() == 8);
  static std::atomic<int> fired;
  fired = 0;
  auto e = k.probes().enable(
      ids, [](void *, u32, const uintptr_t *) { fired++; }, nullptr);
  REQUIRE_OK(e);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  k.probes().disable(*e);
  const int n = fired;
  CHECK(n > 50); // 1234 Hz for 0.2 s on a busy machine: well above this
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(fired == n); // disabled: no more
}

namespace {
// What the shell-sampling test's handler saw (it runs in a signal handler:
// only atomics and a system call).
std::atomic<int> g_shell_tid{0}, g_on_shell{0}, g_shell_kernel_pc{0},
    g_shell_cpu{-1}, g_elsewhere{0};

void count_by_thread(void *, u32, const uintptr_t *args) {
  if ((int)gettid() == g_shell_tid.load()) {
    g_on_shell++;
    g_shell_cpu = mk::current_cpu();
    if (args[0])
      g_shell_kernel_pc++;
  } else {
    g_elsewhere++;
  }
}

// Keep the calling thread busy for `ms`, mostly in its own code (not in
// the vDSO's clock).
int spin_ms(u64 ms) {
  const u64 until = mk::now_ns() + ms * 1000000ull;
  volatile u64 n = 0;
  while (mk::now_ns() < until)
    for (int i = 0; i < 10000; i++)
      n = n + 1;
  return 0;
}

bool sigprof_blocked() {
  sigset_t cur;
  pthread_sigmask(SIG_BLOCK, nullptr, &cur);
  return sigismember(&cur, SIGPROF) == 1;
}
} // namespace

TEST_CASE("profile: the shell's thread is sampled while a command runs") {
  // This thread becomes a shell's, which blocks the signal between
  // commands; the tests after this one expect it as it was.
  struct Unblock {
    ~Unblock() { mk::profile_sampling(mk::Sampling::On); }
  } unblock;
  ModuleDir dir;
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto spin = [](mk::Kernel &, std::vector<std::string> &) {
    return spin_ms(150);
  };
  k.shell().add({"spin", "spin", "spin for 150 ms", spin, nullptr});
  // A command that is the samples' consumer, as dtrace is.
  k.shell().add({"consume", "consume", "spin for 150 ms", spin, nullptr,
                 mk::Sampling::Off});
  CHECK(k.shell().tid() == 0); // no line yet: no shell thread to sample
  REQUIRE(k.shell().run_line("sleep 0"));
  REQUIRE(k.shell().tid() == (int)gettid()); // this thread is the shell's
  CHECK(sigprof_blocked()); // at the "prompt"
  g_shell_tid = (int)gettid();
  g_on_shell = g_shell_kernel_pc = g_elsewhere = 0;
  g_shell_cpu = -1;
  auto e = k.probes().enable(ids_of(k, "profile-997"), count_by_thread,
                             nullptr);
  REQUIRE_OK(e);

  spin_ms(150); // between commands: not sampled
  CHECK(g_on_shell == 0);
  REQUIRE(k.shell().run_line("consume"));
  CHECK(g_on_shell == 0);
  CHECK(sigprof_blocked());
  REQUIRE(k.shell().run_line("spin"));
  const int n = g_on_shell;
  // 997 Hz for 0.15 s on a busy machine: well above this.
  CHECK(n > 10);
  CHECK(g_shell_kernel_pc > 10); // interrupted in the command's code
  CHECK(g_shell_cpu == 0);       // the shell runs on CPU 0
  CHECK(sigprof_blocked());
  spin_ms(100);
  CHECK(g_on_shell == n); // back at the prompt: no more
  CHECK(g_elsewhere > 10); // the CPU thread all along
  k.probes().disable(*e);

  // A kernel booted from this thread while it blocks the signal: its CPU
  // threads, which inherit the mask, are sampled all the same.
  mk::Kernel k2(kernel_options(dir.path()));
  REQUIRE(k2.boot());
  g_elsewhere = 0;
  auto e2 = k2.probes().enable(ids_of(k2, "profile-997"), count_by_thread,
                               nullptr);
  REQUIRE_OK(e2);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  k2.probes().disable(*e2);
  CHECK(g_elsewhere > 10);
}
