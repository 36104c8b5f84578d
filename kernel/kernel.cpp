// Kernel start-up and shutdown: the context object, the SYSINIT walk, and
// the early init steps (console, malloc accounting, module arena, CPUs).
#include "kernel.h"

#include "export.h"
#include "kern_panic.h"
#include "sysinit.h"

#include "../sdt/fbt.h"
#include "../sdt/profile.h"
#include "../sdt/registry.h"
#include "../sdt/sdt.h"

#include <sys/sdt.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <unistd.h>

extern "C" char __executable_start[];
extern "C" char _end[];
SET_DECLARE(sysctl_set, struct sysctl_oid);

// The kernel's own provider; its probes are defined next to their sites.
SDT_PROVIDER_DEFINE(kernel);

namespace mk {

namespace {
thread_local Kernel *t_kernel = nullptr;
thread_local int t_cpu = 0;
} // namespace

// Probe handlers call these on every firing: no entry sites.
MK_NOTRACE Kernel *curkernel() { return t_kernel; }
void set_curkernel(Kernel *k) { t_kernel = k; }
MK_NOTRACE int current_cpu() { return t_cpu; }
void set_current_cpu(int cpu) { t_cpu = cpu; }

MK_NOTRACE u64 now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

void sleep_ms(u64 ms) {
  timespec ts{(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

Kernel::Kernel(Options o) : opts_(std::move(o)) {
  // The constructing thread is the shell's: it runs in this kernel.
  set_curkernel(this);
  if (opts_.catch_faults) {
    panic_init(*this);
    panic_thread_init("shell");
  }
  boot_ns_ = now_ns();
  kernel_mstats_ = mallocs_.add("kernel");
  if (opts_.memguard)
    memguard_ = std::make_unique<MemGuard>([this](u64 pc) {
      return probes_ ? probes_->code().symbolize(pc)
                     : strf("0x%llx", (unsigned long long)pc);
    });
}

Kernel::~Kernel() {
  shutdown();
  panic_forget(*this);
  if (t_kernel == this)
    t_kernel = nullptr;
}

void Kernel::set_probes(std::unique_ptr<ProbeRegistry> p) {
  probes_ = std::move(p);
}

void Kernel::printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  console_.write(vstrf(fmt, ap));
  va_end(ap);
}

void Kernel::log(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  console_.write(vstrf(fmt, ap), false);
  va_end(ap);
}

void Kernel::error_line(const std::string &line) {
  console_.write(line + "\n", false);
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", line.c_str());
}

MallocStats *Kernel::mstats_for_caller(u64 pc) {
  if (arena_ && arena_->contains(pc))
    if (LinkerFile *f = linker_.file_at(pc))
      return f->mstats;
  return kernel_mstats_;
}

bool Kernel::boot() {
  ProbeRegistry::start_rcu_thread();
  // Walk the SYSINIT set in (subsystem, order) order.
  std::vector<const sysinit *> steps;
  const sysinit *const *p;
  SET_FOREACH(p, sysinit_set) steps.push_back(*p);
  std::stable_sort(steps.begin(), steps.end(),
                   [](const sysinit *a, const sysinit *b) {
                     return a->si_subsystem != b->si_subsystem
                                ? a->si_subsystem < b->si_subsystem
                                : a->si_order < b->si_order;
                   });
  for (const sysinit *s : steps) {
    log("sysinit: %s\n", s->si_name);
    if (!s->si_func(*this))
      return false;
  }
  return true;
}

void Kernel::shutdown() {
  if (shut_down_)
    return;
  shut_down_ = true;
  for (auto it = shutdown_hooks_.rbegin(); it != shutdown_hooks_.rend(); ++it)
    (*it)();
  shutdown_hooks_.clear();
  watchdog_.stop();
  linker_.unload_all();
  cpus_.stop();
  kthreads_.join_all();
  for (auto it = stopped_hooks_.rbegin(); it != stopped_hooks_.rend(); ++it)
    (*it)();
  stopped_hooks_.clear();
}

// ---- early SYSINIT steps ---------------------------------------------------

namespace {

#if defined(__x86_64__)
constexpr const char *kArch = "x86_64";
// 512 MiB: half the space below 2 GiB, so it fits beside a heap placed
// anywhere there.  Below 2 GiB so -fno-pic modules' R_X86_64_32/32S fields hold addresses,
// and so within rel32 reach of the kernel's text at 4 MiB.
constexpr u64 kArenaLimit = 2ull << 30;
constexpr u64 kArenaDefaultMiB = 512;
#else
constexpr const char *kArch = "i386";
constexpr u64 kArenaLimit = 0; // a 32-bit address space is all in reach
constexpr u64 kArenaDefaultMiB = 256;
#endif

bool init_console(Kernel &k) {
  k.log("minikern %s (%s): kernel at %p-%p\n", MINIKERN_VERSION, kArch,
        (void *)__executable_start, (void *)_end);
  return true;
}
SYSINIT(console, SI_SUB_CONSOLE, 0, init_console);

bool init_arena(Kernel &k) {
  u64 mib = k.opts().arena_mib ? k.opts().arena_mib : kArenaDefaultMiB;
  auto a = ModuleArena::reserve(mib << 20, kArenaLimit);
  if (!a) {
    k.error_line("kernel: " + a.error().message);
    return false;
  }
  (*a)->set_poison_freed(k.opts().poison_freed_code);
  k.set_arena(std::move(*a));
  k.log("module arena: %llu MiB at 0x%llx (writable alias at %p)\n",
        (unsigned long long)mib, (unsigned long long)k.arena().base(),
        (void *)k.arena().alias(k.arena().base()));
  return true;
}
SYSINIT(arena, SI_SUB_ARENA, 0, init_arena);

// The probe registry and its providers: before any other thread exists,
// since the patch engine remaps the kernel's own text to give it a
// writable alias.
bool init_probes(Kernel &k) {
  auto reg = std::make_unique<ProbeRegistry>(
      k.arena(), [&k](const std::string &s) { k.console().write(s); });
  std::vector<std::unique_ptr<Provider>> providers;
  providers.push_back(std::make_unique<SdtProvider>());
  providers.push_back(std::make_unique<ProfileProvider>([&k] {
    std::vector<CpuThread> v;
    for (auto [cpu, tid] : k.cpus().threads())
      v.push_back(CpuThread{cpu, tid, CpuThread::Cpu});
    // The shell's commands run as system calls on CPU 0 (curcpu() there).
    if (int tid = k.shell().tid())
      v.push_back(CpuThread{0, tid, CpuThread::Shell});
    return v;
  }));
  providers.push_back(std::make_unique<FbtProvider>());
  auto r = reg->init(std::move(providers));
  if (!r) {
    k.error_line("kernel: " + r.error().message);
    return false;
  }
  k.log("sdt: %zu probes\n", reg->live_probes());
  k.set_probes(std::move(reg));
  return true;
}
SYSINIT(probes, SI_SUB_ARENA, 1, init_probes);

bool init_cpus(Kernel &k) {
  // An area per CPU, then the shell's.
  if (auto r = k.percpu().init(k.opts().cpus + 1); !r) {
    k.error_line("kernel: " + r.error().message);
    return false;
  }
  k.percpu().enter(k.opts().cpus);
  k.cpus().start(k.opts().cpus);
  k.log("%u CPUs started\n", k.opts().cpus);
  return true;
}
SYSINIT(cpus, SI_SUB_CPUS, 0, init_cpus);

bool init_watchdog(Kernel &k) {
  k.watchdog().start();
  Sysctl::Node n;
  n.name = "kern.watchdog_thresh";
  n.kind = CTLTYPE_INT;
  n.flags = CTLFLAG_RW;
  n.descr = "Seconds a CPU thread or the shell may run module code before "
            "a soft lockup is reported (0: off)";
  n.get = [&k] { return std::to_string(k.watchdog().thresh_s.load()); };
  n.set = [&k](const std::string &v) -> Result<void> {
    char *end = nullptr;
    errno = 0;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno || x < 0 || x > 3600)
      return error("'" + v + "' is not a number of seconds in [0, 3600]");
    k.watchdog().thresh_s.store((int)x);
    return {};
  };
  (void)k.sysctl().add(std::move(n));
  Sysctl::Node c;
  c.name = "kern.watchdog_lockups";
  c.kind = CTLTYPE_INT;
  c.descr = "Soft lockups the watchdog reported";
  c.get = [&k] { return std::to_string(k.watchdog().lockups.load()); };
  (void)k.sysctl().add(std::move(c));
  return true;
}
SYSINIT(watchdog, SI_SUB_CPUS, 1, init_watchdog);

bool init_kld(Kernel &k) {
  k.linker().init_kernel_file();
  if (auto r = k.linker().init_signatures(); !r) {
    k.error_line("kernel: " + r.error().message);
    return false;
  }
  return true;
}
SYSINIT(kld, SI_SUB_KLD, 0, init_kld);

bool init_kernel_sysctls(Kernel &k) {
  auto ro = [&](const char *name, int kind, const char *descr,
                std::function<std::string()> get) {
    Sysctl::Node n;
    n.name = name;
    n.kind = kind;
    n.descr = descr;
    n.get = std::move(get);
    (void)k.sysctl().add(std::move(n));
  };
  ro("kern.ostype", CTLTYPE_STRING, "Operating system type",
     [] { return std::string("minikern"); });
  ro("kern.osrelease", CTLTYPE_STRING, "Operating system release",
     [] { return std::string(MINIKERN_VERSION); });
  ro("hw.machine", CTLTYPE_STRING, "Machine class",
     [] { return std::string(kArch); });
  ro("hw.ncpu", CTLTYPE_INT, "Number of CPUs",
     [&k] { return std::to_string(k.cpus().count()); });
  ro("kern.uptime_ms", CTLTYPE_INT, "Milliseconds since boot",
     [&k] { return std::to_string((now_ns() - k.boot_ns()) / 1000000); });
  ro("vm.arena.base", CTLTYPE_STRING, "Module arena base address", [&k] {
    return strf("0x%llx", (unsigned long long)k.arena().base());
  });
  ro("vm.arena.size", CTLTYPE_INT, "Module arena size in bytes",
     [&k] { return std::to_string(k.arena().size()); });
  ro("vm.arena.used", CTLTYPE_INT, "Module arena bytes in use",
     [&k] { return std::to_string(k.arena().used()); });
  ro("vm.percpu.used", CTLTYPE_INT,
     "Bytes of every CPU's per-CPU area that modules hold",
     [&k] { return std::to_string(k.percpu().used()); });
  ro("kern.malloc.inuse", CTLTYPE_INT, "Kernel malloc blocks in use", [&k] {
    i64 n = 0;
    for (auto [m, gone] : k.malloc_accounts().all())
      n += m->inuse;
    return std::to_string(n);
  });
  ro("kern.malloc.memuse", CTLTYPE_INT, "Kernel malloc bytes in use", [&k] {
    i64 n = 0;
    for (auto [m, gone] : k.malloc_accounts().all())
      n += m->memuse;
    return std::to_string(n);
  });
  ro("kern.tainted", CTLTYPE_INT,
     "1 once a module whose signature could not be checked was loaded",
     [&k] { return std::to_string(k.linker().tainted() ? 1 : 0); });
  ro("vm.memguard.enabled", CTLTYPE_INT,
     "Module allocations are guarded (--memguard)",
     [&k] { return std::to_string(k.memguard() ? 1 : 0); });
  ro("vm.memguard.quarantined", CTLTYPE_INT,
     "Freed blocks held inaccessible in quarantine",
     [&k] { return std::to_string(k.memguard() ? k.memguard()->quarantined() : 0); });
  ro("kern.module_sig_enforce", CTLTYPE_INT,
     "Only modules signed by a trusted key load",
     [&k] { return std::to_string(k.opts().sig_enforce ? 1 : 0); });
  ro("kern.module_path", CTLTYPE_STRING, "Module search path", [&k] {
    std::string s;
    for (const auto &d : k.opts().module_path)
      s += (s.empty() ? "" : ";") + d;
    return s;
  });
  // Static nodes the kernel image declares with SYSCTL_INT/SYSCTL_STRING.
  struct sysctl_oid **o;
  SET_FOREACH(o, sysctl_set) {
    auto r = k.sysctl().add_oid(*o, nullptr);
    if (!r) {
      k.error_line("kernel: " + r.error().message);
      return false;
    }
  }
  return true;
}
SYSINIT(sysctl, SI_SUB_SYSCTL, 0, init_kernel_sysctls);

} // namespace
} // namespace mk
