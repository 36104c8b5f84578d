// The D parser and compiler (sdt/dtrace/parse.cpp, sdt/dtrace/compile.cpp):
// what they accept, the tree and code they make, and the exact one-line
// message of each kind of error.
#include "../../sdt/dtrace/dtrace.h"

#include <doctest/doctest.h>

using namespace mk;
using namespace mk::dt;

namespace {

// The parse error for `src`, or "" if it parsed.
std::string parse_error(const std::string &src, const std::string &file = "") {
  auto r = parse(src, file);
  return r ? std::string() : r.error().message;
}

ProbeInfo probe(u32 id, const char *func, const char *name,
                std::vector<std::string> types = {}) {
  ProbeInfo p;
  p.id = id;
  p.provider = "test";
  p.module = "mod";
  p.function = func;
  p.name = name;
  p.argtypes = std::move(types);
  return p;
}

// Compile `src` with every clause matching `probes`; the error or "".
std::string compile_error(const std::string &src,
                          std::vector<ProbeInfo> probes = {probe(10, "f", "n")}) {
  auto ast = parse(src);
  REQUIRE_MESSAGE(ast, (ast ? "" : ast.error().message));
  std::vector<std::vector<ProbeInfo>> m(ast->clauses.size(), probes);
  auto p = compile(*ast, m);
  return p ? std::string() : p.error().message;
}

std::unique_ptr<Program> compiled(const std::string &src) {
  auto ast = parse(src);
  REQUIRE_MESSAGE(ast, (ast ? "" : ast.error().message));
  std::vector<std::vector<ProbeInfo>> m(ast->clauses.size(), {probe(10, "f", "n")});
  auto p = compile(*ast, m);
  REQUIRE_MESSAGE(p, (p ? "" : p.error().message));
  return std::move(*p);
}

} // namespace

TEST_CASE("dtrace parse: probe descriptions, several per clause, several clauses") {
  auto r = parse("BEGIN, a:b:c:d,syscall::read*:entry { trace(1); } END {}");
  REQUIRE(r);
  REQUIRE(r->clauses.size() == 2);
  CHECK(r->clauses[0].descs ==
        std::vector<std::string>{"BEGIN", "a:b:c:d", "syscall::read*:entry"});
  CHECK(r->clauses[0].has_body);
  CHECK(r->clauses[1].descs == std::vector<std::string>{"END"});
  CHECK(r->clauses[1].stmts.empty());
}

TEST_CASE("dtrace parse: a bare description is a clause with the default action") {
  auto r = parse("kernel:::module-load");
  REQUIRE(r);
  REQUIRE(r->clauses.size() == 1);
  CHECK_FALSE(r->clauses[0].has_body);
  auto p = compiled("kernel:::module-load");
  CHECK(p->clauses[0].records);
  CHECK(p->clauses[0].actions.empty());
}

TEST_CASE("dtrace parse: globs and empty fields are descriptions") {
  for (const char *d : {":::", "::f*:", "p?:m[ab]::n", "-:--::x-y", "*"})
    CHECK_MESSAGE(check_desc(d), d);
}

TEST_CASE("dtrace parse: a predicate ends at a '/' outside parentheses") {
  auto r = parse("a:::b /(arg0 / 2) > 1 && arg1/ { trace(arg0 / 4); }");
  REQUIRE(r);
  REQUIRE(r->clauses[0].pred);
  CHECK(r->clauses[0].pred->kind == Expr::Binary);
  CHECK(r->clauses[0].pred->op == X_LAND);
  // A predicate without a body at the end of the text.
  CHECK(parse("a:::b /arg0 == 1/"));
}

TEST_CASE("dtrace parse: statements and aggregations") {
  auto r = parse("p:::n { @c[probefunc, arg0] = count(); @ = quantize(arg1); "
                 "@l = lquantize(arg0, -10, 10, 5); printf(\"%d\\n\", arg0); "
                 "printa(\"%s %@d\\n\", @c); printa(@); trace(\"x\"); exit(0) }");
  REQUIRE(r);
  const auto &s = r->clauses[0].stmts;
  REQUIRE(s.size() == 8);
  CHECK(s[0].kind == Stmt::Aggregate);
  CHECK(s[0].agg == "c");
  CHECK(s[0].keys.size() == 2);
  CHECK(s[0].fn == AggFn::Count);
  CHECK(s[1].agg == "");
  CHECK(s[1].fn == AggFn::Quantize);
  CHECK(s[2].fn == AggFn::LQuantize);
  CHECK(s[2].args.size() == 4);
  CHECK(s[3].kind == Stmt::Printf);
  CHECK(s[3].fmt == "%d\n");
  CHECK(s[4].kind == Stmt::Printa);
  CHECK(s[4].has_fmt);
  CHECK(s[5].kind == Stmt::Printa);
  CHECK_FALSE(s[5].has_fmt);
  CHECK(s[6].kind == Stmt::Trace);
  CHECK(s[7].kind == Stmt::Exit);
}

TEST_CASE("dtrace parse: scripts: pragmas, comments, #! line") {
  auto r = parse("#!/usr/sbin/dtrace -s\n"
                 "#pragma D option quiet\n"
                 "#pragma D option bufsize=64k\n"
                 "/* a comment */ BEGIN // another\n"
                 "{\n  trace(1);\n}\n",
                 "x.d");
  REQUIRE(r);
  CHECK(r->pragmas.quiet);
  CHECK(r->pragmas.bufsize == 64 * 1024);
  CHECK(r->clauses.size() == 1);
}

TEST_CASE("dtrace parse: errors name the token and the cause") {
  CHECK(parse_error("x(") == "invalid probe description \"x(\": invalid character '('");
  CHECK(parse_error("a:b:c:d:e") ==
        "invalid probe description \"a:b:c:d:e\": too many fields "
        "(provider:module:function:name)");
  CHECK(parse_error("a[b:::") ==
        "invalid probe description \"a[b:::\": unbalanced '[' ']' in a glob");
  CHECK(parse_error("BEGIN { trace(1)") ==
        "syntax error at end of input: expected ';' or '}' after a statement");
  CHECK(parse_error("BEGIN { foo(1); }") ==
        "syntax error near \"foo\": unknown action (trace, printf, printa, exit, stack, normalize, "
        "denormalize, trunc, clear, speculate, commit, discard, setopt, system, freopen)");
  CHECK(parse_error("BEGIN { trace(nosuch); }") ==
        "syntax error near \"nosuch\": undefined variable");
  CHECK(parse_error("BEGIN { trace(1 / ); }") ==
        "syntax error near \")\": expected an expression");
  CHECK(parse_error("BEGIN { trace(0x12g); }") ==
        "syntax error near \"0x12g\": invalid integer constant");
  CHECK(parse_error("BEGIN { trace(\"abc); }") ==
        "syntax error near \"abc); }\": unterminated string");
  CHECK(parse_error("BEGIN END") ==
        "syntax error near \"END\": expected '/', '{' or ',' after the probe "
        "description");
  CHECK(parse_error("BEGIN { @a = count(1); }") ==
        "syntax error near \"count\": count( ) takes 0 arguments, 1 given");
  CHECK(parse_error("BEGIN { @a = sum(); }") ==
        "syntax error near \"sum\": sum( ) takes 1 argument, 0 given");
  CHECK(parse_error("BEGIN { @a = median(1); }") ==
        "syntax error near \"median\": unknown aggregating function (count, "
        "sum, min, max, avg, stddev, quantize, lquantize, llquantize)");
  CHECK(parse_error("BEGIN { trace(arg10); }") ==
        "syntax error near \"arg10\": undefined variable");
  CHECK(parse_error("BEGIN { printf(arg0); }") ==
        "syntax error near \"arg0\": printf( ) needs a format string first");
  CHECK(parse_error("BEGIN { trace(\"\\q\"); }") ==
        "syntax error near \"\\q\": invalid escape sequence");
}

TEST_CASE("dtrace parse: errors in a script carry file and line") {
  CHECK(parse_error("tick\n{\n\ttrace(arg0 +);\n}\n", "t.d") ==
        "t.d:3: syntax error near \")\": expected an expression");
  CHECK(parse_error("#pragma D option nosuch\n", "t.d") ==
        "t.d:1: unsupported option \"nosuch\" in #pragma D option");
}

TEST_CASE("dtrace compile: type errors") {
  CHECK(compile_error("p:::n { printf(\"%d\", \"s\"); }") ==
        "semantic error near \"printf\": printf( ) argument #2 is a string but "
        "conversion #1 (%d) wants an integer");
  CHECK(compile_error("p:::n { printf(\"%s\", arg0); }") ==
        "semantic error near \"printf\": printf( ) argument #2 is an integer "
        "but conversion #1 (%s) wants a string; use stringof( )");
  CHECK(compile_error("p:::n { printf(\"%d %d\", 1); }") ==
        "semantic error near \"printf\": printf( ) format needs more arguments "
        "(conversion #2, %d, has none)");
  CHECK(compile_error("p:::n { printf(\"%d\", 1, 2); }") ==
        "semantic error near \"printf\": printf( ) has 2 arguments but its "
        "format uses 1");
  CHECK(compile_error("p:::n { printf(\"%f\", 1); }") ==
        "semantic error near \"printf\": printf( ) conversion \"%f\" is not "
        "supported: D here has no floating point");
  CHECK(compile_error("p:::n { @a = count(); @a = sum(1); }") ==
        "semantic error near \"@a\": @a is used with count( ) and with sum( )");
  CHECK(compile_error("p:::n { @a[1] = count(); @a[\"x\"] = count(); }") ==
        "semantic error near \"@a\": @a is used with keys [int] and [string]");
  CHECK(compile_error("p:::n { trace(\"a\" == 1); }") ==
        "semantic error near \"==\": operands of == have incompatible types: "
        "string and int");
  CHECK(compile_error("p:::n { trace(-\"a\"); }") ==
        "semantic error near \"-\": operator - needs an integer, not a string");
  CHECK(compile_error("p:::n /probefunc/ { trace(1); }") ==
        "semantic error near \"probefunc\": a predicate must be an integer, "
        "not a string");
  CHECK(compile_error("p:::n { @ = lquantize(arg0, 10, 0, 1); }") ==
        "semantic error near \"@\": lquantize( ) upper bound must be greater "
        "than lower bound");
  CHECK(compile_error("p:::n { @ = lquantize(arg0, 0, 10, arg1); }") ==
        "semantic error near \"arg1\": expected an integer constant");
  CHECK(compile_error("p:::n { printa(@nope); }") ==
        "semantic error near \"@nope\": printa( ) of an aggregation that is "
        "never assigned");
  CHECK(compile_error("p:::n { @a[probefunc] = count(); printa(\"%d\\n\", @a); }") ==
        "semantic error near \"printa\": printa( ) argument #1 is a string but "
        "conversion #1 (%d) wants an integer");
  CHECK(compile_error("p:::n { @ = sum(probename); }") ==
        "semantic error near \"@\": sum( ) needs an integer value, not a string");
}

TEST_CASE("dtrace compile: args[N] takes the probes' argument types") {
  CHECK(compile_error("p:::n { printf(\"%s\", args[0]); }",
                      {probe(1, "f", "n", {"char *", "int"})}) == "");
  CHECK(compile_error("p:::n { printf(\"%d\", args[1]); }",
                      {probe(1, "f", "n", {"char *", "int"})}) == "");
  CHECK(compile_error("p:::n { trace(args[0]); }",
                      {probe(1, "f", "n", {"char *"}), probe(2, "g", "n", {"int"})}) ==
        "semantic error near \"args[0]\": the probes matched disagree on its "
        "type (char * and int)");
}

TEST_CASE("dtrace compile: code shape") {
  // A keyless count() alone skips the interpreter.
  auto p = compiled("p:::n { @ = count(); }");
  CHECK(p->clauses[0].fast == CompiledClause::Count0);
  CHECK_FALSE(p->clauses[0].records);
  // A predicate, a recording action: PRED, RESERVE, ..., COMMIT, RET.
  p = compiled("p:::n /arg0 > 1/ { trace(arg1); }");
  const auto &code = p->clauses[0].code;
  REQUIRE(code.size() >= 6);
  CHECK(code[3].op == OP_PRED);
  CHECK(code[4].op == OP_RESERVE);
  CHECK(code[4].imm == 24 + 8);
  CHECK(code[code.size() - 2].op == OP_COMMIT);
  CHECK(code.back().op == OP_RET);
  CHECK(p->clauses[0].fast == CompiledClause::None);
  // Aggregation definitions: nvals per function.
  p = compiled("p:::n { @a = avg(1); @q = quantize(1); @l = lquantize(1, 0, 100, 10); }");
  CHECK(p->aggs[0].nvals == 2);
  CHECK(p->aggs[1].nvals == 127);
  CHECK(p->aggs[2].nvals == 12);
}

TEST_CASE("dtrace compile: errors in a script carry file and line") {
  auto ast = parse("p:::n\n{\n\ttrace(1);\n\tprintf(\"%s\\n\", arg0);\n}\n", "t.d");
  REQUIRE(ast);
  std::vector<std::vector<ProbeInfo>> m(1, {probe(10, "f", "n")});
  auto p = compile(*ast, m);
  REQUIRE_FALSE(p);
  CHECK(p.error().message ==
        "t.d:4: semantic error near \"printf\": printf( ) argument #2 is an "
        "integer but conversion #1 (%s) wants a string; use stringof( )");
}

// ---- hostile programs (issue 11): bounded, with their own errors --------------

namespace {
std::string repeat(const std::string &s, size_t n) {
  std::string r;
  r.reserve(s.size() * n);
  for (size_t i = 0; i < n; i++)
    r += s;
  return r;
}
std::string clause_of(const std::string &e) { return "BEGIN { trace(" + e + "); }"; }
const std::string kTooDeep = "expression nested more than 256 levels deep";
} // namespace

TEST_CASE("dtrace parse: deep nesting is an error, not a stack overflow") {
  // Each of these overflowed the parser's or the compiler's stack.
  CHECK(parse_error(clause_of(repeat("(", 2000) + "1" + repeat(")", 2000))) ==
        "syntax error near \"(\": " + kTooDeep);
  CHECK(parse_error(clause_of("1" + repeat("+1", 20000))) ==
        "syntax error near \"+\": " + kTooDeep);
  // (spaced: "--" is the decrement operator)
  CHECK(parse_error(clause_of(repeat("- ", 100000) + "1")) ==
        "syntax error near \"-\": " + kTooDeep);
  CHECK(parse_error(clause_of(repeat("1?", 20000) + "1" + repeat(":1", 20000))) ==
        "syntax error near \"1\": " + kTooDeep);
  CHECK(parse_error(clause_of(repeat("strlen(", 2000) + "\"\"" +
                              repeat(")", 2000))) ==
        "syntax error near \"strlen\": " + kTooDeep);
  // Within the bound, they parse.
  CHECK(parse(clause_of(repeat("(", 200) + "1" + repeat(")", 200))));
  CHECK(parse(clause_of("1" + repeat("+1", 250))));
  CHECK(parse(clause_of(repeat("- ", 250) + "1")));
}

TEST_CASE("dtrace parse: integer constants beyond 64 bits are refused") {
  CHECK(parse_error(clause_of("18446744073709551616")) ==
        "syntax error near \"18446744073709551616\": integer constant is too "
        "large for 64 bits");
  CHECK(parse_error(clause_of("0x10000000000000000")) ==
        "syntax error near \"0x10000000000000000\": integer constant is too "
        "large for 64 bits");
  CHECK(parse_error(clause_of("02000000000000000000000")) ==
        "syntax error near \"02000000000000000000000\": integer constant is "
        "too large for 64 bits");
  auto r = parse(clause_of("18446744073709551615"));
  REQUIRE(r);
  CHECK(r->clauses[0].stmts[0].args[0]->ival == -1);
}

TEST_CASE("dtrace parse: #pragma sizes are checked as -b checks them") {
  // bufsize=-1 hung pow2_at_least(); 2^63 wrapped to a small buffer.
  CHECK(parse_error("#pragma D option bufsize=-1\nBEGIN {}", "x.d") ==
        "x.d:1: invalid value for option bufsize: invalid size '-1' (bytes, "
        "or with k, m, g)");
  CHECK(parse_error("#pragma D option bufsize=9223372036854775808\nBEGIN {}",
                    "x.d") ==
        "x.d:1: invalid value for option bufsize: size '9223372036854775808' "
        "is above the maximum of 1g");
  CHECK(parse_error("#pragma D option aggsize=17179869185g\nBEGIN {}", "x.d") ==
        "x.d:1: invalid value for option aggsize: size '17179869185g' is "
        "above the maximum of 1g");
  CHECK(parse_error("#pragma D option bufsize=0k\nBEGIN {}", "x.d") ==
        "x.d:1: invalid value for option bufsize: size '0k' is below the "
        "minimum of 1 byte");
  CHECK(*parse_size("32") == 32); // a buffer that small is a page here
  CHECK_FALSE(parse_size("99999999999999999999"));
  CHECK(*parse_size("1g") == 1ull << 30);
}

TEST_CASE("dtrace compile: a clause deeper than the value stack is refused") {
  // Right-nested operators keep every left operand on the interpreter's
  // 32-entry stack; it is not checked at run time, so the compiler must.
  auto ast = parse(clause_of(repeat("1+(", 40) + "1" + repeat(")", 40)));
  REQUIRE(ast);
  std::vector<std::vector<ProbeInfo>> matched(1);
  auto prog = compile(*ast, matched);
  REQUIRE_FALSE(prog);
  CHECK(prog.error().message ==
        "semantic error near \"BEGIN\": the clause needs 41 values on the "
        "interpreter's stack at once (at most 32): nest its expressions less");
  auto ok = parse(clause_of(repeat("1+(", 30) + "1" + repeat(")", 30)) +
                  " BEGIN { @[1, 2, 3, 4, 5, 6, 7, 8] = sum(1 ? 2 : 3); }");
  REQUIRE(ok);
  std::vector<std::vector<ProbeInfo>> m2(2);
  CHECK(compile(*ok, m2));
}

TEST_CASE("dtrace parse: aggregation actions, printa of several, speculations") {
  auto r = parse("p:::n { @a = stddev(arg0); @b = llquantize(arg0, 10, 0, 2, 10); "
                 "printa(\"%@d %@d\\n\", @a, @b); normalize(@a, 10); "
                 "denormalize(@a); trunc(@a); trunc(@a, -3); clear(@b); } "
                 "p:::n { s = speculation(); } "
                 "p:::n { speculate(s); trace(1); } p:::n { commit(s); discard(s); }");
  REQUIRE(r);
  const auto &s = r->clauses[0].stmts;
  REQUIRE(s.size() == 8);
  CHECK(s[0].fn == AggFn::Stddev);
  CHECK(s[1].fn == AggFn::LLQuantize);
  CHECK(s[1].args.size() == 5);
  CHECK(s[2].kind == Stmt::Printa);
  CHECK(s[2].agg == "a");
  CHECK(s[2].more_aggs == std::vector<std::string>{"b"});
  CHECK(s[3].kind == Stmt::Normalize);
  CHECK(s[3].args.size() == 1);
  CHECK(s[4].kind == Stmt::Denormalize);
  CHECK(s[5].kind == Stmt::Trunc);
  CHECK(s[5].args.empty());
  CHECK(s[6].args.size() == 1);
  CHECK(s[7].kind == Stmt::Clear);
  CHECK(s[7].agg == "b");
  REQUIRE(r->clauses[1].stmts.size() == 1);
  CHECK(r->clauses[1].stmts[0].args[1]->kind == Expr::Call);
  CHECK(r->clauses[2].stmts[0].kind == Stmt::Speculate);
  CHECK(r->clauses[3].stmts[0].kind == Stmt::Commit);
  CHECK(r->clauses[3].stmts[1].kind == Stmt::Discard);
  auto p = parse("#pragma D option aggsortkey\n#pragma D option aggsortrev\n"
                 "#pragma D option aggsortpos=2\n#pragma D option aggsortkeypos=1\n"
                 "#pragma D option nspec=4\n#pragma D option specsize=8k\nBEGIN\n");
  REQUIRE(p);
  CHECK(p->pragmas.aggsortkey);
  CHECK(p->pragmas.aggsortrev);
  CHECK(p->pragmas.aggsortpos == 2);
  CHECK(p->pragmas.aggsortkeypos == 1);
  CHECK(p->pragmas.nspec == 4);
  CHECK(p->pragmas.specsize == 8192);
  CHECK(parse_error("#pragma D option nspec=0\n") ==
        "invalid value for option nspec: '0' (1..4096)");
  CHECK(parse_error("BEGIN { normalize(1, 2); }") ==
        "syntax error near \"1\": normalize( ) needs an aggregation (@name) first");
  CHECK(parse_error("BEGIN { printa(@a, 1); }") ==
        "syntax error near \"1\": printa( ) takes aggregations (@name) after its "
        "format");
}

TEST_CASE("dtrace compile: aggregation actions and speculations") {
  CHECK(compile_error("a:::b { trunc(@x); }") ==
        "semantic error near \"@x\": trunc( ) of an aggregation that is never "
        "assigned");
  CHECK(compile_error("a:::b { @[1] = count(); @b = count(); printa(@, @b); }") ==
        "semantic error near \"@b\": printa( ) joins aggregations by key: @b "
        "and @ have different keys");
  CHECK(compile_error("a:::b { @ = llquantize(arg0, 10, 0, 2, 5); }") ==
        "semantic error near \"@\": llquantize( ) steps (argument #5) must be a "
        "multiple of the factor");
  CHECK(compile_error("a:::b { speculate(1); @ = count(); }") ==
        "semantic error near \"@\": only data-recording actions (trace, "
        "printf, printa) may follow speculate( )");
  CHECK(compile_error("a:::b { trace(1); discard(1); }") ==
        "semantic error near \"discard\": commit( ) and discard( ) may not "
        "follow data-recording actions");
  CHECK(compile_error("a:::b { speculate(1); printf(\"x\"); printa(@a); } "
                      "a:::b { @a = count(); commit(1); }") == "");
}
