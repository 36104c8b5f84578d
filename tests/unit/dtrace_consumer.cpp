// The consumer (sdt/dtrace/consumer.cpp) end to end, without patching:
// a program is compiled against made-up probes and fired by calling the
// probe callback directly, as Sdt's dispatcher would; the test reads what
// the consumer prints.
#include "../../sdt/dtrace/consumer.h"
#include "text.h"

#include <doctest/doctest.h>

#include <thread>

using namespace mk;
using namespace mk::dt;

namespace {

// Error lines with their BPF pc (which the code generator decides) as N.
std::string no_pc(const std::string &s) {
  return mkt::replace_numbered(s, "at BPF pc ", "at BPF pc N");
}

constexpr u32 kBegin = 1, kEnd = 2, kError = 3;

class Capture : public Sink {
public:
  void out(const std::string &s) override { stdout_ += s; }
  void err(const std::string &line) override { stderr_ += line + "\n"; }
  std::string stdout_, stderr_;
};

ProbeInfo probe(u32 id, const char *prov, const char *func, const char *name) {
  ProbeInfo p;
  p.id = id;
  p.provider = prov;
  p.module = std::string(prov) == "dtrace" ? "" : "mod";
  p.function = func;
  p.name = name;
  return p;
}

// A consumer of `src` whose clause i matches `matched[i]`.
struct Trace {
  Capture sink;
  std::unique_ptr<Consumer> c;

  Trace(const std::string &src, std::vector<std::vector<ProbeInfo>> matched,
        ConsumerOptions o = {}) {
    auto ast = parse(src);
    REQUIRE_MESSAGE(ast, (ast ? "" : ast.error().message));
    REQUIRE(ast->clauses.size() == matched.size());
    auto prog = compile(*ast, matched);
    REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().message));
    std::vector<EcbInfo> ecbs;
    for (size_t i = 0; i < matched.size(); i++)
      for (const ProbeInfo &p : matched[i]) {
        EcbInfo e;
        e.epid = (u32)ecbs.size() + 1;
        e.clause = (u32)i;
        e.probe = p;
        e.full = p.provider + ":" + p.module + ":" + p.function + ":" + p.name;
        ecbs.push_back(e);
      }
    if (!o.threads)
      o.threads = 8;
    c = std::make_unique<Consumer>(std::move(*prog), std::move(ecbs), o, sink,
                                   kBegin, kEnd, kError);
    REQUIRE(c->init());
  }
  void fire(u32 id, std::vector<uintptr_t> a = {}) {
    a.resize(6);
    consumer_fire(c.get(), id, a.data());
  }
  // What a run ends with: drain, END, the closing output.
  void finish() {
    c->drain();
    c->stop();
    c->end();
    c->drain();
    c->print_end();
  }
};

const ProbeInfo P10 = probe(10, "test", "func", "tick");
const ProbeInfo P11 = probe(11, "test", "other", "tock");

} // namespace

TEST_CASE("dtrace consumer: the default action prints DTrace's line") {
  Trace t("test:::tick", {{P10}});
  t.fire(10);
  t.fire(10);
  t.finish();
  CHECK(t.sink.stdout_ == "CPU     ID                    FUNCTION:NAME\n"
                          "  0     10                        func:tick \n"
                          "  0     10                        func:tick \n"
                          "\n");
  CHECK(t.sink.stderr_ == "");
  CHECK(t.c->records() == 2);
}

TEST_CASE("dtrace consumer: trace() widths, quiet and not") {
  // As wide as the type's widest value, as DTrace prints them.
  Trace t("test:::tick { trace(arg0); trace(cpu); trace(probefunc); "
          "trace((uint8_t)arg0); trace((short)arg0); trace((uint64_t)arg0); }",
          {{P10}});
  t.fire(10, {(uintptr_t)-3});
  t.c->drain();
  CHECK(t.sink.stdout_ == "CPU     ID                    FUNCTION:NAME\n"
                          "  0     10                        func:tick "
#if defined(__x86_64__)
                          "                  -3"
#else
                          "          4294967293"
#endif
                          "          0  func                             "
                          " 253    -3"
#if defined(__x86_64__)
                          " 18446744073709551613\n");
#else
                          "           4294967293\n");
#endif
  ConsumerOptions q;
  q.quiet = true;
  Trace u("test:::tick { trace(arg0); trace(\"|\"); trace(probename); }", {{P10}}, q);
  u.fire(10, {7});
  u.c->drain();
  CHECK(u.sink.stdout_ == "7|tick");
}

TEST_CASE("dtrace consumer: predicates, arithmetic, strings, ?:") {
  ConsumerOptions q;
  q.quiet = true;
  Trace t("test::: /arg0 % 2 == 0 && probename != \"tock\"/ "
          "{ printf(\"%d %s %d %d\\n\", arg0 * 3 - 1, arg0 > 2 ? \"big\" : \"small\", "
          "(arg0 << 4) | 1, -arg0 / 2); }",
          {{P10, P11}}, q);
  for (uintptr_t i = 0; i < 6; i++)
    t.fire(i == 5 ? 11 : 10, {i});
  t.fire(11, {4});
  t.c->drain();
  CHECK(t.sink.stdout_ == "-1 small 1 0\n"
                          "5 small 33 -1\n"
                          "11 big 65 -2\n");
}

TEST_CASE("dtrace consumer: stringof() copies a string in, and faults softly") {
  static const char word[] = "hello";
  ConsumerOptions q;
  q.quiet = true;
  Trace t("test:::tick { printf(\"[%s] %d\\n\", stringof(arg0), strlen(stringof(arg0))); }",
          {{P10}}, q);
  t.fire(10, {(uintptr_t)word});
  t.fire(10, {(uintptr_t)16});
  t.fire(10, {(uintptr_t)word});
  t.c->drain();
  CHECK(t.sink.stdout_ == "[hello] 5\n[hello] 5\n");
  CHECK(no_pc(t.sink.stderr_) == "dtrace: error in dt_clause_0 for probe ID "
                                 "10 (test:mod:func:tick): invalid address "
                                 "(0x10) at BPF pc N\n");
}

TEST_CASE("dtrace consumer: divide-by-zero; ERROR clauses see the fault") {
  ConsumerOptions q;
  q.quiet = true;
  // Statements count probe descriptions, as DTrace's: the first clause is
  // statements 0 (tock) and 1 (tick), the second statement 2.
  Trace t("test:::tock, test:::tick /(100 / (arg0 - 1)) > 0/ { trace(arg0); } "
          "test:::tock { trace(10 / arg0); } "
          "dtrace:::ERROR { printf(\"ERROR probe=%d stmt=%d fault=%d\\n\", "
          "arg1, arg2, arg4); }",
          {{P10, P11}, {P11}, {probe(kError, "dtrace", "", "ERROR")}}, q);
  t.fire(10, {1});
  t.fire(11, {0});
  t.c->drain();
  CHECK(t.sink.stdout_ == "ERROR probe=10 stmt=1 fault=4\n"
                          "ERROR probe=11 stmt=2 fault=4\n");
  CHECK(no_pc(t.sink.stderr_) ==
        "dtrace: error in dt_clause_1 for probe ID 10 (test:mod:func:tick): "
        "divide-by-zero at BPF pc N\n"
        "dtrace: error in dt_clause_2 for probe ID 11 (test:mod:other:tock): "
        "divide-by-zero at BPF pc N\n");
}

TEST_CASE("dtrace consumer: aggregations, merged and printed at the end") {
  Trace t("test::: { @c[probename] = count(); @s = sum(arg0); @mn = min(arg0); "
          "@mx = max(arg0); @a = avg(arg0); @n[probefunc, arg0 % 2] = count(); }",
          {{P10, P11}});
  for (uintptr_t i = 1; i <= 6; i++)
    t.fire(i % 3 ? 10 : 11, {i});
  t.finish();
  CHECK(t.sink.stdout_ ==
        "\n"
        "  tock                                                              2\n"
        "  tick                                                              4\n"
        "               21\n"
        "                1\n"
        "                6\n"
        "                3\n"
        "  other                                                             0                1\n"
        "  other                                                             1                1\n"
        "  func                                                              0                2\n"
        "  func                                                              1                2\n");
}

TEST_CASE("dtrace consumer: printa() prints now and not again at the end") {
  ConsumerOptions q;
  q.quiet = true;
  Trace t("test:::tick { @[arg0] = count(); } "
          "test:::tock { printa(\"%d:%@d\\n\", @); exit(0); }",
          {{P10}, {P11}}, q);
  t.fire(10, {5});
  t.fire(10, {5});
  t.fire(10, {7});
  t.fire(11);
  t.fire(10, {7}); // after exit(): not recorded
  CHECK(t.c->exited());
  CHECK(t.c->exit_status() == 0);
  t.finish();
  CHECK(t.sink.stdout_ == "7:1\n5:2\n\n");
}

TEST_CASE("dtrace consumer: BEGIN and END, exit status") {
  ConsumerOptions q;
  q.quiet = true;
  Trace t("BEGIN { printf(\"begin\\n\"); } END { printf(\"end\\n\"); exit(3); }",
          {{probe(kBegin, "dtrace", "", "BEGIN")}, {probe(kEnd, "dtrace", "", "END")}},
          q);
  CHECK(t.c->sdt_probes().empty()); // the consumer fires these itself
  t.c->begin();
  t.finish();
  CHECK(t.sink.stdout_ == "begin\nend\n\n");
  CHECK(t.c->exit_status() == 3);
}

TEST_CASE("dtrace consumer: probes enabled before BEGIN wait for its clauses") {
  ConsumerOptions q;
  q.quiet = true;
  Trace t("BEGIN { s = \"set in BEGIN\"; } test:::tick { printf(\"[%s]\\n\", s); }",
          {{probe(kBegin, "dtrace", "", "BEGIN")}, {P10}}, q);
  t.c->warmup();
  t.fire(10); // enabled, but BEGIN has not run
  t.c->begin();
  t.fire(10);
  t.finish();
  CHECK(t.sink.stdout_ == "[set in BEGIN]\n\n");
  CHECK(t.c->records() == 1);
}

TEST_CASE("dtrace consumer: exit( ) in BEGIN ends a warming-up consumer") {
  ConsumerOptions q;
  q.quiet = true;
  // The rest of the clause still runs, as in DTrace; the next does not.
  Trace t("BEGIN { printf(\"one\\n\"); exit(4); printf(\"two\\n\"); } "
          "BEGIN { printf(\"not run\\n\"); } test:::tick { printf(\"tick\\n\"); }",
          {{probe(kBegin, "dtrace", "", "BEGIN")}, {probe(kBegin, "dtrace", "", "BEGIN")}, {P10}},
          q);
  t.c->warmup();
  t.c->begin();
  CHECK(t.c->exited());
  t.fire(10); // exiting: no more clauses
  t.finish();
  CHECK(t.sink.stdout_ == "one\ntwo\n\n");
  CHECK(t.c->exit_status() == 4);
}

TEST_CASE("dtrace consumer: a full buffer drops records and says so") {
  ConsumerOptions o;
  o.bufsize = 4096;
  o.quiet = true;
  Trace t("test:::tick { trace(arg0); }", {{P10}}, o);
  for (int i = 0; i < 200; i++) // 32 bytes each: 128 fit
    t.fire(10, {1});
  t.c->drain();
  CHECK(t.sink.stderr_ == "dtrace: 72 drops on CPU 0\n");
  CHECK(t.c->drops() == 72);
  CHECK(t.c->records() == 128);
  // Drained, the buffer takes records again, across its end.
  for (int i = 0; i < 100; i++)
    t.fire(10, {2});
  t.c->drain();
  CHECK(t.c->records() == 228);
  CHECK(t.sink.stderr_ == "dtrace: 72 drops on CPU 0\n");
}

TEST_CASE("dtrace consumer: records of several threads, in time order") {
  ConsumerOptions q;
  q.quiet = true;
  Trace t("test:::tick { @ = count(); @q = quantize(arg0); } "
          "test:::tock { printf(\"%d\\n\", arg0); }",
          {{P10}, {P11}}, q);
  std::vector<std::thread> th;
  for (int n = 0; n < 4; n++)
    th.emplace_back([&] {
      for (int i = 0; i < 10000; i++)
        t.fire(10, {(uintptr_t)i});
    });
  for (auto &x : th)
    x.join();
  // One record per thread, each fired after the previous thread's.
  for (uintptr_t n = 0; n < 3; n++)
    std::thread([&] { t.fire(11, {n}); }).join();
  t.finish();
  std::string out = t.sink.stdout_;
  CHECK(out.rfind("0\n1\n2\n\n            40000\n", 0) == 0);
  CHECK(out.find("            4096 |@@@@@@@@@@@@@@@@                         16384    ") !=
        std::string::npos);
}

TEST_CASE("dtrace consumer: equal string keys merge, however they were held") {
  // Two probes in functions of the same name (their names live at two
  // addresses), a literal, and a copied-in string: one row per content.
  static const char func[] = "func";
  ConsumerOptions q;
  q.quiet = true;
  ProbeInfo other = probe(12, "test", "func", "tock");
  Trace t("test:::tick, test:::tock { @[probefunc] = count(); } "
          "test:::tick { @[\"func\"] = count(); @[stringof(arg0)] = count(); }",
          {{P10, other}, {P10}}, q);
  t.fire(10, {(uintptr_t)func});
  t.fire(12, {(uintptr_t)func});
  std::thread([&] { t.fire(12); }).join();
  t.finish();
  CHECK(t.sink.stdout_ == "\n  func                                                              5\n");
}

TEST_CASE("dtrace consumer: args[N] widens by the declared type") {
  ProbeInfo typed = probe(10, "test", "func", "tick");
  typed.argtypes = {"int", "unsigned char", "long", "char *", "unsigned int"};
  ConsumerOptions q;
  q.quiet = true;
  Trace t("test:::tick { printf(\"%d %d %d %s %d|\", args[0], args[1], args[2], "
          "args[3], args[4]); trace(args[0]); }",
          {{typed}}, q);
  t.fire(10, {(uintptr_t)0xffffffffu, 0x1ff, (uintptr_t)-2, (uintptr_t) "s",
              (uintptr_t)-1});
  t.c->drain();
  // On i386 a long is 4 bytes and arg2 alone would read 4294967294.
  CHECK(t.sink.stdout_ == "-1 255 -2 s 4294967295|-1");
}

TEST_CASE("consumer: probes made while it runs join the clauses they match") {
  // Clause 0 matched nothing at first (dtrace -Z); a probe appears later.
  Trace t("test:::tick { @a = count(); } test:::tock { @b = count(); }",
          {{}, {P11}});
  const std::vector<std::vector<ProbeDesc>> descs = {
      {ProbeDesc::parse("test:::tick")}, {ProbeDesc::parse("test:::tock")}};
  t.c->begin();
  t.fire(10); // not joined yet: not counted
  CHECK(t.c->add_probe(P10, descs));
  CHECK_FALSE(t.c->add_probe(probe(12, "test", "f", "other"), descs));
  t.fire(10);
  t.fire(10);
  t.fire(11);
  // Id 10 reused by a new probe of the same name (its module reloaded):
  // the old probe's clause entry must not count it a second time.
  CHECK(t.c->add_probe(probe(10, "test", "again", "tick"), descs));
  t.fire(10);
  t.finish();
  CHECK(t.sink.stdout_ == "\n                3\n                1\n");
}

TEST_CASE("dtrace consumer: clear() and trunc() keep a base; data after them counts") {
  for (DEngine eng : {DEngine::Bpf, DEngine::Interp}) {
    const std::string engine = engine_name(eng);
    CAPTURE(engine);
    ConsumerOptions q;
    q.quiet = true;
    q.engine = eng;
    Trace t("test:::tick { @c[arg0] = count(); @s = sum(arg0); @m = min(arg0); "
            "@sd = stddev(arg0); } "
            "test:::tock { clear(@c); clear(@s); clear(@m); clear(@sd); "
            "printa(\"%d:%@d \", @c); printa(\"[%@d %@d %@d]\\n\", @s, @m, @sd); }",
            {{P10}, {P11}}, q);
    t.fire(10, {1});
    t.fire(10, {2});
    t.fire(10, {2});
    t.fire(11);
    t.c->drain(); // the consumer clears now: the keys stay, their values go
    CHECK(t.sink.stdout_ == "1:0 2:0 [0 9223372036854775807 0]\n");
    t.fire(10, {5});
    t.fire(10, {7});
    t.fire(11); // nothing new since the last clear prints at its values
    t.c->drain();
    CHECK(t.sink.stdout_ == "1:0 2:0 [0 9223372036854775807 0]\n"
                            "1:0 2:0 5:0 7:0 [0 9223372036854775807 0]\n");
  }
  for (DEngine eng : {DEngine::Bpf, DEngine::Interp}) {
    const std::string engine = engine_name(eng);
    CAPTURE(engine);
    ConsumerOptions q;
    q.quiet = true;
    q.engine = eng;
    Trace t("test:::tick { @[arg0] = sum(arg0); @n = count(); } "
            "test:::tock { trunc(@, 1); clear(@n); }",
            {{P10}, {P11}}, q);
    t.fire(10, {1});
    t.fire(10, {2});
    t.fire(10, {3});
    t.fire(11);
    t.c->drain(); // keeps 3; 1 and 2 go until they have data again
    t.fire(10, {1});
    t.fire(10, {3});
    t.finish();
    CHECK(t.sink.stdout_ == "\n"
                            "                1                1\n"
                            "                3                6\n"
                            "                2\n");
  }
}

TEST_CASE("dtrace consumer: speculations end when the consumer reads commit or discard") {
  ConsumerOptions q;
  q.quiet = true;
  q.bufsize = 64 * 1024;
  Trace t("test:::tick /arg0 == 0/ { self->s = speculation(); } "
          "test:::tick /arg0 != 0/ { speculate(self->s); printf(\"%d \", arg0); } "
          "test:::tock /arg0 == 1/ { commit(self->s); } "
          "test:::tock /arg0 == 2/ { discard(self->s); } "
          "test:::tock { printf(\"%d\\n\", self->s); }",
          {{P10}, {P10}, {P11}, {P11}, {P11}}, q);
  t.fire(10, {0});
  t.fire(10, {5});
  t.fire(10, {6});
  t.fire(11, {1});
  t.fire(10, {0}); // committing until the consumer reads the commit
  t.c->drain();
  // What commit( ) ends prints after the committing record.
  CHECK(t.sink.stdout_ == "5 6 1\n");
  CHECK(t.sink.stderr_ ==
        "dtrace: 1 failed speculation (available buffer(s) still busy)\n");
  t.fire(10, {0});
  t.fire(10, {7});
  t.fire(11, {2});
  t.fire(10, {0}); // discarding until the consumer reads the discard
  t.c->drain();
  t.fire(10, {0});
  t.fire(10, {0}); // the only one is taken
  t.c->drain();
  CHECK(t.sink.stdout_ == "5 6 1\n1\n");
  CHECK(t.sink.stderr_ ==
        "dtrace: 1 failed speculation (available buffer(s) still busy)\n"
        "dtrace: 1 failed speculation (available buffer(s) still busy)\n"
        "dtrace: 1 failed speculation (no speculative buffer available)\n");
}

TEST_CASE("dtrace consumer: a speculation holds specsize bytes; the rest are drops") {
  ConsumerOptions q;
  q.quiet = true;
  Trace t("#pragma D option specsize=4k\n"
          "BEGIN { s = speculation(); } "
          "test:::tick { speculate(s); trace(arg0); } "
          "test:::tock { commit(s); }",
          {{probe(kBegin, "dtrace", "", "BEGIN")}, {P10}, {P11}}, q);
  t.c->begin();
  for (int i = 0; i < 130; i++) // 32 bytes each: 128 fit in 4k
    t.fire(10, {1});
  t.c->drain();
  CHECK(t.sink.stdout_.empty());
  CHECK(t.sink.stderr_ == "dtrace: 2 speculative drops\n");
  t.fire(11);
  t.c->drain();
  CHECK(t.sink.stdout_ == std::string(128, '1'));
}
