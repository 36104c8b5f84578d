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
#include "fuzz_kernel.h"

#include <fstream>
#include <memory>
#include <string>

using namespace mk;

namespace {

struct Fuzz {
  std::string dir, path;
  std::unique_ptr<Kernel> k;

  Fuzz() {
    dir = fuzz_module_dir("kld");
    path = dir + "/fuzz.ko";
    fuzz_console_to_null();
    k = fuzz_loader_kernel(dir);
  }
  ~Fuzz() {
    k.reset();
    fuzz_remove_module_dir(dir);
  }
};

Fuzz *g_fuzz;

Fuzz &fuzz() {
  if (!g_fuzz) {
    g_fuzz = new Fuzz; // lives as long as the process
    // Its files go at exit (the kernel is never torn down: libFuzzer exits
    // from anywhere), so runs leave no directory behind.
    std::atexit([] { fuzz_remove_module_dir(g_fuzz->dir); });
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
  const KernelState before = KernelState::of(*f.k);
  if (fuzz_load(*f.k, f.path, data, size))
    fuzz_unload_since(*f.k, before);
  before.check_same(KernelState::of(*f.k));
  return 0;
}
