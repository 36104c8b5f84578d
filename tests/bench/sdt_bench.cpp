// The probe benchmark of `make bench`: what a probe costs per hit in each
// style, disabled and enabled, and how long enabling many sites takes.
//
// Everything runs in one process: a kernel booted in-process loads
// sdtbench.ko (tests/bench/sdtbench/), whose loops are identical but for
// the probe in them.  Each figure is the median of interleaved rounds, so
// a busy machine slows every style alike; the per-hit cost of a style is
// its loop time minus the no-probe loop's, divided by the iterations.
// Enabled-probe rows run through the real consumers: the registry with an
// empty handler, the module's own empty handler attached as a module
// attaches it, and the shell's dtrace command in the background.
//
// One row is measured here rather than in the module: a direct call of the
// module's handler inside liburcu's read-side section, the floor under
// any handler call that an RCU grace period must be able to wait for.
#include "../../kernel/kernel.h"
#include "../../sdt/registry.h"
#include "../../sdt/dtrace/consumer.h"

#define _LGPL_SOURCE // liburcu's read side inline, as the registry has it
#include <urcu/urcu-memb.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mk;

namespace {

using LoopFn = unsigned long (*)(unsigned long);

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))];
}

// Run shell commands with stdout captured; returns what they printed.
std::string run_quiet(Kernel &k, const std::string &line) {
  std::fflush(stdout);
  char path[] = "/tmp/sdtbench-XXXXXX";
  int fd = mkstemp(path);
  int saved = dup(1);
  dup2(fd, 1);
  k.shell().run_line(line);
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::string out;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    out.append(buf, n);
  close(fd);
  unlink(path);
  return out;
}

void empty_handler(void *, u32, const uintptr_t *) {}

volatile unsigned long sink;

double time_loop(LoopFn f, unsigned long n) {
  u64 t0 = now_ns();
  sink = f(n);
  return (double)(now_ns() - t0);
}

struct Style {
  explicit Style(const char *l) : label(l) {}
  const char *label;
  std::vector<double> ns_per_hit; // loop time / n, per round
};

} // namespace

int main(int argc, char **argv) {
  int rounds = 15;
  unsigned long n = 4000000;
  std::string ko;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--n") && i + 1 < argc)
      n = std::strtoul(argv[++i], nullptr, 0);
    else
      ko = argv[i];
  }
  if (ko.empty()) {
    std::fprintf(stderr, "usage: sdt_bench [--rounds N] [--n ITER] sdtbench.ko\n");
    return 2;
  }
  Options o;
  o.cpus = 1;
  o.quiet = true;
  o.self_path = "/proc/self/exe";
  Kernel k(o);
  if (!k.boot())
    return 1;
  auto f = k.linker().load(ko);
  if (!f) {
    std::fprintf(stderr, "sdt_bench: %s\n", f.error().message.c_str());
    return 1;
  }
  auto fn = [&](const char *name) { return (LoopFn)(uintptr_t)(*f)->globals.at(name); };
  LoopFn none = fn("sdtbench_none"), sdt = fn("sdtbench_sdt"),
         go = fn("sdtbench_goto"), flag = fn("sdtbench_flag_style"),
         fnptr = fn("sdtbench_fnptr"), direct = fn("sdtbench_direct"),
         jump = fn("sdtbench_jump"), wrapped = fn("sdtbench_wrapped"),
         cost_arg = fn("sdtbench_cost_arg"), cost_call = fn("sdtbench_cost_call"),
         cost_goto = fn("sdtbench_cost_goto");
  auto handler = (ModuleHandler)(uintptr_t)(*f)->globals.at("sdtbench_handler");
  void *hdata = (void *)(uintptr_t)(*f)->globals.at("sdtbench_data");
  auto probe = [&](const char *desc) {
    return k.probes().match(ProbeDesc::parse(desc)).at(0).id;
  };
  const u32 hit = probe("sdtbench::sdtbench_sdt:hit"),
            hit_goto = probe("sdtbench::sdtbench_goto:hit");
  // A module handler, attached as sdt_handler_attach does (its module
  // holds the code).
  auto attach = [&](u32 id, void *data) {
    HandlerSpec h;
    h.fn = handler;
    h.data = data;
    h.owner = *f;
    h.module = "sdtbench";
    h.function = "sdtbench_handler";
    h.key = "bench";
    auto r = k.probes().attach(std::vector<u32>{id}, h);
    if (!r) {
      std::fprintf(stderr, "sdt_bench: %s\n", r.error().message.c_str());
      std::exit(1);
    }
  };
  auto detach = [&](void *data) { k.probes().detach(handler, data, "bench"); };
  // The floor under a handler call: the same call inside liburcu's read
  // side, in a loop shaped like the module's.
  struct RcuLoop {
    static unsigned long run(unsigned long n, ModuleHandler h, void *d,
                             bool rcu) {
      unsigned long sum = 0;
      for (unsigned long i = 0; i < n; i++) {
        sum += i ^ (sum >> 3);
        __asm__ volatile("" : "+r"(sum));
        if (rcu)
          urcu_memb_read_lock();
        h(d, i, sum, 0, 0, 0, 0);
        if (rcu)
          urcu_memb_read_unlock();
      }
      return sum;
    }
  };
  auto time_rcu = [&](bool rcu, unsigned long iters) {
    u64 t0 = now_ns();
    sink = RcuLoop::run(iters, handler, hdata, rcu);
    return (double)(now_ns() - t0);
  };

  // Warm up: code, caches, the CPU's frequency.
  for (int i = 0; i < 3; i++)
    time_loop(none, n), time_loop(sdt, n), time_loop(go, n);

  Style s_none{"no probe (baseline loop)"}, s_sdt{"disabled call site (illumos)"},
      s_goto{"disabled asm-goto site (FreeBSD 2024)"},
      s_flag{"if (flag) call()  (FreeBSD SDT / LTTng style)"},
      s_fnptr{"function pointer  (Linux Markers style)"},
      s_empty{"enabled call site, empty callback"},
      s_goto_empty{"enabled asm-goto site, empty callback"},
      s_count{"enabled site, dtrace @ = count()"},
      s_printf{"enabled site, dtrace printf() into the buffer"},
      s_bp{"int3/SIGTRAP site, empty handler (illumos style)"},
      s_arg{"1 KiB checksum computed, no probe"},
      s_cost_call{"1 KiB checksum argument, disabled call site"},
      s_cost_goto{"1 KiB checksum argument, disabled asm-goto site"},
      s_direct{"direct call of the module's handler"},
      s_jump{"... through shift + jmp, no read side (unsafe)"},
      s_wrapped{"... from a function of its own (one call more)"},
      s_rcu_plain{"direct call through a pointer (bench loop)"},
      s_rcu{"... inside liburcu's read side (bench loop)"},
      s_one{"one module handler, call site"},
      s_one_goto{"one module handler, asm-goto site"},
      s_three{"three module handlers, call site"};
  const unsigned long n_printf = n / 8, n_bp = n / 40, n_cost = n / 200;
  int data2 = 0, data3 = 0;
  for (int r = 0; r < rounds; r++) {
    s_none.ns_per_hit.push_back(time_loop(none, n) / n);
    s_sdt.ns_per_hit.push_back(time_loop(sdt, n) / n);
    s_goto.ns_per_hit.push_back(time_loop(go, n) / n);
    s_flag.ns_per_hit.push_back(time_loop(flag, n) / n);
    s_fnptr.ns_per_hit.push_back(time_loop(fnptr, n) / n);
    s_direct.ns_per_hit.push_back(time_loop(direct, n) / n);
    s_jump.ns_per_hit.push_back(time_loop(jump, n) / n);
    s_wrapped.ns_per_hit.push_back(time_loop(wrapped, n) / n);
    s_rcu_plain.ns_per_hit.push_back(time_rcu(false, n) / n);
    s_rcu.ns_per_hit.push_back(time_rcu(true, n) / n);
    // The expensive argument: per hit, over the same no-probe loop.
    s_arg.ns_per_hit.push_back(time_loop(cost_arg, n_cost) / n_cost);
    s_cost_call.ns_per_hit.push_back(time_loop(cost_call, n_cost) / n_cost);
    s_cost_goto.ns_per_hit.push_back(time_loop(cost_goto, n) / n);

    auto e = k.probes().enable({hit}, empty_handler, nullptr);
    s_empty.ns_per_hit.push_back(time_loop(sdt, n) / n);
    k.probes().disable(*e);
    e = k.probes().enable({hit_goto}, empty_handler, nullptr);
    s_goto_empty.ns_per_hit.push_back(time_loop(go, n) / n);
    k.probes().disable(*e);

    attach(hit, hdata);
    s_one.ns_per_hit.push_back(time_loop(sdt, n) / n);
    attach(hit, &data2);
    attach(hit, &data3);
    s_three.ns_per_hit.push_back(time_loop(sdt, n) / n);
    detach(hdata), detach(&data2), detach(&data3);
    attach(hit_goto, hdata);
    s_one_goto.ns_per_hit.push_back(time_loop(go, n) / n);
    detach(hdata);
    k.probes().synchronize();

    run_quiet(k, "dtrace -q -n 'sdtbench::sdtbench_sdt:hit { @ = count(); }' &");
    int id = 0;
    std::sscanf(run_quiet(k, "dtrace -j").c_str(), "%*[^\n]\n%d", &id);
    s_count.ns_per_hit.push_back(time_loop(sdt, n) / n);
    run_quiet(k, "dtrace -k " + std::to_string(id));

    run_quiet(k, "dtrace -q -b 64m -n 'sdtbench::sdtbench_sdt:hit { "
                 "printf(\"%d %d\\n\", arg0, arg1); }' &");
    std::sscanf(run_quiet(k, "dtrace -j").c_str(), "%*[^\n]\n%d", &id);
    s_printf.ns_per_hit.push_back(time_loop(sdt, n_printf) / n_printf);
    run_quiet(k, "dtrace -k " + std::to_string(id));

    auto b = k.probes().enable({hit}, empty_handler, nullptr, PatchMode::Breakpoint);
    s_bp.ns_per_hit.push_back(time_loop(sdt, n_bp) / n_bp);
    k.probes().disable(*b);
  }

  const double base = median(s_none.ns_per_hit);
  std::printf("\nprobe cost per hit: median of %d rounds, each a loop of %lu "
              "iterations\n(printf %lu, int3 %lu, checksum %lu); extra = "
              "median minus the no-probe loop's, measured in the same "
              "rounds\n\n",
              rounds, n, n_printf, n_bp, n_cost);
  std::printf("%-50s %9s %9s %9s %9s  %s\n", "style", "ns/iter", "p10",
              "p90", "extra ns", "target");
  std::printf("%s\n", std::string(118, '-').c_str());
  auto extra = [&](const Style &st) { return median(st.ns_per_hit) - base; };
  auto row = [&](const Style &st, const std::string &target) {
    double m = median(st.ns_per_hit);
    std::printf("%-50s %9.2f %9.2f %9.2f %+9.2f  %s\n", st.label, m,
                pct(st.ns_per_hit, 0.1), pct(st.ns_per_hit, 0.9), m - base,
                target.c_str());
  };
  auto met = [](bool ok) { return ok ? "met" : "MISSED"; };
  const double empty = extra(s_empty), count = extra(s_count), bp = extra(s_bp);
  row(s_none, "baseline");
  row(s_sdt, strf("within 0.2 ns of no probe: %s", met(extra(s_sdt) <= 0.2)));
  row(s_goto, strf("within 0.2 ns of no probe: %s", met(extra(s_goto) <= 0.2)));
  row(s_flag, "");
  row(s_fnptr, "");
  row(s_empty, "");
  row(s_goto_empty, "");
  row(s_count, strf("under 15 ns: %s", met(count < 15)));
  row(s_printf, "");
  row(s_bp, strf("%.0fx the enabled site's cost (at least 100x): %s",
                 bp / std::max(empty, 0.01), met(bp >= 100 * empty)));
  std::printf("\n");
  row(s_arg, "what the argument costs");
  row(s_cost_call, strf("pays the argument: %.0f%% of it",
                        100 * extra(s_cost_call) / std::max(extra(s_arg), 0.01)));
  row(s_cost_goto,
      strf("within 0.2 ns of no probe: %s", met(extra(s_cost_goto) <= 0.2)));
  std::printf("\n");
  // The target is the asm-goto site's: its block calls the handler
  // itself.  A call site reaches it from the probe's trampoline, one call
  // level deeper, which the wrapper row prices.
  const double direct_x = extra(s_direct), one = extra(s_one_goto);
  auto over = [&](const Style &st) {
    return strf("%+.2f over the direct call", extra(st) - direct_x);
  };
  row(s_direct, "baseline for the handler rows");
  row(s_jump, over(s_jump));
  row(s_wrapped, over(s_wrapped));
  row(s_one_goto, strf("within 1 ns of the direct call (%+.2f): %s",
                       one - direct_x, met(one - direct_x <= 1.0)));
  row(s_one, over(s_one));
  row(s_three, over(s_three));
  row(s_rcu_plain, "");
  row(s_rcu, strf("the read side alone: %+.2f ns",
                  median(s_rcu.ns_per_hit) - median(s_rcu_plain.ns_per_hit)));

  // D on BPF against the old interpreter: the same clauses, each engine
  // enabled in turn in the same rounds, cost per hit over the no-probe loop.
  {
    const std::string s64(64, 'x');
    const struct {
      const char *label, *clause;
    } work[] = {
        {"clause, false predicate /0/", "/0/ { }"},
        {"@ = count()", "{ @ = count(); }"},
        {"@ = stddev(arg0)", "{ @ = stddev(arg0); }"},
        {"@[probefunc] = count()", "{ @[probefunc] = count(); }"},
        {"strlen( ) of a 64-byte string", ""}, // made below
        {"self-> store and load", "{ self->n = self->n + 1; }"},
        // n is declared: D resolves a global from where the text first
        // declares or assigns it, and this clause reads n first.
        {"global store and load", "int64_t n; | { n = n + 1; }"},
        {"string comparison", "/probefunc == \"hit\"/ { }"},
        {"strjoin( ) of two short strings", "{ @ = sum(strlen(strjoin(probename, \"-x\"))); }"},
        {"@[probefunc, probename] = count()", ""}, // made below
    };
    const char *engines[] = {"bpf", "interp"};
    const size_t nw = sizeof work / sizeof work[0];
    std::vector<double> none_r, cost[nw][2];
    std::vector<std::string> clauses;
    for (const auto &w : work)
      clauses.push_back(w.clause);
    // Rows by name, for the lines below that pick one out.
    auto at = [&](const char *label) {
      for (size_t w = 0; w < nw; w++)
        if (std::strcmp(work[w].label, label) == 0)
          return w;
      std::abort();
    };
    clauses[at("strlen( ) of a 64-byte string")] =
        "{ @ = sum(strlen(\"" + s64 + "\")); }";
    clauses[at("@[probefunc, probename] = count()")] =
        "{ @[probefunc, probename] = count(); }"; // two string keys
    const unsigned long m = n / 4;
    bool refused[nw][2] = {}; // tried once: its error line printed once
    for (int r = 0; r < rounds; r++) {
      const double base_r = time_loop(none, m) / m;
      none_r.push_back(base_r);
      for (size_t w = 0; w < nw; w++)
        for (int e = 0; e < 2; e++) {
          if (refused[w][e])
            continue;
          // "DECLS | CLAUSE": declarations before the probe description.
          std::string decls, clause = clauses[w];
          if (size_t bar = clause.find(" | "); bar != std::string::npos)
            decls = clause.substr(0, bar + 1), clause = clause.substr(bar + 3);
          run_quiet(k, std::string("dtrace -q -x engine=") + engines[e] +
                           " -n '" + decls + "sdtbench:::hit " + clause +
                           "' &");
          int id = 0;
          std::sscanf(run_quiet(k, "dtrace -j").c_str(), "%*[^\n]\n%d", &id);
          // No job: the engine cannot run the clause (the old interpreter
          // has no string functions); the row says n/a, never a time.
          if (!id) {
            refused[w][e] = true;
            continue;
          }
          cost[w][e].push_back(time_loop(sdt, m) / m - base_r);
          run_quiet(k, "dtrace -k " + std::to_string(id));
        }
    }
    std::printf("\nD clauses per hit, BPF engine (%s) and the old interpreter "
                "side by side:\nns over the no-probe loop (%.2f ns), median of "
                "%d rounds of %lu hits\n\n",
#if defined(__x86_64__)
                "JIT",
#else
                "BPF interpreter",
#endif
                median(none_r), rounds, m);
    std::printf("%-34s %10s %10s %8s  %s\n", "clause", "bpf ns", "interp ns",
                "ratio", "target");
    std::printf("%s\n", std::string(90, '-').c_str());
    // A firing that runs a clause and records nothing: what a variable's
    // row costs beyond it is the variable's.
    const double floor_ns = median(cost[at("clause, false predicate /0/")][0]);
    for (size_t w = 0; w < nw; w++) {
      const double b = median(cost[w][0]), i = median(cost[w][1]);
      const bool has_b = !cost[w][0].empty(), has_i = !cost[w][1].empty();
      const std::string label = work[w].label;
      auto at_most = [&](double limit) {
        return strf("at most %g ns: %s", limit, b <= limit ? "met" : "MISSED");
      };
      std::string target;
      if (label == "@ = count()")
        target = at_most(5);
      if (label == "self-> store and load")
        target = at_most(15);
      if (label == "global store and load")
        target = strf("at most 3 ns over the false predicate (%+.2f): %s",
                      b - floor_ns, b - floor_ns <= 3 ? "met" : "MISSED");
      if (label == "strlen( ) of a 64-byte string")
        target = strf("no slower than interp: %s", b <= i ? "met" : "MISSED");
      if (label == "string comparison" ||
          label == "strjoin( ) of two short strings" ||
          label == "@[probefunc, probename] = count()")
        target = at_most(40);
      if (!has_b)
        target = "MISSED: the BPF engine refused the clause";
      const std::string bs = has_b ? strf("%.2f", b) : "n/a";
      const std::string is = has_i ? strf("%.2f", i) : "n/a";
      const std::string ratio =
          has_b && has_i ? strf("%.2fx", b / std::max(i, 0.01)) : "";
      std::printf("%-34s %10s %10s %8s  %s\n", work[w].label, bs.c_str(),
                  is.c_str(), ratio.c_str(), target.c_str());
    }
    // Compile, link and verify a 10-clause script (no enabling).
    auto hit_probe = k.probes().match(ProbeDesc::parse("sdtbench:::hit"));
    // (Each x%d declared: D refuses += of a global never assigned.)
    std::string script;
    for (int c = 0; c < 10; c++)
      script += strf("int x%d;\n", c);
    for (int c = 0; c < 10; c++)
      script += strf("sdtbench:::hit /arg0 %% 10 == %d/ { @c[probefunc] = "
                     "count(); self->t%d = arg1; x%d += self->t%d; "
                     "@q = quantize(arg1 + %d); printf(\"%%d %%s\\n\", x%d, "
                     "probename); }\n",
                     c, c, c, c, c, c);
    std::printf("\n%-34s %10s %10s\n", "10-clause script (ms, median)",
                "bpf", "interp");
    double ms[2] = {};
    for (int e = 0; e < 2; e++) {
      std::vector<double> t;
      for (int r = 0; r < rounds; r++) {
        struct Null : dt::Sink {
          void out(const std::string &) override {}
          void err(const std::string &) override {}
        } null_sink;
        u64 t0 = now_ns();
        auto ast = dt::parse(script);
        if (!ast) {
          std::fprintf(stderr, "sdt_bench: the 10-clause script: %s\n",
                       ast.error().message.c_str());
          return 1;
        }
        std::vector<std::vector<ProbeInfo>> matched(ast->clauses.size(), hit_probe);
        auto prog = dt::compile(*ast, matched);
        if (!prog) {
          std::fprintf(stderr, "sdt_bench: the 10-clause script: %s\n",
                       prog.error().message.c_str());
          return 1;
        }
        std::vector<dt::EcbInfo> ecbs;
        for (u32 c = 0; c < matched.size(); c++) {
          dt::EcbInfo ei;
          ei.epid = c + 1;
          ei.clause = c;
          ei.probe = hit_probe[0];
          ecbs.push_back(ei);
        }
        dt::ConsumerOptions co;
        co.engine = e == 0 ? dt::DEngine::Bpf : dt::DEngine::Interp;
        co.threads = 4;
        dt::Consumer c(std::move(*prog), std::move(ecbs), co, null_sink, 1, 2, 3);
        auto ok = c.init();
        t.push_back((now_ns() - t0) / 1e6);
        if (!ok) {
          std::printf("bench: %s\n", ok.error().message.c_str());
          break;
        }
      }
      ms[e] = median(t);
    }
    std::printf("%-34s %10.3f %10.3f\n", "parse, compile, link, verify, JIT",
                ms[0], ms[1]);
  }

  // Enabling and disabling many sites: 10, 100 and 1000 probes of 100
  // sites each, every probe's sites in one patch batch.
  std::vector<u32> many;
  for (const ProbeInfo &p : k.probes().match(ProbeDesc::parse("sdtbench:::many")))
    many.push_back(p.id);
  // Each size twice: with the writable views of code mapped per batch
  // (W^X: none exists at rest), and held open for the whole run, which is
  // what a permanent writable alias costs (the baseline).
  std::printf("\nenabling and disabling probe sites (median of %d; one batch "
              "each way); views: the code's writable views mapped per batch "
              "(W^X) or held open throughout (a permanent alias)\n\n",
              rounds);
  std::printf("%8s %8s %-10s %12s %12s %12s %14s %8s  %s\n", "sites", "probes",
              "views", "enable ms", "disable ms", "total ms", "serialisations",
              "ratio", "target");
  std::printf("%s\n", std::string(110, '-').c_str());
  for (size_t probes : {10ul, 100ul, 1000ul}) {
    if (probes > many.size())
      break;
    std::vector<u32> ids(many.begin(), many.begin() + probes);
    size_t sites = 0;
    for (u32 id : ids)
      sites += k.probes().sites(id).size();
    double held_total = 0;
    for (bool held : {true, false}) {
      std::optional<std::vector<WritableView::Scope>> hold;
      if (held)
        hold.emplace(k.probes().patcher().writing());
      std::vector<double> en, dis, tot;
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
        tot.push_back((t2 - t0) / 1e6);
      }
      if (held)
        held_total = median(tot);
      std::string target;
      if (sites >= 100000)
        target = strf("under 20 ms: %s", median(tot) < 20 ? "met" : "MISSED");
      std::printf("%8zu %8zu %-10s %12.3f %12.3f %12.3f %14llu %8s  %s\n",
                  sites, probes, held ? "held open" : "per batch", median(en),
                  median(dis), median(tot), (unsigned long long)ser,
                  held ? "1.00x"
                       : strf("%.2fx", median(tot) / std::max(held_total, 1e-6))
                             .c_str(),
                  target.c_str());
    }
  }
  (void)k.linker().unload(*f);
  return 0;
}
