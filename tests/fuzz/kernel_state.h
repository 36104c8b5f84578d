// What a load and unload must leave as it was in a kernel the fuzz targets
// keep across inputs (fuzz_kldload.cpp, fuzz_modrun.cpp): files, arena
// use, sysctls, shell commands, probes, malloc accounts and the kernel's
// own malloc blocks.
#pragma once

#include "fuzz.h"

#include "../../kernel/kern_malloc.h"
#include "../../kernel/kern_sysctl.h"
#include "../../kernel/kernel.h"
#include "../../kernel/shell.h"
#include "../../sdt/registry.h"

namespace mk {

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

} // namespace mk
