// D on BPF (sdt/dtrace/bpfgen.cpp and the consumer's BPF runtime): D
// variables with DTrace's semantics on every engine, the same output from
// the BPF engine and the old interpreter, linking with exactly the library
// functions a clause reaches, and clauses the verifier refuses.
#include "../../sdt/dtrace/consumer.h"
#include "../../sdt/dtrace/bpf/builder.h"
#include "../../sdt/dtrace/bpf/proglink.h"
#include "text.h"

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
    // total is read before the text assigns it: declared first, as
    // DTrace requires.
    Trace t("int64_t total; "
            "test:::tick { printf(\"%d \", total); total = total + arg0; n++; } "
            "test:::tock { printf(\"[%d %d]\", total, n); total -= 1; }",
            {{P10}, {P11}}, e);
    t.fire(10, {5});
    t.fire(10, {7});
    t.fire(11);
    t.fire(11);
    CHECK(t.finish() == "0 5 [12 2][11 2]\n");
  }
}

TEST_CASE("D aggregations: a program may have hundreds, on every engine") {
  // Aggregation ids once lived in a byte of the compiled clause: 64 at
  // most.  300 here: 150 keyless counts (the fast path's counters, one
  // per aggregation) and 150 keyed sums.
  std::string src = "test:::tick {";
  for (int i = 0; i < 150; i++)
    src += " @c" + std::to_string(i) + " = count(); @s" + std::to_string(i) +
           "[arg0] = sum(" + std::to_string(i) + ");";
  src += " }";
  std::string first;
  for (DEngine e : kEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    Trace t(src, {{P10}}, e);
    t.fire(10, {7});
    t.fire(10, {7});
    const std::string out = t.finish();
    size_t counts = 0;
    for (size_t at = 0; (at = out.find("\n                2\n", at)) != std::string::npos; at++)
      counts++;
    CHECK(counts == 150);
    CHECK(out.find("  298\n") != std::string::npos); // @s149[7]: 2 * 149
    if (first.empty())
      first = out;
    CHECK(out == first);
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
    // Integer self-> variables live in their thread's slots, not in the
    // variables' map.
    CHECK(t.c->variables() == 0);
    t.fire(11, {130});
    t.fire(11, {140}); // ... and reads 0 again: filtered
    CHECK(t.finish() == "30;\n");
  }
  // A self-> string is a dynamic variable: one per thread that set it,
  // freed by storing "".
  for (DEngine e : {DEngine::Bpf, DEngine::BpfInterp}) {
    CAPTURE(engine_name(e));
    Trace t("test:::tick { self->s = probefunc; } "
            "test:::tock /self->s != \"\"/ { printf(\"%s;\", self->s); "
            "self->s = \"\"; }",
            {{P10}, {P11}}, e);
    t.fire(10);
    std::thread([&] { t.fire(10); }).join();
    CHECK(t.c->variables() == 2);
    t.fire(11);
    CHECK(t.c->variables() == 1); // this thread's is freed
    t.fire(11);                   // ... and reads "" again: filtered
    CHECK(t.finish() == "func;\n");
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

TEST_CASE("D variables: misuse is a compile error, in DTrace's words") {
  Capture s;
  auto bad = [&](const std::string &src, const std::string &why) {
    auto r = make(src, {{P10}}, {}, s);
    REQUIRE(!r);
    CHECK(r.error().message == "invalid probe specifier " + src + ": " + why);
  };
  bad("test:::tick { x = 1; x = \"str\"; }",
      "operands have incompatible types: \"int\" = \"string\"");
  bad("test:::tick { a[1] = 2; trace(a); }",
      "associative array 'a' may not be referenced as scalar");
  bad("test:::tick { x = 2; trace(x[1]); }",
      "cannot access scalar x as an associative array");
  bad("test:::tick { a[1] = 2; a[\"k\"] = 2; }",
      "a[ ] key #1 is incompatible with prototype:\n\tprototype: int64_t\n"
      "\t      key: string");
  bad("test:::tick { trace(never); }",
      "failed to resolve never: Unknown variable name");
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
      // Errors alike but for where in its program each engine was.
      const std::string err_text = mkt::replace_numbered(
          mkt::replace_numbered(t.sink.stderr_, "at BPF pc ", "at pc N"),
          "at bytecode pc ", "at pc N");
      if (e == DEngine::Bpf) {
        first = out, first_err = err_text;
        CHECK(!out.empty());
      } else {
        CHECK(out == first);
        CHECK(err_text == first_err);
      }
    }
  }
}

TEST_CASE("D on BPF: a clause links exactly the library functions it reaches") {
  Capture s;
  ConsumerOptions o;
  auto c = make("test:::tick { @ = count(); } "
                "test:::tock { trace(toupper(probefunc)); } "
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
  CHECK(fns(1) == "<clause> dt_toupper");
  // dt_var_get calls dt_var_lookup: a dependency's dependency, once.
  CHECK(fns(2) == "<clause> dt_var_set dt_var_get dt_var_lookup");
  // A clause with one ECB has its probe's numbers and names as constants;
  // one with two reads them from its context.
  CHECK(!(*c)->bpf_clause(1)->needs_ctx);
  CHECK((*c)->bpf_clause(2)->needs_ctx);
  const std::string l = bpf_listing(*(*c)->bpf_clause(1));
  CHECK(l.find("clause           call ") != std::string::npos);
  CHECK(l.find("dt_toupper       exit") != std::string::npos);
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

// ---- D strings (issue 22) ------------------------------------------------------

namespace {

const DEngine kBpfEngines[] = {DEngine::Bpf, DEngine::BpfInterp};

// What `src` prints when test:::tick fires once with arg0 = 7 and arg1 =
// "minikern", on engine `e`.
std::string tick_once(const std::string &src, DEngine e) {
  static const char word[] = "minikern";
  Trace t(src, {{P10}}, e);
  t.fire(10, {7, (uintptr_t)word});
  std::string out = t.finish();
  CHECK(t.sink.stderr_ == "");
  // The newline the consumer ends output with when the clause did not.
  if (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

} // namespace

TEST_CASE("D strings: values of globals, self->, this-> and array elements") {
  for (DEngine e : kBpfEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    CHECK(tick_once("test:::tick { g = \"glob\"; self->s = strjoin(g, \"!\"); "
                    "this->t = stringof(arg1); a[\"k\"] = this->t; "
                    "printf(\"%s %s %s %s [%s]\", g, self->s, this->t, "
                    "a[\"k\"], a[\"none\"]); }",
                    e) == "glob glob! minikern minikern []");
    // A string replaced by a shorter one leaves nothing of the longer.
    CHECK(tick_once("test:::tick { s = \"longer\"; s = \"ab\"; a[1] = \"xyz\"; "
                    "a[1] = \"q\"; printf(\"%s %d %s %d\", s, strlen(s), a[1], "
                    "strlen(a[1])); }",
                    e) == "ab 2 q 1");
  }
}

TEST_CASE("D strings: comparisons and the ternary") {
  for (DEngine e : kBpfEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    CHECK(tick_once("test:::tick { s = \"abc\"; printf(\"%d%d%d%d%d%d \", "
                    "s == \"abc\", s != \"abc\", s < \"abd\", s <= \"abc\", "
                    "s > \"ab\", s >= \"b\"); }",
                    e) == "101110 ");
    // Bytes compare unsigned; "" sorts first; a probe's string compares
    // by content.
    CHECK(tick_once("test:::tick { printf(\"%d%d%d%d\", \"\" < \"a\", "
                    "\"\\xff\" > \"a\", stringof(arg1) == \"minikern\", "
                    "probefunc == \"func\"); }",
                    e) == "1111");
    CHECK(tick_once("test:::tick { s = arg0 > 5 ? \"big\" : \"small\"; "
                    "t = arg0 > 50 ? \"big\" : stringof(arg1); "
                    "printf(\"%s %s %s\", s, t, s == \"big\" ? probename : \"no\"); }",
                    e) == "big minikern tick");
  }
}

TEST_CASE("D strings: every string function") {
  struct Row {
    const char *expr, *want; // a string expression, or %d of an integer
  };
  const Row strs[] = {
      {"strjoin(\"abc\", \"def\")", "abcdef"},
      {"strjoin(\"\", stringof(arg1))", "minikern"},
      {"substr(\"minikern\", 4)", "kern"},
      {"substr(\"minikern\", 0, 4)", "mini"},
      {"substr(\"minikern\", -4)", "kern"},
      {"substr(\"minikern\", -4, 2)", "ke"},
      {"substr(\"abc\", 3)", ""},
      {"substr(\"abc\", 5)", ""},
      {"substr(\"abc\", -5)", "abc"},
      {"substr(\"abc\", -5, 3)", "a"},
      {"substr(\"abc\", -5, 4)", "ab"},
      {"substr(\"abc\", -5, 1)", ""},
      {"substr(\"abcdef\", 1, -2)", "bcd"},
      {"substr(\"abc\", 1, -9)", ""},
      {"substr(\"abc\", 1, 100)", "bc"},
      {"strchr(\"a/b/c\", '/')", "/b/c"},
      {"strchr(\"abc\", '/')", ""},
      {"strrchr(\"a/b/c\", '/')", "/c"},
      {"strrchr(\"abc\", '/')", ""},
      {"strstr(\"hello\", \"ll\")", "llo"},
      {"strstr(\"hello\", \"\")", "hello"},
      {"strstr(\"abc\", \"x\")", ""},
      {"basename(\"/usr/lib/\")", "lib"},
      {"basename(\"/\")", "/"},
      {"basename(\"\")", "."},
      {"dirname(\"/usr/lib/\")", "/usr"},
      {"dirname(\"lib\")", "."},
      {"dirname(\"/usr\")", "/"},
      {"lltostr(-42)", "-42"},
      {"lltostr(0)", "0"},
      {"lltostr(9223372036854775807)", "9223372036854775807"},
      {"toupper(\"abC1-z\")", "ABC1-Z"},
      {"tolower(\"ABc1-Z\")", "abc1-z"},
  };
  const Row ints[] = {
      {"strlen(\"\")", "0"},
      {"strlen(stringof(arg1))", "8"},
      {"index(\"hello\", \"l\")", "2"},
      {"index(\"hello\", \"l\", 3)", "3"},
      {"index(\"hello\", \"l\", 4)", "-1"},
      {"index(\"hello\", \"l\", -9)", "2"},
      {"index(\"abc\", \"\", 9)", "3"},
      {"index(\"\", \"\")", "0"},
      {"index(\"abc\", \"abcd\")", "-1"},
      {"rindex(\"hello\", \"l\")", "3"},
      {"rindex(\"hello\", \"l\", 2)", "2"},
      {"rindex(\"hello\", \"l\", 1)", "-1"},
      {"rindex(\"hello\", \"l\", 99)", "3"},
      {"rindex(\"abc\", \"c\", -1)", "-1"},
      {"rindex(\"abc\", \"\", -1)", "0"},
      {"rindex(\"abc\", \"\")", "3"},
      {"strtoll(\"0x1f\", 16)", "31"},
      {"strtoll(\" -12\")", "-12"},
      {"strtoll(\"777\", 8)", "511"},
      {"strtoll(\"0x10\", 0)", "16"},
      {"strtoll(\"12abc\")", "12"},
      {"htons(0x1234)", "13330"},   // 0x3412
      {"ntohs(0x1234)", "13330"},
      {"htonl(0x12345678)", "2018915346"}, // 0x78563412
      {"ntohl(0x12345678)", "2018915346"},
      {"htonll(0x0102030405060708)", "578437695752307201"}, // 0x0807060504030201
      {"ntohll(htonll(12345))", "12345"},
      {"rand() == rand()", "0"},
  };
  for (DEngine e : kBpfEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    for (const Row &r : strs) {
      const std::string expr = r.expr;
      CAPTURE(expr);
      CHECK(tick_once(std::string("test:::tick { printf(\"[%s]\", ") + r.expr +
                          "); }",
                      e) == std::string("[") + r.want + "]");
    }
    for (const Row &r : ints) {
      const std::string expr = r.expr;
      CAPTURE(expr);
      CHECK(tick_once(std::string("test:::tick { printf(\"%d\", ") + r.expr +
                          "); }",
                      e) == r.want);
    }
    // strtok: NULL goes on from where the last call stopped, in the same
    // clause and in later firings.
    static const char word[] = "minikern";
    Trace t("int started; test:::tick /!started/ { started = 1; printf(\"[%s]\", "
            "strtok(\"a,b,,c\", \",\")); } "
            "test:::tick { printf(\"[%s]\", strtok(NULL, \",\")); }",
            {{P10}, {P10}}, e);
    for (int i = 0; i < 4; i++)
      t.fire(10, {0, (uintptr_t)word});
    CHECK(t.finish() == "[a][b][c][][]\n");
  }
}

TEST_CASE("D strings: arrays with several keys of any type") {
  for (DEngine e : kBpfEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    CHECK(tick_once("test:::tick { a[1, \"x\"] = 5; a[2, \"x\"] = 6; "
                    "a[1, \"y\"] = 7; a[1, stringof(arg1)] = 8; "
                    "printf(\"%d %d %d %d %d\", a[1, \"x\"], a[2, \"x\"], "
                    "a[1, \"y\"], a[1, \"minikern\"], a[2, \"y\"]); }",
                    e) == "5 6 7 8 0");
    // String values under a string key and an integer; 0 deletes.
    CHECK(tick_once("test:::tick { b[probefunc, 2] = \"v\"; "
                    "c[\"k\", 3] = 1; c[\"k\", 3] = 0; "
                    "printf(\"%s [%s] %d\", b[\"func\", 2], b[\"func\", 1], "
                    "c[\"k\", 3]); }",
                    e) == "v [] 0");
  }
}

TEST_CASE("D strings: aggregation keys") {
  for (DEngine e : kBpfEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    static const char w1[] = "one", w2[] = "two";
    Trace t("test:::tick { @[probefunc, stringof(arg1)] = count(); "
            "@s[stringof(arg1)] = sum(arg0); } "
            "END { printa(\"%s %s %@d\\n\", @); printa(\"%s=%@d\\n\", @s); }",
            {{P10}, {probe(kEnd, "", "END")}}, e);
    t.fire(10, {1, (uintptr_t)w1});
    t.fire(10, {2, (uintptr_t)w2});
    t.fire(10, {3, (uintptr_t)w2});
    CHECK(t.finish() == "func one 1\nfunc two 2\none=1\ntwo=5\n\n");
  }
}

TEST_CASE("D strings: strsize cuts literals, copies and results") {
  for (DEngine e : kBpfEngines) {
    const std::string eng = engine_name(e);
    CAPTURE(eng);
    CHECK(tick_once("#pragma D option strsize=5\n"
                    "test:::tick { s = \"abcdefgh\"; printf(\"%s %d %s %s %d\", s, "
                    "strlen(\"123456789\"), stringof(arg1), "
                    "strjoin(\"abc\", \"def\"), strlen(strjoin(s, s))); }",
                    e) == "abcde 5 minik abcde 5");
    // A probe's name is never cut, but strlen( ) counts strsize at most.
    CHECK(tick_once("#pragma D option strsize=3\n"
                    "test:::tick { printf(\"%d %d\", strlen(probefunc), "
                    "strlen(probename)); }",
                    e) == "3 3");
    // Keys that differ past strsize are the same key.
    Trace t("#pragma D option strsize=3\n"
            "test:::tick { a[\"abcdef\"] = 1; a[\"abcxyz\"] += 2; "
            "@[\"keyone\"] = count(); @[\"keytwo\"] = count(); "
            "printf(\"%d \", a[\"abc\"]); } "
            "END { printa(\"%s %@d\", @); }",
            {{P10}, {probe(kEnd, "", "END")}}, e);
    t.fire(10);
    CHECK(t.finish() == "3 key 2\n");
  }
  CHECK(*parse_strsize("2") == 2);
  CHECK(*parse_strsize("256") == 256);
  CHECK(parse_strsize("1").error().message == "'1' is not within 2..256");
  CHECK(parse_strsize("257").error().message == "'257' is not within 2..256");
  CHECK(parse_strsize("-1").error().message == "'-1' is not a number of characters");
  CHECK(parse_strsize("4k").error().message == "'4k' is not a number of characters");
  CHECK(parse_strsize("").error().message == "'' is not a number of characters");
  Capture s;
  auto r = make("#pragma D option strsize=1000\ntest:::tick { }", {{P10}}, {}, s);
  REQUIRE(!r);
  CHECK(r.error().message ==
        "invalid probe specifier #pragma D option strsize=1000\\x0atest:::tick "
        "{ }: failed to set option 'strsize' to '1000': Invalid value for "
        "specified option");
}
