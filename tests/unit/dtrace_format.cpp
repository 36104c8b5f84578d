// DTrace's output formats (sdt/dtrace/format.cpp): printf conversions, the
// default record line, aggregation rows, quantize/lquantize histograms.
// Expected texts are DTrace's layouts, trailing blanks included.
#include "../../sdt/dtrace/dtrace.h"

#include <doctest/doctest.h>

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
  CHECK(pf("%p|%10p", {I(4096), I(255)}) == "0x1000|      0xff");
  CHECK(pf("%ld %lld %lu %llu %hhd %hd", {I(-5), I(-5), I(5), I(5), I(257), I(65537)}) ==
        "-5 -5 5 5 1 1");
  CHECK(pf("%*d|%-*d|%.*s", {I(4), I(7), I(3), I(7), I(2), S("xyz")}) == "   7|7  |xy");
  CHECK(pf("100%% %d\n\t.", {I(1)}) == "100% 1\n\t.");
  // A 4-byte value wraps as int; an 8-byte one prints whole.
  CHECK(pf("%d %d", {I(0xffffffffLL, Type::Int32), I(0xffffffffLL)}) == "-1 4294967295");
}

TEST_CASE("dtrace format: bad conversions") {
  auto msg = [](const std::string &f) {
    auto r = parse_format(f);
    return r ? std::string() : r.error().message;
  };
  CHECK(msg("%f") == "conversion \"%f\" is not supported: D here has no floating point");
  CHECK(msg("%y") == "conversion \"%y\" is not valid (use %d %i %u %x %X %o %c %s %p %k)");
  CHECK(msg("abc %") == "format ends inside conversion \"%\"");
  CHECK(msg("%ls") == "conversion \"%ls\" is not valid: %s takes no size");
  CHECK(msg("%lk") == "conversion \"%lk\" is not valid: %k takes no size");
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
