// The fbt benchmark of `make bench`: what function-boundary tracing costs
// per call, and how long enabling every fbt probe takes.
//
// A kernel booted in-process loads fbtbench.ko (tests/bench/fbtbench/),
// whose two empty functions are the same but for the entry site one of
// them has (the other is built without: no_instrument_function); its loops
// call one or the other.  The cost of a style is its loop time minus the
// loop over the function without an entry site, per call: in each round
// the best of a few short loops (a busy machine preempts long ones), the
// median of the rounds, styles interleaved.  Enabled rows run the D consumer with `@ = count()`
// on the entry probe, then on entry and return: in call mode (the stub,
// the trampolines and the shadow stack), and in breakpoint mode, int3 on
// the entry and on the ret as FreeBSD's fbt does, the baseline.
//
// Then every fbt probe of the kernel and of the sample modules (all of
// build/ARCH/modules loaded) is enabled in one batch and disabled in one,
// with an empty handler; then the same with fbtmany.ko's 100 000 more
// functions loaded.
#include "../../kernel/kernel.h"
#include "../../sdt/dtrace/consumer.h"
#include "../../sdt/registry.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <cstring>
#include <dirent.h>
#include <string>
#include <vector>

using namespace mk;

namespace {

using LoopFn = unsigned long (*)(unsigned long);

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

volatile unsigned long sink;

double time_loop(LoopFn f, unsigned long n) {
  double best = 1e30;
  for (int i = 0; i < 5; i++) {
    u64 t0 = now_ns();
    sink = f(n);
    best = std::min(best, (double)(now_ns() - t0) / n);
  }
  return best;
}

void empty_handler(void *, u32, const uintptr_t *) {}

class NullSink : public dt::Sink {
public:
  void out(const std::string &) override {}
  void err(const std::string &) override {}
};

// A D program `desc { @ = count(); }` enabled in `mode`: the consumer the
// dtrace command would run, in either patch mode.
struct Counting {
  NullSink sink;
  std::unique_ptr<dt::Consumer> c;
  int enabling = 0;
  Counting(Kernel &k, const std::string &desc, PatchMode mode) {
    auto ast = dt::parse(desc + " { @ = count(); }");
    std::vector<std::vector<ProbeInfo>> matched(1);
    for (const std::string &d : ast->clauses[0].descs)
      for (const ProbeInfo &p : k.probes().match(ProbeDesc::parse(d)))
        matched[0].push_back(p);
    auto prog = dt::compile(*ast, matched);
    std::vector<dt::EcbInfo> ecbs;
    for (const ProbeInfo &p : matched[0]) {
      dt::EcbInfo e;
      e.epid = (u32)ecbs.size() + 1;
      e.probe = p;
      e.full = p.full();
      ecbs.push_back(e);
    }
    dt::ConsumerOptions o;
    o.quiet = true;
    const u32 begin = k.probes().dtrace_begin_id();
    c = std::make_unique<dt::Consumer>(std::move(*prog), std::move(ecbs), o,
                                       sink, begin, begin + 1, begin + 2);
    (void)c->init();
    if (dt::consumer_fire_keeps_vector) // as the dtrace command says
      k.probes().mark_keeps_vector(dt::consumer_fire);
    enabling = *k.probes().enable(c->sdt_probes(), dt::consumer_fire, c.get(),
                                  mode);
  }
};

} // namespace

int main(int argc, char **argv) {
  int rounds = 15;
  unsigned long n = 200000;
  std::string ko, modules, many;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--n") && i + 1 < argc)
      n = std::strtoul(argv[++i], nullptr, 0);
    else if (!std::strcmp(argv[i], "--modules") && i + 1 < argc)
      modules = argv[++i];
    else if (!std::strcmp(argv[i], "--many") && i + 1 < argc)
      many = argv[++i];
    else
      ko = argv[i];
  }
  if (ko.empty()) {
    std::fprintf(stderr, "usage: fbt_bench [--rounds N] [--n ITER] "
                         "[--modules DIR] [--many fbtmany.ko] fbtbench.ko\n");
    return 2;
  }
  Options o;
  o.cpus = 1;
  o.quiet = true;
  o.self_path = "/proc/self/exe";
  if (!modules.empty())
    o.module_path = {modules};
  Kernel k(o);
  if (!k.boot())
    return 1;
  auto f = k.linker().load(ko);
  if (!f) {
    std::fprintf(stderr, "fbt_bench: %s\n", f.error().message.c_str());
    return 1;
  }
  auto fn = [&](const char *name) {
    return (LoopFn)(uintptr_t)(*f)->globals.at(name);
  };
  LoopFn plain = fn("fbtbench_loop_plain"), traced = fn("fbtbench_loop_traced");
  const std::string entry = "fbt:fbtbench:fbtbench_traced:entry",
                    ret = "fbt:fbtbench:fbtbench_traced:return";

  for (int i = 0; i < 3; i++)
    time_loop(plain, n), time_loop(traced, n);

  std::vector<double> s_plain, s_off, s_entry, s_both, s_trap;
  const unsigned long n_trap = n / 100;
  for (int r = 0; r < rounds; r++) {
    s_plain.push_back(time_loop(plain, n));
    s_off.push_back(time_loop(traced, n));
    {
      Counting c(k, entry, PatchMode::Call);
      s_entry.push_back(time_loop(traced, n));
      k.probes().disable(c.enabling);
    }
    {
      Counting c(k, entry + ", " + ret, PatchMode::Call);
      s_both.push_back(time_loop(traced, n));
      k.probes().disable(c.enabling);
    }
    {
      Counting c(k, entry + ", " + ret, PatchMode::Breakpoint);
      s_trap.push_back(time_loop(traced, n_trap));
      k.probes().disable(c.enabling);
    }
  }
  const double base = median(s_plain);
  const double off = median(s_off) - base, both = median(s_both) - base,
               trap = median(s_trap) - base;
  std::printf("\nfbt cost per call of an empty function: median of %d rounds, "
              "each the best of 5 loops of %lu calls\n(int3: %lu); extra = "
              "over the same function without an entry site, same rounds\n\n",
              rounds, n, n_trap);
  std::printf("%-56s %9s %10s  %s\n", "style", "ns/call", "extra ns", "target");
  std::printf("%s\n", std::string(110, '-').c_str());
  auto row = [&](const char *label, const std::vector<double> &v,
                 const std::string &target) {
    std::printf("%-56s %9.2f %+10.2f  %s\n", label, median(v), median(v) - base,
                target.c_str());
  };
  row("no entry site (baseline)", s_plain, "baseline");
  row("entry site, fbt disabled", s_off,
      strf("within 0.2 ns: %s", off <= 0.2 ? "met" : "MISSED"));
  row("entry enabled, dtrace @ = count()", s_entry, "");
  row("entry + return enabled, dtrace @ = count()", s_both,
      strf("at most 12 ns: %s (the first, under 25: %s)",
           both <= 12 ? "met" : "MISSED", both < 25 ? "met" : "MISSED"));
  row("entry + return by int3 (FreeBSD fbt), @ = count()", s_trap,
      strf("%.0fx ours (at least 50x): %s", trap / std::max(both, 0.01),
           trap >= 50 * both ? "met" : "MISSED"));

  // Every fbt probe of the kernel and of the sample modules, then with
  // fbtmany.ko's as well.
  if (!modules.empty())
    if (DIR *d = opendir(modules.c_str())) {
      while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name.size() > 3 && name.compare(name.size() - 3, 3, ".ko") == 0 &&
            !k.linker().find(name))
          (void)k.linker().load(modules + "/" + name);
      }
      closedir(d);
    }
  std::printf("\nenabling every fbt probe (median of %d; one batch each way, "
              "an empty handler)\n\n",
              rounds);
  std::printf("views: the code's writable views mapped per batch (W^X) or "
              "held open throughout (a permanent alias: the baseline)\n\n");
  std::printf("%-28s %-10s %8s %8s %11s %11s %6s %15s %7s  %s\n", "probes of",
              "views", "sites", "probes", "enable ms", "disable ms", "sync",
              "ms/100k sites", "ratio", "target");
  std::printf("%s\n", std::string(110, '-').c_str());
  auto all = [&](const char *label) {
    std::vector<u32> ids;
    size_t sites = 0;
    for (const ProbeInfo &p : k.probes().match(ProbeDesc::parse("fbt:::"))) {
      ids.push_back(p.id);
      if (p.name == "entry")
        sites += k.probes().sites(p.id).size();
    }
    double held_cost = 0;
    for (bool held : {true, false}) {
      std::optional<std::vector<WritableView::Scope>> hold;
      if (held)
        hold.emplace(k.probes().patcher().writing());
      std::vector<double> en, dis;
      u64 ser = 0;
      for (int r = 0; r < rounds; r++) {
        u64 s0 = k.probes().serialisations();
        u64 t0 = now_ns();
        auto e = k.probes().enable(ids, empty_handler, nullptr);
        u64 t1 = now_ns();
        k.probes().disable(*e);
        u64 t2 = now_ns();
        ser = k.probes().serialisations() - s0;
        en.push_back((t1 - t0) / 1e6);
        dis.push_back((t2 - t1) / 1e6);
      }
      const double cost = median(en) + median(dis);
      if (held)
        held_cost = cost;
      const double per100k = cost * 100000.0 / std::max<size_t>(sites, 1);
      std::printf("%-28s %-10s %8zu %8zu %11.3f %11.3f %6llu %15.2f %7s  "
                  "under 20 ms: %s\n",
                  label, held ? "held open" : "per batch", sites, ids.size(),
                  median(en), median(dis), (unsigned long long)ser, per100k,
                  held ? "1.00x"
                       : strf("%.2fx", cost / std::max(held_cost, 1e-6)).c_str(),
                  per100k < 20 ? "met" : "MISSED");
    }
  };
  all("kernel, sample modules");
  if (!many.empty()) {
    auto m = k.linker().load(many);
    if (!m) {
      std::fprintf(stderr, "fbt_bench: %s\n", m.error().message.c_str());
      return 1;
    }
    all("... and fbtmany.ko");
  }
  return 0;
}
