// Output in DTrace's formats, byte for byte where DTrace defines them:
//
//   default record line   "%3d %6d %32s " (CPU, ID, FUNCTION:NAME), then the
//                         traced data, then "\n"
//   trace(int)            " %19lld" / " %20llu" (8-byte), " %10d" (4-byte),
//                         " %5d" (2-byte), " %3d" (1-byte)
//   trace(string)         "  %-33s"
//   aggregation rows      integer keys by their size, whatever their sign:
//                         " %16lld" (8), " %8d" (4), " %5d" and " %3d" of
//                         the unsigned value (2, 1); strings "  %-50s";
//                         then the value
//                         " %16lld", or for quantize/lquantize a histogram:
//                         "\n%16s %41s %-9s\n" and rows "%16lld |@@@...   %-9lld"
//   stack( )              "\n", then per frame "%*s%s\n" indented 14
//                         (module`function+0xoff), traced or as a key
//   -F flow indent        "%3s %-41s\n" (CPU FUNCTION) and "%3d %-41s " with
//                         the function after " -> " or " <- ", indented by
//                         call depth
//
// and printf( ) with C's conversions over D's integers and strings.
#include "dtrace.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>

namespace mk::dt {

namespace {

std::string vfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string vfmt(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  char small[256];
  int n = std::vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof small) {
    va_end(ap2);
    return std::string(small, n < 0 ? 0 : n);
  }
  std::string s(n + 1, '\0');
  std::vsnprintf(s.data(), s.size(), fmt, ap2);
  va_end(ap2);
  s.resize(n);
  return s;
}

} // namespace

// ---- printf -----------------------------------------------------------------------

Result<Format> parse_format(const std::string &fmt) {
  Format f;
  std::string lit;
  for (size_t i = 0; i < fmt.size(); i++) {
    if (fmt[i] != '%') {
      lit += fmt[i];
      continue;
    }
    i++;
    if (i < fmt.size() && fmt[i] == '%') {
      lit += '%';
      continue;
    }
    Conv c;
    // DTrace's words for a bad conversion, by its number.
    const size_t no = f.convs.size() + 1;
    auto bad = [&](const std::string &why) {
      return error(strf("format conversion #%zu %s", no, why.c_str()));
    };
    for (; i < fmt.size() && strchr("-+ #0@?", fmt[i]); i++) {
      if (fmt[i] == '@')
        c.agg = true;
      else if (fmt[i] == '?') // as wide as a pointer printed in hex
        c.width = 2 * (int)sizeof(void *);
      else if (c.flags.find(fmt[i]) == std::string::npos)
        c.flags += fmt[i];
    }
    // %1$d, %*1$d, %.*1$d: C's positional arguments.
    for (size_t at = i; at < fmt.size() && strchr("*.0123456789", fmt[at]); at++)
      if (isdigit((unsigned char)fmt[at]) && at + 1 < fmt.size() &&
          fmt[at + 1] == '$')
        return bad("uses unsupported positional format (%n$)");
    if (i < fmt.size() && fmt[i] == '*') {
      c.width = -2;
      i++;
      if (i < fmt.size() && fmt[i] == '*')
        return bad("has more than one '*' specified for the output width");
    } else if (i < fmt.size() && isdigit((unsigned char)fmt[i])) {
      c.width = 0;
      for (; i < fmt.size() && isdigit((unsigned char)fmt[i]); i++)
        c.width = std::min(c.width * 10 + (fmt[i] - '0'), 4096);
    }
    if (i < fmt.size() && fmt[i] == '@') { // "%10@d" as well as "%@10d"
      c.agg = true;
      i++;
    }
    if (i < fmt.size() && fmt[i] == '.') {
      i++;
      if (i < fmt.size() && fmt[i] == '*') {
        c.prec = -2;
        i++;
        if (i < fmt.size() && fmt[i] == '*')
          return bad("has more than one '*' specified for the output precision");
      } else {
        c.prec = 0;
        for (; i < fmt.size() && isdigit((unsigned char)fmt[i]); i++)
          c.prec = std::min(c.prec * 10 + (fmt[i] - '0'), 4096);
      }
      if (i < fmt.size() && fmt[i] == '.')
        return bad("has more than one '.' specified");
    }
    if (fmt.compare(i, 2, "hh") == 0)
      c.size = 1, i += 2;
    else if (fmt.compare(i, 2, "ll") == 0)
      c.size = 8, i += 2;
    else if (i < fmt.size() && fmt[i] == 'h')
      c.size = 2, i++;
    else if (i < fmt.size() && fmt[i] == 'l')
      c.size = 8, i++;
    if (i >= fmt.size())
      return bad("name expected before end of format string");
    char k = fmt[i];
    if (k == '%')
      return bad("cannot be combined with other format flags: %%");
    if (k == 'A')
      return bad("(%A) is not supported here: it prints a user symbol's "
                 "name by its address, and minikern has no user space");
    if (!strchr("diuxXocspkYeEfgGa", k))
      return bad(strf("is undefined: %%%c", k));
    if ((k == 's' || k == 'k') && c.size)
      return bad(strf("(%%%c) takes no size", k));
    c.conv = k;
    c.before = lit;
    lit.clear();
    f.convs.push_back(c);
  }
  f.tail = lit;
  return f;
}

std::string format(const Format &f, const std::vector<Value> &args,
                   const Symbolizer *sym) {
  std::string out;
  size_t next = 0;
  auto arg = [&]() -> const Value & {
    static const Value none;
    return next < args.size() ? args[next++] : none;
  };
  for (const Conv &c : f.convs) {
    out += c.before;
    int width = c.width, prec = c.prec;
    std::string flags = c.flags;
    if (width == -2) {
      i64 w = arg().i;
      if (w < 0) {
        flags += '-';
        w = -w;
      }
      width = (int)std::min<i64>(w, 4096);
    }
    if (prec == -2) {
      i64 p = arg().i;
      prec = p < 0 ? -1 : (int)std::min<i64>(p, 4096);
    }
    const Value &v = arg();
    std::string spec = "%" + flags;
    if (width >= 0)
      spec += std::to_string(width);
    // A string's precision 0 is none, as DTrace's printf has it.
    if (prec >= 0 && c.conv != 'c' && c.conv != 'p' &&
        !(prec == 0 && c.conv == 's'))
      spec += "." + std::to_string(prec);
    if (v.type == Type::String || v.type == Type::Stack) {
      // A string or a stack (or, in printa, a histogram for %@).
      if (c.agg) {
        out += v.s;
        continue;
      }
      if (v.type == Type::Stack && spec != "%") {
        // %-20k: each frame in the width, as DTrace prints it (a stack
        // without frames is its line break alone).
        out += '\n';
        for (size_t at = v.s.find('\n'); at != std::string::npos;) {
          const size_t end = v.s.find('\n', at + 1);
          if (end == std::string::npos)
            break;
          std::string frame = v.s.substr(at + 1, end - at - 1);
          frame.erase(0, frame.find_first_not_of(' '));
          out += vfmt(("%14s" + spec + "s\n").c_str(), "", frame.c_str());
          at = end;
        }
        continue;
      }
      out += vfmt((spec + "s").c_str(), v.s.c_str());
      continue;
    }
    int size = c.size ? c.size
               : v.type == Type::Int64 || v.type == Type::UInt64 ? 8
                                                                 : 4;
    i64 sv = v.i;
    u64 uv = (u64)v.i;
    switch (size) {
    case 1: sv = (i8)sv, uv = (u8)uv; break;
    case 2: sv = (i16)sv, uv = (u16)uv; break;
    case 4: sv = (i32)sv, uv = (u32)uv; break;
    default: break;
    }
    // Text in the conversion's width, left-justified with '-': %a, %Y.
    auto padded = [&](const std::string &text) {
      std::string sp = "%";
      if (flags.find('-') != std::string::npos)
        sp += '-';
      if (width >= 0)
        sp += std::to_string(width);
      return vfmt((sp + "s").c_str(), text.c_str());
    };
    switch (c.conv) {
    case 'd':
    case 'i':
      // An unsigned value prints as one, as DTrace's %d does, unless a
      // size (%hhd, %ld) says how to read it.
      if (!c.size && (v.type == Type::UInt8 || v.type == Type::UInt16 ||
                      v.type == Type::UInt32 || v.type == Type::UInt64))
        out += vfmt((spec + "llu").c_str(), (unsigned long long)uv);
      else
        out += vfmt((spec + "lld").c_str(), (long long)sv);
      break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      out += vfmt((spec + "ll" + c.conv).c_str(), (unsigned long long)uv);
      break;
    case 'c':
      out += vfmt((spec + "c").c_str(), (int)(unsigned char)uv);
      break;
    case 'e':
    case 'E':
    case 'f':
    case 'g':
    case 'G': {
      // A float's or double's bits, as recorded (the compiler lets only
      // those through): 4 bytes a float, 8 a double.
      double d;
      if (v.type == Type::UInt32) {
        float fv;
        const u32 bits = (u32)v.i;
        std::memcpy(&fv, &bits, 4);
        d = fv;
      } else {
        const u64 bits = (u64)v.i;
        std::memcpy(&d, &bits, 8);
      }
      out += vfmt((spec + c.conv).c_str(), d);
      break;
    }
    case 'p': // DTrace's is %x of the whole address: no 0x unless '#'
      out += vfmt((spec + "llx").c_str(), (unsigned long long)(u64)v.i);
      break;
    case 'a': // module`symbol+0xoffset, as stack( ) names a frame
      out += padded(sym && *sym ? (*sym)((u64)v.i)
                                : vfmt("0x%llx", (unsigned long long)(u64)v.i));
      break;
    case 'Y': {
      // A wall-clock time in ns since the epoch, as DTrace prints it:
      // "2026 Nov 27 13:28:05" in the local time zone.
      const time_t sec = (time_t)((u64)v.i / 1000000000ull);
      struct tm tm;
      char buf[64] = "";
      if (localtime_r(&sec, &tm))
        strftime(buf, sizeof buf, "%Y %b %e %T", &tm);
      out += padded(buf);
      break;
    }
    default: // 's' with an integer: excluded by the compiler
      out += vfmt("%lld", (long long)sv);
    }
  }
  out += f.tail;
  return out;
}

// ---- records ---------------------------------------------------------------------

std::string record_header() {
  return vfmt("%3s %6s %32s\n", "CPU", "ID", "FUNCTION:NAME");
}

std::string record_prefix(int cpu, u32 probe, const std::string &func,
                          const std::string &name) {
  std::string fn = func + ":" + name;
  return vfmt("%3d %6u %32s ", cpu, probe, fn.c_str());
}

std::string flow_header() { return vfmt("%3s %-41s\n", "CPU", "FUNCTION"); }

std::string flow_prefix(int cpu, int indent, Flow flow, const std::string &func,
                        const std::string &name) {
  std::string what = std::string((size_t)std::max(indent, 0), ' ');
  if (flow == Flow::Entry)
    what += " -> " + func;
  else if (flow == Flow::Return)
    what += " <- " + func;
  else
    what += "| " + func + ":" + name;
  return vfmt("%3d %-41s ", cpu, what.c_str());
}

Flow flow_of(const std::string &name) {
  // "entry" or "...-entry" (method-entry), "return" or "...-return".
  auto ends = [&](const char *w) {
    size_t n = std::strlen(w);
    return name.size() >= n && name.compare(name.size() - n, n, w) == 0 &&
           (name.size() == n || name[name.size() - n - 1] == '-');
  };
  return ends("entry") ? Flow::Entry : ends("return") ? Flow::Return : Flow::None;
}

std::string stack_text(const std::vector<std::string> &frames) {
  std::string out = "\n";
  for (const std::string &f : frames)
    out += vfmt("%14s%s\n", "", f.c_str());
  return out;
}

// ---- aggregations ------------------------------------------------------------------

int quantize_bucket(i64 v) {
  if (v == 0)
    return kQuantZero;
  if (v > 0)
    return kQuantZero + 1 + (63 - __builtin_clzll((u64)v));
  u64 m = 0 - (u64)v;
  int b = kQuantZero - 1 - (63 - __builtin_clzll(m));
  return b < 0 ? 0 : b;
}

i64 quantize_value(int b) {
  if (b < kQuantZero)
    return -(i64)(1ull << (kQuantZero - 1 - b));
  if (b == kQuantZero)
    return 0;
  return (i64)(1ull << (b - kQuantZero - 1));
}

// llquantize(v, factor, low, high, steps), laid out as dtrace-utils lays
// it out: each order of magnitude m in low..high, [factor^m,
// factor^(m+1)), is cut into `steps` buckets of factor^(m+1) / steps, the
// first steps / factor of which lie below factor^m and are left out; the
// positive ranges go up from the middle bucket (|v| < factor^low), the
// negative ones mirror them down, and a bucket at each end holds
// |v| >= factor^(high+1).  Where factor^(m+1) / steps is below 1 (low 0,
// steps above the factor) some buckets no integer falls in: "ghost"
// buckets, never printed.  The compiler checked that factor^(high+1)
// fits in 63 bits.
namespace {
i64 ipow(i64 f, i64 e) {
  i64 r = 1;
  while (e-- > 0)
    r *= f;
  return r;
}
// Buckets in one order of magnitude.
u32 llq_per(const AggDef &a) {
  return (u32)(a.llq_steps - a.llq_steps / a.llq_factor);
}
// The middle bucket's index: |v| < factor^low.
u32 llq_zero(const AggDef &a) {
  return 1 + (u32)(a.llq_high - a.llq_low + 1) * llq_per(a);
}
} // namespace

u32 llquantize_buckets(const AggDef &a) { return 2 * llq_zero(a) + 1; }

u32 llquantize_bucket(const AggDef &a, i64 v) {
  const u32 zero = llq_zero(a);
  const u64 mag = v < 0 ? 0 - (u64)v : (u64)v;
  u64 lo = (u64)ipow(a.llq_factor, a.llq_low);
  if (mag < lo)
    return zero;
  u32 off = 0;
  for (i64 m = a.llq_low; m <= a.llq_high; m++) {
    const u64 hi = lo * (u64)a.llq_factor;
    if (mag < hi) {
      // floor(mag * steps / hi): steps divides hi but in a first
      // magnitude of ghost buckets (hi = factor, below 2^16).
      const u64 steps = (u64)a.llq_steps;
      const u64 k = hi % steps == 0 ? mag / (hi / steps) : mag * steps / hi;
      off += (u32)(k - steps / (u64)a.llq_factor);
      return v > 0 ? zero + 1 + off : zero - 1 - off;
    }
    off += llq_per(a);
    lo = hi;
  }
  return v > 0 ? 2 * zero : 0;
}

i64 llquantize_value(const AggDef &a, u32 bucket) {
  const u32 zero = llq_zero(a);
  if (bucket == zero)
    return 0;
  const u32 j = bucket > zero ? bucket - zero - 1 : zero - 1 - bucket;
  const u32 per = llq_per(a);
  i64 v;
  if (j >= (u32)(a.llq_high - a.llq_low + 1) * per) {
    v = ipow(a.llq_factor, a.llq_high + 1); // past the last magnitude
  } else {
    const u64 top = (u64)ipow(a.llq_factor, a.llq_low + j / per + 1);
    const u64 steps = (u64)a.llq_steps;
    const u64 k = j % per + steps / (u64)a.llq_factor;
    v = (i64)(top % steps == 0 ? k * (top / steps) : k * top / steps);
  }
  return bucket > zero ? v : -v;
}

namespace {

// The labels of an llquantize( ) histogram's buckets, as dtrace-utils
// prints them; "" for a ghost bucket.  `below` says no count lies below
// the middle bucket.
std::vector<std::string> llq_labels(const AggDef &a, bool below) {
  const u32 n = llquantize_buckets(a), zero = llq_zero(a);
  const i64 factor = a.llq_factor, steps = a.llq_steps;
  const i64 steps_factor = steps / factor;
  std::vector<std::string> l(n);
  auto put = [&](i64 i, std::string s) {
    if (i >= 0 && i < (i64)n)
      l[(size_t)i] = std::move(s);
  };
  u64 scale = (u64)ipow(factor, a.llq_low);
  put(zero, scale == 1 ? "0"
            : below   ? vfmt("< %llu", (unsigned long long)scale)
                      : vfmt("abs() < %llu", (unsigned long long)scale));
  put(zero - 1, vfmt("-%llu", (unsigned long long)scale));
  put(zero + 1, vfmt("%llu", (unsigned long long)scale));
  i64 mag = a.llq_low, i = 1;
  if (a.llq_low == 0 && steps > factor) {
    for (i64 step = 2; step <= factor; step++) {
      i += steps_factor;
      put(zero - i, vfmt("-%lld", (long long)step));
      put(zero + i, vfmt("%lld", (long long)step));
    }
    mag++;
  }
  scale = (u64)ipow(factor, mag + 1) / (u64)steps;
  for (; mag <= a.llq_high; mag++) {
    for (i64 step = steps_factor + 1; step <= steps; step++) {
      i++;
      put(zero - i, vfmt("-%llu", (unsigned long long)(step * scale)));
      put(zero + i, vfmt("%llu", (unsigned long long)(step * scale)));
    }
    scale *= (u64)factor;
  }
  const u64 top = (u64)ipow(factor, a.llq_high + 1);
  put(0, vfmt("<= -%llu", (unsigned long long)top));
  put(n - 1, vfmt(">= %llu", (unsigned long long)top));
  return l;
}

} // namespace

namespace {

i64 lq_levels(const AggDef &a) { return (a.lq_limit - a.lq_base) / a.lq_step; }

bool is_histogram(const AggDef &a) {
  return a.fn == AggFn::Quantize || a.fn == AggFn::LQuantize ||
         a.fn == AggFn::LLQuantize;
}

// A histogram bucket's value: its lower bound (below the range: one less).
i64 bucket_value(const AggDef &a, i64 i) {
  if (a.fn == AggFn::Quantize)
    return quantize_value((int)i);
  if (a.fn == AggFn::LLQuantize)
    return llquantize_value(a, (u32)i);
  i64 levels = lq_levels(a);
  return i == 0 ? a.lq_base - 1
         : i == levels + 1 ? a.lq_base + levels * a.lq_step
                           : a.lq_base + (i - 1) * a.lq_step;
}

// llquantize( )'s weight, as dtrace-utils sums it: each labelled
// bucket's value (the bucket width unrounded) times its count, the
// negative side mirrored.
long double llquantize_weight(const AggDef &a, const std::vector<i64> &v) {
  const i64 zero = llq_zero(a), factor = a.llq_factor, steps = a.llq_steps;
  const i64 steps_factor = steps / factor;
  auto at = [&](i64 i) {
    return i >= 0 && i < (i64)v.size() ? (long double)v[(size_t)i] : 0.0L;
  };
  long double w = powl((long double)factor, (long double)a.llq_low) *
                  (at(zero + 1) - at(zero - 1));
  i64 mag = a.llq_low, i = 1;
  if (a.llq_low == 0 && steps > factor) {
    for (i64 step = 2; step <= factor; step++) {
      i += steps_factor;
      w += step * (at(zero + i) - at(zero - i));
    }
    mag = 1;
  }
  long double scale = powl((long double)factor, (long double)mag + 1) / steps;
  for (; mag <= a.llq_high; mag++) {
    for (i64 step = steps_factor + 1; step <= steps; step++) {
      i++;
      w += step * scale * (at(zero + i) - at(zero - i));
    }
    scale *= factor;
  }
  return w;
}

// The value DTrace sorts a histogram by: the sum of bucket value x count.
long double histogram_weight(const AggDef &a, const std::vector<i64> &v) {
  if (a.fn == AggFn::LLQuantize)
    return llquantize_weight(a, v);
  long double w = 0;
  for (i64 i = 0; i < (i64)v.size(); i++)
    if (v[i])
      w += (long double)bucket_value(a, i) * v[i];
  return w;
}

// What breaks a tie of two histograms' weights: the count at zero.
i64 zero_count(const AggDef &a, const std::vector<i64> &v) {
  const size_t z = a.fn == AggFn::Quantize     ? (size_t)kQuantZero
                   : a.fn == AggFn::LLQuantize ? (size_t)llq_zero(a)
                                               : v.size();
  return z < v.size() ? v[z] : 0;
}

long double sort_value(const AggDef &a, const std::vector<i64> &v) {
  if (v.empty())
    return 0;
  switch (a.fn) {
  case AggFn::Avg:
    return v[0] ? (long double)v[1] / v[0] : 0;
  case AggFn::Stddev:
    return (long double)agg_scalar(a, v);
  case AggFn::Quantize:
  case AggFn::LQuantize:
  case AggFn::LLQuantize:
    return histogram_weight(a, v);
  default:
    return v[0];
  }
}

// An integer value's bytes at its size, as an unsigned number.
u64 sized_bits(const Value &v) {
  switch (v.type) {
  case Type::Int8: case Type::UInt8: return (u8)v.i;
  case Type::Int16: case Type::UInt16: return (u16)v.i;
  case Type::Int32: case Type::UInt32: return (u32)v.i;
  default: return (u64)v.i;
  }
}

// Integer keys compare as unsigned numbers of their size (-1 after 2), as
// DTrace compares a key's bytes.
int compare_key(const Value &a, const Value &b) {
  if (a.type == Type::String || a.type == Type::Stack) {
    int c = a.s.compare(b.s);
    return c < 0 ? -1 : c > 0;
  }
  const u64 x = sized_bits(a), y = sized_bits(b);
  return x < y ? -1 : x > y;
}

// Keys compared from `first` on, then those before it.
int compare_keys(const std::vector<Value> &a, const std::vector<Value> &b,
                 u32 first = 0) {
  size_t n = std::min(a.size(), b.size());
  for (size_t j = 0; j < n; j++) {
    size_t i = (first + j) % n;
    if (int c = compare_key(a[i], b[i]))
      return c;
  }
  return 0;
}

// Where an empty histogram's three rows centre: quantize( )'s bucket of
// 0; -1 for the others, whose first three buckets print.
int zero_bucket(const AggDef &a) {
  return a.fn == AggFn::Quantize ? kQuantZero : -1;
}

// One bar of a histogram, as DTrace draws it: 40 columns of '@' scaled to
// the sum of the buckets' magnitudes.  With negative counts (a weight
// below zero) the bar sits left of the '|' when all are negative, and
// with both signs each side gets 20 columns around a centre line.
std::string histogram_bar(i64 val, long double total, bool positives,
                          bool negatives) {
  static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
  static const char spaces[] = "                                        ";
  const unsigned width = positives && negatives ? 20 : 40;
  unsigned depth = 0;
  if (total > 0 && (positives || negatives))
    depth = (unsigned)(std::fabs((long double)val) * width / total + 0.5L);
  depth = std::min(depth, width);
  const std::string bar(ats + 40 - depth), pad(spaces + 40 - (width - depth));
  if (!negatives)
    return "|" + bar + pad + vfmt(" %-9lld\n", (long long)val);
  if (!positives)
    return pad + bar + vfmt("| %-9lld\n", (long long)val);
  if (val <= 0)
    return pad + bar + "|" + std::string(20, ' ') + vfmt(" %-9lld\n", (long long)val);
  return std::string(20, ' ') + "|" + bar + pad + vfmt(" %-9lld\n", (long long)val);
}

std::string histogram(const AggDef &a, const std::vector<i64> &data) {
  int n = (int)data.size();
  int first = 0, last = n - 1;
  while (first < n && data[first] == 0)
    first++;
  const bool llq = a.fn == AggFn::LLQuantize;
  const bool below = llq && first >= (int)llq_zero(a);
  if (first == n && llq) {
    // Nothing counted: the bucket above the middle one, and its
    // neighbours, as dtrace-utils shows it.
    first = (int)llq_zero(a);
    last = first + 2;
  } else if (first == n) {
    // Nothing counted (clear( )ed, or only zero weights): the buckets
    // around 0 for quantize( ), the first three for lquantize( ).
    const int z = zero_bucket(a);
    first = z < 0 ? 0 : z - 1;
    last = std::min(first + 2, n - 1);
  } else {
    if (first > 0)
      first--;
    while (last > 0 && data[last] == 0)
      last--;
    if (last < n - 1)
      last++;
  }
  long double total = 0;
  bool positives = false, negatives = false;
  for (int i = 0; i < n; i++) {
    total += std::fabs((long double)data[i]);
    positives |= data[i] > 0;
    negatives |= data[i] < 0;
  }
  std::string out = vfmt("\n%16s %41s %-9s\n", "value",
                         "------------- Distribution -------------", "count");
  if (llq) {
    std::vector<std::string> label = llq_labels(a, below);
    // A range that starts or ends on a ghost bucket borrows the label of
    // the nearest real one beyond it.
    const int pad = a.llq_low == 0 && a.llq_steps > a.llq_factor
                        ? (int)(a.llq_steps / a.llq_factor) : 0;
    for (int end : {first, last}) {
      const int dir = end == first ? -1 : 1;
      for (int k = 1; label[(size_t)end].empty() && k < pad; k++) {
        const int from = end + dir * k;
        if (from >= 0 && from < n && !label[(size_t)from].empty())
          label[(size_t)end] = label[(size_t)from];
      }
    }
    for (int i = first; i <= last; i++)
      if (!label[(size_t)i].empty())
        out += vfmt("%16s ", label[(size_t)i].c_str()) +
               histogram_bar(data[i], total, positives, negatives);
    return out;
  }
  for (int i = first; i <= last; i++) {
    if (a.fn == AggFn::Quantize || (i > 0 && i < n - 1)) {
      out += vfmt("%16lld ", (long long)bucket_value(a, i));
    } else if (i == 0) {
      i64 lo = a.fn == AggFn::LQuantize ? a.lq_base : bucket_value(a, 0) + 1;
      out += vfmt("%16s ", vfmt("< %lld", (long long)lo).c_str());
    } else {
      out += vfmt("%16s ", vfmt(">= %lld", (long long)bucket_value(a, i)).c_str());
    }
    out += histogram_bar(data[i], total, positives, negatives);
  }
  return out;
}

std::string key_text(const Value &k) {
  if (k.type == Type::Stack)
    return k.s; // its lines, as DTrace prints a stack key
  if (k.type == Type::String)
    return vfmt("  %-50s", k.s.c_str());
  const u64 b = sized_bits(k);
  switch (k.type) {
  case Type::Int8: case Type::UInt8: return vfmt(" %3d", (int)b);
  case Type::Int16: case Type::UInt16: return vfmt(" %5d", (int)b);
  case Type::Int32: case Type::UInt32: return vfmt(" %8d", (int)(u32)b);
  default: return vfmt(" %16lld", (long long)b);
  }
}

// floor(sqrt(x)): the largest r with r * r <= x, a bit at a time.
u64 isqrt(U128 x) {
  u64 r = 0;
  for (int b = 63; b >= 0; b--) {
    u64 t = r | (u64)1 << b;
    if (!(x < U128::mul(t, t)))
      r = t;
  }
  return r;
}

void sort_table(AggTable &t, const AggSort &s) {
  const u32 pos = s.pos < t.aggs.size() ? s.pos : 0;
  auto by_value = [&](const AggTable::Row &x, const AggTable::Row &y) {
    long double vx = sort_value(*t.aggs[pos], x.vals[pos]);
    long double vy = sort_value(*t.aggs[pos], y.vals[pos]);
    if (vx != vy)
      return vx < vy ? -1 : 1;
    const i64 zx = zero_count(*t.aggs[pos], x.vals[pos]);
    const i64 zy = zero_count(*t.aggs[pos], y.vals[pos]);
    if (zx != zy)
      return zx < zy ? -1 : 1;
    for (size_t i = 0; i < t.aggs.size(); i++) {
      vx = sort_value(*t.aggs[i], x.vals[i]);
      vy = sort_value(*t.aggs[i], y.vals[i]);
      if (vx != vy)
        return vx < vy ? -1 : 1;
    }
    return 0;
  };
  std::stable_sort(t.rows.begin(), t.rows.end(),
                   [&](const AggTable::Row &x, const AggTable::Row &y) {
                     int c = s.bykey ? compare_keys(x.keys, y.keys, s.keypos)
                                     : by_value(x, y);
                     if (!c)
                       c = s.bykey ? by_value(x, y)
                                   : compare_keys(x.keys, y.keys, s.keypos);
                     return s.reverse ? c > 0 : c < 0;
                   });
}

AggTable single(const AggDef &a, std::vector<AggRow> rows) {
  std::vector<std::vector<AggRow>> r;
  r.push_back(std::move(rows));
  return join_aggregations({&a}, {1}, std::move(r));
}

std::string canon_key(const std::vector<Value> &keys) {
  std::string c;
  for (const Value &v : keys)
    if (v.type == Type::String || v.type == Type::Stack)
      c.append(v.s).push_back('\0');
    else
      c.append((const char *)&v.i, 8);
  return c;
}

} // namespace

i64 agg_scalar(const AggDef &a, const std::vector<i64> &v, i64 normal) {
  if (normal == 0)
    normal = 1;
  switch (a.fn) {
  case AggFn::Avg:
    return v[0] ? v[1] / normal / v[0] : 0;
  case AggFn::Stddev: {
    // sqrt(mean of the squares - the square of the mean), in integers as
    // DTrace computes it: v = count, sum, sum of squares (128 bits).
    if (!v[0])
      return 0;
    U128 sq{(u64)v[3], (u64)v[2]};
    sq = sq.div((u64)(normal < 0 ? -normal : normal)).div((u64)v[0]);
    i64 mean = v[1] / normal / v[0];
    u64 m = mean < 0 ? 0 - (u64)mean : (u64)mean;
    U128 m2 = U128::mul(m, m);
    return (i64)isqrt(m2 < sq ? sq.sub(m2) : U128{});
  }
  default:
    return v[0] / normal;
  }
}

void sort_rows(const AggDef &a, std::vector<AggRow> &rows) {
  std::stable_sort(rows.begin(), rows.end(), [&](const AggRow &x, const AggRow &y) {
    long double vx = sort_value(a, x.vals), vy = sort_value(a, y.vals);
    if (vx != vy)
      return vx < vy;
    if (zero_count(a, x.vals) != zero_count(a, y.vals))
      return zero_count(a, x.vals) < zero_count(a, y.vals);
    return compare_keys(x.keys, y.keys) < 0;
  });
}

AggTable join_aggregations(std::vector<const AggDef *> aggs,
                           std::vector<i64> normal,
                           std::vector<std::vector<AggRow>> rows) {
  AggTable t;
  t.aggs = std::move(aggs);
  t.normal = std::move(normal);
  t.normal.resize(t.aggs.size(), 1);
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < rows.size() && i < t.aggs.size(); i++)
    for (AggRow &r : rows[i]) {
      auto [it, fresh] = at.try_emplace(canon_key(r.keys), t.rows.size());
      if (fresh) {
        AggTable::Row row;
        row.keys = std::move(r.keys);
        for (const AggDef *a : t.aggs)
          row.vals.emplace_back(a->nvals, 0); // absent: zeros, as DTrace
        t.rows.push_back(std::move(row));
      }
      t.rows[it->second].vals[i] = std::move(r.vals);
    }
  return t;
}

std::string agg_value_text(const AggDef &a, const std::vector<i64> &vals,
                           i64 normal) {
  if (normal == 0)
    normal = 1;
  if (is_histogram(a)) {
    if (normal == 1)
      return histogram(a, vals);
    std::vector<i64> v(vals);
    for (i64 &x : v)
      x /= normal;
    return histogram(a, v);
  }
  if (a.fn == AggFn::Stddev)
    return vfmt(" %16llu", (unsigned long long)agg_scalar(a, vals, normal));
  return vfmt(" %16lld", (long long)agg_scalar(a, vals, normal));
}

std::string print_aggregation(AggTable t, const AggSort &sort) {
  sort_table(t, sort);
  std::string out;
  for (const AggTable::Row &r : t.rows) {
    for (const Value &k : r.keys)
      out += key_text(k);
    for (size_t i = 0; i < t.aggs.size(); i++)
      out += agg_value_text(*t.aggs[i], r.vals[i], t.normal[i]);
    out += "\n";
  }
  return out;
}

std::string print_aggregation(const AggDef &a, std::vector<AggRow> rows) {
  return print_aggregation(single(a, std::move(rows)));
}

std::string printa_format(AggTable t, const Format &f, const AggSort &sort) {
  sort_table(t, sort);
  std::string out;
  for (const AggTable::Row &r : t.rows) {
    std::vector<Value> vals;
    for (size_t i = 0; i < t.aggs.size(); i++) {
      const AggDef &a = *t.aggs[i];
      Value val;
      if (is_histogram(a)) {
        val.type = Type::String;
        val.s = agg_value_text(a, r.vals[i], t.normal[i]);
      } else {
        val.type = Type::Int64;
        val.i = agg_scalar(a, r.vals[i], t.normal[i]);
      }
      vals.push_back(std::move(val));
    }
    // Keys feed the conversions in order; each %@ (or conversion past the
    // keys) takes the next aggregation's value.  A histogram prints as is
    // wherever its value goes.
    std::vector<Value> args;
    Format g = f;
    size_t key = 0, val = 0;
    for (Conv &c : g.convs) {
      auto next = [&](bool agg) {
        if (agg || key >= r.keys.size()) {
          const Value &v = vals[std::min(val++, vals.size() - 1)];
          if (v.type == Type::String)
            c.agg = true;
          return v;
        }
        return r.keys[key++];
      };
      if (c.width == -2)
        args.push_back(next(false));
      if (c.prec == -2)
        args.push_back(next(false));
      args.push_back(next(c.agg));
    }
    out += format(g, args);
  }
  return out;
}

std::string printa_format(const AggDef &a, const Format &f,
                          std::vector<AggRow> rows) {
  return printa_format(single(a, std::move(rows)), f);
}

std::string raw_bytes(const std::string &s, size_t n) {
  std::string out = "\n" + std::string(11, ' ');
  for (int i = 0; i < 16; i++)
    out += vfmt("  %x", i);
  out += "  0123456789abcdef\n";
  for (size_t row = 0; row < n; row += 16) {
    std::string hex, text;
    for (size_t i = row; i < row + 16 && i < n; i++) {
      const unsigned char c = i < s.size() ? (unsigned char)s[i] : 0;
      hex += vfmt("%02x ", c);
      text += c >= ' ' && c < 0x7f ? (char)c : '.';
    }
    out += vfmt("%10zx: ", row) + hex +
           std::string(3 * (16 - text.size()), ' ') + " " + text + "\n";
  }
  return out;
}

std::string trace_int(const Value &v, bool quiet) {
  // As wide as the type's widest value: 3, 5, 10, 19 or 20 digits.
  const bool is_signed = v.type == Type::Int8 || v.type == Type::Int16 ||
                         v.type == Type::Int32 || v.type == Type::Int64;
  int width;
  u64 u = (u64)v.i;
  switch (v.type) {
  case Type::Int8: case Type::UInt8: width = 3, u = (u8)u; break;
  case Type::Int16: case Type::UInt16: width = 5, u = (u16)u; break;
  case Type::Int32: case Type::UInt32: width = 10, u = (u32)u; break;
  default: width = is_signed ? 19 : 20;
  }
  if (quiet)
    width = 0;
  return is_signed ? vfmt(quiet ? "%*lld" : " %*lld", width, (long long)v.i)
                   : vfmt(quiet ? "%*llu" : " %*llu", width,
                          (unsigned long long)u);
}

// ---- print( ) ----------------------------------------------------------

namespace {

constexpr int kPrintIndent = 44; // DTrace's column for the first line
constexpr int kPrintDepth = 10;  // nesting shown, then "..."

// One walk over an object, member by member, in declaration order.  A
// struct's closing brace is written lazily, when the walk next comes back
// to a shallower member or ends, as DTrace's output has it ("...", where
// the shown bytes end, comes before the braces it leaves open).
struct ObjectWalk {
  const std::string &data;
  u64 shown;
  std::string &out;
  bool sou_at[kPrintDepth + 1] = {}; // the last node shown at each depth
  int last = 0;                      // the depth shown last

  void line(int depth, const std::string &s) {
    out.append((size_t)(kPrintIndent + depth), ' ');
    out += s;
    out += '\n';
  }
  // Closes the braces opened deeper than `depth`.
  void close_to(int depth) {
    if (!sou_at[depth])
      return;
    if (depth == 0 && last == 0)
      last = 1; // an empty top-level struct still closes
    for (int i = last - depth; i > 0; i--) {
      line(depth + i - 1, (depth > 0 || i > 1) ? "}," : "}");
      last = depth;
    }
  }
  u8 byte(u64 at) const { return at < data.size() ? (u8)data[at] : 0; }
  bool zero(u64 at, u64 n) const {
    for (u64 i = at; i < at + n && i < data.size(); i++)
      if (data[i])
        return false;
    return true;
  }
  u64 word(u64 at, u32 n) const {
    u64 v = 0;
    for (u32 i = 0; i < n && i < 8; i++)
      v |= (u64)byte(at + i) << (8 * i);
    return v;
  }
  // An integer, enum or pointer's text, "" for a zero bitfield.
  std::string scalar(const CType &t, const std::string &tn, u64 bitoff,
                     u8 bits) const {
    const u64 at = bitoff / 8;
    if (t.pointer)
      return strf("(%s)0x%llx,", tn.c_str(),
                  (unsigned long long)word(at, t.bytes));
    if (t.enumerators) {
      const i64 v = (i32)(u32)word(at, 4);
      for (const auto &[name, value] : *t.enumerators)
        if (value == v)
          return "(" + tn + ")" + name + ",";
      return strf("(%s)%lld,", tn.c_str(), (long long)v);
    }
    u64 u;
    unsigned width = t.bytes * 8;
    if (bits) {
      u = word(at, 8) >> (bitoff % 8);
      u = bits < 64 ? u & ((1ull << bits) - 1) : u;
      width = bits;
      if (!u)
        return "";
    } else {
      u = word(at, t.bytes);
    }
    if (width == 64 && !t.is_signed)
      return strf("(%s)%llu,", tn.c_str(), (unsigned long long)u);
    i64 v = (i64)u;
    if (t.is_signed && width < 64 && (u >> (width - 1)) & 1)
      v = (i64)(u | ~((1ull << width) - 1));
    if (tn == "char" && !bits)
      return strf("(%s)'%c',", tn.c_str(), (char)v);
    return strf("(%s)%lld,", tn.c_str(), (long long)v);
  }
  // Shows one node: the object (depth 0) or a member or element of it.
  // False once the shown bytes or the depth ran out.
  bool visit(const std::string *member, const CType &t, u32 dim, u8 bits,
             u64 bitoff, int depth) {
    const u64 at = bitoff / 8;
    if (at >= shown || depth >= kPrintDepth) {
      line(depth, "...");
      return false;
    }
    if (last > depth)
      close_to(depth);
    const bool sou = t.sou && !t.pointer && !dim;
    const u64 size = t.size() * (dim ? dim : 1);
    // Zero members are left out (a zero struct's members are walked, all
    // zero but for where the shown bytes end).
    const bool hidden = depth > 0 && !bits && zero(at, size);
    std::string tn = t.name;
    if (dim)
      tn += strf(" [%u]", dim);
    const std::string name = member ? "." + *member + " = " : "";
    if (!hidden) {
      sou_at[depth] = sou;
      last = depth;
    }
    if (sou) {
      if (!hidden)
        line(depth, name + "(" + tn + ") {");
      for (const Field &f : t.sou->fields)
        if (!visit(&f.name, f.type, f.dim, f.bits, bitoff + f.off, depth + 1))
          return false;
      return true;
    }
    if (hidden)
      return true;
    if (!dim) {
      const std::string v = scalar(t, tn, bitoff, bits);
      if (!v.empty())
        line(depth, name + v);
      return true;
    }
    line(depth, name + "(" + tn + ") [");
    // The elements, each a node one deeper; a char array ends at its NUL.
    const bool chars = t.bytes == 1 && !t.pointer && !t.sou &&
                       !t.enumerators && t.name != "bool" && t.name != "_Bool";
    ObjectWalk elems{data, shown, out};
    for (u32 i = 0; i < dim; i++) {
      const u64 eoff = bitoff + (u64)i * t.size() * 8;
      if (chars && !byte(eoff / 8))
        break;
      if (!elems.visit(nullptr, t, 0, 0, eoff, depth + 1))
        return false;
    }
    if (elems.last > depth + 1)
      elems.close_to(depth + 1);
    line(depth, "],");
    return true;
  }
};

} // namespace

std::string print_object(const CType &t, u64 addr, const std::string &bytes,
                         u64 shown) {
  std::string out =
      addr ? strf("0x%llx = *\n", (unsigned long long)addr) : "(nil) = *\n";
  ObjectWalk w{bytes, std::min<u64>(shown, t.size()), out};
  w.visit(nullptr, t, 0, 0, 0, 0);
  w.close_to(0);
  return out;
}

} // namespace mk::dt
