// D on BPF (sdt/dtrace/bpfgen.cpp and the consumer's BPF runtime): D
// variables with DTrace's semantics on every engine, the same output from
// the BPF engine and the old interpreter, linking with exactly the library
// functions a clause reaches, and clauses the verifier refuses.
#include "../../sdt/dtrace/consumer.h"
#include "../../sdt/dtrace/bpf/builder.h"
#include "../../sdt/dtrace/bpf/proglink.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <thread>

using namespace mk;
using namespace mk::dt;

namespace {

constexpr u32 kBegin = 1, kEnd = 2, kError = 3;
const DEngine kEngines[] = {DEngine::Bpf, DEngine::BpfInterp, DEngine::Interp};

class Capture : public Sink {
public:
  void out(const std::string &s) override { stdout_ += s; }
  void err(const std::string &line) override { stderr_ += line + "\n"; }
  std::string stdout_, stderr_;
};

ProbeInfo probe(u32 id, const char *func, const char *name) {
  ProbeInfo p;
  p.id = id;
  p.provider = "test";
  p.module = "mod";
  p.function = func;
  p.name = name;
  return p;
}
const ProbeInfo P10 = probe(10, "func", "tick");
const ProbeInfo P11 = probe(11, "other", "tock");

Result<std::unique_ptr<Consumer>> make(const std::string &src,
                                       const std::vector<std::vector<ProbeInfo>> &m,
                                       ConsumerOptions o, Sink &sink) {
  auto ast = parse(src);
  if (!ast)
    return ast.take_error();
  auto prog = compile(*ast, m);
  if (!prog)
    return prog.take_error();
  std::vector<EcbInfo> ecbs;
  for (size_t i = 0; i < m.size(); i++)
    for (const ProbeInfo &p : m[i]) {
      EcbInfo e;
      e.epid = (u32)ecbs.size() + 1;
      e.clause = (u32)i;
      e.probe = p;
      e.full = p.provider + ":" + p.module + ":" + p.function + ":" + p.name;
      ecbs.push_back(e);
    }
  o.threads = o.threads ? o.threads : 8;
  o.quiet = true;
  auto c = std::make_unique<Consumer>(std::move(*prog), std::move(ecbs), o,
                                      sink, kBegin, kEnd, kError);
  MK_TRY(c->init());
  return c;
}

struct Trace {
  Capture sink;
  std::unique_ptr<Consumer> c;
  Trace(const std::string &src, const std::vector<std::vector<ProbeInfo>> &m,
        DEngine e) {
    ConsumerOptions o;
    o.engine = e;
    auto r = make(src, m, o, sink);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
    c = std::move(*r);
  }
  void fire(u32 id, std::vector<uintptr_t> a = {}) {
    a.resize(6);
    consumer_fire(c.get(), id, a.data());
  }
  std::string finish() {
    c->drain();
    c->stop();
    c->end();
    c->drain();
    c->print_end();
    return sink.stdout_;
  }
};

} // namespace

TEST_CASE("D variables: globals are zero until set, then shared by clauses") {
  for (DEngine e : kEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    Trace t("test:::tick { printf(\"%d \", total); total = total + arg0; n++; } "
            "test:::tock { printf(\"[%d %d]\", total, n); total -= 1; }",
            {{P10}, {P11}}, e);
    t.fire(10, {5});
    t.fire(10, {7});
    t.fire(11);
    t.fire(11);
    CHECK(t.finish() == "0 5 [12 2][11 2]\n");
  }
}

TEST_CASE("D variables: self-> is per thread, and storing 0 frees it") {
  for (DEngine e : kEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    Trace t("test:::tick { self->ts = arg0; } "
            "test:::tock /self->ts/ { printf(\"%d;\", arg0 - self->ts); "
            "self->ts = 0; }",
            {{P10}, {P11}}, e);
    t.fire(10, {100});
    // Another thread has a self->ts of its own: zero, so its tock is
    // filtered out, and its tick does not touch this thread's.
    std::thread([&] {
      t.fire(11, {1});
      t.fire(10, {5});
    }).join();
    CHECK(t.c->variables() == 2);
    t.fire(11, {130});
    CHECK(t.c->variables() == 1); // this thread's is freed
    t.fire(11, {140});            // ... and reads 0 again: filtered
    CHECK(t.finish() == "30;\n");
  }
}

TEST_CASE("D variables: associative arrays, by integer key; 0 deletes") {
  for (DEngine e : kEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    Trace t("test:::tick { seen[arg0 % 3]++; } "
            "test:::tock { printf(\"%d %d %d %d|\", seen[0], seen[1], seen[2], "
            "seen[arg0]); seen[arg0] = 0; }",
            {{P10}, {P11}}, e);
    for (uintptr_t i = 0; i < 7; i++)
      t.fire(10, {i});
    CHECK(t.c->variables() == 3);
    t.fire(11, {1});
    CHECK(t.c->variables() == 2);
    t.fire(11, {9});
    CHECK(t.finish() == "3 2 2 2|3 0 2 0|\n");
  }
}

TEST_CASE("D variables: this-> is zero at each clause's start") {
  for (DEngine e : kEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    Trace t("test:::tick { this->n = this->n + arg0; this->m++; "
            "printf(\"%d %d,\", this->n, this->m); }",
            {{P10}}, e);
    t.fire(10, {4});
    t.fire(10, {6});
    CHECK(t.finish() == "4 1,6 1,\n");
  }
}

TEST_CASE("D variables: misuse is a compile error naming the variable") {
  Capture s;
  auto bad = [&](const std::string &src) {
    auto r = make(src, {{P10}}, {}, s);
    REQUIRE(!r);
    return r.error().message;
  };
  CHECK(bad("test:::tick { x = 1; x = \"str\"; }") ==
        "semantic error near \"x\": x holds integers; a string cannot be "
        "stored in it");
  CHECK(bad("test:::tick { a[1] = 2; trace(a); }") ==
        "semantic error near \"a\": a is an associative array; index it (a[key])");
  CHECK(bad("test:::tick { a[1] = 2; a[\"k\"] = 2; }") ==
        "semantic error near \"a\": a is used with keys [int64_t] and "
        "[string]");
  CHECK(bad("test:::tick { trace(never); }") ==
        "syntax error near \"never\": undefined variable");
}

TEST_CASE("D on BPF: every engine prints the same") {
  static const char word[] = "minikern";
  const char *progs[] = {
      "test::: /arg0 % 2 == 0 && probename != \"tock\"/ { printf(\"%d %s %d "
      "%d|\", arg0 * 3 - 1, arg0 > 2 ? \"big\" : \"small\", (arg0 << 4) | 1, "
      "-arg0 / 2); }",
      "test::: { @c[probename] = count(); @s = sum(arg0); @q = quantize(arg0); "
      "@l = lquantize(arg0, 0, 10, 2); @a = avg(arg0); @n[probefunc, arg0 % 2] "
      "= count(); @all = count(); }",
      "test:::tick { printf(\"%s %d %d|\", stringof(arg1), strlen(stringof(arg1)), "
      "stringof(arg1) == \"minikern\"); }",
      "test::: { trace(id); trace(epid); trace(probefunc); trace(arg0 ^ 5); "
      "trace(!arg0); trace(~arg0); }",
      "test:::tock { trace(10 / arg0); } dtrace:::ERROR { printf(\"E%d %d\", "
      "arg2, arg4); }",
  };
  for (const char *src : progs) {
    CAPTURE(src);
    std::string first, first_err;
    for (DEngine e : kEngines) {
      const std::string eng = engine_name(e);
    CAPTURE(eng);
      ProbeInfo err = probe(kError, "", "ERROR");
      err.provider = "dtrace";
      auto ast = parse(src);
      REQUIRE(ast);
      std::vector<std::vector<ProbeInfo>> m;
      for (const ClauseAst &c : ast->clauses)
        m.push_back(c.descs[0].rfind("dtrace", 0) == 0
                        ? std::vector<ProbeInfo>{err}
                        : c.descs[0] == "test:::tick" ? std::vector<ProbeInfo>{P10}
                        : c.descs[0] == "test:::tock" ? std::vector<ProbeInfo>{P11}
                                                      : std::vector<ProbeInfo>{P10, P11});
      Trace t(src, m, e);
      for (uintptr_t i = 0; i < 6; i++)
        t.fire(i == 5 ? 11 : 10, {i, (uintptr_t)word});
      t.fire(11, {0});
      const std::string out = t.finish();
      if (e == DEngine::Bpf) {
        first = out, first_err = t.sink.stderr_;
        CHECK(!out.empty());
      } else {
        CHECK(out == first);
        CHECK(t.sink.stderr_ == first_err);
      }
    }
  }
}

TEST_CASE("D on BPF: a clause links exactly the library functions it reaches") {
  Capture s;
  ConsumerOptions o;
  auto c = make("test:::tick { @ = count(); } "
                "test:::tock { trace(strlen(probefunc)); } "
                "test::: { v[arg0] = 1; x = v[arg0]; }",
                {{P10}, {P11}, {P10, P11}}, o, s);
  REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
  auto fns = [&](u32 i) {
    std::string r;
    for (const auto &[at, fn] : (*c)->bpf_clause(i)->linked.functions)
      r += fn.empty() ? "<clause>" : " " + fn;
    return r;
  };
  CHECK(fns(0) == "<clause>");
  CHECK(fns(1) == "<clause> dt_strlen");
  // dt_var_get calls dt_var_lookup: a dependency's dependency, once.
  CHECK(fns(2) == "<clause> dt_var_set dt_var_get dt_var_lookup");
  // A clause with one ECB has its probe's numbers and names as constants;
  // one with two reads them from its context.
  CHECK(!(*c)->bpf_clause(1)->needs_ctx);
  CHECK((*c)->bpf_clause(2)->needs_ctx);
  const std::string l = bpf_listing(*(*c)->bpf_clause(1));
  CHECK(l.find("clause           call ") != std::string::npos);
  CHECK(l.find("dt_strlen        exit") != std::string::npos);
#if defined(__x86_64__)
  CHECK((*c)->bpf_clause(0)->prog->jitted());
#else
  CHECK(!(*c)->bpf_clause(0)->prog->jitted());
#endif
}

TEST_CASE("D on BPF: a clause the verifier refuses is named in one line") {
  Capture s;
  ConsumerOptions o;
  o.max_insns = 16; // what a clause may have, made small
  auto c = make("test:::tick { @ = count(); } test:::tock { trace(arg0 + arg1 "
                "+ arg2 + arg3); }",
                {{P10}, {P11}}, o, s);
  REQUIRE(!c);
  const std::string m = c.error().message;
  CHECK(m.rfind("clause 2 (test:::tock): ", 0) == 0);
  CHECK(m.find('\n') == std::string::npos);
  CHECK(m.find("16") != std::string::npos);
}

TEST_CASE("D on BPF: a probe appearing later relinks a clause that had one") {
  for (DEngine e : kEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    Trace t("test::: { printf(\"%s %d %d;\", probefunc, epid, id); }", {{P10}}, e);
    const bool one = e != DEngine::Interp && t.c->bpf_clause(0)->one_epid == 1;
    CHECK((e == DEngine::Interp || one));
    t.fire(10);
    CHECK(t.c->add_probe(P11, {{ProbeDesc::parse("test:::")}}));
    if (e != DEngine::Interp)
      CHECK(t.c->bpf_clause(0)->one_epid == 0); // two ECBs now
    t.fire(11);
    t.fire(10);
    CHECK(t.finish() == "func 1 10;other 2 11;func 1 10;\n");
  }
}

// The D library's strlen on every short string that ends exactly at the end
// of its region: each must load (the verifier checks no byte past s[0] at
// load time; the rest are checked as they are read, the way they were when
// strlen was a byte loop) and count right on both engines.  A string whose
// NUL would lie past the region stops the program with a fault, never the
// process, and is never refused at load time.
TEST_CASE("dlib: strlen of strings that end at their region's end") {
  auto lib = embedded_dlib();
  REQUIRE(static_cast<bool>(lib));
  constexpr u32 kSize = 24;
  auto m = bpf::Map::create({"strs", bpf::MapType::Array, 4, kSize, 1}, 1);
  REQUIRE(static_cast<bool>(m));
  bpf::Env env;
  env.maps = {m->get()};
  env.helpers = bpf::map_helpers();
  auto no_symbols = [](const std::string &s, i64) -> Result<bpf::Imm64Binding> {
    return error("no binding for " + s);
  };
  auto run = [&](u32 off, bpf::Engine e) {
    std::vector<bpf::Insn> code;
    bpf::ins::ld_map_value(code, 1, 0, off);
    code.push_back(bpf::ins::call_local(-1));
    code.push_back(bpf::ins::exit());
    auto l = bpf::link_program(code, {{bpf::SymbolRef::Call, 2, "dt_strlen", 0}},
                               **lib, no_symbols, "strlen");
    REQUIRE(static_cast<bool>(l));
    auto p = bpf::Program::load(l->code, env, {"strlen", e});
    REQUIRE_MESSAGE(static_cast<bool>(p), (p ? "" : p.error().message));
    bpf::Runner r(env, 0);
    u64 ctx = 0;
    return r.run(**p, &ctx);
  };
  for (bpf::Engine e : {bpf::Engine::Interpreter, bpf::Engine::Jit}) {
    if (e == bpf::Engine::Jit && !bpf::jit_available())
      continue;
    for (u32 len = 0; len < kSize; len++) {
      CAPTURE(len);
      const u32 off = kSize - 1 - len;
      u8 *v = (*m)->slab();
      std::memset(v, '?', kSize);
      std::memset(v + off, 'a', len);
      v[kSize - 1] = 0;
      const bpf::RunResult res = run(off, e);
      CHECK(res.fault == bpf::Fault::None);
      CHECK(res.r0 == len);
      // The same bytes without their NUL: the read past the region faults.
      v[kSize - 1] = 'a';
      const bpf::RunResult bad = run(off, e);
      CHECK(bad.fault == bpf::Fault::OutOfBounds);
    }
  }
}
