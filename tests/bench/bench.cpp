// `make bench`: what one load+unload cycle of a module costs in minikern's
// loader, next to dlopen+dlclose of the same C source built as a shared
// object, both measured in this process in the same run (issue 2,
// "Performance").  It prints medians and percentiles, never asserts a time.
//
// One cycle, each way (the same handlers run in both):
//   minikern  KernelLinker::load(path), then unload(): read and validate,
//             plan, bind, allocate, copy, relocate, protect, register the
//             linker sets, MOD_LOAD; then MOD_QUIESCE, MOD_UNLOAD, free.
//   dlopen    dlopen(path, RTLD_NOW | RTLD_LOCAL); the module's MOD_LOAD
//             handler, found through its set_modmetadata_set section as the
//             kernel finds it; MOD_QUIESCE, MOD_UNLOAD; dlclose.
// stdout goes to /dev/null around every timed loop, for both.  The handlers'
// printf is the kernel's console printf in the .ko and libc's in the .so;
// what the handlers cost is measured on its own and printed under the table.
//
// Samples: every cycle is timed on its own (wall clock).  After a warm-up,
// each side gets about the same wall-clock budget, run in alternating blocks
// (A then B, then B then A, ...) so that drift in clock speed, cache state or
// load from other processes hits both.  CPU time and page faults per cycle
// come from getrusage over the same blocks.
//
// Then, for each distinct .ko, one KernelLinker load and unload after
// another with the thread's CPU time read at the end of each stage the
// loader names (LoadObserver): that table is what to read first when
// minikern is the slower one.
//
// Last, for each --memory LABEL:KO:N, what N cycles of KO leave behind
// (memory_row()); --memory-traced LABEL:KO:N:COMMAND does the same with a
// retained enabling running (`dtrace -q -Z -n PROGRAM &`, PROGRAM from
// --enabling) that takes KO's probes at each load, and COMMAND (a shell
// line that fires them) run between load and unload; then it stops the
// enabling and reads what that gave back.
//
// Last of all, for each --pair LABEL:A:B, A's load+unload against B's,
// both through minikern's loader (a Linux module against a minikern
// module of its size).
//
// Usage: bench [--budget SECONDS] [--stages N] [--memory LABEL:KO:N]...
//              [--memory-traced LABEL:KO:N:COMMAND]... [--enabling PROGRAM]
//              [--pair LABEL:A:B]... [--target LABEL=RATIO]...
//              [--sites LABEL:BASE]... [--loop SIDE N] LABEL:KO:SO ...
//   --loop minikern|dlopen N runs only N cycles of one side per row, with no
//   table, for `valgrind --tool=callgrind` (perf cannot name the kernel's
//   functions: SDT remaps the kernel text onto a memfd at boot).
#include "../../kernel/kernel.h"
#include "../../linker/link.h"
#include "../../sdt/registry.h"

#include <sys/module.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <functional>
#include <gelf.h>
#include <gnu/libc-version.h>
#include <libelf.h>
#include <link.h>
#include <malloc.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <vector>

// The kernel's module_getname, under the name the .so calls: the bench
// executable exports this one symbol (-Wl,--export-dynamic-symbol), so the
// dlopen'ed copy binds it exactly as the .ko binds the kernel export.
extern "C" const char *kern_module_getname(module_t mod);
extern "C" __attribute__((used)) const char *module_getname(module_t mod) {
  return kern_module_getname(mod);
}

namespace {

using Clock = std::chrono::steady_clock;
using mk::u64;

[[noreturn]] void die(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "bench: %s\n", msg.c_str());
  std::exit(1);
}

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

// stdout to /dev/null while alive; both sides print from their handlers.
class QuietStdout {
public:
  QuietStdout() {
    std::fflush(stdout);
    saved_ = dup(1);
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ < 0 || fd < 0)
      die("cannot redirect stdout to /dev/null");
    dup2(fd, 1);
    close(fd);
  }
  ~QuietStdout() {
    std::fflush(stdout);
    dup2(saved_, 1);
    close(saved_);
  }

private:
  int saved_ = -1;
};

struct Stats {
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0;
  size_t n = 0;
};

// Percentiles by linear interpolation between closest ranks.
Stats summarize(std::vector<double> v) {
  Stats s;
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    double pos = p * (double)(v.size() - 1);
    size_t lo = (size_t)pos;
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
  };
  s.n = v.size();
  s.median = q(0.5);
  s.p10 = q(0.1);
  s.p90 = q(0.9);
  s.min = v.front();
  s.max = v.back();
  return s;
}

// What the bench needs to know about a shared object, read once with libelf:
// where its module metadata set is, and how many dynamic relocations the
// dynamic linker processes for it on every dlopen.
struct SoInfo {
  u64 set_addr = 0, set_size = 0; // set_modmetadata_set, link-time address
  size_t dyn_relocs = 0;          // entries of .rela.dyn/.rel.dyn + .rela.plt
  u64 mapped = 0;                 // bytes its PT_LOAD segments span
};

SoInfo inspect_so(const std::string &path) {
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    die(path + ": " + std::strerror(errno));
  Elf *e = elf_begin(fd, ELF_C_READ, nullptr);
  if (!e)
    die(path + ": libelf: " + elf_errmsg(-1));
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(e, &shstrndx) != 0)
    die(path + ": no section name table");
  SoInfo info;
  for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(e, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      continue;
    const char *name = elf_strptr(e, shstrndx, sh.sh_name);
    if (name && std::strcmp(name, "set_modmetadata_set") == 0) {
      info.set_addr = sh.sh_addr;
      info.set_size = sh.sh_size;
    }
    if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
        (sh.sh_flags & SHF_ALLOC) && sh.sh_entsize)
      info.dyn_relocs += sh.sh_size / sh.sh_entsize;
  }
  size_t nph = 0;
  elf_getphdrnum(e, &nph);
  const u64 ps = mk::ModuleArena::page_size();
  u64 lo = ~0ull, hi = 0;
  for (size_t i = 0; i < nph; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
      lo = std::min<u64>(lo, ph.p_vaddr / ps * ps);
      hi = std::max<u64>(hi, mk::align_up(ph.p_vaddr + ph.p_memsz, ps));
    }
  }
  info.mapped = hi > lo ? hi - lo : 0;
  elf_end(e);
  close(fd);
  if (!info.set_size)
    die(path + ": no set_modmetadata_set section (not a module?)");
  return info;
}

// The module's event handlers in a dlopen'ed image, called as the kernel
// calls them, with a module record of the kernel's own type so that
// module_getname() works unchanged.
class SoModule {
public:
  SoModule(const std::string &path, const std::string &modname)
      : path_(path), info_(inspect_so(path)) {
    rec_.name = modname;
    rec_.version = 1;
  }
  const SoInfo &info() const { return info_; }
  const std::string &path() const { return path_; }

  void *open() {
    void *h = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
      die(std::string("dlopen: ") + dlerror());
    return h;
  }
  void close(void *h) {
    if (dlclose(h) != 0)
      die(std::string("dlclose: ") + dlerror());
  }
  // Run `what` on every module of the image; a failure is fatal.
  void event(void *h, int what) {
    link_map *lm = nullptr;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
      die(std::string("dlinfo: ") + dlerror());
    auto **set = (mod_metadata **)(uintptr_t)(lm->l_addr + info_.set_addr);
    size_t n = info_.set_size / sizeof(void *);
    for (size_t i = 0; i < n; i++) {
      if (set[i]->md_type != MDT_MODULE)
        continue;
      auto *d = (const moduledata_t *)set[i]->md_data;
      if (d->evhand && d->evhand((module_t)&rec_, what, d->priv) != 0)
        die(path_ + ": event handler failed");
    }
  }
  void cycle() {
    void *h = open();
    event(h, MOD_LOAD);
    event(h, MOD_QUIESCE);
    event(h, MOD_UNLOAD);
    close(h);
  }
  // dlclose really unmapped the image (no NODELETE, no lingering reference).
  bool unloaded() const {
    void *h = dlopen(path_.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (h)
      dlclose(h);
    return h == nullptr;
  }

private:
  std::string path_;
  SoInfo info_;
  mk::ModuleRec rec_;
};

mk::LinkerFile *mk_load(mk::Kernel &k, const std::string &path) {
  auto f = k.linker().load(path);
  if (!f)
    die("minikern: " + f.error().message);
  return *f;
}

void mk_unload(mk::Kernel &k, mk::LinkerFile *f) {
  auto r = k.linker().unload(f);
  if (!r)
    die("minikern: " + r.error().message);
}

struct Row {
  std::string label, ko, so;
  double target = 0; // --target: the ratio this row is to meet (0: none)
};

// CPU time and page faults of this thread over some cycles: unlike wall
// time, CPU time barely moves when other processes compete for the CPUs.
struct Usage {
  double cpu_us = 0;
  long minflt = 0;
  size_t cycles = 0;
  double cpu_per_cycle() const { return cycles ? cpu_us / (double)cycles : 0; }
  double faults_per_cycle() const {
    return cycles ? (double)minflt / (double)cycles : 0;
  }
};

rusage thread_usage() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru;
}

double cpu_us(const rusage &ru) {
  auto us = [](const timeval &t) {
    return (double)t.tv_sec * 1e6 + (double)t.tv_usec;
  };
  return us(ru.ru_utime) + us(ru.ru_stime);
}

struct Result {
  Row row;
  Stats mk, dl;
  size_t ko_relocs = 0, so_relocs = 0;
  u64 ko_image = 0, so_mapped = 0;
  double mk_handlers_us = 0, dl_handlers_us = 0;
  Usage mk_use, dl_use; // over the sampled cycles
};

// Time `fn` once per sample into `out`.
void sample(const std::function<void()> &fn, size_t n, std::vector<double> &out,
            Usage *use = nullptr) {
  rusage before = thread_usage();
  for (size_t i = 0; i < n; i++) {
    auto t0 = Clock::now();
    fn();
    out.push_back(us_between(t0, Clock::now()));
  }
  if (use) {
    rusage after = thread_usage();
    use->cpu_us += cpu_us(after) - cpu_us(before);
    use->minflt += after.ru_minflt - before.ru_minflt;
    use->cycles += n;
  }
}

// Run `fn` for at least `min_runs` and `min_seconds`; the mean per run.
double warm_up(const std::function<void()> &fn, size_t min_runs,
               double min_seconds) {
  auto t0 = Clock::now();
  size_t runs = 0;
  do {
    fn();
    runs++;
  } while (runs < min_runs || us_between(t0, Clock::now()) < min_seconds * 1e6);
  return us_between(t0, Clock::now()) / (double)runs;
}

// The cost of the handlers alone (MOD_LOAD, MOD_QUIESCE, MOD_UNLOAD), on an
// image that stays loaded: what differs between the two sides beyond linking.
double handlers_us(const std::function<void()> &trio) {
  const int n = 200;
  trio(); // first touch
  std::vector<double> v;
  sample(trio, n, v);
  return summarize(v).median;
}

Result run_row(mk::Kernel &k, const Row &row, double budget_s) {
  Result r;
  r.row = row;
  SoModule so(row.so, row.label);
  r.so_relocs = so.info().dyn_relocs;
  r.so_mapped = so.info().mapped;

  QuietStdout quiet;
  // What the .ko brings, from one load (and its handlers' cost on their own).
  {
    mk::LinkerFile *f = mk_load(k, row.ko);
    r.ko_relocs = f->relocs;
    r.ko_image = f->size;
    std::vector<mk::ModuleRec *> mods;
    for (auto &m : f->modules)
      if (m->data && m->data->evhand)
        mods.push_back(m.get());
    r.mk_handlers_us = handlers_us([&] {
      for (int what : {MOD_LOAD, MOD_QUIESCE, MOD_UNLOAD})
        for (mk::ModuleRec *m : mods)
          m->data->evhand((module_t)m, what, m->data->priv);
    });
    mk_unload(k, f);
  }
  {
    void *h = so.open();
    r.dl_handlers_us = handlers_us([&] {
      for (int what : {MOD_LOAD, MOD_QUIESCE, MOD_UNLOAD})
        so.event(h, what);
    });
    so.close(h);
    if (!so.unloaded())
      die(row.so + ": still mapped after dlclose; the dlopen side would "
                   "measure nothing");
  }

  auto mk_cycle = [&] { mk_unload(k, mk_load(k, row.ko)); };
  auto dl_cycle = [&] { so.cycle(); };
  double mk_est = warm_up(mk_cycle, 5, 0.15);
  double dl_est = warm_up(dl_cycle, 5, 0.15);

  auto count_for = [&](double est) {
    size_t n = (size_t)(budget_s * 1e6 / std::max(est, 0.01));
    return std::clamp<size_t>(n, 30, 4000);
  };
  size_t mk_n = count_for(mk_est), dl_n = count_for(dl_est);
  const size_t rounds = 6;
  std::vector<double> mk_v, dl_v;
  for (size_t i = 0; i < rounds; i++) {
    size_t a = mk_n / rounds + (i < mk_n % rounds);
    size_t b = dl_n / rounds + (i < dl_n % rounds);
    if (i % 2 == 0) {
      sample(mk_cycle, a, mk_v, &r.mk_use);
      sample(dl_cycle, b, dl_v, &r.dl_use);
    } else {
      sample(dl_cycle, b, dl_v, &r.dl_use);
      sample(mk_cycle, a, mk_v, &r.mk_use);
    }
  }
  r.mk = summarize(mk_v);
  r.dl = summarize(dl_v);
  return r;
}

// This thread's CPU time, user and system: unlike the wall clock it does not
// count the time other processes held the CPU, which on a busy machine
// swamps a multi-millisecond stage.  One reading costs a system call.
double thread_cpu_us() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

// Where minikern's cycle goes: one KernelLinker load and unload of the
// real kernel, with the thread's CPU time read at the end of each stage the
// loader names (its LoadObserver): read and check, the link pipeline's
// stages, protect, register sets, record probes, init; unload handlers,
// teardown, free.
struct StageProfile {
  std::vector<std::string> names;      // in order
  std::vector<std::vector<double>> v;  // per stage: samples
  std::vector<double> whole;           // the cycle, same samples
};

StageProfile stage_profile(mk::Kernel &k, const std::string &ko, size_t min_n) {
  StageProfile prof;
  struct Marks : mk::LoadObserver {
    std::vector<std::pair<const char *, double>> at;
    void stage_done(const char *stage) override {
      at.emplace_back(stage, thread_cpu_us());
    }
  } marks;
  // What one reading of the clock adds to a difference of two readings.
  std::vector<double> empty;
  for (int i = 0; i < 200; i++) {
    double a = thread_cpu_us();
    empty.push_back(thread_cpu_us() - a);
  }
  const double clock_cost = summarize(empty).median;
  auto span = [&](double a, double b) {
    return std::max(0.0, b - a - clock_cost);
  };
  auto start = Clock::now();
  for (size_t i = 0; i < min_n + 2 || us_between(start, Clock::now()) < 2.5e5;
       i++) {
    if (i >= 3000)
      break;
    marks.at.clear();
    marks.at.reserve(32);
    const double t0 = thread_cpu_us();
    auto f = k.linker().load(ko, &marks);
    if (!f)
      die("minikern: " + f.error().message);
    auto r = k.linker().unload(*f, &marks);
    if (!r)
      die("minikern: " + r.error().message);
    const double t1 = thread_cpu_us();
    if (i < 2) // warm-up
      continue;
    if (prof.names.empty())
      for (auto &[name, t] : marks.at)
        prof.names.push_back(name);
    if (marks.at.size() != prof.names.size())
      die("bench: the loader named different stages from one cycle to the "
          "next");
    prof.v.resize(prof.names.size());
    double prev = t0;
    for (size_t st = 0; st < marks.at.size(); st++) {
      prof.v[st].push_back(span(prev, marks.at[st].second));
      prev = marks.at[st].second;
    }
    prof.whole.push_back(span(t0, t1));
  }
  return prof;
}

std::string host_line() {
  std::string cpu = "unknown CPU";
  if (FILE *f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "model name", 10) == 0) {
        const char *c = std::strchr(line, ':');
        cpu = c ? c + 2 : line;
        cpu.erase(cpu.find_last_not_of(" \n") + 1);
        break;
      }
    std::fclose(f);
  }
  utsname u{};
  uname(&u);
  double load[1] = {0};
  getloadavg(load, 1);
  return mk::strf("%s, %ld CPUs, Linux %s, glibc %s; load average %.2f%s",
                  cpu.c_str(), sysconf(_SC_NPROCESSORS_ONLN), u.release,
                  gnu_get_libc_version(), load[0],
                  load[0] > 0.5 * (double)sysconf(_SC_NPROCESSORS_ONLN)
                      ? " (a busy machine: trust p10 and CPU µs more than "
                        "the median)"
                      : "");
}

std::string rate(double relocs, double us) {
  if (us <= 0)
    return "-";
  double per_s = relocs / (us * 1e-6);
  if (per_s >= 1e6)
    return mk::strf("%.1f M/s", per_s / 1e6);
  return mk::strf("%.0f k/s", per_s / 1e3);
}

void print_results(const std::vector<Result> &rs) {
  std::printf("\n%-18s | %-15s | %-27s | %-27s | %-5s | %-20s\n", "benchmark",
              "relocations", "minikern µs/cycle", "dlopen µs/cycle", "ratio",
              "relocations/s");
  std::printf("%-18s | %-15s | %-27s | %-27s | %-5s | %-20s\n", "", ".ko / .so",
              "median  (p10 .. p90)", "median  (p10 .. p90)", "mk/dl",
              "minikern / dlopen");
  std::printf("%s\n",
              std::string(18 + 15 + 27 + 27 + 5 + 20 + 15, '-').c_str());
  for (const Result &r : rs) {
    std::string relocs = mk::strf("%zu / %zu", r.ko_relocs, r.so_relocs);
    std::string mk_s =
        mk::strf("%8.1f (%.1f .. %.1f)", r.mk.median, r.mk.p10, r.mk.p90);
    std::string dl_s =
        mk::strf("%8.1f (%.1f .. %.1f)", r.dl.median, r.dl.p10, r.dl.p90);
    std::string rates = rate((double)r.ko_relocs, r.mk.median) + " / " +
                        rate((double)r.so_relocs, r.dl.median);
    std::printf("%-18s | %15s | %-27s | %-27s | %5.2f | %s\n",
                r.row.label.c_str(), relocs.c_str(), mk_s.c_str(), dl_s.c_str(),
                r.mk.median / r.dl.median, rates.c_str());
  }
  std::printf("\nratio = minikern median / dlopen median: below 1.00 means "
              "minikern is faster.\n");
  for (const Result &r : rs)
    if (r.row.target > 0) {
      const double ratio = r.mk.median / r.dl.median;
      std::printf("%s: ratio %.2fx (target %.1fx: %s)\n", r.row.label.c_str(),
                  ratio, r.row.target, ratio <= r.row.target ? "met" : "MISSED");
    }
  std::printf("\n%-18s | %-23s | %-23s | %-19s | %s\n", "per cycle",
              "CPU µs (user+sys)", "minor page faults", "handlers alone µs",
              "image KiB");
  std::printf("%-18s | %-23s | %-23s | %-19s | %s\n", "", "minikern / dlopen",
              "minikern / dlopen", "minikern / dlopen", "arena / mapped");
  std::printf("%s\n", std::string(18 + 23 + 23 + 19 + 16 + 12, '-').c_str());
  for (const Result &r : rs)
    std::printf(
        "%-18s | %10.1f / %-10.1f | %10.1f / %-10.1f | %8.2f / %-8.2f | "
        "%llu / %llu\n",
        r.row.label.c_str(), r.mk_use.cpu_per_cycle(), r.dl_use.cpu_per_cycle(),
        r.mk_use.faults_per_cycle(), r.dl_use.faults_per_cycle(),
        r.mk_handlers_us, r.dl_handlers_us,
        (unsigned long long)(r.ko_image >> 10),
        (unsigned long long)(r.so_mapped >> 10));
  for (const Result &r : rs)
    std::printf("%s: %zu + %zu cycles timed; min %.1f / %.1f µs, max %.1f / "
                "%.1f µs\n",
                r.row.label.c_str(), r.mk.n, r.dl.n, r.mk.min, r.dl.min,
                r.mk.max, r.dl.max);
}

// One column per distinct .ko: its stage medians.
void print_stages(const std::vector<const Result *> &cols,
                  const std::vector<StageProfile> &profs) {
  std::printf("\nwhere a minikern cycle goes: KernelLinker::load + unload, "
              "each stage as the loader names it;\nthread CPU time "
              "(user+sys, page faults included, time preempted excluded), "
              "medians in µs\nand share of the whole cycle's median\n");
  const int w = 30;
  std::printf("%-*s", w, "stage");
  for (const Result *r : cols)
    std::printf(" | %18s", r->row.label.c_str());
  std::printf("\n%s\n", std::string(w + 21 * cols.size(), '-').c_str());
  // Every stage any column has, in the order the loader names them (a
  // Linux module has a stage of its own); a column without it shows "-".
  std::vector<std::string> names;
  for (const StageProfile &p : profs)
    for (size_t st = 0; st < p.names.size(); st++)
      if (std::find(names.begin(), names.end(), p.names[st]) == names.end()) {
        auto at = names.end();
        if (st > 0)
          at = std::find(names.begin(), names.end(), p.names[st - 1]) + 1;
        else
          at = names.begin();
        names.insert(at, p.names[st]);
      }
  std::vector<double> whole(cols.size(), 0);
  for (size_t i = 0; i < cols.size(); i++)
    whole[i] = summarize(profs[i].whole).median;
  for (const std::string &name : names) {
    std::printf("%-*s", w, name.c_str());
    for (size_t i = 0; i < cols.size(); i++) {
      auto it = std::find(profs[i].names.begin(), profs[i].names.end(), name);
      if (it == profs[i].names.end()) {
        std::printf(" | %18s", "-");
        continue;
      }
      double m = summarize(profs[i].v[it - profs[i].names.begin()]).median;
      std::printf(" | %9.1f  (%4.1f%%)", m, 100.0 * m / whole[i]);
    }
    std::printf("\n");
  }
  std::printf("%-*s", w, "whole load + unload");
  for (size_t i = 0; i < cols.size(); i++)
    std::printf(" | %9.1f  (100%%) ", whole[i]);
  std::printf("\n");
}

// --sites LABEL:BASE: what LABEL's function-entry sites cost a cycle: its
// "record probes" and "teardown" stages over those of BASE, the same module
// built without entry sites, per site (target: 30 ns, Linux's cost class of
// one record per __fentry__ site and nothing else until ftrace is used).
void print_site_cost(mk::Kernel &k, const std::vector<const Result *> &cols,
                     const std::vector<StageProfile> &profs,
                     const std::string &label, const std::string &base) {
  auto col = [&](const std::string &l) -> int {
    for (size_t i = 0; i < cols.size(); i++)
      if (cols[i]->row.label == l)
        return (int)i;
    die("bench: --sites names no row " + l);
  };
  const int a = col(label), b = col(base);
  auto cost = [&](int i) {
    double sum = 0;
    for (const char *name : {"record probes", "teardown"}) {
      const StageProfile &p = profs[(size_t)i];
      auto it = std::find(p.names.begin(), p.names.end(), name);
      if (it == p.names.end())
        die(std::string("bench: the loader names no stage ") + name);
      sum += summarize(p.v[(size_t)(it - p.names.begin())]).median;
    }
    return sum;
  };
  size_t sites = 0;
  {
    QuietStdout quiet;
    mk::LinkerFile *f = mk_load(k, cols[(size_t)a]->row.ko);
    sites = k.probes().match({"fbt", f->module_name(), "", "entry"}).size();
    mk_unload(k, f);
  }
  if (sites == 0)
    die("bench: " + label + " has no function-entry sites");
  const double ns = (cost(a) - cost(b)) * 1e3 / (double)sites;
  std::printf("entry sites of %s: record probes + teardown %.1f µs, %.1f over "
              "%s's: %.1f ns per site over %zu sites (target 30 ns: %s)\n",
              label.c_str(), cost(a), cost(a) - cost(b), base.c_str(), ns,
              sites, ns <= 30 ? "met" : "MISSED");
}

// Memory one load+unload cycle leaves behind: the C heap in use (malloc's
// own count, every allocation of the process), the module arena in use,
// the probe registry's ids, the resident set, the address space and the
// number of mappings (an i386 process has 3 GiB of address space: a
// mapping left per cycle, such as a module file's, ends the process long
// before its pages count), read after a warm-up and again after `n` more
// cycles of the same module.  Each reading follows the frees the kernel
// defers past a grace period (call_rcu): what is left then stays.
struct MemSnap {
  double heap = 0, rss = 0, vm = 0;
  u64 arena = 0, ids = 0, probes = 0, mappings = 0;
  u64 jit = 0; // anonymous executable mappings: the BPF JIT's code
};

MemSnap mem_snap(mk::Kernel &k) {
  k.probes().drain_deferred_frees();
  MemSnap m;
  struct mallinfo2 mi = mallinfo2();
  m.heap = (double)mi.uordblks + (double)mi.hblkhd;
  long pages = 0, resident = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
      pages = resident = 0;
    std::fclose(f);
  }
  m.rss = (double)resident * (double)sysconf(_SC_PAGESIZE);
  m.vm = (double)pages * (double)sysconf(_SC_PAGESIZE);
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
  m.arena = k.arena().used();
  m.ids = k.probes().highest_id();
  m.probes = k.probes().live_probes();
  return m;
}

// `enabling`: a D program to keep running (retained) through the cycles,
// `command` a shell line run between each load and its unload ("": none).
void memory_row(mk::Kernel &k, const std::string &label, const std::string &ko,
                size_t n, const std::string &enabling = "",
                const std::string &command = "") {
  MemSnap a, b, stopped;
  int enabling_id = 0;
  auto cycle = [&] {
    mk::LinkerFile *f = mk_load(k, ko);
    if (!command.empty() && !k.shell().run_line(command))
      die("bench: " + command + ": failed");
    mk_unload(k, f);
  };
  {
    QuietStdout quiet;
    if (!enabling.empty()) {
      if (!k.shell().run_line("dtrace -q -Z -n '" + enabling + "' &"))
        die("bench: dtrace -n '" + enabling + "': failed");
      // Its id, from the probes it took at a load.
      mk::LinkerFile *f = mk_load(k, ko);
      for (const mk::ProbeInfo &p : k.probes().match(mk::ProbeDesc::parse(
               enabling.substr(0, enabling.find_first_of(" /{")))))
        for (const mk::HandlerInfo &h : k.probes().handlers(p.id))
          if (h.dtrace)
            enabling_id = h.enabling;
      mk_unload(k, f);
      if (!enabling_id)
        die("bench: the enabling '" + enabling + "' took no probe of " + ko);
    }
    for (int i = 0; i < 200; i++) // warm-up: caches, pools, first-use tables
      cycle();
    a = mem_snap(k);
    for (size_t i = 0; i < n; i++)
      cycle();
    b = mem_snap(k);
    if (enabling_id) {
      k.shell().run_line(mk::strf("dtrace -k %d", enabling_id));
      stopped = mem_snap(k);
    }
  }
  if (enabling.empty())
    std::printf("\nmemory left by load + unload of %s: %zu cycles after 200 "
                "of warm-up\n\n",
                label.c_str(), n);
  else
    std::printf("\nmemory left by load + %s + unload of %s under the "
                "retained enabling '%s': %zu cycles after 200 of warm-up; "
                "then the enabling stopped\n\n",
                command.c_str(), label.c_str(), enabling.c_str(), n);
  std::printf("%-26s %14s %14s %16s%s\n", "", "before", "after", "per cycle",
              enabling_id ? "   enabling stopped" : "");
  auto row = [&](const char *what, double x, double y, double z,
                 const char *unit) {
    std::printf("%-26s %14.0f %14.0f %13.2f %s", what, x, y,
                (y - x) / (double)n, unit);
    if (enabling_id)
      std::printf(" %18.0f", z);
    std::printf("\n");
  };
  row("C heap in use (bytes)", a.heap, b.heap, stopped.heap, "B");
  row("module arena in use", (double)a.arena, (double)b.arena,
      (double)stopped.arena, "B");
  row("resident set (bytes)", a.rss, b.rss, stopped.rss, "B");
  row("address space (bytes)", a.vm, b.vm, stopped.vm, "B");
  row("JIT code (bytes)", (double)a.jit, (double)b.jit, (double)stopped.jit,
      "B");
  row("mappings", (double)a.mappings, (double)b.mappings,
      (double)stopped.mappings, "");
  row("probes", (double)a.probes, (double)b.probes, (double)stopped.probes, "");
  row("highest probe id", (double)a.ids, (double)b.ids, (double)stopped.ids,
      "");
}

void usage() {
  std::fprintf(stderr,
               "usage: bench [--budget SECONDS] [--stages N] [--memory "
               "LABEL:KO:N]... [--loop SIDE N] LABEL:KO:SO ...\n"
               "  --budget  wall-clock seconds per side per row (default 2)\n"
               "  --stages  samples of the per-stage profile (default 30)\n"
               "  --memory  LABEL:KO:N: memory left by N cycles of KO (may be "
               "repeated)\n"
               "  --memory-traced LABEL:KO:N:COMMAND: the same under the "
               "retained enabling of --enabling, COMMAND run in each cycle\n"
               "  --enabling PROGRAM: D for --memory-traced (default: "
               "memdev:::write-done { @w = count(); })\n"
               "  --pair    LABEL:A:B: load+unload of A against B, both "
               "minikern's (at most 1.1x)\n"
               "  --target  LABEL=RATIO: the ratio row LABEL is to meet\n"
               "  --sites   LABEL:BASE: LABEL's entry-site cost per site, over "
               "BASE (the same module without them)\n"
               "  --loop    only run N cycles of SIDE (minikern or dlopen) per "
               "row,\n"
               "            no table: for valgrind --tool=callgrind\n");
  std::exit(2);
}

// --pair LABEL:A:B: two .ko files through minikern's loader, cycles
// interleaved as in a row: a Linux module (Debian's) against a minikern
// module of its size (functions, relocations).
void pair_row(mk::Kernel &k, const std::string &label, const std::string &a,
              const std::string &b, double budget_s, double target) {
  std::vector<double> va, vb;
  u64 size_a = 0, size_b = 0;
  size_t rel_a = 0, rel_b = 0;
  {
    QuietStdout quiet;
    mk::LinkerFile *f = mk_load(k, a);
    size_a = f->size, rel_a = f->relocs;
    mk_unload(k, f);
    f = mk_load(k, b);
    size_b = f->size, rel_b = f->relocs;
    mk_unload(k, f);
    auto ca = [&] { mk_unload(k, mk_load(k, a)); };
    auto cb = [&] { mk_unload(k, mk_load(k, b)); };
    const double ea = warm_up(ca, 5, 0.15), eb = warm_up(cb, 5, 0.15);
    auto n_for = [&](double est) {
      return std::clamp<size_t>((size_t)(budget_s * 1e6 / std::max(est, 0.01)),
                                30, 4000);
    };
    const size_t na = n_for(ea), nb = n_for(eb), rounds = 6;
    for (size_t i = 0; i < rounds; i++) {
      if (i % 2 == 0) {
        sample(ca, na / rounds, va);
        sample(cb, nb / rounds, vb);
      } else {
        sample(cb, nb / rounds, vb);
        sample(ca, na / rounds, va);
      }
    }
  }
  const Stats sa = summarize(va), sb = summarize(vb);
  const double ratio = sa.median / sb.median;
  std::printf("\n%s: load+unload, minikern's loader both\n", label.c_str());
  std::printf("  %-28s %9s %9s %8s\n", "module", "median", "image",
              "relocs");
  std::printf("  %-28s %7.1f µs %7llu K %8zu\n",
              a.substr(a.find_last_of('/') + 1).c_str(), sa.median,
              (unsigned long long)(size_a >> 10), rel_a);
  std::printf("  %-28s %7.1f µs %7llu K %8zu\n",
              b.substr(b.find_last_of('/') + 1).c_str(), sb.median,
              (unsigned long long)(size_b >> 10), rel_b);
  std::printf("  ratio %.2fx (target %.1fx: %s)\n", ratio, target,
              ratio <= target ? "met" : "MISSED");
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  double budget = 2.0;
  size_t stage_n = 30;
  std::string loop_side; // --loop: cycles of one side only, for a profiler
  size_t loop_n = 0;
  std::vector<Row> rows;
  struct MemRow {
    std::string label, ko;
    size_t n;
    bool traced = false;
    std::string command;
  };
  std::vector<MemRow> mem_rows; // --memory LABEL:KO:N, --memory-traced
  std::string enabling = "memdev:::write-done { @w = count(); }";
  std::vector<std::array<std::string, 3>> pairs; // --pair LABEL:A:B
  std::vector<std::pair<std::string, double>> targets; // --target LABEL=RATIO
  std::vector<std::pair<std::string, std::string>> site_rows; // --sites A:B
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--pair" && i + 1 < argc) {
      std::string v = argv[++i];
      size_t c1 = v.find(':'), c2 = v.find(':', c1 + 1);
      if (c1 == std::string::npos || c2 == std::string::npos)
        usage();
      pairs.push_back({v.substr(0, c1), v.substr(c1 + 1, c2 - c1 - 1),
                       v.substr(c2 + 1)});
    } else if (a == "--memory" && i + 1 < argc) {
      std::string v = argv[++i];
      size_t c1 = v.find(':'), c2 = v.rfind(':');
      if (c1 == std::string::npos || c2 == c1)
        usage();
      mem_rows.push_back({v.substr(0, c1), v.substr(c1 + 1, c2 - c1 - 1),
                          (size_t)std::atol(v.c_str() + c2 + 1)});
    } else if (a == "--memory-traced" && i + 1 < argc) {
      std::string v = argv[++i];
      size_t c1 = v.find(':'), c2 = v.find(':', c1 + 1),
             c3 = v.find(':', c2 + 1);
      if (c1 == std::string::npos || c2 == std::string::npos ||
          c3 == std::string::npos)
        usage();
      MemRow m{v.substr(0, c1), v.substr(c1 + 1, c2 - c1 - 1),
               (size_t)std::atol(v.substr(c2 + 1, c3 - c2 - 1).c_str())};
      m.traced = true;
      m.command = v.substr(c3 + 1);
      mem_rows.push_back(m);
    } else if (a == "--target" && i + 1 < argc) {
      std::string v = argv[++i];
      size_t eq = v.find('=');
      if (eq == std::string::npos || std::atof(v.c_str() + eq + 1) <= 0)
        usage();
      targets.emplace_back(v.substr(0, eq), std::atof(v.c_str() + eq + 1));
    } else if (a == "--sites" && i + 1 < argc) {
      std::string v = argv[++i];
      size_t c = v.find(':');
      if (c == std::string::npos)
        usage();
      site_rows.emplace_back(v.substr(0, c), v.substr(c + 1));
    } else if (a == "--enabling" && i + 1 < argc) {
      enabling = argv[++i];
    } else if (a == "--budget" && i + 1 < argc) {
      budget = std::atof(argv[++i]);
    } else if (a == "--stages" && i + 1 < argc) {
      stage_n = (size_t)std::atol(argv[++i]);
    } else if (a == "--loop" && i + 2 < argc) {
      loop_side = argv[++i];
      loop_n = (size_t)std::atol(argv[++i]);
    } else if (a.rfind("--", 0) == 0) {
      usage();
    } else {
      size_t c1 = a.find(':'), c2 = a.find(':', c1 + 1);
      if (c1 == std::string::npos || c2 == std::string::npos)
        usage();
      rows.push_back(
          {a.substr(0, c1), a.substr(c1 + 1, c2 - c1 - 1), a.substr(c2 + 1)});
    }
  }
  if (rows.empty())
    usage();
  for (const auto &[label, ratio] : targets) {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [&](const Row &r) { return r.label == label; });
    if (it == rows.end())
      die("bench: --target names no row " + label);
    it->target = ratio;
  }
  if (!loop_side.empty() && loop_side != "minikern" && loop_side != "dlopen")
    usage();

  mk::Options o;
  o.cpus = 1;
  o.quiet = true;
  for (const Row &r : rows)
    o.module_path.push_back(r.ko.substr(0, r.ko.find_last_of('/')));
  for (const MemRow &m : mem_rows)
    o.module_path.push_back(m.ko.substr(0, m.ko.find_last_of('/')));
  for (const auto &p : pairs)
    for (const std::string *ko : {&p[1], &p[2]})
      o.module_path.push_back(ko->substr(0, ko->find_last_of('/')));
  mk::Kernel k(o);
  {
    QuietStdout quiet;
    if (!k.boot())
      die("the kernel did not boot");
  }

  if (!loop_side.empty()) {
    QuietStdout quiet;
    for (const Row &row : rows) {
      SoModule so(row.so, row.label);
      auto t0 = Clock::now();
      for (size_t i = 0; i < loop_n; i++)
        if (loop_side == "minikern")
          mk_unload(k, mk_load(k, row.ko));
        else
          so.cycle();
      std::fprintf(stderr, "bench: %s, %s: %zu cycles, %.1f µs each\n",
                   row.label.c_str(), loop_side.c_str(), loop_n,
                   us_between(t0, Clock::now()) /
                       (double)std::max<size_t>(loop_n, 1));
    }
    QuietStdout quiet2;
    k.shutdown();
    return 0;
  }

  std::printf("minikern bench (%s): module load+unload cycle, minikern's "
              "loader vs dlopen(RTLD_NOW)+dlclose\n",
#if defined(__x86_64__)
              "x86_64"
#else
              "i386"
#endif
  );
  std::printf("host: %s\n", host_line().c_str());
  std::printf("cycle = load + MOD_LOAD + MOD_QUIESCE + MOD_UNLOAD + unload, "
              "same handlers both ways; stdout to /dev/null for both\n");
  std::fflush(stdout);

  std::vector<Result> results;
  for (const Row &row : rows) {
    std::fprintf(stderr, "bench: %s ...\n", row.label.c_str());
    results.push_back(run_row(k, row, budget));
  }
  std::vector<const Result *> cols;
  std::vector<StageProfile> stages;
  {
    QuietStdout quiet;
    for (const Result &r : results) {
      if (std::any_of(cols.begin(), cols.end(),
                      [&](const Result *c) { return c->row.ko == r.row.ko; }))
        continue;
      cols.push_back(&r);
      stages.push_back(stage_profile(k, r.row.ko, stage_n));
    }
  }
  print_results(results);
  print_stages(cols, stages);
  for (const auto &[label, base] : site_rows)
    print_site_cost(k, cols, stages, label, base);
  for (const MemRow &m : mem_rows)
    memory_row(k, m.label, m.ko, m.n, m.traced ? enabling : "", m.command);
  for (const auto &p : pairs)
    pair_row(k, p[0], p[1], p[2], budget, 1.1);
  std::fflush(stdout);
  {
    QuietStdout quiet; // shutdown logs to the console
    k.shutdown();
  }
  return 0;
}
