// The kernel the module fuzz targets (fuzz_kldload.cpp, fuzz_modrun.cpp)
// boot once and keep across inputs, its module directory, and what a load
// and unload must leave as it was there: files, arena use, sysctls, shell
// commands, probes, malloc accounts and the kernel's own malloc blocks.
#pragma once

#include "fuzz.h"

#include "../../sdt/trampoline.h"

#include <fcntl.h>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>

#include "../../kernel/kern_malloc.h"
#include "../../kernel/kern_sysctl.h"
#include "../../kernel/kernel.h"
#include "../../kernel/shell.h"
#include "../../sdt/registry.h"

namespace mk {

// A fresh module directory in memory where there is a tmpfs (rewriting
// each input on a disk file system, its truncation and its blocks freed,
// took half of each input's time), holding libcounter.ko from the build
// the driver belongs to (MK_FUZZ_LIBCOUNTER), so dependencies resolve.
inline std::string fuzz_module_dir(const char *tag) {
  std::string tmpl = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  tmpl += std::string("/mk-fuzz-") + tag + "-XXXXXX";
  if (!mkdtemp(tmpl.data()))
    std::abort();
  if (const char *lib = std::getenv("MK_FUZZ_LIBCOUNTER")) {
    std::ifstream in(lib, std::ios::binary);
    std::ofstream(tmpl + "/libcounter.ko", std::ios::binary) << in.rdbuf();
  }
  return tmpl;
}

// The console is stdout: the kernel's chatter goes to /dev/null (unless
// MK_FUZZ_VERBOSE is set), libFuzzer's and the sanitizers' to stderr.
inline void fuzz_console_to_null() {
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0 && !std::getenv("MK_FUZZ_VERBOSE"))
    dup2(null, 1);
}

// A kernel of 1 CPU thread on module directory `dir` that loads but
// never calls module code (a mutated module's code is arbitrary machine
// code) and leaves faults to the sanitizers.
inline std::unique_ptr<Kernel> fuzz_loader_kernel(const std::string &dir) {
  Options o;
  o.cpus = 1;
  o.quiet = true;
  o.arena_mib = 64;
  o.module_path = {dir};
  o.run_module_code = false;
  o.catch_faults = false;
  auto k = std::make_unique<Kernel>(o);
  if (!k->boot())
    std::abort();
  // Probe stubs come from a 64 KiB chunk of the arena that, once there,
  // stays: make it now, so that after each input the arena is exactly as
  // before (a stub not returned would show as a new chunk).
  const u8 ret[5] = {0xc3, 0x90, 0x90, 0x90, 0x90};
  auto stub = k->probes().trampolines().make_stub(ret);
  if (!stub)
    std::abort();
  k->probes().trampolines().release_stub(*stub);
  return k;
}

inline void fuzz_remove_module_dir(const std::string &dir) {
  for (const char *f : {"/fuzz.ko", "/libcounter.ko", "/stderr"})
    unlink((dir + f).c_str());
  rmdir(dir.c_str());
}

struct KernelState {
  size_t files, sysctls, commands, probes, accounts;
  u64 arena;
  long long kernel_blocks;

  static KernelState of(Kernel &k) {
    return KernelState{k.linker().files().size(),  k.sysctl().list("").size(),
                       k.shell().list().size(),    k.probes().live_probes(),
                       k.malloc_accounts().all().size(), k.arena().used(),
                       (long long)k.kernel_mstats()->inuse};
  }
  // A failed FUZZ_CHECK unless `after` is this.
  void check_same(const KernelState &after) const {
    FUZZ_CHECK(after.files == files, "%zu files, were %zu", after.files, files);
    FUZZ_CHECK(after.arena == arena, "%llu bytes of arena in use, were %llu",
               (unsigned long long)after.arena, (unsigned long long)arena);
    FUZZ_CHECK(after.sysctls == sysctls, "%zu sysctls, were %zu",
               after.sysctls, sysctls);
    FUZZ_CHECK(after.commands == commands, "%zu commands, were %zu",
               after.commands, commands);
    FUZZ_CHECK(after.probes == probes, "%zu probes, were %zu", after.probes,
               probes);
    FUZZ_CHECK(after.accounts == accounts, "%zu malloc accounts, were %zu",
               after.accounts, accounts);
    FUZZ_CHECK(after.kernel_blocks == kernel_blocks,
               "kernel malloc blocks %lld, were %lld", after.kernel_blocks,
               kernel_blocks);
  }
};

// The input written where the loader reads it, then loaded: the file,
// or nullptr after a refusal, which must be one line.
inline LinkerFile *fuzz_load(Kernel &k, const std::string &path,
                             const uint8_t *data, size_t size) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write((const char *)data, (std::streamsize)size);
  }
  auto r = k.linker().load(path);
  if (r)
    return *r;
  const std::string &m = r.error().message;
  FUZZ_CHECK(!m.empty() && m.find('\n') == std::string::npos,
             "error not one line: '%s'", m.c_str());
  return nullptr;
}

// Every file loaded since `before` (the input and the dependencies that
// came with it), newest first, by force (a Linux module with an init and
// no exit function refuses a plain unload).
inline void fuzz_unload_since(Kernel &k, const KernelState &before) {
  while (k.linker().files().size() > before.files) {
    auto r = k.linker().unload(k.linker().files().back(), nullptr, true);
    FUZZ_CHECK(r, "unload failed: %s", r.error().message.c_str());
  }
}

} // namespace mk
