// Patching while other threads run the sites: worker threads fire a probe
// of this test binary (a core site, recorded by sdt-record at build time)
// in a loop while the main thread enables and disables it 100 000 times
// (20 000 under AddressSanitizer, mkt::stress_cycles).
// Nothing may crash or execute a torn instruction; every firing the handler
// sees must carry arguments a worker really passed; and in windows where
// the probe is held enabled (or disabled) while the workers run a known
// number of iterations, the handler's count must match exactly.
#include "../../kernel/kernel.h"
#include "../../sdt/registry.h"
#include "kernel_support.h"

#include <sys/sdt.h>

#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

SDT_PROBE_DEFINE2(sdttest, , , tick, "int", "long");
SDT_PROBE_DEFINE1(sdttest, , , tail, "int");

namespace {

constexpr int kWorkers = 2;

struct Counts {
  mk::u32 tick_id = 0;
  std::atomic<long long> hits{0};
  std::atomic<long long> bad{0};
  // Per worker: the last sequence number seen (each worker fires from one
  // thread, so its firings arrive in order).  Compared in serial-number
  // arithmetic: on i386 a busy worker wraps 32 bits within the test.
  uintptr_t last[kWorkers] = {};
};

void on_fire(void *ctx, mk::u32 id, const uintptr_t *args) {
  auto *c = (Counts *)ctx;
  long w = (long)args[0];
  uintptr_t seq = args[1];
  if (w < 0 || w >= kWorkers)
    c->bad++;
  else if (id == c->tick_id && (intptr_t)(seq - c->last[w]) <= 0)
    c->bad++; // a repeated or invented firing
  else if (id == c->tick_id)
    c->last[w] = seq;
  c->hits.fetch_add(1, std::memory_order_relaxed);
}

__attribute__((noinline)) void fire(int w, uintptr_t seq) {
  SDT_PROBE2(sdttest, , , tick, w, seq);
}

__attribute__((noinline)) void fire_tail(int w) { SDT_PROBE1(sdttest, , , tail, w); }

mk::Options options() {
  mk::Options o;
  o.cpus = 1;
  o.quiet = true;
  return o;
}

std::vector<mk::u32> probe_ids(mk::Kernel &k, const char *desc) {
  std::vector<mk::u32> ids;
  for (const mk::ProbeInfo &p : k.probes().match(mk::ProbeDesc::parse(desc)))
    ids.push_back(p.id);
  return ids;
}

} // namespace

TEST_CASE("sdt: the test binary's own probe sites are recorded") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  auto ids = probe_ids(k, "sdttest:::tick");
  REQUIRE(ids.size() == 1);
  auto p = k.probes().probe(ids[0]);
  REQUIRE(p);
  CHECK(p->module == "kernel");
  CHECK(p->function == "fire");
  CHECK(k.probes().sites(ids[0]).size() >= 1);
  CHECK(p->argtypes == std::vector<std::string>{"int", "long"});
}

TEST_CASE("sdt: 100 000 enables and disables while workers fire" * doctest::test_suite("long")) {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  auto ids = probe_ids(k, "sdttest:::");
  REQUIRE(ids.size() == 2);

  Counts c;
  c.tick_id = probe_ids(k, "sdttest:::tick").at(0);
  std::atomic<bool> stop{false};
  std::atomic<long long> calls{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; w++)
    workers.emplace_back([&, w] {
      mkt::lowest_priority();
      uintptr_t seq = 0;
      long long n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        fire(w, ++seq);
        fire_tail(w);
        n++;
      }
      calls += n;
    });
  const int cycles = mkt::stress_cycles(100000);
  for (int i = 0; i < cycles / 2; i++) {
    auto e = k.probes().enable(ids, on_fire, &c);
    REQUIRE(e);
    k.probes().disable(*e);
  }
  stop = true;
  for (auto &t : workers)
    t.join();
  CHECK(c.bad == 0);
  CHECK(c.hits <= 2 * calls.load()); // tick and tail per iteration
  MESSAGE("firings seen in enabled windows: " << c.hits.load() << " of "
                                              << calls.load() << " calls");
  CHECK(k.probes().patch_batches() == (mk::u64)cycles);
}

TEST_CASE("sdt: held windows count exactly, in both patch modes") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  auto ids = probe_ids(k, "sdttest:::tick");
  REQUIRE(ids.size() == 1);
  for (mk::PatchMode mode : {mk::PatchMode::Call, mk::PatchMode::Breakpoint}) {
    Counts c;
    c.tick_id = ids[0];
    uintptr_t seq[kWorkers] = {};
    auto run = [&](int n) {
      std::vector<std::thread> ts;
      for (int w = 0; w < kWorkers; w++)
        ts.emplace_back([&, w] {
          for (int i = 0; i < n; i++)
            fire(w, ++seq[w]);
        });
      for (auto &t : ts)
        t.join();
    };
    for (int round = 0; round < 20; round++) {
      long long before = c.hits;
      auto e = k.probes().enable(ids, on_fire, &c, mode);
      REQUIRE(e);
      run(1000);
      CHECK(c.hits - before == kWorkers * 1000);
      k.probes().disable(*e);
      before = c.hits;
      run(1000);
      CHECK(c.hits == before);
    }
    CHECK(c.bad == 0);
  }
}

TEST_CASE("sdt: two kernels in one process number their probes apart") {
  mk::Kernel k1(options());
  REQUIRE(k1.boot());
  mk::Kernel k2(options());
  REQUIRE(k2.boot());
  // The same probes, the same ids, each kernel its own registry.
  auto a = probe_ids(k1, "sdttest:::tick"), b = probe_ids(k2, "sdttest:::tick");
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  CHECK(a == b);
  CHECK(k1.probes().dtrace_begin_id() == k2.probes().dtrace_begin_id());
  // Enabling it in one fires only that kernel's handler.
  Counts c1, c2;
  c1.tick_id = a[0];
  c2.tick_id = b[0];
  auto e = k1.probes().enable(a, on_fire, &c1);
  REQUIRE(e);
  fire(0, 1);
  CHECK(c1.hits == 1);
  CHECK(c2.hits == 0);
  // The kernel image's site is one for both: the second kernel is refused
  // rather than taking it over.
  auto clash = k2.probes().enable(b, on_fire, &c2);
  REQUIRE(!clash);
  CHECK(clash.error().message.find("enabled by another kernel in this "
                                   "process") != std::string::npos);
  k1.probes().disable(*e);
  auto e2 = k2.probes().enable(b, on_fire, &c2);
  REQUIRE(e2);
  fire(1, 1);
  CHECK(c1.hits == 1);
  CHECK(c2.hits == 1);
  k2.probes().disable(*e2);
}
