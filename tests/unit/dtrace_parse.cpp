// The D parser and compiler (sdt/dtrace/parse.cpp, sdt/dtrace/compile.cpp):
// what they accept, the tree and code they make, and the exact one-line
// message of each kind of error.
#include "../../sdt/dtrace/dtrace.h"

#include <doctest/doctest.h>

#include <unistd.h>

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

// The error of the script t.d holding `src`, parsing or compiling (every
// clause matching one probe), or "".
std::string script_error(const std::string &src) {
  auto ast = parse(src, "t.d");
  if (!ast)
    return ast.error().message;
  std::vector<std::vector<ProbeInfo>> m(ast->clauses.size(),
                                        {probe(10, "f", "n")});
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

TEST_CASE("dtrace parse: errors read as DTrace's") {
  // -n text: "invalid probe specifier TEXT: why"; the cause in DTrace's
  // words.
  const std::string spec = "invalid probe specifier ";
  CHECK(parse_error("x(") == spec + "x(: invalid probe description \"x(\": "
                                    "invalid character '('");
  CHECK(parse_error("a:b:c:d:e") ==
        spec + "a:b:c:d:e: invalid probe description \"a:b:c:d:e\": too many "
               "fields (provider:module:function:name)");
  CHECK(parse_error("a[b:::") == spec + "a[b:::: invalid probe description "
                                        "\"a[b:::\": unbalanced '[' ']' in a glob");
  CHECK(parse_error("BEGIN { trace(1)") ==
        spec + "BEGIN { trace(1): syntax error near end of input");
  CHECK(parse_error("BEGIN { foo(1); }") ==
        spec + "BEGIN { foo(1); }: undefined function name: foo");
  CHECK(parse_error("BEGIN { trace(nosuch); }") ==
        spec + "BEGIN { trace(nosuch); }: failed to resolve nosuch: Unknown "
               "variable name");
  CHECK(parse_error("BEGIN { trace(1 / ); }") ==
        spec + "BEGIN { trace(1 / ); }: syntax error near \")\"");
  // 0x12, then a name DTrace's lexer looked past: the rest of the line.
  CHECK(parse_error("BEGIN { trace(0x12g); }") ==
        spec + "BEGIN { trace(0x12g); }: syntax error near \"g); }\"");
  CHECK(parse_error("BEGIN { trace(0128); }") ==
        spec + "BEGIN { trace(0128); }: constant 0128 contains invalid digit 8");
  CHECK(parse_error("BEGIN { trace(\"abc); }") ==
        spec + "BEGIN { trace(\"abc); }: end-of-file encountered in string literal");
  CHECK(parse_error("BEGIN { trace(''); }") ==
        spec + "BEGIN { trace(''); }: empty character constant");
  CHECK(parse_error("BEGIN END") ==
        spec + "BEGIN END: expected predicate and/or actions following probe "
               "description");
  CHECK(parse_error("BEGIN { @a = count(1); }") ==
        spec + "BEGIN { @a = count(1); }: count( ) prototype mismatch: 1 arg "
               "passed, 0 expected");
  CHECK(parse_error("BEGIN { @a = sum(); }") ==
        spec + "BEGIN { @a = sum(); }: sum( ) prototype mismatch: 0 args "
               "passed, 1 expected");
  CHECK(parse_error("BEGIN { @a = lquantize(1); }") ==
        spec + "BEGIN { @a = lquantize(1); }: lquantize( ) prototype mismatch: "
               "1 arg passed, at least 3 expected");
  CHECK(parse_error("BEGIN { @a = median(1); }") ==
        spec + "BEGIN { @a = median(1); }: @a must be assigned an aggregating "
               "function");
  CHECK(parse_error("BEGIN { trace(arg10); }") ==
        spec + "BEGIN { trace(arg10); }: failed to resolve arg10: Unknown "
               "variable name");
  CHECK(parse_error("BEGIN { printf(); }") ==
        spec + "BEGIN { printf(); }: printf( ) prototype mismatch: 0 args "
               "passed, at least 1 expected");
  CHECK(parse_error("BEGIN { exit(); }") ==
        spec + "BEGIN { exit(); }: exit( ) prototype mismatch: 0 args passed, "
               "1 expected");
  // A backslash before no escape's letter stays, as in DTrace.
  auto q = parse("BEGIN { trace(\"\\q\\?\"); trace('\\c'); trace('ab'); }");
  REQUIRE(q);
  CHECK(q->clauses[0].stmts[0].args[0]->sval == "\\q\\?");
  CHECK(q->clauses[0].stmts[1].args[0]->ival == ('\\' << 8 | 'c'));
  CHECK(q->clauses[0].stmts[2].args[0]->ival == ('a' << 8 | 'b'));
  CHECK(parse_error("BEGIN { trace('abcdefghi'); }") ==
        spec + "BEGIN { trace('abcdefghi'); }: character constant is too long");
  // Boolean options take DTrace's words for on and off.
  CHECK(parse("#pragma D option quiet=YES\nBEGIN {}\n", "q.d")->pragmas.quiet);
  CHECK_FALSE(parse("#pragma D option quiet=unset\nBEGIN {}\n", "q.d")->pragmas.quiet);
  CHECK(*bool_option("") == true);
  CHECK(*bool_option("Disabled") == false);
  CHECK_FALSE(bool_option("please"));
  // #pragma lines may stand inside a clause; $pid is the kernel's.
  CHECK(parse("BEGIN\n{\n#pragma D option quiet\n\ttrace($pid);\n}\n"));
  auto pid = parse("BEGIN { trace($ppid); }");
  REQUIRE(pid);
  CHECK(pid->clauses[0].stmts[0].args[0]->ival == (i64)getppid());
  // Text the error quotes stays on its line.
  CHECK(parse_error("BEGIN\n{ trace(1 +); }") ==
        spec + "BEGIN\\x0a{ trace(1 +); }: syntax error near \")\"");
}

TEST_CASE("dtrace parse: constants fold as C folds them") {
  auto r = parse("enum a { U8 = (uint8_t)-1, C = (char)300, S = (short)65535, "
                 "B = 1 << 4 | 3 };\n"
                 "BEGIN { trace(U8); trace(C); trace(S); trace(B); "
                 "trace('\\377\\377\\377\\377'); trace(\"a\\\nb\"); }\n"
                 "BEGIN { trace(x); }\n", "f.d");
  REQUIRE_FALSE(r); // x is undefined: its line counts the continued one
  CHECK(r.error().message ==
        "failed to compile script f.d: line 4: failed to resolve x: Unknown "
        "variable name");
  r = parse("enum a { U8 = (uint8_t)-1, C = (char)300, S = (short)65535, "
            "B = 1 << 4 | 3 };\n"
            "BEGIN { trace(U8); trace(C); trace(S); trace(B); "
            "trace('\\377\\377\\377\\377'); trace(\"a\\\nb\"); }\n", "f.d");
  REQUIRE(r);
  const auto &s = r->clauses[0].stmts;
  CHECK(s[0].args[0]->kids[0]->ival == 255);
  CHECK(s[1].args[0]->kids[0]->ival == 44);
  CHECK(s[2].args[0]->kids[0]->ival == -1);
  CHECK(s[3].args[0]->kids[0]->ival == 19);
  CHECK(s[4].args[0]->ival == -1); // four characters: an int
  CHECK(s[5].args[0]->sval == "ab");
  // Nesting through sizeof and enum bodies is bounded like any other.
  std::string deep = "BEGIN { trace(";
  for (int i = 0; i < 400; i++)
    deep += "sizeof(enum { A" + std::to_string(i) + " = ";
  deep += "1";
  for (int i = 0; i < 400; i++)
    deep += " })";
  deep += "); }";
  auto d = parse(deep);
  REQUIRE_FALSE(d);
  CHECK(d.error().message.find("expression nested more than 256 levels deep") !=
        std::string::npos);
  std::string sizes = "BEGIN { trace(";
  for (int i = 0; i < 5000; i++)
    sizes += "sizeof ";
  CHECK_FALSE(parse(sizes + "1); }"));
}

TEST_CASE("dtrace parse: enumerations name int constants") {
  auto r = parse("enum colors { RED, ORANGE = 5 + 5, YELLOW = 2, GREEN, "
                 "BLUE = GREEN + ORANGE, INDIGO = -2, VIOLET } c;\n"
                 "enum colors d;\n"
                 "BEGIN { trace(BLUE); trace(VIOLET); }\n", "e.d");
  REQUIRE(r);
  REQUIRE(r->decls.size() == 2);
  CHECK(r->decls[0].type.bytes == 4);
  CHECK(r->decls[0].type.name == "enum colors");
  const auto &s = r->clauses[0].stmts;
  CHECK(s[0].args[0]->kids[0]->ival == 13);
  CHECK(s[1].args[0]->kids[0]->ival == -1);
  auto fails = [](const std::string &src) {
    auto p = parse(src, "e.d");
    return p ? std::string() : p.error().message;
  };
  CHECK(fails("enum a { X, Y };\nenum b { Y };\n") ==
        "failed to compile script e.d: line 2: identifier redeclared: Y");
  // An inline over an inline or one of D's functions, in DTrace's words.
  CHECK(fails("inline int foo = 1;\ninline int foo = 8;\n") ==
        "failed to compile script e.d: line 2: identifier redefined: foo\n"
        "\t current: inline definition\n\tprevious: scalar inline");
  CHECK(fails("inline int rand = 7;\n") ==
        "failed to compile script e.d: line 1: identifier redefined: rand\n"
        "\t current: inline definition\n\tprevious: function ");
  CHECK(fails("int z;\ninline int z = 7;\n") ==
        "failed to compile script e.d: line 2: identifier redeclared: z");
  CHECK(fails("enum a { X = arg0 };\n") ==
        "failed to compile script e.d: line 1: enumerator 'X' must be "
        "assigned to an integral constant expression");
  CHECK(fails("enum a { X = 2147483647, Y };\n") ==
        "failed to compile script e.d: line 1: enumerator 'Y' value "
        "overflows INT_MAX (2147483647)");
  CHECK(fails("enum nosuch x;\n") ==
        "failed to compile script e.d: line 1: incomplete struct/union/enum "
        "enum nosuch");
}

TEST_CASE("dtrace parse: errors in a script carry file and line") {
  CHECK(parse_error("tick\n{\n\ttrace(arg0 +);\n}\n", "t.d") ==
        "failed to compile script t.d: line 3: syntax error near \")\"");
  CHECK(parse_error("#pragma D option nosuch\n", "t.d") ==
        "failed to compile script t.d: line 1: failed to set option 'nosuch': "
        "Option not supported here");
  CHECK(parse_error("/* a comment\n\nBEGIN {}\n", "t.d") ==
        "failed to compile script t.d: line 4: end-of-file encountered before "
        "matching */");
  CHECK(parse_error("#pragma D error \"stop here\"\n", "t.d") ==
        "failed to compile script t.d: line 1: #error: stop here ");
  CHECK(parse_error("\n\n", "t.d") ==
        "failed to compile script t.d: line 3: empty D program translation unit");
  CHECK(parse_error("#pragma D option quiet=please\nBEGIN {}\n", "t.d") ==
        "failed to compile script t.d: line 1: failed to set option 'quiet' to "
        "'please': Invalid value for specified option");
  CHECK(parse_error("BEGIN {}\n#pragma D option quiet", "t.d") ==
        "failed to compile script t.d: line 2: end-of-file encountered before "
        "end of control line");
  CHECK(parse_error("BEGIN {}\n}\n", "t.d") ==
        "failed to compile script t.d: line 2: syntax error near \"}\"");
  CHECK(parse_error("BEGIN { printf(\"%*1$d\", 1); }", "t.d") == "");
  // Which $N a program names: the command refuses an argument none of its
  // programs names (dtrace-errors.t).
  MacroArgs args{{"t.d", "10", "20"}};
  auto m = parse("BEGIN { trace($2); trace($$0); }", "t.d", args);
  REQUIRE(m);
  CHECK(m->macros_used == (1u << 2 | 1u << 0));
  // -x errtags: the tag before the line.
  auto r = parse("BEGIN { trace(1 / ); }", "t.d", {}, true);
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "failed to compile script t.d: [D_SYNTAX] line 1: syntax error near \")\"");
  r = parse("#pragma D option errtags\nBEGIN { exit(); }", "t.d");
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "failed to compile script t.d: [D_PROTO_LEN] line 2: exit( ) prototype "
        "mismatch: 0 args passed, 1 expected");
}

TEST_CASE("dtrace compile: type errors") {
  const std::string spec = "invalid probe specifier ";
  CHECK(compile_error("p:::n { printf(\"%d\", \"s\"); }") ==
        spec + "p:::n { printf(\"%d\", \"s\"); }: printf( ) argument #2 is "
               "incompatible with conversion #1 prototype:\n"
               "\tconversion: %d\n"
               "\t prototype: char, short, int, long, or long long\n"
               "\t  argument: string");
  CHECK(compile_error("p:::n { printf(\"%s\", arg0); }") ==
        spec + "p:::n { printf(\"%s\", arg0); }: printf( ) argument #2 is "
               "incompatible with conversion #1 prototype:\n"
               "\tconversion: %s\n"
               "\t prototype: char [] or string (or use stringof)\n"
               "\t  argument: int64_t");
  CHECK(compile_error("p:::n { printf(\"%d %d\", 1); }") ==
        spec + "p:::n { printf(\"%d %d\", 1); }: printf( ) prototype mismatch: "
               "conversion #2 (%d) is missing a corresponding value argument");
  CHECK(compile_error("p:::n { printf(\"%*d\", 1); }") ==
        spec + "p:::n { printf(\"%*d\", 1); }: printf( ) prototype mismatch: "
               "conversion #1 (%d) is missing a corresponding value argument");
  CHECK(compile_error("p:::n { printf(\"%*d\"); }") ==
        spec + "p:::n { printf(\"%*d\"); }: printf( ) prototype mismatch: "
               "conversion #1 (%d) is missing a corresponding \"*\" argument");
  CHECK(compile_error("p:::n { printf(\"%d\", 1, 2); }") ==
        spec + "p:::n { printf(\"%d\", 1, 2); }: printf( ) prototype mismatch: "
               "only 1 arguments required by this format string");
  CHECK(compile_error("p:::n { printf(\"%f\", 1); }") ==
        spec + "p:::n { printf(\"%f\", 1); }: printf( ) argument #2 is "
               "incompatible with conversion #1 prototype:\n\tconversion: "
               "%f\n\t prototype: double\n\t  argument: int");
  CHECK(compile_error("p:::n { printf(arg0); }") ==
        spec + "p:::n { printf(arg0); }: printf( ) argument #1 is incompatible "
               "with prototype:\n\tprototype: string\n\t argument: int64_t");
  CHECK(compile_error("p:::n { @a = count(); @a = sum(1); }") ==
        spec + "p:::n { @a = count(); @a = sum(1); }: @a is used with count( ) "
               "and with sum( )");
  CHECK(compile_error("p:::n { @a[1] = count(); @a[\"x\"] = count(); }") ==
        spec + "p:::n { @a[1] = count(); @a[\"x\"] = count(); }: @a is used "
               "with keys [int] and [string]");
  CHECK(compile_error("p:::n { trace(\"a\" == 1); }") ==
        spec + "p:::n { trace(\"a\" == 1); }: operands have incompatible types: "
               "\"string\" == \"int\"");
  CHECK(compile_error("p:::n { trace(-\"a\"); }") ==
        spec + "p:::n { trace(-\"a\"); }: operator - requires an operand of "
               "arithmetic type");
  CHECK(compile_error("p:::n { trace(\"a\" & 1); }") ==
        spec + "p:::n { trace(\"a\" & 1); }: operator & requires operands of "
               "integral type");
  CHECK(compile_error("p:::n { x = 1; x += \"a\"; }") ==
        spec + "p:::n { x = 1; x += \"a\"; }: operands have incompatible types: "
               "\"int\" += \"string\"");
  CHECK(compile_error("p:::n /probefunc/ { trace(1); }") ==
        spec + "p:::n /probefunc/ { trace(1); }: predicate result must be of "
               "scalar type");
  CHECK(compile_error("p:::n { trace(1 / 0); }") ==
        spec + "p:::n { trace(1 / 0); }: expression contains division by zero");
  CHECK(compile_error("p:::n { @ = lquantize(arg0, 10, 0, 1); }") ==
        spec + "p:::n { @ = lquantize(arg0, 10, 0, 1); }: lquantize( ) upper "
               "bound must be greater than lower bound");
  CHECK(compile_error("p:::n { @ = lquantize(arg0, 0, 10, arg1); }") ==
        spec + "p:::n { @ = lquantize(arg0, 0, 10, arg1); }: expected an "
               "integer constant");
  CHECK(compile_error("p:::n { printa(@nope); }") ==
        spec + "p:::n { printa(@nope); }: printa( ) of an aggregation that is "
               "never assigned");
  CHECK(compile_error("p:::n { @a[probefunc] = count(); printa(\"%d\\n\", @a); }") ==
        spec + "p:::n { @a[probefunc] = count(); printa(\"%d\\n\", @a); }: "
               "printa( ) argument #2 is incompatible with conversion #1 "
               "prototype:\n\tconversion: %d\n"
               "\t prototype: char, short, int, long, or long long\n"
               "\t  argument: string");
  CHECK(compile_error("p:::n { @ = sum(probename); }") ==
        spec + "p:::n { @ = sum(probename); }: sum( ) needs an integer value, "
               "not a string");
  CHECK(compile_error("p:::n { printf(\"%*1$d\", 1); }") ==
        spec + "p:::n { printf(\"%*1$d\", 1); }: format conversion #1 uses "
               "unsupported positional format (%n$)");
  CHECK(compile_error("p:::n { x[1, 2, 3, 4, 5, 6, 7, 8, 9] = 1; }") ==
        spec + "p:::n { x[1, 2, 3, 4, 5, 6, 7, 8, 9] = 1; }: Insufficient "
               "tuple registers to generate code");
  CHECK(compile_error("p:::n { x[1, 2] = 1; x[3] = 1; }") ==
        spec + "p:::n { x[1, 2] = 1; x[3] = 1; }: x[ ] prototype mismatch: "
               "1 key passed, 2 expected");
  CHECK(compile_error("p:::n { x[1, \"a\"] = 1; x[3, 4] = 1; }") ==
        spec + "p:::n { x[1, \"a\"] = 1; x[3, 4] = 1; }: x[ ] key #2 is "
               "incompatible with prototype:\n\tprototype: string\n\t      "
               "key: int");
  CHECK(compile_error("p:::n { substr(\"a\", \"b\"); }") ==
        spec + "p:::n { substr(\"a\", \"b\"); }: substr( ) argument #2 is "
               "incompatible with prototype:\n\tprototype: int\n\t argument: "
               "string");
}

TEST_CASE("dtrace compile: args[N] takes the probes' argument types") {
  CHECK(compile_error("p:::n { printf(\"%s\", args[0]); }",
                      {probe(1, "f", "n", {"char *", "int"})}) == "");
  CHECK(compile_error("p:::n { printf(\"%d\", args[1]); }",
                      {probe(1, "f", "n", {"char *", "int"})}) == "");
  CHECK(compile_error("p:::n { trace(args[0]); }",
                      {probe(1, "f", "n", {"char *"}), probe(2, "g", "n", {"int"})}) ==
        "invalid probe specifier p:::n { trace(args[0]); }: the probes matched "
        "disagree on its type (char * and int)");
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
        "failed to compile script t.d: line 4: printf( ) argument #2 is "
        "incompatible with conversion #1 prototype:\n\tconversion: %s\n"
        "\t prototype: char [] or string (or use stringof)\n\t  argument: "
        "int64_t");
}

TEST_CASE("dtrace compile: an error names the line DTrace's lexer was on") {
  // DTrace makes a node once its parser has read the token after it, and
  // names the lexer's line then: a predicate's closing '/' looked ahead
  // to the '{', an enumerator's value to what follows it; a predicate's
  // type is checked at the clause's '}'.
  CHECK(script_error("p:::n\n/\"a\" & \"b\"/\n{\n\ttrace(1);\n}\n") ==
        "failed to compile script t.d: line 3: operator & requires operands "
        "of integral type");
  CHECK(script_error("p:::n\n{\n\tx = 1 +\n\t\"s\";\n}\n") ==
        "failed to compile script t.d: line 4: operator + requires operands "
        "of integral type");
  CHECK(script_error("int a[4];\np:::n\n/a/\n{\n\ttrace(1);\n}\n") ==
        "failed to compile script t.d: line 6: predicate result must be of "
        "scalar type");
  CHECK(script_error("enum e {\n\tbig = 2147483648\n};\n") ==
        "failed to compile script t.d: line 3: enumerator 'big' value "
        "overflows INT_MAX (2147483647)");
  CHECK(script_error("enum e {\n\tS = \"s\"\n};\n") ==
        "failed to compile script t.d: line 3: enumerator 'S' must be "
        "assigned to an integral constant expression");
}

TEST_CASE("dtrace compile: more of DTrace's refusals, in its words") {
  const std::string f = "failed to compile script t.d: ";
  CHECK(script_error("short void v;\np:::n { }") ==
        f + "line 1: invalid type declaration: attributes may not be used "
            "with void type");
  // #pragma D attributes of a name no variable or inline ever defines
  // (here a function prototype's); of one that is defined, nothing.
  CHECK(script_error("void fn(int);\n#pragma D attributes Stable/Stable/Common fn\n"
               "p:::n { }") == f + "line 2: unused #pragma attributes");
  CHECK(script_error("#pragma D attributes Stable/Stable/Common x\n"
               "p:::n { x = 1; }") == "");
  CHECK(script_error("p:::n {\n\t@a = count();\n\ttrace(&@a);\n}") ==
        f + "line 3: cannot take address of dynamic variable");
  CHECK(script_error("p:::n {\n\t@a = count();\n\ttrace(@a);\n}") ==
        f + "line 3: trace( ) may not be applied to a dynamic expression");
  CHECK(script_error("inline int i = \"s\";\np:::n { }") ==
        f + "line 1: inline i definition uses incompatible types: \"int\" = "
            "\"string\"");
  // An enum of no enumerators, and a struct of another module's scope,
  // whose (empty) body is the error.
  CHECK(script_error("enum e\n{\n};\n") == f + "line 3: syntax error near \"}\"");
  CHECK(script_error("struct m`s {\n\n};\n") ==
        f + "line 3: syntax error near \"}\"");
  // x += y and x -= y of a pointer want a pointer to something of known
  // size on the left; ++ and -- one of known size.
  CHECK(script_error("int p;\np:::n {\n\tp = 1;\n\tp -= alloca(10);\n}") ==
        f + "line 4: operator -= requires left-hand scalar operand of known "
            "size");
  CHECK(script_error("p:::n {\n\tp = (void *)alloca(8);\n\tp++;\n}") ==
        f + "line 3: operator ++ requires an operand of known size");
  CHECK(script_error("p:::n { p = (int *)alloca(8); p += 1; p -= 1; p++; }") == "");
  // printf( )'s arguments are typed before its format is read.
  CHECK(script_error("struct s { int a : 3; } v;\np:::n {\n\tprintf(\"%n\", "
                     "sizeof(v.a));\n}") ==
        f + "line 3: cannot apply sizeof to a bit-field");
  CHECK(script_error("struct s {\n\tfloat : 1;\n} v;\np:::n { }") ==
        f + "line 2: invalid type for bit-field: (anon)");
  // On the right an array is its first element's address, as in C: not
  // this error (minikern has no such address yet: another one).
  CHECK(script_error("int b[3];\np:::n {\n\tp = b;\n}").find(
            "may not be applied") == std::string::npos);
  CHECK(script_error("int a[3];\nint b[3];\np:::n {\n\ta = b;\n}") ==
        f + "line 4: operator = may not be applied to operand of type "
            "\"int [3]\"");
}

TEST_CASE("dtrace compile: a variable holds alloca( ) pointers or other values") {
  const std::string f = "failed to compile script t.d: ";
  const std::string both = ": cannot reuse the same identifier for both "
                           "alloca and non-alloca allocations";
  // In any clause, in any order; the clause that makes it both is named.
  CHECK(script_error("p:::n { a = (char *)alloca(1); }\n"
                     "p:::n\n{ a = (char *)64; }") == f + "line 2: a" + both);
  CHECK(script_error("p:::n { self->b = 5; }\n"
                     "p:::n { self->b = alloca(4); }") == f + "line 2: b" + both);
  // A ternary of both kinds may not be stored at all.
  CHECK(script_error("p:::n {\n\ta = (char *)alloca(1);\n"
                     "\ta = a == NULL ? (char *)50 : a;\n}") ==
        f + "line 3: ternary conditional with alloca and non-alloca branches "
            "cannot be assigned to a variable");
  // Pointer arithmetic, casts, 0 and the elements a pointer reaches keep
  // a variable what it was.
  CHECK(script_error("p:::n { s = (char *)alloca(8); s = s + 1; s = 0; "
                     "s[0] = 104; t = (int *)s; t = t + 1; t++; }") == "");
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
// The error for the -n text `src`: "invalid probe specifier SRC: why".
std::string spec_error(const std::string &src, const std::string &why) {
  return "invalid probe specifier " + src + ": " + why;
}
const std::string kTooDeep = "expression nested more than 256 levels deep";
} // namespace

TEST_CASE("dtrace parse: deep nesting is an error, not a stack overflow") {
  // Each of these overflowed the parser's or the compiler's stack.
  for (const std::string &e :
       {repeat("(", 2000) + "1" + repeat(")", 2000), "1" + repeat("+1", 20000),
        // (spaced: "--" is the decrement operator)
        repeat("- ", 100000) + "1",
        repeat("1?", 20000) + "1" + repeat(":1", 20000),
        repeat("strlen(", 2000) + "\"\"" + repeat(")", 2000)})
    CHECK(parse_error(clause_of(e)) == spec_error(clause_of(e), kTooDeep));
  // Within the bound, they parse.
  CHECK(parse(clause_of(repeat("(", 200) + "1" + repeat(")", 200))));
  CHECK(parse(clause_of("1" + repeat("+1", 250))));
  CHECK(parse(clause_of(repeat("- ", 250) + "1")));
}

TEST_CASE("dtrace parse: integer constants beyond 64 bits are refused") {
  for (const char *c : {"18446744073709551616", "0x10000000000000000",
                        "02000000000000000000000"})
    CHECK(parse_error(clause_of(c)) ==
          spec_error(clause_of(c), std::string("constant ") + c +
                                       " results in integer overflow"));
  auto r = parse(clause_of("18446744073709551615"));
  REQUIRE(r);
  CHECK(r->clauses[0].stmts[0].args[0]->ival == -1);
}

TEST_CASE("dtrace parse: #pragma sizes are checked as -b checks them") {
  // bufsize=-1 hung pow2_at_least(); 2^63 wrapped to a small buffer.
  for (const char *o : {"bufsize=-1", "bufsize=9223372036854775808",
                        "aggsize=17179869185g", "bufsize=0k"}) {
    std::string name = o, val = name.substr(name.find('=') + 1);
    name.resize(name.find('='));
    CHECK(parse_error(std::string("#pragma D option ") + o + "\nBEGIN {}", "x.d") ==
          "failed to compile script x.d: line 1: failed to set option '" +
              name + "' to '" + val + "': Invalid value for specified option");
  }
  CHECK_FALSE(parse_size("-1"));
  CHECK(parse_size("9223372036854775808").error().message ==
        "size '9223372036854775808' is above the maximum of 1g");
  CHECK(parse_size("0k").error().message ==
        "size '0k' is below the minimum of 1 byte");
  CHECK(*parse_size("32") == 32); // a buffer that small is a page here
  CHECK_FALSE(parse_size("99999999999999999999"));
  CHECK(*parse_size("1g") == 1ull << 30);
}

TEST_CASE("dtrace parse: rates are read as DTrace reads them") {
  CHECK(*parse_rate("10hz") == 100000000);
  CHECK(*parse_rate("4") == 250000000); // no suffix: per second
  CHECK(*parse_rate("50ms") == 50000000);
  CHECK(*parse_rate("10MSEC") == 10000000);
  CHECK(*parse_rate("1nsec") == 1);
  CHECK(*parse_rate("2min") == 120000000000ull);
  CHECK(*parse_rate("1day") == 86400000000000ull);
  CHECK(*parse_rate("0hz") == 0);
  for (const char *bad : {"0.5hz", "", "hz", "-1s", "5fortnights", "1 s",
                          "99999999999999999999", "300000d"})
    CHECK_FALSE(parse_rate(bad));
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
        spec_error(clause_of(repeat("1+(", 40) + "1" + repeat(")", 40)),
                   "the clause needs 41 values on the interpreter's stack at "
                   "once (at most 32): nest its expressions less"));
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
  CHECK(parse_error("#pragma D option nspec=0\n", "s.d") ==
        "failed to compile script s.d: line 1: failed to set option 'nspec' to "
        "'0': Invalid value for specified option");
  CHECK(parse_error("BEGIN { normalize(1, 2); }") ==
        spec_error("BEGIN { normalize(1, 2); }",
                   "normalize( ) argument #1 is incompatible with prototype:\n"
                   "\tprototype: aggregation\n\t argument: int"));
  CHECK(parse_error("BEGIN { printa(@a, 1); }") ==
        spec_error("BEGIN { printa(@a, 1); }",
                   "printa( ) argument #2 is incompatible with prototype:\n"
                   "\tprototype: aggregation\n\t argument: int"));
  CHECK(parse_error("BEGIN { printa(\"%d\"); }") ==
        spec_error("BEGIN { printa(\"%d\"); }",
                   "printa( ) prototype mismatch: 1 args passed, 2 expected"));
}

TEST_CASE("dtrace compile: aggregation actions and speculations") {
  auto err = [](const std::string &src, const std::string &why) {
    CHECK(compile_error(src) == spec_error(src, why));
  };
  err("a:::b { trunc(@x); }", "trunc( ) of an aggregation that is never assigned");
  err("a:::b { @[1] = count(); @b = count(); printa(@, @b); }",
      "printa( ): @ and @b do not have matching key signatures: @ has 1 key, "
      "@b has 0 keys");
  err("a:::b { @f[1] = count(); @b[\"x\"] = count(); printa(@f, @b); }",
      "printa( ): @b[ ] key #1 is incompatible with @f:\n"
      "      f key #1: int\n      b key #1: string");
  err("a:::b { @ = llquantize(arg0, 2, 32, 32, 8589934592); }",
      "llquantize( ) steps (argument #5) must be 1..65535");
  err("a:::b { @ = llquantize(arg0, 10, 0, 2, 15); }",
      "llquantize( ) steps (argument #5) must be a multiple of the factor");
  err("a:::b { @ = llquantize(arg0, 10, 0, 2, 3); }",
      "llquantize( ) steps (argument #5) must evenly divide the factor");
  CHECK(compile_error("a:::b { @ = llquantize(arg0, 10, 0, 2, 5); }") == "");
  // Speculation's rules, DTrace on BPF's, in its words.
  err("a:::b { speculate(1); @ = count(); }",
      "aggregating actions may not follow speculate( )");
  err("a:::b { speculate(1); speculate(1); }",
      "speculate( ) may not follow speculate( )");
  err("a:::b { speculate(1); exit(0); }", "exit( ) may not follow speculate( )");
  err("a:::b { trace(1); commit(1); }",
      "commit( ) may not follow data-recording action(s)");
  err("a:::b { @ = count(); commit(1); }",
      "commit( ) may not follow data-recording action(s)");
  err("a:::b { speculate(1); printf(\"x\"); speculate(2); }",
      "speculate( ) may not follow speculate( )");
  // discard( ) may go anywhere: what comes after it is recorded as usual.
  CHECK(compile_error("a:::b { trace(1); discard(1); trace(2); }") == "");
  err("a:::b { trace(1); speculate(1); }",
      "speculate( ) may not follow data-recording action(s)");
  err("a:::b { commit(1); trace(1); }",
      "data-recording actions may not follow commit( )");
  err("a:::b { commit(1); @ = count(); }",
      "aggregating actions may not follow commit( )");
  err("a:::b { commit(1); speculate(1); }", "speculate( ) may not follow commit( )");
  CHECK(compile_error("a:::b { commit(1); discard(1); commit(2); }") == "");
  CHECK(compile_error("a:::b { speculate(1); printf(\"x\"); printa(@a); } "
                      "a:::b { @a = count(); } a:::b { commit(1); }") == "");
}
