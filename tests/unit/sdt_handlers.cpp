// Probe handlers (the registry's attach/detach, as modules use them through
// <sys/sdt.h>) while other threads fire the probe:
//
//  - 100 000 attach/detach cycles while two threads fire (20 000 under
//    AddressSanitizer, mkt::stress_cycles): no crash, every
//    call carries arguments a worker really passed, and no call reaches a
//    handler after its detach returned and a grace period passed;
//  - windows where the handler set is held: exact counts, in priority
//    order, beside a DTrace-style consumer;
//  - a module whose handler fires without pause on two threads is
//    unloaded, again and again, with the arena poisoning freed code with
//    int3: a call into freed memory would trap and end the test binary.
//
// The probes are this binary's own (kernel image sites).
#include "../../kernel/kernel.h"
#include "../../sdt/registry.h"
#include "../../sdt/x86_trampoline.h"
#include "kernel_support.h"

#include <sys/sdt.h>

#include <doctest/doctest.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <chrono>
#include <thread>
#include <unistd.h>
#include <vector>

SDT_PROBE_DEFINE2(sdthot, , , hot, "int", "long");

namespace {

constexpr int kWorkers = 2;

__attribute__((noinline)) void fire_hot(int w, uintptr_t seq) {
  SDT_PROBE2(sdthot, , , hot, w, seq);
}

// A handler's view of the firings it got.
struct Counter {
  std::atomic<long long> hits{0};
  std::atomic<long long> bad{0};
  std::atomic<bool> detached{false}; // set once detach + grace period ended
  std::atomic<long long> late{0};    // calls after that
};

void count(void *data, uintptr_t w, uintptr_t seq, uintptr_t, uintptr_t,
           uintptr_t, uintptr_t) {
  auto *c = (Counter *)data;
  if (w >= (uintptr_t)kWorkers || seq == 0)
    c->bad++;
  if (c->detached.load(std::memory_order_relaxed))
    c->late++;
  c->hits.fetch_add(1, std::memory_order_relaxed);
}

mk::HandlerSpec spec(mk::ModuleHandler fn, void *data, int prio,
                     const char *key) {
  mk::HandlerSpec h;
  h.fn = fn;
  h.data = data;
  h.prio = prio;
  h.module = "kernel";
  h.function = "test";
  h.key = key;
  return h;
}

mk::Options options() {
  mk::Options o;
  o.cpus = 1;
  o.quiet = true;
  return o;
}

using FireFn = void (*)(int, uintptr_t);

// Workers firing sdthot:::hot (or `fire`'s probe) until stopped.
class Firing {
public:
  explicit Firing(FireFn fire = fire_hot) {
    for (int w = 0; w < kWorkers; w++)
      ts_.emplace_back([this, w, fire] {
        mkt::lowest_priority();
        uintptr_t seq = 0;
        while (!stop_.load(std::memory_order_relaxed))
          fire(w, ++seq);
        calls_ += (long long)seq;
      });
  }
  ~Firing() { stop(); }
  void stop() {
    stop_ = true;
    for (auto &t : ts_)
      if (t.joinable())
        t.join();
  }
  long long calls() const { return calls_; }

private:
  std::atomic<bool> stop_{false};
  std::atomic<long long> calls_{0};
  std::vector<std::thread> ts_;
};

} // namespace

namespace {
std::string test_modules() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  REQUIRE(n > 0);
  std::string self(buf, (size_t)n);
  return self.substr(0, self.rfind('/')) + "/test-modules";
}

// The asm-goto probe of tp_gotohot.ko and its firing function.
FireFn load_gotohot(mk::Kernel &k) {
  auto f = k.linker().load("tp_gotohot");
  REQUIRE_MESSAGE(static_cast<bool>(f), (f ? "" : f.error().message));
  return (FireFn)(uintptr_t)(*f)->globals.at("tpgh_fire");
}

// Once on the test binary's call site (the trampoline's path), once on an
// asm-goto site of a module (its block calls a lone handler itself).
void attach_detach_cycles(bool asmgoto) {
  mk::Options o = options();
  o.module_path = {test_modules()};
  mk::Kernel k(o);
  REQUIRE(k.boot());
  const FireFn fire = asmgoto ? load_gotohot(k) : fire_hot;
  const mk::ProbeDesc hot =
      mk::ProbeDesc::parse(asmgoto ? "gotohot:::hot" : "sdthot:::hot");
  REQUIRE(k.probes().match(hot).size() == 1);
  Counter base, cycled[8];
  Firing firing(fire);
  // Half the cycles with a second handler on the probe (only the list
  // changes, the sites stay patched), half alone (every attach patches the
  // sites, every detach restores them).
  const int cycles = mkt::stress_cycles(100000);
  int attached = 0;
  for (int i = 0; i < cycles; i++) {
    if (i == 0) {
      auto b = k.probes().attach(hot, false, spec(count, &base, 5, "base"));
      REQUIRE(b);
    }
    if (i == cycles / 2)
      REQUIRE(k.probes().detach(count, &base, "base"));
    Counter &c = cycled[i % 8];
    auto e = k.probes().attach(hot, false, spec(count, &c, 10, "cycle"));
    REQUIRE(e);
    attached++;
    REQUIRE(k.probes().detach(count, &c, "cycle"));
    if (i % 1000 == 999) {
      // After a grace period no call may reach a detached handler.
      k.probes().synchronize();
      for (Counter &d : cycled)
        d.detached = true;
      std::this_thread::yield();
      for (Counter &d : cycled)
        d.detached = false;
    }
  }
  k.probes().synchronize();
  for (Counter &d : cycled)
    d.detached = true;
  const long long after = cycled[0].hits + cycled[1].hits;
  usleep(20000); // the workers keep firing
  firing.stop();
  long long hits = base.hits, late = 0, bad = base.bad;
  for (Counter &d : cycled)
    hits += d.hits, late += d.late, bad += d.bad;
  CHECK(attached == cycles);
  CHECK(bad == 0);
  CHECK(late == 0);
  CHECK(cycled[0].hits + cycled[1].hits == after);
  CHECK(base.hits > 0);
  MESSAGE("handler calls " << hits << " of " << firing.calls() << " firings");
}
} // namespace

TEST_CASE("handlers: 100 000 attach/detach cycles while two threads fire" * doctest::test_suite("long")) {
  attach_detach_cycles(false);
}

TEST_CASE("handlers: 100 000 attach/detach cycles on an asm-goto site" * doctest::test_suite("long")) {
  attach_detach_cycles(true);
}

TEST_CASE("handlers: held windows count exactly, in priority order") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  const mk::ProbeDesc hot = mk::ProbeDesc::parse("sdthot:::hot");
  auto ids = k.probes().match(hot);
  REQUIRE(ids.size() == 1);
  // Each handler checks the one before it ran first on this thread.
  static thread_local int stage = 0;
  static std::atomic<long long> in_order{0}, out_of_order{0};
  auto first = [](void *, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                  uintptr_t, uintptr_t) { stage = 1; };
  auto second = [](void *, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                   uintptr_t, uintptr_t) {
    (stage == 1 ? in_order : out_of_order)++;
    stage = 2;
  };
  auto third = [](void *, mk::u32, const uintptr_t *) {
    (stage == 2 ? in_order : out_of_order)++;
    stage = 0;
  };
  uintptr_t seq[kWorkers] = {};
  auto run = [&](int n) {
    std::vector<std::thread> ts;
    for (int w = 0; w < kWorkers; w++)
      ts.emplace_back([&, w] {
        for (int i = 0; i < n; i++)
          fire_hot(w, ++seq[w]);
      });
    for (auto &t : ts)
      t.join();
  };
  for (int round = 0; round < 20; round++) {
    Counter c;
    in_order = out_of_order = 0;
    // Attached out of order: priority decides, not the order of attach.
    REQUIRE(k.probes().attach(hot, false, spec(second, nullptr, 10, "2")));
    auto dt = k.probes().enable({ids[0].id}, third, nullptr); // priority 10,
    REQUIRE(dt);                                              // made later
    REQUIRE(k.probes().attach(hot, false, spec(first, nullptr, 20, "1")));
    REQUIRE(k.probes().attach(hot, false, spec(count, &c, -5, "4")));
    run(1000);
    CHECK(c.hits == kWorkers * 1000);
    CHECK(in_order == 2 * kWorkers * 1000);
    CHECK(out_of_order == 0);
    auto hs = k.probes().handlers(ids[0].id);
    REQUIRE(hs.size() == 4);
    CHECK(hs[0].key == "1");
    CHECK(hs[1].key == "2");
    CHECK(hs[2].dtrace);
    CHECK(hs[3].key == "4");
    CHECK(k.probes().detach(second, nullptr, "2"));
    CHECK(k.probes().detach(first, nullptr, "1"));
    k.probes().disable(*dt);
    // Alone: the trampoline's one-handler path.
    run(1000);
    CHECK(c.hits == 2 * kWorkers * 1000);
    CHECK(k.probes().detach(count, &c, "4"));
    k.probes().synchronize();
    run(1000);
    CHECK(c.hits == 2 * kWorkers * 1000);
    CHECK(c.bad == 0);
  }
}

TEST_CASE("handlers: the same (function, data) twice is refused") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  const mk::ProbeDesc hot = mk::ProbeDesc::parse("sdthot:::hot");
  Counter a, b;
  int err = 0;
  REQUIRE(k.probes().attach(hot, false, spec(count, &a, 10, "x"), &err));
  auto again = k.probes().attach(hot, false, spec(count, &a, 3, "y"), &err);
  REQUIRE_FALSE(again);
  CHECK(err == EEXIST);
  CHECK(again.error().message.find("already attached to "
                                   "sdthot:kernel:fire_hot:hot") == 0);
  CHECK(k.probes().attach(hot, false, spec(count, &b, 10, "x"), &err));
  err = 0;
  auto none = k.probes().attach(std::vector<mk::u32>{}, spec(count, &a, 1, "z"),
                                &err);
  CHECK_FALSE(none);
  CHECK(err == ENOENT);
  CHECK_FALSE(k.probes().detach(count, &a, "y"));
  CHECK(k.probes().detach(count, &a, "x"));
  CHECK(k.probes().detach(count, &b, "x"));
  CHECK_FALSE(k.probes().detach(count, &b, "x"));
}

namespace {
// build/ARCH/test-modules, beside this binary.
} // namespace

namespace {
void unload_while_firing(bool asmgoto) {
  mk::Options o = options();
  o.module_path = {test_modules()};
  o.poison_freed_code = true; // a call into freed code traps
  mk::Kernel k(o);
  REQUIRE(k.boot());
  const FireFn fire = asmgoto ? load_gotohot(k) : fire_hot;
  const mk::ProbeDesc hot =
      mk::ProbeDesc::parse(asmgoto ? "gotohot:::hot" : "sdthot:::hot");
  Firing firing(fire);
  long long total = 0;
  for (int round = 0; round < 60; round++) {
    auto f = k.linker().load("tp_hot");
    REQUIRE_MESSAGE(static_cast<bool>(f), (f ? "" : f.error().message));
    // Left attached every other round: the kernel detaches it.
    if (round % 2)
      REQUIRE(k.sysctl().write("tphot.forget", "1"));
    // Until the handler has run on both threads a few times.  Sleeping,
    // not yielding: the firing threads run at the lowest priority, and
    // beside make test's other suites a yield can come straight back for
    // as long as a spin count would allow; 30 s bounds a hang.
    long long hits = 0;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (hits < 1000 && std::chrono::steady_clock::now() < give_up) {
      hits = std::stoll(k.sysctl().find("tphot.hits")->get());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    CHECK(hits >= 1000);
    total += hits;
    REQUIRE(k.linker().unload(*f));
    CHECK(k.probes().handlers(k.probes().match(hot)[0].id).empty());
  }
  firing.stop();
  MESSAGE("handler calls before the unloads: " << total);
}
} // namespace

TEST_CASE("handlers: a module unloads while its handler fires on two threads") {
  unload_while_firing(false);
}

TEST_CASE("handlers: a module unloads while its handler fires from asm-goto "
          "blocks") {
  unload_while_firing(true);
}

namespace {
// Where each handler was called from.
std::atomic<uintptr_t> g_from_a{0}, g_from_b{0};
__attribute__((noinline)) void from_a(void *, uintptr_t, uintptr_t, uintptr_t,
                                      uintptr_t, uintptr_t, uintptr_t) {
  g_from_a = (uintptr_t)__builtin_return_address(0);
}
__attribute__((noinline)) void from_b(void *, uintptr_t, uintptr_t, uintptr_t,
                                      uintptr_t, uintptr_t, uintptr_t) {
  g_from_b = (uintptr_t)__builtin_return_address(0);
}
// A handler that fires a probe itself: the trampoline it reaches is
// entered inside a read-side section, in probe context, where nothing
// fires (a handler never re-enters itself).
std::atomic<int> g_nested{0};
Counter g_inner;
__attribute__((noinline)) void refire(void *, uintptr_t w, uintptr_t seq,
                                      uintptr_t, uintptr_t, uintptr_t,
                                      uintptr_t) {
  if (g_nested++ < 1000)
    fire_hot((int)w, seq);
}
} // namespace

TEST_CASE("handlers: a lone handler is called by its probe's trampoline") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  const mk::ProbeDesc hot = mk::ProbeDesc::parse("sdthot:::hot");
  // Alone: called straight from the trampoline, in the module arena.
  REQUIRE(k.probes().attach(hot, false, spec(from_a, nullptr, 10, "a")));
  fire_hot(0, 1);
  CHECK(k.arena().contains(g_from_a));
  // With another: from the registry's loop, in the kernel's text.
  REQUIRE(k.probes().attach(hot, false, spec(from_b, nullptr, 5, "b")));
  fire_hot(0, 2);
  CHECK_FALSE(k.arena().contains(g_from_a));
  CHECK_FALSE(k.arena().contains(g_from_b));
  CHECK(k.probes().detach(from_b, nullptr, "b"));
  fire_hot(0, 3);
  CHECK(k.arena().contains(g_from_a));
  // A thread that never fired a probe is not an RCU reader yet: its first
  // firing takes the generic path, which registers it; later ones do not.
  std::thread([&] {
    g_from_a = 0;
    fire_hot(1, 1);
    CHECK_FALSE(k.arena().contains(g_from_a));
    fire_hot(1, 2);
    CHECK(k.arena().contains(g_from_a));
  }).join();
  CHECK(k.probes().detach(from_a, nullptr, "a"));
  // Firing from inside a handler: the inner firing returns at once, from
  // the inline path (a lone handler) and from the registry's loop.
  REQUIRE(k.probes().attach(hot, false, spec(refire, nullptr, 10, "r")));
  fire_hot(0, 4);
  CHECK(g_nested == 1);
  CHECK_FALSE(mk::in_probe_context());
  REQUIRE(k.probes().attach(hot, false, spec(from_b, nullptr, 5, "b")));
  fire_hot(0, 5);
  CHECK(g_nested == 2);
  CHECK_FALSE(mk::in_probe_context());
  CHECK(k.probes().detach(from_b, nullptr, "b"));
  CHECK(k.probes().detach(refire, nullptr, "r"));
  k.probes().synchronize();
}

namespace {
// What a handler on gotohot:::hot saw.
std::atomic<uintptr_t> g_goto_from{0};
std::atomic<int> g_goto_calls{0}, g_goto_context{0};
FireFn g_gotohot = nullptr;
__attribute__((noinline)) void goto_handler(void *data, uintptr_t w,
                                            uintptr_t seq, uintptr_t, uintptr_t,
                                            uintptr_t, uintptr_t) {
  g_goto_from = (uintptr_t)__builtin_return_address(0);
  g_goto_calls++;
  g_goto_context += mk::in_probe_context();
  CHECK(data == &g_goto_calls);
  CHECK(seq != 0);
  // Firing the same probe again from here goes nowhere.
  if (w == 7)
    g_gotohot(7, seq);
}
} // namespace

TEST_CASE("handlers: an asm-goto block calls a lone handler itself") {
  mk::Options o = options();
  o.module_path = {test_modules()};
  mk::Kernel k(o);
  REQUIRE(k.boot());
  g_gotohot = load_gotohot(k);
  const mk::ProbeDesc hot = mk::ProbeDesc::parse("gotohot:::hot");
  auto in_fire = [&](uintptr_t pc) {
    return k.probes().code().symbolize(pc).rfind("tp_gotohot`tpgh_fire+", 0) == 0;
  };
  REQUIRE(k.probes().attach(hot, false,
                            spec(goto_handler, &g_goto_calls, 10, "g")));
  // Alone: from the block, inside tpgh_fire, in probe context.
  g_gotohot(0, 1);
  CHECK(g_goto_calls == 1);
  CHECK(in_fire(g_goto_from));
  CHECK(g_goto_context == 1);
  // A handler that fires the probe again is not called again.
  g_gotohot(7, 2);
  CHECK(g_goto_calls == 2);
  CHECK_FALSE(mk::in_probe_context());
  // With another handler: the block leaves the list to its call site and
  // the registry's loop.
  REQUIRE(k.probes().attach(hot, false, spec(from_b, nullptr, 5, "b")));
  g_gotohot(0, 3);
  CHECK(g_goto_calls == 3);
  CHECK_FALSE(in_fire(g_goto_from));
  CHECK(k.probes().detach(from_b, nullptr, "b"));
  // Beside a DTrace-style callback too.
  std::atomic<int> cb{0};
  auto e = k.probes().enable(
      {(mk::u32)k.probes().match(hot)[0].id},
      [](void *c, mk::u32, const uintptr_t *) { (*(std::atomic<int> *)c)++; },
      &cb);
  REQUIRE(e);
  g_gotohot(0, 4);
  CHECK(g_goto_calls == 4);
  CHECK(cb == 1);
  CHECK_FALSE(in_fire(g_goto_from));
  k.probes().disable(*e);
  g_gotohot(0, 5);
  CHECK(in_fire(g_goto_from));
  // A thread that is not an RCU reader yet takes the call site, which
  // makes it one; its next firing takes the block's path.
  std::thread([&] {
    g_gotohot(0, 6);
    CHECK_FALSE(in_fire(g_goto_from));
    g_gotohot(0, 7);
    CHECK(in_fire(g_goto_from));
  }).join();
  CHECK(g_goto_calls == 7);
  CHECK(g_goto_context == 7);
  CHECK(k.probes().detach(goto_handler, &g_goto_calls, "g"));
  g_gotohot(0, 8);
  CHECK(g_goto_calls == 7);
  k.probes().synchronize();
}

namespace {
mk::ProbeRegistry *g_reg = nullptr;
std::atomic<int> g_oneshot{0};
void oneshot(void *, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
             uintptr_t) {
  g_oneshot++;
  // Detaching from inside the handler returns at once (no grace period
  // to wait for, which this very call would hold up).
  CHECK(g_reg->detach(oneshot, nullptr, "once"));
}
} // namespace

TEST_CASE("handlers: a handler may detach itself") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  g_reg = &k.probes();
  const mk::ProbeDesc hot = mk::ProbeDesc::parse("sdthot:::hot");
  REQUIRE(k.probes().attach(hot, false, spec(oneshot, nullptr, 10, "once")));
  for (int i = 1; i <= 5; i++)
    fire_hot(0, (uintptr_t)i);
  CHECK(g_oneshot == 1);
  CHECK(k.probes().handlers(k.probes().match(hot)[0].id).empty());
  g_reg = nullptr;
}

TEST_CASE("handlers: a trampoline fits its room") {
  // Trampolines lie kProbeTrampolineSize apart in the arena: one longer
  // than that would overwrite the next.
  mk::x86::TrampolinePlan p;
  p.inline_rcu = true;
  p.fire = 0x401000, p.fire_list = 0x402000, p.rcu_wake = 0x403000;
  p.slow = 0x60010000;
  p.tls_ctr = -384, p.tls_reader = -16, p.tls_context = -8, p.tls_frame = -24;
  p.gp_ctr = 0x5000000, p.gp_futex = 0x5000008;
  p.list_n = 16, p.list_mfn = 32, p.list_ctx = 40, p.list_fn = 24;
  p.slot_id = 8;
  std::vector<mk::u8> buf(4096);
  CHECK(mk::x86::write_probe_slow_path(buf.data(), 0x60010000, p) <=
        mk::x86::kProbeSlowPathSize);
  const size_t n = mk::x86::write_probe_trampoline(buf.data(), 0x60000000,
                                                   0x1234000, p);
  CHECK(n <= mk::x86::kProbeTrampolineSize);
  p.inline_rcu = false;
  CHECK(mk::x86::write_probe_trampoline(buf.data(), 0x60000000, 0x1234000,
                                        p) <= mk::x86::kProbeTrampolineSize);
}
