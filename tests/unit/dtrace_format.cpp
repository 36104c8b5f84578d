// DTrace's output formats (sdt/dtrace/format.cpp): printf conversions, the
// default record line, aggregation rows, quantize/lquantize histograms.
// Expected texts are DTrace's layouts, trailing blanks included.
#include "../../sdt/dtrace/dtrace.h"

#include <doctest/doctest.h>

#include <ctime>

using namespace mk;
using namespace mk::dt;

namespace {

Value I(i64 v, Type t = Type::Int64) {
  Value x;
  x.type = t;
  x.i = v;
  return x;
}
Value S(const std::string &s) {
  Value x;
  x.type = Type::String;
  x.s = s;
  return x;
}

std::string pf(const std::string &fmt, std::vector<Value> args) {
  auto f = parse_format(fmt);
  REQUIRE_MESSAGE(f, (f ? "" : f.error().message));
  return format(*f, args);
}

AggDef agg(AggFn fn, std::vector<Type> keys = {}) {
  AggDef a;
  a.fn = fn;
  a.keys = std::move(keys);
  a.nvals = fn == AggFn::Avg ? 2 : fn == AggFn::Quantize ? kQuantBuckets : 1;
  return a;
}

AggRow row(std::vector<Value> keys, std::vector<i64> vals) {
  AggRow r;
  r.keys = std::move(keys);
  r.vals = std::move(vals);
  return r;
}

} // namespace

TEST_CASE("dtrace format: printf conversions") {
  CHECK(pf("%d|%i|%u|%x|%X|%o", {I(-1), I(42), I(-1, Type::Int32), I(255), I(255), I(8)}) ==
        "-1|42|4294967295|ff|FF|10");
  CHECK(pf("%5d|%-5d|%05d|%+d|% d", {I(42), I(42), I(42), I(42), I(42)}) ==
        "   42|42   |00042|+42| 42");
  CHECK(pf("%s|%10s|%-10s|%.2s", {S("abc"), S("abc"), S("abc"), S("abc")}) ==
        "abc|       abc|abc       |ab");
  CHECK(pf("%c%c", {I('o'), I('k')}) == "ok");
  // %p is DTrace's: the address's hex, 0x only with '#'.
  CHECK(pf("%p|%10p|%#p", {I(4096), I(255), I(255)}) == "1000|        ff|0xff");
  CHECK(pf("%ld %lld %lu %llu %hhd %hd", {I(-5), I(-5), I(5), I(5), I(257), I(65537)}) ==
        "-5 -5 5 5 1 1");
  CHECK(pf("%*d|%-*d|%.*s", {I(4), I(7), I(3), I(7), I(2), S("xyz")}) == "   7|7  |xy");
  CHECK(pf("100%% %d\n\t.", {I(1)}) == "100% 1\n\t.");
  // A 4-byte value wraps as int; an 8-byte one prints whole.
  CHECK(pf("%d %d", {I(0xffffffffLL, Type::Int32), I(0xffffffffLL)}) == "-1 4294967295");
}

TEST_CASE("dtrace format: %Y prints a wall-clock time as DTrace does") {
  auto f = parse_format("[%Y]");
  REQUIRE(f);
  Value v;
  v.type = Type::UInt64;
  v.i = (i64)1700000000123456789ull; // ns since the epoch
  const time_t sec = 1700000000;
  struct tm tm;
  REQUIRE(localtime_r(&sec, &tm));
  char want[64];
  strftime(want, sizeof want, "[%Y %b %e %T]", &tm);
  CHECK(format(*f, {v}) == want);
}

TEST_CASE("dtrace format: %a names an address by the symbolizer given") {
  auto f = parse_format("%a|%-12a|%a");
  REQUIRE(f);
  const Symbolizer sym = [](u64 a) {
    return a == 0x1000 ? std::string("vmlinux`v") : strf("0x%llx", (unsigned long long)a);
  };
  CHECK(format(*f, {I(0x1000), I(0x1000), I(0x2000)}, &sym) ==
        "vmlinux`v|vmlinux`v   |0x2000");
  CHECK(format(*f, {I(0x1000), I(0x1000), I(0x2000)}) ==
        "0x1000|0x1000      |0x2000"); // no symbolizer: in hex
}

TEST_CASE("dtrace format: bad conversions") {
  auto msg = [](const std::string &f) {
    auto r = parse_format(f);
    return r ? std::string() : r.error().message;
  };
  // DTrace's words, the conversion by its number.
  CHECK(msg("%A") == "format conversion #1 (%A) is not supported here: it "
                     "prints a user symbol's name by its address, and "
                     "minikern has no user space");
  CHECK(msg("%F") == "format conversion #1 is undefined: %F");
  CHECK(msg("%d %y") == "format conversion #2 is undefined: %y");
  CHECK(msg("%zd") == "format conversion #1 is undefined: %z");
  CHECK(msg("abc %") == "format conversion #1 name expected before end of "
                        "format string");
  CHECK(msg("%ls") == "format conversion #1 (%s) takes no size");
  CHECK(msg("%lk") == "format conversion #1 (%k) takes no size");
  CHECK(msg("%1.2.3d") == "format conversion #1 has more than one '.' specified");
  CHECK(msg("%**d") == "format conversion #1 has more than one '*' specified "
                       "for the output width");
  CHECK(msg("%.**d") == "format conversion #1 has more than one '*' specified "
                        "for the output precision");
  CHECK(msg("%1$d") == "format conversion #1 uses unsupported positional "
                       "format (%n$)");
  CHECK(msg("%-%") == "format conversion #1 cannot be combined with other "
                      "format flags: %%");
  CHECK(msg("%?p") == ""); // as wide as a pointer
  CHECK(parse_format("%?p")->convs[0].width == 2 * (int)sizeof(void *));
}

TEST_CASE("dtrace format: the default record line") {
  CHECK(record_header() == "CPU     ID                    FUNCTION:NAME\n");
  CHECK(record_prefix(0, 57, "module_load", "module-load") ==
        "  0     57          module_load:module-load ");
  CHECK(record_prefix(1, 1, "", "BEGIN") == "  1      1                           :BEGIN ");
}

TEST_CASE("dtrace format: quantize buckets are DTrace's") {
  CHECK(quantize_bucket(0) == kQuantZero);
  CHECK(quantize_bucket(1) == kQuantZero + 1);
  CHECK(quantize_bucket(2) == kQuantZero + 2);
  CHECK(quantize_bucket(3) == kQuantZero + 2);
  CHECK(quantize_bucket(4) == kQuantZero + 3);
  CHECK(quantize_bucket(-1) == kQuantZero - 1);
  CHECK(quantize_bucket(-2) == kQuantZero - 2);
  CHECK(quantize_bucket(-3) == kQuantZero - 2);
  CHECK(quantize_bucket(INT64_MAX) == kQuantBuckets - 1);
  CHECK(quantize_bucket(INT64_MIN) == 0);
  CHECK(quantize_value(kQuantZero) == 0);
  CHECK(quantize_value(kQuantZero + 1) == 1);
  CHECK(quantize_value(kQuantZero + 11) == 1024);
  CHECK(quantize_value(kQuantZero - 3) == -4);
  for (int b = 0; b < kQuantBuckets; b++)
    CHECK(quantize_bucket(quantize_value(b)) == b);
}

TEST_CASE("dtrace format: keyed and keyless rows, sorted by value then key") {
  AggDef c = agg(AggFn::Count, {Type::String});
  std::string out = print_aggregation(
      c, {row({S("write")}, {10}), row({S("read")}, {3}), row({S("open")}, {3})});
  CHECK(out ==
        "  open                                                              3\n"
        "  read                                                              3\n"
        "  write                                                            10\n");
  AggDef k = agg(AggFn::Sum, {Type::Int32, Type::Int64});
  CHECK(print_aggregation(k, {row({I(1, Type::Int32), I(-2)}, {7})}) ==
        "        1               -2                7\n");
  CHECK(print_aggregation(agg(AggFn::Count), {row({}, {42})}) == "               42\n");
  CHECK(print_aggregation(agg(AggFn::Avg), {row({}, {4, 10})}) == "                2\n");
}

TEST_CASE("dtrace format: quantize histogram") {
  std::vector<i64> v(kQuantBuckets, 0);
  v[quantize_bucket(0)] = 1;
  v[quantize_bucket(1)] = 1;
  v[quantize_bucket(5)] = 2;
  std::string out = print_aggregation(agg(AggFn::Quantize), {row({}, v)});
  CHECK(out == "\n"
               "           value  ------------- Distribution ------------- count    \n"
               "              -1 |                                         0        \n"
               "               0 |@@@@@@@@@@                               1        \n"
               "               1 |@@@@@@@@@@                               1        \n"
               "               2 |                                         0        \n"
               "               4 |@@@@@@@@@@@@@@@@@@@@                     2        \n"
               "               8 |                                         0        \n"
               "\n");
}

TEST_CASE("dtrace format: lquantize histogram with under- and overflow rows") {
  AggDef a = agg(AggFn::LQuantize);
  a.lq_base = 0, a.lq_limit = 10, a.lq_step = 5, a.nvals = 4;
  std::string out = print_aggregation(a, {row({}, {1, 0, 2, 1})});
  CHECK(out == "\n"
               "           value  ------------- Distribution ------------- count    \n"
               "             < 0 |@@@@@@@@@@                               1        \n"
               "               0 |                                         0        \n"
               "               5 |@@@@@@@@@@@@@@@@@@@@                     2        \n"
               "           >= 10 |@@@@@@@@@@                               1        \n"
               "\n");
}

TEST_CASE("dtrace format: printa with a format") {
  AggDef c = agg(AggFn::Count, {Type::String, Type::Int64});
  auto f = parse_format("%-6s %3d %@5d\n");
  REQUIRE(f);
  CHECK(printa_format(c, *f, {row({S("b"), I(2)}, {9}), row({S("a"), I(1)}, {1})}) ==
        "a        1     1\n"
        "b        2     9\n");
  // The value goes where %@ is, even before the keys.
  auto g = parse_format("%@d:%s\n");
  REQUIRE(g);
  AggDef s = agg(AggFn::Sum, {Type::String});
  CHECK(printa_format(s, *g, {row({S("k")}, {5})}) == "5:k\n");
}

TEST_CASE("dtrace format: stddev() is DTrace's integer one, 128-bit exact") {
  AggDef s = agg(AggFn::Stddev);
  s.nvals = 4;
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, standard deviation 2.
  CHECK(agg_scalar(s, {8, 40, 232, 0}) == 2);
  CHECK(agg_scalar(s, {0, 0, 0, 0}) == 0);
  // 0..9 times 10^9: the sum of squares (2.85e20) needs more than 64 bits.
  U128 sq;
  for (u64 i = 0; i < 10; i++)
    sq = sq.add(U128::mul(i * 1000000000, i * 1000000000));
  CHECK(sq.hi == 15);
  CHECK(agg_scalar(s, {10, 45000000000, (i64)sq.lo, (i64)sq.hi}) == 2872281323);
  CHECK(agg_value_text(s, {10, 45000000000, (i64)sq.lo, (i64)sq.hi}) ==
        "       2872281323");
  // normalize( ) divides the mean and the mean of the squares.
  CHECK(agg_scalar(s, {10, 45, 285, 0}, 2) == 3);
  CHECK(U128{1, 0}.div(2).lo == (u64)1 << 63);
  CHECK(U128{0, 5}.sub(U128{0, 7}).hi == ~(u64)0);
}

TEST_CASE("dtrace format: llquantize buckets are dtrace-utils' log-linear ones") {
  AggDef a = agg(AggFn::LLQuantize);
  a.llq_factor = 10, a.llq_low = 0, a.llq_high = 2, a.llq_steps = 10;
  // <= -1000, the negative ranges mirrored, |v| < 1 in the middle, then
  // 1..9, 10..90 by 10, 100..900 by 100, >= 1000: 9 buckets a magnitude.
  CHECK(llquantize_buckets(a) == 57);
  CHECK(llquantize_bucket(a, 0) == 28);
  CHECK(llquantize_bucket(a, -5) == 23);
  CHECK(llquantize_bucket(a, 1) == 29);
  CHECK(llquantize_bucket(a, 9) == 37);
  CHECK(llquantize_bucket(a, 10) == 38);
  CHECK(llquantize_bucket(a, 19) == 38);
  CHECK(llquantize_bucket(a, 99) == 46);
  CHECK(llquantize_bucket(a, 100) == 47);
  CHECK(llquantize_bucket(a, 999) == 55);
  CHECK(llquantize_bucket(a, 1000) == 56);
  CHECK(llquantize_bucket(a, INT64_MAX) == 56);
  CHECK(llquantize_bucket(a, INT64_MIN) == 0);
  CHECK(llquantize_bucket(a, -999) == 1);
  for (u32 b = 0; b < llquantize_buckets(a); b++)
    CHECK(llquantize_bucket(a, llquantize_value(a, b)) == b);
  // More steps than the first magnitude holds integers (low 0, steps 20):
  // the buckets no integer falls in are not printed.
  a.llq_factor = 10, a.llq_low = 0, a.llq_high = 1, a.llq_steps = 20;
  a.nvals = llquantize_buckets(a);
  std::vector<i64> v(a.nvals, 0);
  v[llquantize_bucket(a, 1)] = 1;
  v[llquantize_bucket(a, 2)] = 2;
  v[llquantize_bucket(a, 15)] = 1;
  CHECK(llquantize_bucket(a, 3) == llquantize_bucket(a, 2) + 2);
  std::string want = "\n           value  ------------- Distribution ------------- count    \n"
                     "               0 |                                         0        \n"
                     "               1 |@@@@@@@@@@                               1        \n"
                     "               2 |@@@@@@@@@@@@@@@@@@@@                     2        \n";
  for (int n = 3; n <= 10; n++)
    want += strf("%16d |                                         0        \n", n);
  want += "              15 |@@@@@@@@@@                               1        \n"
          "              20 |                                         0        \n\n";
  CHECK(print_aggregation(a, {row({}, v)}) == want);
}

TEST_CASE("dtrace format: printa joins aggregations by key; the aggsort options") {
  AggDef c = agg(AggFn::Count, {Type::Int64});
  AggDef s = agg(AggFn::Sum, {Type::Int64});
  auto table = [&] {
    std::vector<std::vector<AggRow>> rows(2);
    rows[0] = {row({I(1)}, {5}), row({I(2)}, {1}), row({I(3)}, {3})};
    rows[1] = {row({I(2)}, {40}), row({I(4)}, {-1})};
    return join_aggregations({&c, &s}, {1, 10}, std::move(rows));
  };
  auto f = parse_format("%d %@d %@d\n");
  REQUIRE(f);
  // A key one aggregation lacks has zeros there; @s prints divided by 10.
  CHECK(printa_format(table(), *f) == "4 0 0\n2 1 4\n3 3 0\n1 5 0\n");
  CHECK(print_aggregation(table()) ==
        "                4                0                0\n"
        "                2                1                4\n"
        "                3                3                0\n"
        "                1                5                0\n");
  AggSort by_key;
  by_key.bykey = true;
  CHECK(printa_format(table(), *f, by_key) == "1 5 0\n2 1 4\n3 3 0\n4 0 0\n");
  by_key.reverse = true;
  CHECK(printa_format(table(), *f, by_key) == "4 0 0\n3 3 0\n2 1 4\n1 5 0\n");
  AggSort second;
  second.pos = 1; // by @s, then by @c
  CHECK(printa_format(table(), *f, second) == "4 0 0\n3 3 0\n1 5 0\n2 1 4\n");
  // aggsortkeypos: the second key first.
  AggDef k2 = agg(AggFn::Count, {Type::Int64, Type::Int64});
  std::vector<std::vector<AggRow>> rows(1);
  rows[0] = {row({I(1), I(2)}, {1}), row({I(2), I(1)}, {1}), row({I(0), I(3)}, {1})};
  AggSort kp;
  kp.bykey = true, kp.keypos = 1;
  auto g = parse_format("%d,%d\n");
  REQUIRE(g);
  CHECK(printa_format(join_aggregations({&k2}, {1}, std::move(rows)), *g, kp) ==
        "2,1\n1,2\n0,3\n");
}

TEST_CASE("dtrace format: rawbytes dumps a string's bytes as DTrace does") {
  // strsize=10: "dtraceBEGIN" cut to ten characters, then its NUL.
  CHECK(raw_bytes("dtraceBEGI", 11) ==
        "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  "
        "0123456789abcdef\n"
        "         0: 64 74 72 61 63 65 42 45 47 49 00                 "
        "dtraceBEGI.\n");
  // Past 16 bytes a second row, at offset 10 (hex).
  const std::string two = raw_bytes("abcdefghijklmnopq", 18);
  CHECK(two.substr(two.find("        10:")) ==
        "        10: 71 00                                            q.\n");
}
