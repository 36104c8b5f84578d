// The BPF engine's benchmark (`make bench`): ns per run of a few programs
// shaped like compiled D clauses, through the interpreter and the JIT, with
// the cost of an empty C++ call as the baseline.  Medians of repeated,
// interleaved rounds; the table ends with the JIT/interpreter ratio.
//
//   bpf_bench [--rounds N] [--iters N]
#include "../../sdt/dtrace/bpf/bpf.h"
#include "../../sdt/dtrace/bpf/builder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace mk;
using namespace mk::bpf;
using namespace mk::bpf::ins;

namespace {

struct Case {
  std::string name;
  std::vector<Insn> code;
};

// A probe context: six arguments, like the dtrace consumer's.
struct ProbeCtx {
  u64 arg[6];
};

double now_ns() {
  return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

__attribute__((noinline)) u64 empty_call(void *ctx) {
  asm volatile("" ::"r"(ctx) : "memory");
  return 0;
}

template <class F> double ns_per_run(F f, u64 iters) {
  const double t0 = now_ns();
  for (u64 k = 0; k < iters; k++)
    f();
  return (now_ns() - t0) / (double)iters;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 11;
  u64 iters = 2'000'000;
  for (int k = 1; k + 1 < argc; k += 2) {
    if (!std::strcmp(argv[k], "--rounds"))
      rounds = std::atoi(argv[k + 1]);
    else if (!std::strcmp(argv[k], "--iters"))
      iters = std::strtoull(argv[k + 1], nullptr, 10);
  }

  auto counts = Map::create({"count", MapType::PerCpuArray, 4, 8, 1}, 1);
  auto byfunc = Map::create({"byfunc", MapType::PerCpuHash, 8, 8, 1024}, 1);
  auto strs = Map::create({"strings", MapType::Array, 4, 128, 1}, 1);
  if (!counts || !byfunc || !strs) {
    std::fprintf(stderr, "bpf_bench: cannot create maps\n");
    return 1;
  }
  std::memset((*strs)->slab(), 'x', 64); // a 64-byte string, then NULs
  Env env;
  env.ctx_size = sizeof(ProbeCtx);
  env.maps = {counts->get(), byfunc->get(), strs->get()};
  env.helpers = map_helpers();

  std::vector<Case> cases;
  cases.push_back({"empty clause", {mov64i(0, 0), exit()}});
  {
    // @ = count(): key 0 on the stack, lookup, add 1 (per-CPU values
    // need no atomic).
    std::vector<Insn> c = {st(kW, 10, -4, 0), mov64(2, 10), alu64i(kADD, 2, -4)};
    ld_map(c, 1, 0);                           // 3,4
    c.push_back(call(kHelperMapLookup));       // 5
    c.push_back(jmpi(kJEQ, 0, 0, 3));          // 6 -> 10
    c.push_back(ldx(kDW, 1, 0, 0));
    c.push_back(alu64i(kADD, 1, 1));
    c.push_back(stx(kDW, 0, 0, 1));
    c.push_back(mov64i(0, 0));                 // 10
    c.push_back(exit());
    cases.push_back({"@ = count()", c});
  }
  {
    // @[arg0] = count(): key from the context; insert on first sight.
    std::vector<Insn> c = {ldx(kDW, 6, 1, 0), stx(kDW, 10, -8, 6),
                           mov64(2, 10), alu64i(kADD, 2, -8)};
    ld_map(c, 1, 1);
    c.push_back(call(kHelperMapLookup));       // 6
    c.push_back(jmpi(kJNE, 0, 0, 11));         // 7 -> 19
    c.push_back(st(kDW, 10, -16, 0));          // 8: zero value
    c.push_back(mov64(2, 10));
    c.push_back(alu64i(kADD, 2, -8));
    c.push_back(mov64(3, 10));
    c.push_back(alu64i(kADD, 3, -16));
    c.push_back(mov64i(4, 0));
    ld_map(c, 1, 1);                            // 14,15
    c.push_back(call(kHelperMapUpdate));       // 16
    c.push_back(mov64i(0, 0));                 // 17
    c.push_back(exit());                       // 18
    c.push_back(ldx(kDW, 1, 0, 0));            // 19
    c.push_back(alu64i(kADD, 1, 1));
    c.push_back(stx(kDW, 0, 0, 1));
    c.push_back(mov64i(0, 0));
    c.push_back(exit());
    cases.push_back({"@[arg0] = count()", c});
  }
  {
    // strlen of a 64-byte string in a read-only array map, byte by byte.
    std::vector<Insn> c;
    ld_map_value(c, 1, 2, 0);                  // 0,1
    c.push_back(mov64i(0, 0));                 // 2
    c.push_back(mov64(2, 1));                  // 3: loop
    c.push_back(alu64(kADD, 2, 0));            // 4
    c.push_back(ldx(kB, 3, 2, 0));             // 5 (checked: unknown offset)
    c.push_back(jmpi(kJEQ, 3, 0, 3));          // 6 -> 10
    c.push_back(alu64i(kADD, 0, 1));           // 7
    c.push_back(jmpi(kJLT, 0, 127, -6));       // 8 -> 3
    c.push_back(ja(0));                        // 9
    c.push_back(exit());                       // 10
    cases.push_back({"strlen(64 bytes)", c});
  }
  {
    // Arithmetic: a 20-step hash of arg0 and arg1.
    std::vector<Insn> c = {ldx(kDW, 0, 1, 0), ldx(kDW, 2, 1, 8)};
    for (int k = 0; k < 10; k++) {
      c.push_back(alu64i(kMUL, 0, 0x100001b3));
      c.push_back(alu64(kXOR, 0, 2));
    }
    c.push_back(exit());
    cases.push_back({"20 ALU ops", c});
  }

  Runner runner(env, 0);
  ProbeCtx ctx = {{42, 7, 0, 0, 0, 0}};
  std::printf("BPF engine, ns per run (median of %d rounds of %llu runs)\n\n",
              rounds, (unsigned long long)iters);
  if (!jit_available())
    std::printf("(no JIT on this architecture: both columns interpret)\n");
  std::printf("%-22s %10s %10s %10s %8s\n", "program", "insns", "interp",
              "jit", "interp/jit");
  std::vector<double> base;
  for (int r = 0; r < rounds; r++)
    base.push_back(ns_per_run([&] { empty_call(&ctx); }, iters));
  std::printf("%-22s %10s %10.2f %10s %8s\n", "(empty C++ call)", "",
              median(base), "", "");
  for (const Case &c : cases) {
    // Without a JIT (i386) the interpreter is measured twice.
    const Engine fast = jit_available() ? Engine::Jit : Engine::Interpreter;
    auto pi = Program::load(c.code, env, {c.name, Engine::Interpreter});
    auto pj = Program::load(c.code, env, {c.name, fast});
    if (!pi || !pj) {
      std::fprintf(stderr, "bpf_bench: %s\n",
                   (!pi ? pi.error() : pj.error()).message.c_str());
      return 1;
    }
    // Same answers first.
    const RunResult a = runner.run(**pi, &ctx), b = runner.run(**pj, &ctx);
    if (a.r0 != b.r0 || a.fault != b.fault || a.fault != Fault::None) {
      std::fprintf(stderr, "bpf_bench: %s: interpreter and JIT disagree\n",
                   c.name.c_str());
      return 1;
    }
    std::vector<double> ti, tj;
    for (int r = 0; r < rounds; r++) {
      ti.push_back(ns_per_run([&] { runner.run(**pi, &ctx); }, iters / 4));
      tj.push_back(ns_per_run([&] { runner.run(**pj, &ctx); }, iters));
    }
    const double mi = median(ti), mj = median(tj);
    std::printf("%-22s %10zu %10.2f %10.2f %8.1fx\n", c.name.c_str(),
                c.code.size(), mi, mj, mi / mj);
  }
  return 0;
}
