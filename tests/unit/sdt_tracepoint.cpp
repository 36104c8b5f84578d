// asm-goto probe sites in the kernel image: this test binary is the image
// (its objects pass the site recorder like the kernel's), and the sites
// below are asm-goto ones whatever the build's style.  The image's records
// come from its own set_sdt_tracepoint_set at boot, named from its symbol
// table; the argument is computed only while the probe is enabled; a call
// site and an asm-goto site may serve one probe.
#include "../../kernel/kernel.h"
#include "../../sdt/registry.h"

#include <sys/sdt.h>

#include <doctest/doctest.h>

#include <atomic>

SDT_PROBE_DEFINE2(tptest, , , go, "int", "long");
SDT_PROBE_DEFINE1(tptest, , , mixed, "int");

namespace {

std::atomic<int> g_costly{0};

__attribute__((noinline)) long costly(int i) {
  g_costly++;
  return (long)i * 1000;
}

__attribute__((noinline)) void tp_go(int i) {
  SDT_GOTO_PROBE2(tptest, , , go, i, costly(i));
}

__attribute__((noinline)) void tp_mixed(int i) {
  SDT_GOTO_PROBE1(tptest, , , mixed, i);
  SDT_CALL_PROBE1(tptest, , , mixed, i + 100);
}

__attribute__((noinline)) bool tp_enabled() {
  return SDT_GOTO_PROBE_ENABLED(tptest, , , go);
}

struct Seen {
  std::atomic<int> n{0};
  std::atomic<long> sum0{0}, sum1{0};
};

void on_fire(void *ctx, mk::u32, const uintptr_t *args) {
  auto *s = (Seen *)ctx;
  s->n++;
  s->sum0 += (long)args[0];
  s->sum1 += (long)args[1];
}

mk::Options options() {
  mk::Options o;
  o.cpus = 1;
  o.quiet = true;
  return o;
}

std::vector<mk::ProbeInfo> probes(mk::Kernel &k, const char *desc) {
  return k.probes().match(mk::ProbeDesc::parse(desc));
}

} // namespace

TEST_CASE("tracepoint: the image's asm-goto records become probes at boot") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  auto go = probes(k, "tptest:kernel:tp_go:go");
  REQUIRE(go.size() == 1);
  CHECK(go[0].argtypes == std::vector<std::string>{"int", "long"});
  auto sites = k.probes().sites(go[0].id);
  int gotos = 0, calls = 0;
  for (const mk::SiteInfo &s : sites) {
    gotos += s.kind == "asm-goto";
    calls += s.kind == "call" || s.kind == "tail call";
    CHECK(s.len == 5);
    CHECK_FALSE(s.enabled);
  }
  CHECK(gotos == 1); // the patch point
  CHECK(calls == 1); // the out-of-line block's call (a tail call here: the
                     // probe is tp_go's last act)
  // The is-enabled test is a probe of its own function.
  CHECK(probes(k, "tptest:kernel:tp_enabled:go").size() == 1);
}

TEST_CASE("tracepoint: arguments are computed only while enabled") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  auto go = probes(k, "tptest:kernel:tp_go:go");
  REQUIRE(go.size() == 1);
  g_costly = 0;
  for (int i = 0; i < 1000; i++)
    tp_go(i);
  CHECK(g_costly == 0);
  CHECK_FALSE(tp_enabled());
  Seen seen;
  auto e = k.probes().enable({go[0].id}, on_fire, &seen);
  REQUIRE(e);
  for (int i = 0; i < 10; i++)
    tp_go(i);
  k.probes().disable(*e);
  CHECK(g_costly == 10);
  CHECK(seen.n == 10);
  CHECK(seen.sum0 == 45);
  CHECK(seen.sum1 == 45000);
  for (int i = 0; i < 1000; i++)
    tp_go(i);
  CHECK(g_costly == 10);
  for (const mk::SiteInfo &s : k.probes().sites(go[0].id))
    CHECK_FALSE(s.enabled);
}

TEST_CASE("tracepoint: the is-enabled test follows its probe") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  auto en = probes(k, "tptest:kernel:tp_enabled:go");
  REQUIRE(en.size() == 1);
  CHECK_FALSE(tp_enabled());
  Seen seen;
  auto e = k.probes().enable({en[0].id}, on_fire, &seen);
  REQUIRE(e);
  CHECK(tp_enabled());
  k.probes().disable(*e);
  CHECK_FALSE(tp_enabled());
  CHECK(seen.n == 0); // an is-enabled site fires nothing
}

TEST_CASE("tracepoint: one probe served by both styles") {
  mk::Kernel k(options());
  REQUIRE(k.boot());
  auto mixed = probes(k, "tptest:::mixed");
  REQUIRE(mixed.size() == 1);
  int gotos = 0, calls = 0;
  for (const mk::SiteInfo &s : k.probes().sites(mixed[0].id)) {
    gotos += s.kind == "asm-goto";
    calls += s.kind == "call" || s.kind == "tail call";
  }
  CHECK(gotos == 1);
  // The block's call and the call-style site, which the compiler may have
  // copied into both paths (tail duplication).
  CHECK(calls >= 2);
  Seen seen;
  auto e = k.probes().enable({mixed[0].id}, on_fire, &seen);
  REQUIRE(e);
  tp_mixed(1);
  tp_mixed(2);
  k.probes().disable(*e);
  CHECK(seen.n == 4);
  CHECK(seen.sum0 == 1 + 101 + 2 + 102);
}
