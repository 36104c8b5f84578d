// Helpers for unit tests that boot a kernel over modules they build.
#pragma once

#include "../../kernel/kernel.h"
#include "elf_builder.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace mkt {

// The cycle count of a long stress case ("long" test suite), by build.
// Under AddressSanitizer a fifth of it: each cycle's cost there is the
// same few TLB-flush and membarrier IPIs, so the cycles find the same
// interleavings per second, and that build's part is the memory each
// cycle frees, not the count.
#ifdef MK_ASAN
constexpr int stress_cycles(int n) { return n / 5; }
#else
constexpr int stress_cycles(int n) { return n; }
#endif

// Address space a process may gain without leaking anything: under
// AddressSanitizer, its quarantine of freed heap blocks (256 MiB by
// default), which are not reused until it is full; none otherwise.
// The mappings its allocator adds as that quarantine fills (its size
// classes' regions grow a mapping at a time; how many depends on which
// blocks are held when, which a loaded machine changes: 10 and 11 more
// than the warm-up left were seen beside make test's other suites).
#ifdef MK_ASAN
constexpr unsigned long long kFreedHeld = 260ull << 20;
constexpr size_t kFreedHeldMappings = 64;
#else
constexpr unsigned long long kFreedHeld = 0;
constexpr size_t kFreedHeldMappings = 0;
#endif

// A stress case's firing thread takes the lowest priority: it soaks up
// every CPU nothing else wants (alone, the case runs as before) and leaves
// them to other work (make test's other suites) that does.
inline void lowest_priority() {
  setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
}

// A module path that disappears with the test.
class ModuleDir {
public:
  ModuleDir() {
    char tmpl[] = "/tmp/mk-unit-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path_ = tmpl;
  }
  ~ModuleDir() {
    for (const auto &f : files_)
      std::remove(f.c_str());
    rmdir(path_.c_str());
  }
  ModuleDir(const ModuleDir &) = delete;
  ModuleDir &operator=(const ModuleDir &) = delete;
  void write(const std::string &name, const ObjBuilder &b) {
    const std::string p = path_ + "/" + name;
    std::vector<u8> bytes = b.build();
    std::ofstream(p, std::ios::binary)
        .write((const char *)bytes.data(), (std::streamsize)bytes.size());
    files_.push_back(p);
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
  std::vector<std::string> files_;
};

// A quiet one-CPU kernel whose module path is `dir`.
inline mk::Options kernel_options(const std::string &dir) {
  mk::Options o;
  o.cpus = 1;
  o.quiet = true;
  o.arena_mib = 64;
  o.module_path = {dir};
  return o;
}

} // namespace mkt
