// Fuzz target: a whole kldload and kldunload in a live kernel.  One kernel
// is booted per process (1 CPU thread, console to /dev/null) and kept
// across inputs; each input is written as fuzz.ko into a module directory
// of its own (beside libcounter.ko, so dependencies resolve), loaded by
// path and, if that worked, unloaded.  After each input the kernel must be
// as it was: the same files, no arena memory, no sysctl, shell command or
// probe left, the kernel's own malloc count back where it was, and no
// module's malloc account still holding memory.
//
// The kernel runs with run_module_code off: a mutated module's code is
// arbitrary machine code, and running it would test the module, not the
// loader.  Everything else of a load runs: read and check, dependencies,
// link into the arena, protect, register sets, record probes, and the
// whole unload.
#include "kernel_state.h"

#include "../../sdt/trampoline.h"

#include <fcntl.h>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>

using namespace mk;

namespace {

struct Fuzz {
  std::string dir, path;
  std::unique_ptr<Kernel> k;

  Fuzz() {
    // In memory where there is a tmpfs: rewriting the file on a disk
    // file system (its truncation, then its blocks freed) took half of
    // each input's time.
    std::string tmpl = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    tmpl += "/mk-fuzz-kld-XXXXXX";
    if (!mkdtemp(tmpl.data()))
      std::abort();
    dir = tmpl;
    path = dir + "/fuzz.ko";
    // libcounter.ko from the build this driver belongs to, if there.
    if (const char *lib = std::getenv("MK_FUZZ_LIBCOUNTER")) {
      std::ifstream in(lib, std::ios::binary);
      std::ofstream(dir + "/libcounter.ko", std::ios::binary) << in.rdbuf();
    }
    // The console is stdout: the kernel's chatter goes to /dev/null,
    // libFuzzer's and the sanitizers' to stderr.
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0 && !std::getenv("MK_FUZZ_VERBOSE"))
      dup2(null, 1);
    Options o;
    o.cpus = 1;
    o.quiet = true;
    o.arena_mib = 64;
    o.module_path = {dir};
    o.run_module_code = false;
    o.catch_faults = false;
    k = std::make_unique<Kernel>(o);
    if (!k->boot())
      std::abort();
    // Probe stubs come from a 64 KiB chunk of the arena that, once there,
    // stays: make it now, so that after each input the arena is exactly
    // as before (a stub not returned would show as a new chunk).
    const u8 ret[5] = {0xc3, 0x90, 0x90, 0x90, 0x90};
    auto stub = k->probes().trampolines().make_stub(ret);
    if (!stub)
      std::abort();
    k->probes().trampolines().release_stub(*stub);
  }
  ~Fuzz() {
    k.reset();
    unlink(path.c_str());
    unlink((dir + "/libcounter.ko").c_str());
    rmdir(dir.c_str());
  }
};

Fuzz *g_fuzz;

Fuzz &fuzz() {
  if (!g_fuzz) {
    g_fuzz = new Fuzz; // lives as long as the process
    // Its files go at exit (the kernel is never torn down: libFuzzer exits
    // from anywhere), so runs leave no directory behind.
    std::atexit([] {
      unlink(g_fuzz->path.c_str());
      unlink((g_fuzz->dir + "/libcounter.ko").c_str());
      rmdir(g_fuzz->dir.c_str());
    });
  }
  return *g_fuzz;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Fuzz &f = fuzz();
  {
    std::ofstream out(f.path, std::ios::binary | std::ios::trunc);
    out.write((const char *)data, (std::streamsize)size);
  }
  const KernelState before = KernelState::of(*f.k);
  auto r = f.k->linker().load(f.path);
  if (r) {
    // Its dependencies may have come with it: unload newest first.
    while (f.k->linker().files().size() > before.files) {
      auto ur = f.k->linker().unload(f.k->linker().files().back());
      FUZZ_CHECK(ur, "unload failed: %s", ur.error().message.c_str());
    }
  } else {
    const std::string &m = r.error().message;
    FUZZ_CHECK(!m.empty() && m.find('\n') == std::string::npos,
               "error not one line: '%s'", m.c_str());
  }
  before.check_same(KernelState::of(*f.k));
  return 0;
}
