// Resolution order in a live kernel (kern_linker.cpp): a module's undefined
// symbols bind to kernel exports first, then to the globals of the modules
// it depends on, in the order it declares them; never to symbols the kernel
// does not export, nor to a dependency's local or hidden ones.  The modules
// are hand-built for the kernel's own architecture, written to a temporary
// module path and loaded by an in-process mk::Kernel.
#include "kernel_support.h"
#include "support.h"

#include "../../kernel/kernel.h"
#include "../../sdt/registry.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <thread>

using namespace mkt;

namespace {

#if defined(__x86_64__)
constexpr Target kNative = Target::X86_64;
#else
constexpr Target kNative = Target::I386;
#endif
constexpr unsigned kPtr = sizeof(void *);


// A module that is only a .data of `slots` pointers (so it is loaded at the
// image's base) and maybe a .modinfo naming its dependencies.
struct DataModule {
  ObjBuilder b{kNative};
  u32 data;
  explicit DataModule(unsigned slots, const std::string &modinfo = "") {
    data = b.data(zeros(slots * kPtr), kPtr);
    if (!modinfo.empty())
      b.section(".modinfo", SHT_PROGBITS, 0, 1,
                std::vector<u8>(modinfo.c_str(),
                                modinfo.c_str() + modinfo.size() + 1));
  }
  // .data slot `i` holds the address of `name` (an undefined symbol).
  void ref(unsigned i, const std::string &name) {
    u32 s = b.undef(name);
    if (kNative == Target::X86_64)
      b.rela(data, i * kPtr, R_X86_64_64, s, 0);
    else
      b.rel(data, i * kPtr, R_386_32, s);
  }
  // A global defined at .data slot `i`.
  u32 def(unsigned i, const std::string &name, u8 bind = STB_GLOBAL) {
    return b.symbol(name, data, i * kPtr, kPtr, bind, STT_OBJECT);
  }
};

u64 slot(const mk::LinkerFile *f, unsigned i) {
  return mk::read_field((const u8 *)(uintptr_t)f->address + i * kPtr, kPtr);
}

} // namespace

TEST_CASE("kernel: exports first, then a dependency's globals") {
  ModuleDir dir;
  DataModule lib(2);
  lib.def(0, "strlen"); // also a kernel export: the kernel's wins
  lib.def(1, "libval");
  dir.write("lib.ko", lib.b);
  DataModule user(2, "depend=lib:1:1:1");
  user.ref(0, "strlen");
  user.ref(1, "libval");
  dir.write("user.ko", user.b);

  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto f = k.linker().load("user");
  REQUIRE_OK(f);
  mk::LinkerFile *libf = k.linker().find("lib.ko");
  REQUIRE(libf != nullptr);
  CHECK(libf->autoloaded);
  CHECK((*f)->deps == std::vector<mk::LinkerFile *>{libf});
  REQUIRE(k.linker().kernel_symbol("strlen"));
  CHECK(slot(*f, 0) == *k.linker().kernel_symbol("strlen"));
  CHECK(slot(*f, 0) != libf->globals.at("strlen"));
  CHECK(slot(*f, 1) == libf->globals.at("libval"));
  CHECK(slot(*f, 1) == libf->address + kPtr);
}

TEST_CASE("kernel: at shutdown a held module goes after the older one "
          "that holds it") {
  // As a Linux module's crypto tfm holds the provider it found after
  // both were loaded: newest first would free the provider while its
  // holder's unload still has to give it back.
  ModuleDir dir;
  dir.write("holder.ko", DataModule(1).b);
  dir.write("held.ko", DataModule(1).b);
  std::string log;
  {
    mk::Kernel k(kernel_options(dir.path()));
    REQUIRE(k.boot());
    REQUIRE_OK(k.linker().load("holder"));
    auto held = k.linker().load("held");
    REQUIRE_OK(held);
    (*held)->modules.front()->holds++;
    k.shutdown();
    log = k.console().dmesg();
  }
  const size_t holder = log.find("holder.ko: unloaded"),
               held = log.find("held.ko: unloaded");
  REQUIRE(holder != std::string::npos);
  REQUIRE(held != std::string::npos);
  CHECK(holder < held);
}

TEST_CASE("kernel: a module's own definition beats a kernel export") {
  ModuleDir dir;
  DataModule own(2);
  u32 mine = own.def(1, "strlen"); // the kernel exports a strlen too
  // .data slot 0 holds the address of the module's own strlen.
  if (kNative == Target::X86_64)
    own.b.rela(own.data, 0, R_X86_64_64, mine, 0);
  else
    own.b.rel(own.data, 0, R_386_32, mine);
  dir.write("own.ko", own.b);

  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto f = k.linker().load("own");
  REQUIRE_OK(f);
  CHECK(slot(*f, 0) == (*f)->address + kPtr);
  CHECK(slot(*f, 0) != *k.linker().kernel_symbol("strlen"));
  // And it is what the module exports to its own dependents.
  CHECK((*f)->globals.at("strlen") == (*f)->address + kPtr);
}

TEST_CASE("kernel: dependencies are searched in the order declared") {
  ModuleDir dir;
  DataModule a(1), b(1);
  a.def(0, "shared");
  b.def(0, "shared");
  dir.write("a.ko", a.b);
  dir.write("b.ko", b.b);
  const std::string info_ab = std::string("depend=a:1:1:1") + '\0' +
                              "depend=b:1:1:1";
  const std::string info_ba = std::string("depend=b:1:1:1") + '\0' +
                              "depend=a:1:1:1";
  DataModule u1(1, info_ab), u2(1, info_ba);
  u1.ref(0, "shared");
  u2.ref(0, "shared");
  dir.write("u1.ko", u1.b);
  dir.write("u2.ko", u2.b);

  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto f1 = k.linker().load("u1");
  REQUIRE_OK(f1);
  auto f2 = k.linker().load("u2");
  REQUIRE_OK(f2);
  mk::LinkerFile *af = k.linker().find("a.ko"), *bf = k.linker().find("b.ko");
  REQUIRE(af);
  REQUIRE(bf);
  CHECK(slot(*f1, 0) == af->address);
  CHECK(slot(*f2, 0) == bf->address);
}

TEST_CASE("kernel: symbols the kernel does not export are undefined") {
  ModuleDir dir;
  DataModule m(3);
  m.ref(0, "_ZN2mk9curkernelEv"); // in the executable, but not exported
  m.ref(1, "kern_strlen");        // the function behind the "strlen" export
  m.ref(2, "printf");             // exported: fine
  dir.write("bad.ko", m.b);

  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const size_t files = k.linker().files().size();
  CHECK(message_of(k.linker().load("bad")) ==
        "bad.ko: undefined symbols: _ZN2mk9curkernelEv, kern_strlen");
  // Nothing left behind.
  CHECK(k.linker().files().size() == files);
  CHECK(k.arena().used() == 0);
}

TEST_CASE("kernel: a dependency's local and hidden symbols are not visible") {
  ModuleDir dir;
  DataModule lib(3);
  lib.def(0, "secret", STB_LOCAL);
  u32 hidden = lib.def(1, "hidden");
  lib.b.sym(hidden).visibility = STV_HIDDEN;
  lib.def(2, "open");
  dir.write("lib.ko", lib.b);
  DataModule user(3, "depend=lib:1:1:1");
  user.ref(0, "secret");
  user.ref(1, "hidden");
  user.ref(2, "open");
  dir.write("user.ko", user.b);

  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const size_t files = k.linker().files().size();
  CHECK(message_of(k.linker().load("user")) ==
        "user.ko: undefined symbols: hidden, secret");
  // The dependency this load brought in went away with it.
  CHECK(k.linker().find("lib.ko") == nullptr);
  CHECK(k.linker().files().size() == files);
  CHECK(k.arena().used() == 0);
}

TEST_CASE("kernel: a weak undefined symbol nobody defines is 0") {
  ModuleDir dir;
  DataModule m(2);
  u32 w = m.b.undef("no_such_hook", STB_WEAK);
  if (kNative == Target::X86_64)
    m.b.rela(m.data, 0, R_X86_64_64, w, 0);
  else
    m.b.rel(m.data, 0, R_386_32, w);
  m.ref(1, "malloc");
  dir.write("weak.ko", m.b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto f = k.linker().load("weak");
  REQUIRE_OK(f);
  CHECK(slot(*f, 0) == 0);
  CHECK(slot(*f, 1) == *k.linker().kernel_symbol("malloc"));
}

TEST_CASE("kernel: a module for the other architecture is refused") {
  ModuleDir dir;
  ObjBuilder b(kNative == Target::X86_64 ? Target::I386 : Target::X86_64);
  b.data(zeros(8));
  dir.write("alien.ko", b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  CHECK(message_of(k.linker().load("alien")) ==
        (kNative == Target::X86_64
             ? "alien.ko: module is for i386, this kernel is x86_64"
             : "alien.ko: module is for x86_64, this kernel is i386"));
}

TEST_CASE("kernel: two kernels in one process load the same module") {
  ModuleDir dir;
  DataModule m(2);
  u32 self = m.def(1, "self");
  if (kNative == Target::X86_64)
    m.b.rela(m.data, 0, R_X86_64_64, self, 0);
  else
    m.b.rel(m.data, 0, R_386_32, self);
  dir.write("twice.ko", m.b);
  mk::Kernel k1(kernel_options(dir.path()));
  REQUIRE(k1.boot());
  mk::Kernel k2(kernel_options(dir.path()));
  REQUIRE(k2.boot());
  CHECK(k1.arena().base() != k2.arena().base());
  auto f1 = k1.linker().load("twice");
  REQUIRE_OK(f1);
  auto f2 = k2.linker().load("twice");
  REQUIRE_OK(f2);
  CHECK(k1.arena().contains((*f1)->address));
  CHECK(k2.arena().contains((*f2)->address));
  CHECK(slot(*f1, 0) == (*f1)->address + kPtr);
  CHECK(slot(*f2, 0) == (*f2)->address + kPtr);
  REQUIRE_OK(k1.linker().unload(*f1));
  CHECK(k1.linker().find("twice") == nullptr);
  CHECK(k2.linker().find("twice") == *f2);
}

TEST_CASE("kernel: a module loaded without declaring the dependency does not see it") {
  ModuleDir dir;
  DataModule lib(1);
  lib.def(0, "libval");
  dir.write("lib.ko", lib.b);
  DataModule user(1); // no depend=lib in .modinfo
  user.ref(0, "libval");
  dir.write("user.ko", user.b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  REQUIRE_OK(k.linker().load("lib"));
  CHECK(message_of(k.linker().load("user")) ==
        "user.ko: undefined symbol: libval");
}

TEST_CASE("kernel: module code reaches the kernel and its own data from the arena") {
  // -fno-pic code: a rel32 call to a kernel export, and (x86_64) 32-bit
  // absolute addresses of the module's own data, which only fit because
  // the arena is near the kernel's text and below 2 GiB.
  ModuleDir dir;
  ObjBuilder b(kNative);
  u32 text = b.text(zeros(16));
  u32 data = b.data(zeros(8));
  u32 var = b.symbol("var", data, 4, 4, STB_LOCAL, STT_OBJECT);
  u32 printf_ = b.undef("printf");
  if (kNative == Target::X86_64) {
    b.rela(text, 1, R_X86_64_PLT32, printf_, -4);
    b.rela(text, 8, R_X86_64_32S, var, 0);
    b.rela(text, 12, R_X86_64_32, var, 0);
  } else {
    b.rel(text, 1, R_386_PC32, printf_); // addend 0 in the bytes
    b.rel(text, 8, R_386_32, var);
    b.rel(text, 12, R_386_32, var);
  }
  dir.write("nopic.ko", b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  auto f = k.linker().load("nopic");
  REQUIRE_OK(f);
  const u8 *t = (const u8 *)(uintptr_t)(*f)->address; // text: read+execute
  const u64 printf_addr = *k.linker().kernel_symbol("printf");
  const i64 A = kNative == Target::X86_64 ? -4 : 0;
  CHECK(mk::read_field(t + 1, 4) ==
        ((printf_addr + A - ((*f)->address + 1)) & 0xffffffffu));
  const u64 var_addr = (*f)->address + 0x1000 + 4; // .data on the next page
  CHECK(mk::read_field(t + 8, 4) == var_addr);
  CHECK(mk::read_field(t + 12, 4) == var_addr);
}

TEST_CASE("kernel: a relocation out of range fails the load and leaves nothing") {
  ModuleDir dir;
  DataModule m(2);
  u32 big = m.b.symbol("big", SHN_ABS, 0x100);
  if (kNative == Target::X86_64)
    m.b.rela(m.data, 4, R_X86_64_8, big, 0);
  else
    m.b.rel(m.data, 4, R_386_8, big);
  dir.write("ovf.ko", m.b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const size_t files = k.linker().files().size();
  CHECK(message_of(k.linker().load("ovf")) ==
        std::string("ovf.ko:(.data+0x4): relocation ") +
            (kNative == Target::X86_64 ? "R_X86_64_8" : "R_386_8") +
            " against big out of range: 0x100 is not in [-128, 255]");
  CHECK(k.linker().files().size() == files);
  CHECK(k.arena().used() == 0);
}

TEST_CASE("kernel: hello.ko from the build, when it was built") {
  // build/ARCH/unit-tests sits beside build/ARCH/modules/.
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  exe[n] = '\0';
  std::string dir(exe);
  dir = dir.substr(0, dir.find_last_of('/')) + "/modules";
  if (access((dir + "/hello.ko").c_str(), R_OK) != 0) {
    MESSAGE("skipped: " << dir << "/hello.ko is not built");
    return;
  }
  mk::Kernel k(kernel_options(dir));
  REQUIRE(k.boot());
  auto f = k.linker().load("hello");
  REQUIRE_OK(f);
  mk::ModuleRec *m = k.linker().find_module("hello");
  REQUIRE(m != nullptr);
  CHECK(m->loaded);
  CHECK(m->version == 1);
  CHECK(k.sysctl().find("hello.greeting").has_value());
  REQUIRE_OK(k.linker().unload(*f));
  CHECK(k.linker().find("hello") == nullptr);
  CHECK(!k.sysctl().find("hello.greeting").has_value());
  CHECK(k.arena().used() == 0);
}

TEST_CASE("kernel: probe ids and trampolines are reused across 20 000 loads" * doctest::test_suite("long")) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  exe[n] = '\0';
  std::string dir(exe);
  dir = dir.substr(0, dir.find_last_of('/')) + "/modules";
  if (access((dir + "/memdev.ko").c_str(), R_OK) != 0) {
    MESSAGE("skipped: " << dir << "/memdev.ko is not built");
    return;
  }
  mk::Kernel k(kernel_options(dir));
  REQUIRE(k.boot());
  const size_t boot_probes = k.probes().live_probes();
  auto cycle = [&](bool enable) {
    auto f = k.linker().load("memdev");
    REQUIRE_OK(f);
    auto mine = k.probes().match(mk::ProbeDesc::parse("memdev:::"));
    REQUIRE(mine.size() >= 6);
    std::vector<u32> ids;
    for (const auto &p : mine)
      ids.push_back(p.id);
    if (enable) {
      auto e = k.probes().enable(
          ids, [](void *, u32, const uintptr_t *) {}, nullptr);
      REQUIRE_OK(e);
      // Unloading with the enabling running: its probes go with the module.
      REQUIRE_OK(k.linker().unload(*f));
      k.probes().disable(*e);
    } else {
      REQUIRE_OK(k.linker().unload(*f));
    }
    return ids;
  };
  const std::vector<u32> first = cycle(true);
  const u32 highest = k.probes().highest_id();
  for (int i = 0; i < 20000; i++) {
    std::vector<u32> ids = cycle(i % 100 == 0);
    if (ids != first) {
      CHECK(ids == first); // the same ids every time
      break;
    }
  }
  CHECK(k.probes().highest_id() == highest);
  CHECK(k.probes().live_probes() == boot_probes);
  CHECK(k.arena().used() <= 64 * 1024); // the trampoline chunk, no more
}

namespace {

// What the process holds: address space, mappings, the C heap in use, and
// anonymous executable memory (the BPF JIT's code).
// Under AddressSanitizer, freed blocks wait in its quarantine (up to 256
// MiB) and its allocator maps regions of its own: resident memory and the
// number of mappings then describe the sanitizer, not the kernel.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsanAllocator = true;
#else
constexpr bool kAsanAllocator = false;
#endif

struct ProcessMemory {
  u64 vm = 0, rss = 0, mappings = 0, heap = 0, jit = 0;
};

ProcessMemory process_memory() {
  ProcessMemory m;
  long pages = 0, resident = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
      pages = resident = 0;
    std::fclose(f);
  }
  m.vm = (u64)pages * (u64)sysconf(_SC_PAGESIZE);
  m.rss = (u64)resident * (u64)sysconf(_SC_PAGESIZE);
  if (FILE *f = std::fopen("/proc/self/maps", "r")) {
    char line[4096];
    while (std::fgets(line, sizeof line, f)) {
      m.mappings++;
      unsigned long lo = 0, hi = 0, inode = 1;
      char perms[8] = "";
      int path_at = 0;
      if (std::sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &lo, &hi, perms,
                      &inode, &path_at) >= 4 &&
          perms[2] == 'x' && inode == 0 &&
          (line[path_at] == '\n' || line[path_at] == '\0'))
        m.jit += hi - lo;
    }
    std::fclose(f);
  }
  struct mallinfo2 mi = mallinfo2();
  m.heap = mi.uordblks + mi.hblkhd;
  return m;
}

} // namespace

TEST_CASE("kernel: 5000 loads of a module without probes leave nothing behind" * doctest::test_suite("long")) {
  // The code map keeps a module's object file (and the file's mapping) for
  // naming its functions; the snapshot that still held it after unload
  // was freed only when a later module's probes went, so a module without
  // probes left its file mapped every cycle, until an i386 process ran out
  // of address space.  Read after the deferred frees ran: no timing.
  ModuleDir dir;
  DataModule m(16384); // 64 KiB of .data (128 on x86_64): a file to map
  dir.write("noprobes.ko", m.b);
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  const size_t boot_probes = k.probes().live_probes();
  auto cycle = [&] {
    auto f = k.linker().load("noprobes");
    REQUIRE_OK(f);
    REQUIRE_OK(k.linker().unload(*f));
  };
  for (int i = 0; i < 100; i++) // warm-up: liburcu's call_rcu thread, pools
    cycle();
  k.probes().drain_deferred_frees();
  const ProcessMemory before = process_memory();
  for (int i = 0; i < 5000; i++)
    cycle();
  k.probes().drain_deferred_frees();
  const ProcessMemory after = process_memory();
  CHECK(k.probes().live_probes() == boot_probes);
  CHECK(k.arena().used() == 0);
  // One per cycle would be 5000 mappings, 320 MiB and some 10 MiB of heap.
  // (The file, 130 KiB, is read into the heap, whose freed blocks ASan
  // holds: one kept per cycle would be 650 MiB, beyond its quarantine.)
  CHECK(after.mappings <= before.mappings + 8 + mkt::kFreedHeldMappings);
  CHECK(after.vm <= before.vm + (4u << 20) + mkt::kFreedHeld);
  CHECK(after.heap <= before.heap + (1u << 20));
}

namespace {

// stdout to /dev/null while it lives: the console's line per unload
// ("dtrace: enabling 1: 1 probe of memdev.ko removed at unload").
class QuietStdout {
public:
  QuietStdout() {
    std::fflush(stdout);
    saved_ = dup(1);
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && fd >= 0)
      dup2(fd, 1);
    if (fd >= 0)
      close(fd);
  }
  ~QuietStdout() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      dup2(saved_, 1);
      close(saved_);
    }
  }

private:
  int saved_ = -1;
};

} // namespace

TEST_CASE("kernel: load cycles under a retained enabling leave nothing behind") {
  // A retained enabling takes memdev's write-done probe at every load.  Each
  // load made the consumer a new ECB, a new runtime table and (its clause
  // having one ECB) a newly linked program with a JIT page of its own, all
  // kept until the consumer went: some 50 KB and one 4 KiB page a cycle,
  // until an i386 process ran out of memory after about 900 cycles.  Read
  // after the deferred frees ran.
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(len > 0);
  exe[len] = '\0';
  std::string dir(exe);
  dir = dir.substr(0, dir.find_last_of('/')) + "/modules";
  if (access((dir + "/memdev.ko").c_str(), R_OK) != 0) {
    MESSAGE("skipped: " << dir << "/memdev.ko is not built");
    return;
  }
  mk::Kernel k(kernel_options(dir));
  REQUIRE(k.boot());
  const size_t boot_probes = k.probes().live_probes();
  int enabling = 0; // the dtrace job's, as the registry numbers it
  auto cycle = [&](bool check) {
    QuietStdout quiet;
    auto f = k.linker().load("memdev");
    REQUIRE_OK(f);
    if (check) { // the enabling took the new probe
      auto done = k.probes().match(mk::ProbeDesc::parse("memdev:::write-done"));
      REQUIRE(done.size() == 1);
      enabling = 0;
      for (const mk::HandlerInfo &h : k.probes().handlers(done[0].id))
        if (h.dtrace)
          enabling = h.enabling;
      CHECK(enabling > 0);
    }
    REQUIRE(k.shell().run_line("memdev write hello"));
    REQUIRE_OK(k.linker().unload(*f));
  };
  auto start = [&] {
    QuietStdout quiet;
    REQUIRE(k.shell().run_line(
        "dtrace -q -Z -n 'memdev:::write-done { @w = count(); }' &"));
  };
  auto stop = [&] {
    REQUIRE(enabling > 0);
    QuietStdout quiet;
    REQUIRE(k.shell().run_line("dtrace -k " + std::to_string(enabling)));
    k.probes().drain_deferred_frees();
  };
  // A first enabling, started and stopped: what any background enabling
  // leaves for the next (dtrace's drainer thread, its stack and malloc
  // arena) is there before the reading.
  start();
  for (int i = 0; i < 100; i++)
    cycle(i == 0);
  stop();
  const ProcessMemory idle = process_memory();
  start();
  for (int i = 0; i < 100; i++) // warm-up
    cycle(i == 0);
  k.probes().drain_deferred_frees();
  const ProcessMemory before = process_memory();
  for (int i = 0; i < 2000; i++)
    cycle(i % 500 == 0);
  k.probes().drain_deferred_frees();
  const ProcessMemory after = process_memory();
  CHECK(k.probes().live_probes() == boot_probes);
  CHECK(k.arena().used() <= 64 * 1024); // the trampoline chunk, no more
  // 2 000 cycles at the old 50 KB and 4 KiB each: 100 MB of heap, 8 MiB
  // of JIT code.
  CHECK(after.heap <= before.heap + (256u << 10));
  CHECK(after.jit <= before.jit);
  if (!kAsanAllocator) {
    CHECK(after.mappings <= before.mappings + 8);
    CHECK(after.rss <= before.rss + (2u << 20));
  }
  // Stopping the enabling gives back what it held: its buffers, its
  // programs, its tables.
  stop();
  const ProcessMemory stopped = process_memory();
  CHECK(stopped.jit <= idle.jit);
  // (Two more: a malloc arena a thread may have made meanwhile.)
  CHECK(stopped.heap <= idle.heap + (256u << 10));
  if (!kAsanAllocator) {
    CHECK(stopped.mappings <= idle.mappings + 2);
    CHECK(stopped.rss <= idle.rss + (2u << 20));
  }
}

namespace {
void kthread_body(void *arg) { *static_cast<std::atomic<int> *>(arg) += 1; }
} // namespace

TEST_CASE("kernel: kthread_join waits for a kernel thread once, and refuses "
          "what is not one") {
  ModuleDir dir;
  mk::Kernel k(kernel_options(dir.path()));
  REQUIRE(k.boot());
  std::atomic<int> ran{0};
  auto t = k.kthreads().start(k, kthread_body, &ran, "joined");
  REQUIRE(t);
  CHECK(k.kthreads().join(*t));
  CHECK(ran == 1);
  // A module may pass the same thread again, or a pointer of its own:
  // nothing of it is touched.
  CHECK_FALSE(k.kthreads().join(*t));
  mk::KThreads::Thread *made_up = reinterpret_cast<mk::KThreads::Thread *>(&ran);
  CHECK_FALSE(k.kthreads().join(made_up));
  // A thread cannot wait for itself.
  struct Self {
    mk::Kernel *k;
    mk::KThreads::Thread *t = nullptr;
    std::atomic<bool> go{false}, done{false};
    bool joined = true;
  } self{&k};
  auto s = k.kthreads().start(
      k,
      [](void *p) {
        auto *me = static_cast<Self *>(p);
        while (!me->go)
          std::this_thread::yield();
        me->joined = me->k->kthreads().join(me->t);
        me->done = true;
      },
      &self, "self");
  REQUIRE(s);
  self.t = *s;
  self.go = true;
  while (!self.done)
    std::this_thread::yield();
  CHECK(k.kthreads().join(*s));
  CHECK_FALSE(self.joined);
}
