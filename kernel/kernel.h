// The kernel's context object: every subsystem hangs off one Kernel, so
// that tests can boot two kernels in one process.  The only process-wide
// state is what signal handlers need (sdt/patch.cpp); a thread finds the
// kernel it runs in through a thread-local pointer (curkernel()), set on
// every thread a kernel starts.
#pragma once

#include "../linker/arena.h"
#include "../linker/base.h"
#include "../linker/sync.h"
#include "console.h"
#include "kern_cpu.h"
#include "kern_percpu.h"
#include "kern_linker.h"
#include "kern_malloc.h"
#include "kern_memguard.h"
#include "kern_sysctl.h"
#include "kern_watchdog.h"
#include "shell.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mk {

class ProbeRegistry;

struct Options {
  std::vector<std::string> module_path;
  std::vector<std::string> preload;
  unsigned cpus = 1;
  bool quiet = false;
  u64 arena_mib = 0; // 0: the architecture's default
  bool poison_freed_code = false; // a test option: ModuleArena::set_poison_freed
  std::string self_path; // the kernel executable, for its symbols
  // Load and unload without calling into the module: no constructors,
  // event handlers or destructors run (every other stage does).  For the
  // kldload fuzzer, whose mutated modules' code would be arbitrary
  // machine code: running it tests the module, not the loader.
  bool run_module_code = true;
  // Faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE) panic the kernel with a
  // report (kern_panic.h).  Off under libFuzzer, whose own handlers
  // report a crash with the input that caused it.
  bool catch_faults = true;
  // memguard(9)-style checking of module allocations (kern_memguard.h).
  bool memguard = false;
  // Module signatures (kernel/module_sig.h): with sig_enforce, only modules
  // signed by one of the trusted certificates load.
  bool sig_enforce = false;
  std::vector<std::string> trusted_certs;
  // Linux 6.1's Module.symvers, the CRCs of the Linux API's exports
  // (empty: the installed linux-headers-6.1 package's).
  std::string linux_symvers;
};

class Kernel {
public:
  explicit Kernel(Options o);
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  // Run the SYSINIT steps; false if one failed (it printed why).
  bool boot();
  void shutdown();

  // printf to the console and dmesg; log() to dmesg only.
  void printf(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  void log(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  // An error line for the shell: to stderr and dmesg.
  void error_line(const std::string &line);

  // Run `fn` when the kernel shuts down, before any module is unloaded
  // (hooks run newest first).
  void on_shutdown(std::function<void()> fn) {
    shutdown_hooks_.push_back(std::move(fn));
  }

  // Run `fn` once the CPUs have stopped and every module is gone (hooks
  // run newest first): what outlives modules' code and callouts goes then.
  void on_stopped(std::function<void()> fn) {
    stopped_hooks_.push_back(std::move(fn));
  }

  // Who pays for memory allocated by code at `pc`.
  MallocStats *mstats_for_caller(u64 pc);

  const Options &opts() const { return opts_; }
  Console &console() { return console_; }
  Sysctl &sysctl() { return sysctl_; }
  MallocAccounts &malloc_accounts() { return mallocs_; }
  MallocStats *kernel_mstats() const { return kernel_mstats_; }
  // Null unless --memguard.
  MemGuard *memguard() const { return memguard_.get(); }
  ModuleArena &arena() { return *arena_; }
  bool has_arena() const { return arena_ != nullptr; }
  Cpus &cpus() { return cpus_; }
  Watchdog &watchdog() { return watchdog_; }
  KThreads &kthreads() { return kthreads_; }
  PerCpu &percpu() { return percpu_; }
  KernelLinker &linker() { return linker_; }
  ProbeRegistry &probes() { return *probes_; }
  bool has_probes() const { return probes_ != nullptr; }
  Shell &shell() { return shell_; }
  u64 boot_ns() const { return boot_ns_; }

  // Boot steps (kernel.cpp) set these up.
  void set_arena(std::unique_ptr<ModuleArena> a) { arena_ = std::move(a); }
  void set_probes(std::unique_ptr<ProbeRegistry> p);

private:
  const Options opts_;
  Console console_;
  Sysctl sysctl_;
  MallocAccounts mallocs_;
  MallocStats *kernel_mstats_ = nullptr;
  std::unique_ptr<ModuleArena> arena_;
  std::unique_ptr<MemGuard> memguard_;
  PerCpu percpu_; // outlives every thread that entered an area
  Watchdog watchdog_{*this}; // outlives the CPUs, which it watches
  Cpus cpus_{*this};
  KThreads kthreads_;
  KernelLinker linker_{*this};
  std::unique_ptr<ProbeRegistry> probes_;
  Shell shell_{*this};
  u64 boot_ns_ = 0;
  std::vector<std::function<void()>> shutdown_hooks_;
  std::vector<std::function<void()>> stopped_hooks_;
  bool shut_down_ = false;
};

// The kernel the calling thread belongs to (null on a thread no kernel
// started).
Kernel *curkernel();
void set_curkernel(Kernel *k);
int current_cpu();
void set_current_cpu(int cpu);
u64 now_ns();
// Sleep the whole `ms`, whatever signals interrupt it (the watchdog's and
// profile's sampling signals).
void sleep_ms(u64 ms);

} // namespace mk
