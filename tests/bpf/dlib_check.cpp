// bpf-dlib-check: the D library's functions, linked into small programs and
// run three ways: minikern's interpreter, its JIT, and, where the host
// kernel permits bpf(BPF_PROG_LOAD), the host kernel's own verifier and
// BPF_PROG_TEST_RUN.  Each case states the result the function must give;
// every engine must give it, and leave the same bytes in the scratch map.
//
//   bpf-dlib-check build/x86_64/dtrace/bpf_dlib.o
//
// One line per case and engine ("ok ...", "FAIL ...", "skip ..."), then
// "N passed, N failed".  Host-kernel runs that cannot happen say why.
#include "../../sdt/dtrace/bpf/bpf.h"
#include "../../sdt/dtrace/bpf/builder.h"
#include "../../sdt/dtrace/bpf/proglink.h"

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

using namespace mk;
using namespace mk::bpf;
using namespace mk::bpf::ins;

namespace {

// The scratch map's one value: arguments, destination, result.  The
// lane state of strtok( ) and rand( ) (a string, its position, the
// generator's word) takes the place of quantize's buckets.
constexpr u32 kValue = 4096;
constexpr i32 kArgOff[3] = {0, 512, 1024};
constexpr i32 kDst = 1536, kBuckets = 2048, kState = 2048, kResult = 4088;
constexpr i32 kStrSize = 256; // DT_STRSIZE
constexpr i64 kVoid = INT64_MIN + 1;
constexpr i64 kNoLen = 1 << 30;     // substr( ) without a length
constexpr i64 kNoPos = INT64_MAX;   // rindex( ) without a position
constexpr u64 kClock = 0x1234567;   // what the checks' timestamp helper says

struct Arg {
  enum Kind { Num, Str, Dst, Buckets, State } kind;
  i64 num = 0;
  std::string str;
  u64 seed = 0; // State: rand( )'s word
};
Arg num(i64 v) { return {Arg::Num, v, {}}; }
Arg str(std::string s) { return {Arg::Str, 0, std::move(s)}; }
Arg dst() { return {Arg::Dst, 0, {}}; }
Arg buckets() { return {Arg::Buckets, 0, {}}; }
// The lane state holding strtok's string `s` at position `pos`, and rand's
// word `seed`; passed as strtok's NULL string too, as the clause does.
Arg state(std::string s = "", i64 pos = 0, u64 seed = 0) {
  return {Arg::State, pos, std::move(s), seed};
}

struct Case {
  std::string label, fn;
  std::vector<Arg> args;
  bool returns_pointer; // result: offset into scratch, or -1 for null
  i64 result;           // kVoid: the function returns nothing
  std::string dst_string;   // expected at kDst ("" too: nothing written)
  i64 bucket = -1;          // expected bucket index holding 1 (quantize_add)
};

// rand( )'s generator (xorshift64*), one step from `v`, as dlib computes it.
i64 rand_after(u64 v) {
  v ^= v >> 12;
  v ^= v << 25;
  v ^= v >> 27;
  return (i64)(int)((v * 0x2545F4914F6CDD1DULL) >> 32);
}

std::vector<Case> cases() {
  const std::string x300(300, 'x'), x255(255, 'x'), x254(254, 'x');
  const i64 dst_at = kDst, none = -1;
  return {
      // strlen: around the eight-byte turns, and cut at DT_STRSIZE - 1.
      {"strlen(\"hello\")", "dt_strlen", {str("hello")}, false, 5, "", -1},
      {"strlen(\"\")", "dt_strlen", {str("")}, false, 0, "", -1},
      {"strlen of 7", "dt_strlen", {str("1234567")}, false, 7, "", -1},
      {"strlen of 8", "dt_strlen", {str("12345678")}, false, 8, "", -1},
      {"strlen of 9", "dt_strlen", {str("123456789")}, false, 9, "", -1},
      {"strlen of 254", "dt_strlen", {str(x254)}, false, 254, "", -1},
      {"strlen stops at DT_STRSIZE", "dt_strlen", {str(x300)}, false, 255, "", -1},
      // strcmp: the sign of the first differing byte, bytes unsigned.
      {"strcmp equal", "dt_strcmp", {str("abc"), str("abc")}, false, 0, "", -1},
      {"strcmp less", "dt_strcmp", {str("abc"), str("abd")}, false, -1, "", -1},
      {"strcmp greater", "dt_strcmp", {str("abd"), str("abc")}, false, 1, "", -1},
      {"strcmp prefix sorts first", "dt_strcmp", {str("ab"), str("abc")}, false, -'c', "", -1},
      {"strcmp bytes unsigned", "dt_strcmp", {str("\xff"), str("a")}, false, 0xff - 'a', "", -1},
      {"strcmp of two empty", "dt_strcmp", {str(""), str("")}, false, 0, "", -1},
      {"strcmp past DT_STRSIZE is equal", "dt_strcmp", {str(x300), str(x255 + "y")}, false, 0, "", -1},
      // strjoin: cut at DT_STRSIZE - 1.
      {"strjoin", "dt_strjoin", {dst(), str("foo"), str("bar")}, true, dst_at, "foobar", -1},
      {"strjoin of empty strings", "dt_strjoin", {dst(), str(""), str("")}, true, dst_at, "", -1},
      {"strjoin cut at DT_STRSIZE", "dt_strjoin", {dst(), str(x254), str("abc")}, true, dst_at, x254 + "a", -1},
      {"strjoin of a long first", "dt_strjoin", {dst(), str(x300), str("abc")}, true, dst_at, x255, -1},
      // substr: DTrace's rules for negative and out-of-range arguments.
      {"substr(s, 6, 5)", "dt_substr", {dst(), str("hello world"), num(6), num(5)}, true, dst_at, "world", -1},
      {"substr(s, -5, 3)", "dt_substr", {dst(), str("hello world"), num(-5), num(3)}, true, dst_at, "wor", -1},
      {"substr(s, 2, -2)", "dt_substr", {dst(), str("hello world"), num(2), num(-2)}, true, dst_at, "llo wor", -1},
      {"substr(s, 4)", "dt_substr", {dst(), str("minikern"), num(4), num(kNoLen)}, true, dst_at, "kern", -1},
      {"substr(s, 0, 4)", "dt_substr", {dst(), str("minikern"), num(0), num(4)}, true, dst_at, "mini", -1},
      {"substr(s, -4)", "dt_substr", {dst(), str("minikern"), num(-4), num(kNoLen)}, true, dst_at, "kern", -1},
      {"substr(s, len(s))", "dt_substr", {dst(), str("abc"), num(3), num(kNoLen)}, true, dst_at, "", -1},
      {"substr(s, past the end)", "dt_substr", {dst(), str("abc"), num(5), num(kNoLen)}, true, dst_at, "", -1},
      {"substr(s, before the start, 3)", "dt_substr", {dst(), str("abc"), num(-5), num(3)}, true, dst_at, "a", -1},
      {"substr(s, before the start, 4)", "dt_substr", {dst(), str("abc"), num(-5), num(4)}, true, dst_at, "ab", -1},
      {"substr(s, before the start, 2)", "dt_substr", {dst(), str("abc"), num(-5), num(2)}, true, dst_at, "", -1},
      {"substr(s, before the start)", "dt_substr", {dst(), str("abc"), num(-5), num(kNoLen)}, true, dst_at, "abc", -1},
      {"substr(s, 1, -2)", "dt_substr", {dst(), str("abcdef"), num(1), num(-2)}, true, dst_at, "bcd", -1},
      {"substr(s, 1, -9)", "dt_substr", {dst(), str("abc"), num(1), num(-9)}, true, dst_at, "", -1},
      {"substr(s, 0, 0)", "dt_substr", {dst(), str("abc"), num(0), num(0)}, true, dst_at, "", -1},
      {"substr(\"\", 0)", "dt_substr", {dst(), str(""), num(0), num(kNoLen)}, true, dst_at, "", -1},
      {"substr of a long string", "dt_substr", {dst(), str(x300), num(1), num(kNoLen)}, true, dst_at, x254, -1},
      // strchr, strrchr, strstr: pointers into s, or NULL.
      {"strchr found", "dt_strchr", {str("hello"), num('l')}, true, kArgOff[0] + 2, "", -1},
      {"strchr missing", "dt_strchr", {str("hello"), num('z')}, true, none, "", -1},
      {"strchr of the NUL", "dt_strchr", {str("hello"), num(0)}, true, kArgOff[0] + 5, "", -1},
      {"strrchr", "dt_strrchr", {str("hello"), num('l')}, true, kArgOff[0] + 3, "", -1},
      {"strrchr missing", "dt_strrchr", {str("hello"), num('z')}, true, none, "", -1},
      {"strstr", "dt_strstr", {str("hello world"), str("o w")}, true, kArgOff[0] + 4, "", -1},
      {"strstr missing", "dt_strstr", {str("abc"), str("d")}, true, none, "", -1},
      {"strstr of \"\"", "dt_strstr", {str("abc"), str("")}, true, kArgOff[0], "", -1},
      // What D calls: the same, copied to dst, "" for NULL.
      {"strchr_d", "dt_strchr_d", {dst(), str("a/b/c"), num('/')}, true, dst_at, "/b/c", -1},
      {"strchr_d missing", "dt_strchr_d", {dst(), str("abc"), num('/')}, true, dst_at, "", -1},
      {"strrchr_d", "dt_strrchr_d", {dst(), str("a/b/c"), num('/')}, true, dst_at, "/c", -1},
      {"strrchr_d missing", "dt_strrchr_d", {dst(), str("abc"), num('/')}, true, dst_at, "", -1},
      {"strstr_d", "dt_strstr_d", {dst(), str("hello"), str("ll")}, true, dst_at, "llo", -1},
      {"strstr_d missing", "dt_strstr_d", {dst(), str("abc"), str("x")}, true, dst_at, "", -1},
      // index: a negative pos counts as 0; at or past the end only "".
      {"index from 5", "dt_index", {str("hello world"), str("o"), num(5)}, false, 7, "", -1},
      {"index", "dt_index", {str("hello"), str("l"), num(0)}, false, 2, "", -1},
      {"index from 4", "dt_index", {str("hello"), str("l"), num(4)}, false, -1, "", -1},
      {"index from -3", "dt_index", {str("hello"), str("l"), num(-3)}, false, 2, "", -1},
      {"index missing", "dt_index", {str("abc"), str("x"), num(0)}, false, -1, "", -1},
      {"index of a longer string", "dt_index", {str("abc"), str("abcd"), num(0)}, false, -1, "", -1},
      {"index of \"\" past the end", "dt_index", {str("abc"), str(""), num(9)}, false, 3, "", -1},
      {"index of \"\" at 1", "dt_index", {str("abc"), str(""), num(1)}, false, 1, "", -1},
      {"index of \"\" in \"\"", "dt_index", {str(""), str(""), num(0)}, false, 0, "", -1},
      {"index in \"\"", "dt_index", {str(""), str("a"), num(0)}, false, -1, "", -1},
      // rindex: a pos past the end counts as the end; a negative one
      // finds only "".
      {"rindex", "dt_rindex", {str("hello"), str("l"), num(kNoPos)}, false, 3, "", -1},
      {"rindex from 2", "dt_rindex", {str("hello"), str("l"), num(2)}, false, 2, "", -1},
      {"rindex from 1", "dt_rindex", {str("hello"), str("l"), num(1)}, false, -1, "", -1},
      {"rindex from -1", "dt_rindex", {str("abc"), str("c"), num(-1)}, false, -1, "", -1},
      {"rindex of \"\" from -1", "dt_rindex", {str("abc"), str(""), num(-1)}, false, 0, "", -1},
      {"rindex of \"\"", "dt_rindex", {str("abc"), str(""), num(kNoPos)}, false, 3, "", -1},
      {"rindex of \"\" in \"\"", "dt_rindex", {str(""), str(""), num(kNoPos)}, false, 0, "", -1},
      {"rindex at the start", "dt_rindex", {str("abcabc"), str("abc"), num(2)}, false, 0, "", -1},
      // strtok: the string is copied into the state; NULL (the state
      // itself) goes on from its position.
      {"strtok first", "dt_strtok", {dst(), str(",a,b"), str(","), state()}, true, dst_at, "a", -1},
      {"strtok(NULL) next", "dt_strtok", {dst(), state("a,b,,c", 1), str(","), state("a,b,,c", 1)}, true, dst_at, "b", -1},
      {"strtok(NULL) skips delimiters", "dt_strtok", {dst(), state("a,b,,c", 3), str(","), state("a,b,,c", 3)}, true, dst_at, "c", -1},
      {"strtok(NULL) after the last", "dt_strtok", {dst(), state("a,b,,c", 6), str(","), state("a,b,,c", 6)}, true, none, "", -1},
      {"strtok of delimiters only", "dt_strtok", {dst(), str(",,"), str(","), state()}, true, none, "", -1},
      {"strtok with two delimiters", "dt_strtok", {dst(), str("  a-b"), str(" -"), state()}, true, dst_at, "a", -1},
      {"strtok_d", "dt_strtok_d", {dst(), str("a,b"), str(","), state()}, true, dst_at, "a", -1},
      {"strtok_d after the last", "dt_strtok_d", {dst(), state("a", 1), str(","), state("a", 1)}, true, dst_at, "", -1},
      // strtoll.
      {"strtoll(\"0x1f\", 16)", "dt_strtoll", {str("0x1f"), num(16)}, false, 31, "", -1},
      {"strtoll(\" -12\")", "dt_strtoll", {str(" -12"), num(10)}, false, -12, "", -1},
      {"strtoll(\"777\", 8)", "dt_strtoll", {str("777"), num(8)}, false, 511, "", -1},
      {"strtoll(\"12abc\")", "dt_strtoll", {str("12abc"), num(10)}, false, 12, "", -1},
      {"strtoll(\"0x10\", 0)", "dt_strtoll", {str("0x10"), num(0)}, false, 16, "", -1},
      {"strtoll(\"010\", 0)", "dt_strtoll", {str("010"), num(0)}, false, 8, "", -1},
      {"strtoll(\"Zz\", 36)", "dt_strtoll", {str("Zz"), num(36)}, false, 35 * 36 + 35, "", -1},
      {"strtoll with a bad base", "dt_strtoll", {str("5"), num(1)}, false, 0, "", -1},
      {"strtoll(\"\")", "dt_strtoll", {str(""), num(10)}, false, 0, "", -1},
      {"strtoll(\"+9223372036854775807\")", "dt_strtoll", {str("+9223372036854775807"), num(10)}, false, INT64_MAX, "", -1},
      // Byte order.
      {"bswap16", "dt_bswap16", {num(0x1234)}, false, 0x3412, "", -1},
      {"bswap16 of a wider value", "dt_bswap16", {num(0xabcd1234)}, false, 0x3412, "", -1},
      {"bswap32", "dt_bswap32", {num(0x12345678)}, false, 0x78563412, "", -1},
      {"bswap64", "dt_bswap64", {num(0x0102030405060708)}, false, 0x0807060504030201, "", -1},
      // rand: one step of the lane's generator, seeded from the clock
      // when it has never run.
      {"rand from a seed", "dt_rand", {state("", 0, 42)}, false, rand_after(42), "", -1},
      {"rand seeded from the clock", "dt_rand", {state()}, false, rand_after(kClock | 1), "", -1},
      // basename, dirname: as POSIX's, "." for no directory.
      {"basename(\"/usr/lib/\")", "dt_basename", {dst(), str("/usr/lib/")}, true, dst_at, "lib", -1},
      {"basename(\"/\")", "dt_basename", {dst(), str("/")}, true, dst_at, "/", -1},
      {"basename(\"\")", "dt_basename", {dst(), str("")}, true, dst_at, ".", -1},
      {"basename(\"lib\")", "dt_basename", {dst(), str("lib")}, true, dst_at, "lib", -1},
      {"basename(\"//a//\")", "dt_basename", {dst(), str("//a//")}, true, dst_at, "a", -1},
      {"dirname(\"/usr/lib/\")", "dt_dirname", {dst(), str("/usr/lib/")}, true, dst_at, "/usr", -1},
      {"dirname(\"lib\")", "dt_dirname", {dst(), str("lib")}, true, dst_at, ".", -1},
      {"dirname(\"/usr\")", "dt_dirname", {dst(), str("/usr")}, true, dst_at, "/", -1},
      {"dirname(\"/\")", "dt_dirname", {dst(), str("/")}, true, dst_at, "/", -1},
      {"dirname(\"\")", "dt_dirname", {dst(), str("")}, true, dst_at, ".", -1},
      {"dirname(\"a/b//\")", "dt_dirname", {dst(), str("a/b//")}, true, dst_at, "a", -1},
      {"dirname(\"//a\")", "dt_dirname", {dst(), str("//a")}, true, dst_at, "/", -1},
      // inet_ntoa, inet_ntoa6: the address's words as loaded on a
      // little-endian machine (the first byte lowest).
      {"inet_ntoa(10.0.0.255)", "dt_inet_ntoa", {dst(), num(0xff00000a)}, true, dst_at, "10.0.0.255", -1},
      {"inet_ntoa(0.0.0.0)", "dt_inet_ntoa", {dst(), num(0)}, true, dst_at, "0.0.0.0", -1},
      {"inet_ntoa6(2001:db8::1)", "dt_inet_ntoa6", {dst(), num(0xb80d0120), num(0x0100000000000000), num(0)}, true, dst_at, "2001:db8::1", -1},
      {"inet_ntoa6(::)", "dt_inet_ntoa6", {dst(), num(0), num(0), num(1)}, true, dst_at, "::", -1},
      {"inet_ntoa6(1:0:0:2::3)", "dt_inet_ntoa6", {dst(), num(0x0200000000000100), num(0x0300000000000000), num(0)}, true, dst_at, "1:0:0:2::3", -1},
      {"inet_ntoa6(::ffff:1.2.3.4, 0)", "dt_inet_ntoa6", {dst(), num(0), num(0x04030201ffff0000), num(0)}, true, dst_at, "1.2.3.4", -1},
      {"inet_ntoa6(::ffff:1.2.3.4, 1)", "dt_inet_ntoa6", {dst(), num(0), num(0x04030201ffff0000), num(1)}, true, dst_at, "::ffff:1.2.3.4", -1},
      {"inet_ntoa6(ffff:...:ffff)", "dt_inet_ntoa6", {dst(), num(-1), num(-1), num(0)}, true, dst_at, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", -1},
      // lltostr, toupper, tolower.
      {"lltostr(-1234)", "dt_lltostr", {dst(), num(-1234)}, true, dst_at, "-1234", -1},
      {"lltostr(0)", "dt_lltostr", {dst(), num(0)}, true, dst_at, "0", -1},
      {"lltostr(INT64_MAX)", "dt_lltostr", {dst(), num(INT64_MAX)}, true, dst_at, "9223372036854775807", -1},
      {"lltostr(INT64_MIN)", "dt_lltostr", {dst(), num(INT64_MIN)}, true, dst_at, "-9223372036854775808", -1},
      {"toupper", "dt_toupper", {dst(), str("Hello, World")}, true, dst_at, "HELLO, WORLD", -1},
      {"tolower", "dt_tolower", {dst(), str("Hello, World")}, true, dst_at, "hello, world", -1},
      {"toupper of the letters' neighbours", "dt_toupper", {dst(), str("`az{@AZ[")}, true, dst_at, "`AZ{@AZ[", -1},
      {"tolower of the letters' neighbours", "dt_tolower", {dst(), str("`az{@AZ[")}, true, dst_at, "`az{@az[", -1},
      {"toupper cut at DT_STRSIZE", "dt_toupper", {dst(), str(x300)}, true, dst_at, std::string(255, 'X'), -1},
      // strpad (vars.c): a string key component.
      {"strpad", "dt_strpad", {dst(), str("key")}, true, dst_at, "key", -1},
      {"strpad cut at DT_STRSIZE", "dt_strpad", {dst(), str(x300)}, true, dst_at, x255, -1},
      // Aggregation buckets (agg.c).
      {"quantize_bucket(0)", "dt_quantize_bucket", {num(0)}, false, 63, "", -1},
      {"quantize_bucket(5)", "dt_quantize_bucket", {num(5)}, false, 66, "", -1},
      {"quantize_bucket(-5)", "dt_quantize_bucket", {num(-5)}, false, 60, "", -1},
      {"lquantize_bucket(25, 0, 100, 10)", "dt_lquantize_bucket", {num(25), num(0), num(100), num(10)}, false, 3, "", -1},
      {"lquantize_bucket(150, ...)", "dt_lquantize_bucket", {num(150), num(0), num(100), num(10)}, false, 11, "", -1},
      {"quantize_add(b, 5, 1)", "dt_quantize_add", {buckets(), num(5), num(1)}, false, kVoid, "", 66},
  };
}

// D variables (vars.c): dt_var_set then dt_var_get of one (variable, key),
// the value read through the pointer dt_var_get returns.  `set` false:
// only the get (a variable never written reads 0).
struct VarCase {
  std::string label;
  u64 id, key;
  bool set;
  u64 value;
  u64 expect;
};
std::vector<VarCase> var_cases() {
  const u64 tls = u64(1) << 32; // thread-local kind
  return {
      {"global never set reads 0", 1, 0, false, 0, 0},
      {"global set to 42", 2, 0, true, 42, 42},
      {"self-> set to 9", tls | 3, 77, true, 9, 9},
      {"self-> set to 0 is freed, reads 0", tls | 4, 77, true, 0, 0},
  };
}

// Maps of the variable programs: scratch (0), dt_vars (1), .rodata (2).
std::pair<std::vector<Insn>, std::vector<SymbolRef>>
var_program(const VarCase &c, i32 scratch_imm) {
  std::vector<Insn> p = {st(kW, 10, -4, 0), mov64(2, 10), alu64i(kADD, 2, -4)};
  ld_map(p, 1, 0);
  p[3].imm = scratch_imm;
  p.push_back(call(kHelperMapLookup));
  p.push_back(jmpi(kJNE, 0, 0, 2));
  p.push_back(mov64i(0, 0));
  p.push_back(exit());
  p.push_back(mov64(6, 0));
  std::vector<SymbolRef> refs;
  if (c.set) {
    ld64(p, 1, c.id);
    ld64(p, 2, c.key);
    ld64(p, 3, c.value);
    refs.push_back({SymbolRef::Call, (u32)p.size(), "dt_var_set", 0});
    p.push_back(call_local(-1));
  }
  ld64(p, 1, c.id);
  ld64(p, 2, c.key);
  refs.push_back({SymbolRef::Call, (u32)p.size(), "dt_var_get", 0});
  p.push_back(call_local(-1));
  p.push_back(ldx(kDW, 0, 0, 0));
  p.push_back(stx(kDW, 6, kResult, 0));
  p.push_back(mov64i(0, 0));
  p.push_back(exit());
  return {p, refs};
}

// The test program: look the scratch value up, point r1.. at the
// arguments, call the function, store what it returned.  `map_imm` is
// what the ld_imm64 of the map holds (an index here, an fd in Linux).
std::pair<std::vector<Insn>, std::vector<SymbolRef>> program(const Case &c,
                                                             i32 map_imm) {
  std::vector<Insn> p = {st(kW, 10, -4, 0), mov64(2, 10), alu64i(kADD, 2, -4)};
  ld_map(p, 1, 0);
  p[3].imm = map_imm;
  p.push_back(call(kHelperMapLookup));
  p.push_back(jmpi(kJNE, 0, 0, 2));
  p.push_back(mov64i(0, 0));
  p.push_back(exit());
  p.push_back(mov64(6, 0));
  int strs = 0;
  for (size_t k = 0; k < c.args.size(); k++) {
    const u8 r = (u8)(k + 1);
    const Arg &a = c.args[k];
    switch (a.kind) {
    case Arg::Num: ld64(p, r, (u64)a.num); break;
    case Arg::Str:
      p.push_back(mov64(r, 6));
      p.push_back(alu64i(kADD, r, kArgOff[strs++]));
      break;
    case Arg::Dst:
      p.push_back(mov64(r, 6));
      p.push_back(alu64i(kADD, r, kDst));
      break;
    case Arg::Buckets:
      p.push_back(mov64(r, 6));
      p.push_back(alu64i(kADD, r, kBuckets));
      break;
    case Arg::State:
      p.push_back(mov64(r, 6));
      p.push_back(alu64i(kADD, r, kState));
      break;
    }
  }
  std::vector<SymbolRef> refs = {{SymbolRef::Call, (u32)p.size(), c.fn, 0}};
  p.push_back(call_local(-1));
  if (c.returns_pointer) {
    p.push_back(jmpi(kJEQ, 0, 0, 2));
    p.push_back(alu64(kSUB, 0, 6));
    p.push_back(ja(1));
    p.push_back(mov64i(0, -1));
  }
  p.push_back(stx(kDW, 6, kResult, 0));
  p.push_back(mov64i(0, 0));
  p.push_back(exit());
  return {p, refs};
}

std::vector<u8> initial_value(const Case &c) {
  std::vector<u8> v(kValue, 0);
  int strs = 0;
  for (const Arg &a : c.args)
    if (a.kind == Arg::Str) {
      std::memcpy(v.data() + kArgOff[strs], a.str.data(),
                  std::min<size_t>(a.str.size(), 511));
      strs++;
    } else if (a.kind == Arg::State) {
      // dlib's layout: the string, its position, rand's word.
      std::memcpy(v.data() + kState, a.str.data(),
                  std::min<size_t>(a.str.size(), kStrSize - 1));
      std::memcpy(v.data() + kState + kStrSize, &a.num, 8);
      std::memcpy(v.data() + kState + kStrSize + 8, &a.seed, 8);
    }
  return v;
}

// What the case requires of the scratch value after a run; "" if right.
std::string judge(const Case &c, const u8 *v) {
  i64 r;
  std::memcpy(&r, v + kResult, 8);
  if (c.result != kVoid && r != c.result)
    return strf("returned %lld, expected %lld", (long long)r,
                (long long)c.result);
  {
    std::string got(reinterpret_cast<const char *>(v + kDst));
    if (got != c.dst_string)
      return "wrote \"" + got + "\", expected \"" + c.dst_string + "\"";
  }
  if (c.bucket >= 0) {
    u64 b;
    std::memcpy(&b, v + kBuckets + 8 * c.bucket, 8);
    if (b != 1)
      return strf("bucket %lld holds %llu, expected 1", (long long)c.bucket,
                  (unsigned long long)b);
  }
  return "";
}

// The map helpers, and the consumer's H_TIMESTAMP (id 101, which rand( )
// seeds from) as a clock that always says kClock.
std::vector<Helper> library_helpers() {
  std::vector<Helper> h = map_helpers();
  Helper t;
  t.id = 101;
  t.name = "timestamp";
  t.fn = [](u64, u64, u64, u64, u64, RunCtx *) -> u64 { return kClock; };
  h.push_back(t);
  return h;
}

// ---- the host kernel -------------------------------------------------------

long sys_bpf(int cmd, union bpf_attr *a) {
  return syscall(SYS_bpf, cmd, a, sizeof *a);
}

// Why the host kernel cannot be used, or "" if it can.
// Cases the host verifier refused for its own limits when measured (Linux
// 6.18: "BPF program is too large. Processed 1000001 insn", "The sequence
// of 8193 jumps is too complex"): each refusal cost it 5 to 9 s of
// exploring first, nearly all of this check's time (47 cases, 5 minutes
// of its 5 min 40 s).  They are not loaded into the host unless
// MK_DLIB_HOST_ALL is set; minikern's engines run them as every other
// case.
bool host_too_complex(const std::string &label) {
  static const std::set<std::string> known = {
      "strrchr", "strrchr missing", "strstr", "strstr missing",
      "strstr of \"\"", "strchr_d", "strchr_d missing", "strrchr_d",
      "strrchr_d missing", "strstr_d", "strstr_d missing", "index from 5",
      "index", "index from 4", "index from -3", "index missing",
      "index of a longer string", "index of \"\" past the end",
      "index of \"\" at 1", "index of \"\" in \"\"", "index in \"\"", "rindex",
      "rindex from 2", "rindex from 1", "rindex of \"\"",
      "rindex of \"\" in \"\"", "rindex at the start", "strtok first",
      "strtok(NULL) next", "strtok(NULL) skips delimiters",
      "strtok(NULL) after the last", "strtok of delimiters only",
      "strtok with two delimiters", "strtok_d", "strtok_d after the last",
      "basename(\"/usr/lib/\")", "basename(\"/\")", "basename(\"\")",
      "basename(\"lib\")", "basename(\"//a//\")", "dirname(\"/usr/lib/\")",
      "dirname(\"lib\")", "dirname(\"/usr\")", "dirname(\"/\")",
      "dirname(\"\")", "dirname(\"a/b//\")", "dirname(\"//a\")",
  };
  return known.count(label) && !std::getenv("MK_DLIB_HOST_ALL");
}

std::string host_unavailable() {
  union bpf_attr a;
  std::memset(&a, 0, sizeof a);
  a.map_type = BPF_MAP_TYPE_ARRAY;
  a.key_size = 4;
  a.value_size = 8;
  a.max_entries = 1;
  const long fd = sys_bpf(BPF_MAP_CREATE, &a);
  if (fd < 0)
    return strf("bpf(BPF_MAP_CREATE) failed: %s", std::strerror(errno));
  close((int)fd);
  struct bpf_insn insns[2] = {};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
  insns[1].code = BPF_JMP | BPF_EXIT;
  std::memset(&a, 0, sizeof a);
  a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  a.insns = (u64)(uintptr_t)insns;
  a.insn_cnt = 2;
  a.license = (u64)(uintptr_t) "GPL";
  const long pfd = sys_bpf(BPF_PROG_LOAD, &a);
  if (pfd < 0)
    return strf("bpf(BPF_PROG_LOAD) failed: %s", std::strerror(errno));
  close((int)pfd);
  return "";
}

// Runs the program in the host kernel; returns the scratch value, or why
// it could not (the verifier's last line).
Result<std::vector<u8>> host_run(const std::vector<Insn> &code,
                                 const std::vector<u8> &init, int map_fd) {
  u32 key = 0;
  union bpf_attr a;
  std::memset(&a, 0, sizeof a);
  a.map_fd = (u32)map_fd;
  a.key = (u64)(uintptr_t)&key;
  a.value = (u64)(uintptr_t)init.data();
  if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a) < 0)
    return error(strf("map update: %s", std::strerror(errno)));
  static char log[1 << 20];
  log[0] = 0;
  std::memset(&a, 0, sizeof a);
  a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  a.insns = (u64)(uintptr_t)code.data();
  a.insn_cnt = (u32)code.size();
  a.license = (u64)(uintptr_t) "GPL";
  a.log_buf = (u64)(uintptr_t)log;
  a.log_size = sizeof log;
  a.log_level = 1;
  const long pfd = sys_bpf(BPF_PROG_LOAD, &a);
  if (pfd < 0) {
    std::string l(log);
    while (!l.empty() && l.back() == '\n')
      l.pop_back();
    // The line that says why: the last one that is not statistics.
    std::string why = l;
    size_t end = l.size();
    while (end > 0) {
      size_t start = l.rfind('\n', end - 1);
      start = start == std::string::npos ? 0 : start + 1;
      std::string line = l.substr(start, end - start);
      if (line.rfind("processed ", 0) != 0 && !line.empty()) {
        why = line;
        break;
      }
      end = start ? start - 1 : 0;
    }
    return error(strf("the host verifier refuses it (%s): %s",
                      std::strerror(errno), why.c_str()));
  }
  u8 packet[64] = {};
  std::memset(&a, 0, sizeof a);
  a.test.prog_fd = (u32)pfd;
  a.test.data_in = (u64)(uintptr_t)packet;
  a.test.data_size_in = sizeof packet;
  a.test.repeat = 1;
  const long rr = sys_bpf(BPF_PROG_TEST_RUN, &a);
  close((int)pfd);
  if (rr < 0)
    return error(strf("BPF_PROG_TEST_RUN: %s", std::strerror(errno)));
  std::vector<u8> out(kValue);
  std::memset(&a, 0, sizeof a);
  a.map_fd = (u32)map_fd;
  a.key = (u64)(uintptr_t)&key;
  a.value = (u64)(uintptr_t)out.data();
  if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) < 0)
    return error(strf("map lookup: %s", std::strerror(errno)));
  return out;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bpf-dlib-check bpf_dlib.o\n");
    return 2;
  }
  auto lib = BpfLibrary::read(argv[1]);
  if (!lib) {
    std::fprintf(stderr, "bpf-dlib-check: %s\n", lib.error().message.c_str());
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  const std::string host_why = host_unavailable();
  int map_fd = -1;
  if (host_why.empty()) {
    union bpf_attr a;
    std::memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_ARRAY;
    a.key_size = 4;
    a.value_size = kValue;
    a.max_entries = 1;
    map_fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
  } else {
    std::printf("skip host kernel: %s; the library runs in minikern's "
                "engine only\n", host_why.c_str());
  }
  auto no_symbols = [](const std::string &s, i64) -> Result<Imm64Binding> {
    return error("no binding for " + s);
  };
  int passed = 0, failed = 0, host_refused = 0;
  for (const Case &c : cases()) {
    auto [code, refs] = program(c, 0);
    auto linked = link_program(code, refs, *lib, no_symbols, c.label);
    if (!linked) {
      std::printf("FAIL %s: %s\n", c.label.c_str(), linked.error().message.c_str());
      failed++;
      continue;
    }
    auto m = Map::create({"scratch", MapType::Array, 4, kValue, 1}, 1);
    Env env;
    env.maps = {m->get()};
    env.helpers = library_helpers();
    const std::vector<u8> init = initial_value(c);
    std::vector<u8> mine[2];
    for (int e = 0; e < 2; e++) {
      const Engine engine = e == 0 ? Engine::Interpreter : Engine::Jit;
      const char *ename = e == 0 ? "interp" : "jit";
      if (engine == Engine::Jit && !jit_available())
        continue;
      std::memcpy((*m)->slab(), init.data(), kValue);
      auto p = Program::load(linked->code, env, {c.label, engine});
      if (!p) {
        std::printf("FAIL %s [%s]: %s\n", c.label.c_str(), ename,
                    p.error().message.c_str());
        failed++;
        continue;
      }
      Runner r(env, 0);
      u64 ctx = 0;
      RunResult res = r.run(**p, &ctx);
      if (!res) {
        std::printf("FAIL %s [%s]: %s\n", c.label.c_str(), ename,
                    res.describe().c_str());
        failed++;
        continue;
      }
      mine[e].assign((*m)->slab(), (*m)->slab() + kValue);
      const std::string why = judge(c, mine[e].data());
      if (!why.empty()) {
        std::printf("FAIL %s [%s]: %s\n", c.label.c_str(), ename, why.c_str());
        failed++;
      } else {
        std::printf("ok %s [%s]\n", c.label.c_str(), ename);
        passed++;
      }
    }
    if (map_fd < 0)
      continue;
    if (host_too_complex(c.label)) {
      std::printf("skip %s [host]: not loaded: over the host verifier's "
                  "limits when measured (MK_DLIB_HOST_ALL=1 loads it)\n",
                  c.label.c_str());
      host_refused++;
      continue;
    }
    auto [kcode, krefs] = program(c, map_fd);
    auto klinked = link_program(kcode, krefs, *lib, no_symbols, c.label);
    auto out = host_run(klinked->code, init, map_fd);
    if (!out) {
      // The host verifier's own limits are not minikern's failures: say so.
      std::printf("skip %s [host]: %s\n", c.label.c_str(),
                  out.error().message.c_str());
      host_refused++;
      continue;
    }
    std::string why = judge(c, out->data());
    // The same bytes as minikern's run (a void function's r0 aside).
    std::vector<u8> a = mine[0], b = *out;
    if (c.result == kVoid && !a.empty())
      std::memset(a.data() + kResult, 0, 8), std::memset(b.data() + kResult, 0, 8);
    if (why.empty() && !a.empty() && a != b)
      why = "the scratch value differs from minikern's";
    if (!why.empty()) {
      std::printf("FAIL %s [host]: %s\n", c.label.c_str(), why.c_str());
      failed++;
    } else {
      std::printf("ok %s [host]\n", c.label.c_str());
      passed++;
    }
  }
  // D variables: dt_vars is a hash map, .rodata a read-only array.
  int vars_fd = -1, ro_fd = -1;
  if (map_fd >= 0) {
    union bpf_attr a;
    std::memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_HASH;
    a.key_size = 16;
    a.value_size = 8;
    a.max_entries = 64;
    vars_fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
    std::memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_ARRAY;
    a.key_size = 4;
    a.value_size = 8;
    a.max_entries = 1;
    ro_fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
  }
  for (const VarCase &c : var_cases()) {
    auto scratch = Map::create({"scratch", MapType::Array, 4, kValue, 1}, 1);
    auto vars = Map::create({"dt_vars", MapType::Hash, 16, 8, 64}, 1);
    auto ro = Map::create({".rodata", MapType::Array, 4, 8, 1, true}, 1);
    Env env;
    env.maps = {scratch->get(), vars->get(), ro->get()};
    env.helpers = map_helpers();
    auto binder = [](i32 vars_imm, i32 ro_imm) {
      return [=](const std::string &sym, i64 addend) -> Result<Imm64Binding> {
        if (sym == "dt_vars")
          return Imm64Binding{kPseudoMapHandle, vars_imm, 0};
        if (sym == ".rodata")
          return Imm64Binding{kPseudoMapValue, ro_imm, (i32)addend};
        return error("no binding for " + sym);
      };
    };
    auto [code, refs] = var_program(c, 0);
    auto linked = link_program(code, refs, *lib, binder(1, 2), c.label);
    if (!linked) {
      std::printf("FAIL %s: %s\n", c.label.c_str(), linked.error().message.c_str());
      failed++;
      continue;
    }
    for (int e = 0; e < 2; e++) {
      const Engine engine = e == 0 ? Engine::Interpreter : Engine::Jit;
      const char *ename = e == 0 ? "interp" : "jit";
      if (engine == Engine::Jit && !jit_available())
        continue;
      auto p = Program::load(linked->code, env, {c.label, engine});
      if (!p) {
        std::printf("FAIL %s [%s]: %s\n", c.label.c_str(), ename,
                    p.error().message.c_str());
        failed++;
        continue;
      }
      Runner r(env, 0);
      u64 ctx = 0;
      RunResult res = r.run(**p, &ctx);
      u64 got;
      std::memcpy(&got, (*scratch)->slab() + kResult, 8);
      if (!res || got != c.expect) {
        std::printf("FAIL %s [%s]: %s\n", c.label.c_str(), ename,
                    !res ? res.describe().c_str()
                         : strf("read %llu, expected %llu",
                                (unsigned long long)got,
                                (unsigned long long)c.expect).c_str());
        failed++;
      } else {
        std::printf("ok %s [%s]\n", c.label.c_str(), ename);
        passed++;
      }
    }
    if (vars_fd < 0 || ro_fd < 0)
      continue;
    auto [kcode, krefs] = var_program(c, map_fd);
    auto klinked = link_program(kcode, krefs, *lib, binder(vars_fd, ro_fd), c.label);
    auto out = host_run(klinked->code, std::vector<u8>(kValue, 0), map_fd);
    if (!out) {
      std::printf("skip %s [host]: %s\n", c.label.c_str(),
                  out.error().message.c_str());
      host_refused++;
      continue;
    }
    u64 got;
    std::memcpy(&got, out->data() + kResult, 8);
    if (got != c.expect) {
      std::printf("FAIL %s [host]: read %llu, expected %llu\n", c.label.c_str(),
                  (unsigned long long)got, (unsigned long long)c.expect);
      failed++;
    } else {
      std::printf("ok %s [host]\n", c.label.c_str());
      passed++;
    }
  }
  for (int fd : {vars_fd, ro_fd})
    if (fd >= 0)
      close(fd);
  if (map_fd >= 0)
    close(map_fd);
  if (host_refused)
    std::printf("note: the host verifier refused %d case(s)\n", host_refused);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
