// printk and Linux's vsnprintf: the format semantics of lib/vsprintf.c,
// with the %p extensions modules use (%pS/%ps/%pB through the kernel's
// symbolizer, %px, %p hashed as Linux prints it, %pK, %*ph, %pe, %pV,
// %pU, %pI4, %pM, %*pb/%*pbl, %pa).  _printk's messages go to the console
// and dmesg, one line each, as the kernel's own do.
#include "lkpi.h"

#include "../../sdt/registry.h"
#include "../kern_panic.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sys/random.h>

namespace lkpi {

namespace {

enum : unsigned {
  ZEROPAD = 1,
  SIGN = 2,
  PLUS = 4,
  SPACE = 8,
  LEFT = 16,
  SMALL = 32,
  SPECIAL = 64,
};

struct Spec {
  unsigned flags = 0;
  int width = -1;
  int prec = -1;
};

void pad_to(std::string &o, size_t start, const Spec &s) {
  const size_t len = o.size() - start;
  if (s.width < 0 || (size_t)s.width <= len)
    return;
  const size_t n = (size_t)s.width - len;
  if (s.flags & LEFT)
    o.append(n, ' ');
  else
    o.insert(start, n, ' ');
}

void number(std::string &o, unsigned long long v, bool neg, int base, Spec s) {
  const char *digits =
      (s.flags & SMALL) ? "0123456789abcdef" : "0123456789ABCDEF";
  char sign = 0;
  if (s.flags & SIGN) {
    if (neg)
      sign = '-';
    else if (s.flags & PLUS)
      sign = '+';
    else if (s.flags & SPACE)
      sign = ' ';
  }
  char tmp[72];
  int n = 0;
  if (v == 0)
    tmp[n++] = '0';
  while (v) {
    tmp[n++] = digits[v % (unsigned)base];
    v /= (unsigned)base;
  }
  std::string prefix;
  if (sign)
    prefix += sign;
  if ((s.flags & SPECIAL) && base == 16)
    prefix += (s.flags & SMALL) ? "0x" : "0X";
  else if ((s.flags & SPECIAL) && base == 8 && tmp[n - 1] != '0')
    prefix += '0';
  int zeros = s.prec > n ? s.prec - n : 0;
  int total = (int)prefix.size() + zeros + n;
  if ((s.flags & ZEROPAD) && !(s.flags & LEFT) && s.prec < 0 &&
      s.width > total) {
    zeros += s.width - total;
    total = s.width;
  }
  const size_t start = o.size();
  o += prefix;
  o.append((size_t)zeros, '0');
  while (n)
    o += tmp[--n];
  pad_to(o, start, s);
}

void string(std::string &o, const char *p, Spec s) {
  if (!p)
    p = "(null)";
  else if ((uintptr_t)p < 4096)
    p = "(efault)";
  const size_t start = o.size();
  size_t n = s.prec >= 0 ? ::strnlen(p, (size_t)s.prec) : std::strlen(p);
  o.append(p, n);
  pad_to(o, start, s);
}

void hex_pointer(std::string &o, uintptr_t v, Spec s) {
  if (s.width == -1) {
    s.width = 2 * (int)sizeof(void *);
    s.flags |= ZEROPAD;
  }
  s.flags |= SMALL;
  number(o, v, false, 16, s);
}

// %p: Linux prints a keyed hash of the pointer, so a log never gives an
// address away; NULL and error pointers are printed as they are.
void hashed_pointer(std::string &o, uintptr_t v, Spec s) {
  if (v == 0 || v >= (uintptr_t)-4095) {
    hex_pointer(o, v, s);
    return;
  }
  static const u64 key = [] {
    u64 k = 0;
    if (getrandom(&k, sizeof k, 0) != (ssize_t)sizeof k)
      k = mk::now_ns();
    return k | 1;
  }();
  u64 h = (u64)v ^ key;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  hex_pointer(o, (uintptr_t)(u32)h, s);
}

} // namespace

// %pS, %ps, %pB: "function+0x1a [module]" (the kernel's own functions
// without a module), as sprint_symbol prints it.
void symbol(std::string &o, uintptr_t pc, char how) {
  const u64 at = how == 'B' && pc ? pc - 1 : pc;
  std::string s = symbolize(at);
  const size_t tick = s.find('`');
  if (tick == std::string::npos) { // no image holds it
    o += mk::strf("0x%lx", (unsigned long)pc);
    return;
  }
  const std::string mod = s.substr(0, tick);
  std::string fn = s.substr(tick + 1);
  u64 off = 0;
  if (size_t plus = fn.find('+'); plus != std::string::npos) {
    off = std::strtoull(fn.c_str() + plus + 1, nullptr, 16);
    fn.resize(plus);
  }
  if (fn.rfind("0x", 0) == 0) { // outside every function of the image
    o += mk::strf("0x%lx", (unsigned long)pc);
    return;
  }
  if (how == 'B')
    off += 1;
  o += mk::brief_name(fn);
  if (how != 's')
    o += mk::strf("+0x%llx", (unsigned long long)off);
  if (mod != "kernel")
    o += " [" + mod + "]";
}

std::string lformat(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

namespace {

// Linux's error names for %pe: the C library knows the user-visible ones,
// these are the kernel's own.
const char *errname(int e) {
  switch (e) {
  case 512:
    return "ERESTARTSYS";
  case 513:
    return "ERESTARTNOINTR";
  case 514:
    return "ERESTARTNOHAND";
  case 515:
    return "ENOIOCTLCMD";
  case 516:
    return "ERESTART_RESTARTBLOCK";
  case 517:
    return "EPROBE_DEFER";
  case 518:
    return "EOPENSTALE";
  case 519:
    return "ENOPARAM";
  case 521:
    return "EBADHANDLE";
  case 522:
    return "ENOTSYNC";
  case 523:
    return "EBADCOOKIE";
  case 524:
    return "ENOTSUPP";
  case 525:
    return "ETOOSMALL";
  case 526:
    return "ESERVERFAULT";
  case 527:
    return "EBADTYPE";
  case 528:
    return "EJUKEBOX";
  case 529:
    return "EIOCBQUEUED";
  case 530:
    return "ERECALLCONFLICT";
  }
  return e > 0 && e < 512 ? strerrorname_np(e) : nullptr;
}

void hex_string(std::string &o, const u8 *p, Spec s, char sep) {
  if (s.width == 0)
    return;
  const int len = s.width < 0 ? 1 : (s.width > 64 ? 64 : s.width);
  for (int i = 0; i < len; i++) {
    if (i && sep)
      o += sep;
    o += mk::strf("%02x", p[i]);
  }
}

void bitmap(std::string &o, const unsigned long *bits, int nbits, bool list) {
  auto test = [&](int i) {
    return (bits[i / (8 * sizeof(long))] >> (i % (8 * sizeof(long)))) & 1;
  };
  if (list) {
    bool first = true;
    for (int i = 0; i < nbits;) {
      if (!test(i)) {
        i++;
        continue;
      }
      int j = i;
      while (j + 1 < nbits && test(j + 1))
        j++;
      o += first ? "" : ",";
      first = false;
      o += j > i ? mk::strf("%d-%d", i, j) : mk::strf("%d", i);
      i = j + 1;
    }
    return;
  }
  // Hex, 32 bits to a comma-separated group, most significant first.
  const int groups = (nbits + 31) / 32;
  for (int g = groups - 1; g >= 0; g--) {
    u32 v = 0;
    for (int b = 0; b < 32 && g * 32 + b < nbits; b++)
      v |= (u32)test(g * 32 + b) << b;
    const int width = g == groups - 1 ? ((nbits - g * 32) + 3) / 4 : 8;
    o += mk::strf("%0*x", width, v);
    if (g)
      o += ',';
  }
}

// The %p extension at `fmt` (just past the 'p'); returns past its letters.
const char *pointer(std::string &o, const char *fmt, void *ptr, Spec s) {
  const auto v = (uintptr_t)ptr;
  const u8 *b = (const u8 *)ptr;
  switch (*fmt) {
  case 'S':
  case 's':
  case 'B':
    symbol(o, v, *fmt);
    break;
  case 'x':
    hex_pointer(o, v, s);
    break;
  case 'K':
    hashed_pointer(o, v, s);
    break;
  case 'e': {
    const long e = (long)v;
    if (e < 0 && e >= -4095) {
      const char *name = errname((int)-e);
      o += name ? std::string("-") + name : mk::strf("%ld", e);
    } else {
      hashed_pointer(o, v, s);
    }
    break;
  }
  case 'h':
    if (!ptr) {
      o += "(null)";
      break;
    }
    hex_string(o, b, s,
               fmt[1] == 'C'   ? ':'
               : fmt[1] == 'D' ? '-'
               : fmt[1] == 'N' ? 0
                               : ' ');
    break;
  case 'b':
    bitmap(o, (const unsigned long *)ptr, s.width < 0 ? 0 : s.width,
           fmt[1] == 'l');
    break;
  case 'M':
  case 'm': {
    const bool rev = fmt[1] == 'R';
    const char sep = *fmt == 'm' ? 0 : fmt[1] == 'F' ? '-' : ':';
    for (int i = 0; i < 6; i++) {
      if (i && sep)
        o += sep;
      o += mk::strf("%02x", b[rev ? 5 - i : i]);
    }
    break;
  }
  case 'I':
  case 'i':
    if (fmt[1] == '4') {
      o += *fmt == 'I'
               ? mk::strf("%u.%u.%u.%u", b[0], b[1], b[2], b[3])
               : mk::strf("%03u.%03u.%03u.%03u", b[0], b[1], b[2], b[3]);
    } else if (fmt[1] == '6') {
      for (int i = 0; i < 16; i += 2)
        o += mk::strf(*fmt == 'I' ? "%s%x" : "%s%02x%02x", i ? ":" : "",
                      *fmt == 'I' ? (b[i] << 8 | b[i + 1]) : b[i], b[i + 1]);
    } else {
      hashed_pointer(o, v, s);
    }
    break;
  case 'U': {
    // b/B: big endian (RFC 4122 order); l/L: the first three fields
    // little endian.  Upper-case letters print upper-case digits.
    static const int be[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                               8, 9, 10, 11, 12, 13, 14, 15};
    static const int le[16] = {3, 2, 1,  0,  5,  4,  7,  6,
                               8, 9, 10, 11, 12, 13, 14, 15};
    const char c = fmt[1];
    const int *idx = (c == 'l' || c == 'L') ? le : be;
    const bool upper = c == 'B' || c == 'L';
    for (int i = 0; i < 16; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10)
        o += '-';
      o += mk::strf(upper ? "%02X" : "%02x", b[idx[i]]);
    }
    break;
  }
  case 'V': {
    auto *vf = (const va_format *)ptr;
    va_list ap;
    va_copy(ap, *vf->va);
    o += vformat(vf->fmt, ap);
    va_end(ap);
    break;
  }
  case 'a':
    if (fmt[1] == 'd')
      hex_pointer(o, *(const uintptr_t *)ptr, s);
    else
      number(
          o, *(const unsigned long long *)ptr, false, 16,
          Spec{SMALL | SPECIAL | ZEROPAD, 2 + 2 * (int)sizeof(long long), -1});
    break;
  default:
    hashed_pointer(o, v, s);
    return fmt;
  }
  // Linux skips every alphanumeric character of the extension.
  while (std::isalnum((unsigned char)*fmt))
    fmt++;
  return fmt;
}

} // namespace

std::string vformat(const char *fmt, va_list ap) {
  std::string o;
  for (const char *f = fmt; *f;) {
    if (*f != '%') {
      const char *e = std::strchr(f, '%');
      const size_t n = e ? (size_t)(e - f) : std::strlen(f);
      o.append(f, n);
      f += n;
      continue;
    }
    f++;
    Spec s;
    for (;; f++) {
      if (*f == '-')
        s.flags |= LEFT;
      else if (*f == '+')
        s.flags |= PLUS;
      else if (*f == ' ')
        s.flags |= SPACE;
      else if (*f == '#')
        s.flags |= SPECIAL;
      else if (*f == '0')
        s.flags |= ZEROPAD;
      else
        break;
    }
    if (std::isdigit((unsigned char)*f)) {
      s.width = (int)std::strtol(f, (char **)&f, 10);
    } else if (*f == '*') {
      f++;
      s.width = va_arg(ap, int);
      if (s.width < 0) {
        s.width = -s.width;
        s.flags |= LEFT;
      }
    }
    if (*f == '.') {
      f++;
      if (*f == '*') {
        f++;
        s.prec = va_arg(ap, int);
      } else {
        s.prec = (int)std::strtol(f, (char **)&f, 10);
      }
      if (s.prec < 0)
        s.prec = 0;
    }
    int qual = 0; // 'H' hh, 'h', 'l', 'L' ll, 'z', 't', 'j'
    if (*f == 'h' || *f == 'l' || *f == 'z' || *f == 'Z' || *f == 't' ||
        *f == 'j' || *f == 'L' || *f == 'q') {
      qual = *f == 'Z' ? 'z' : *f == 'q' ? 'L' : *f;
      f++;
      if (qual == 'h' && *f == 'h') {
        qual = 'H';
        f++;
      } else if (qual == 'l' && *f == 'l') {
        qual = 'L';
        f++;
      }
    }
    int base = 10;
    bool is_signed = false;
    switch (*f) {
    case '%':
      o += '%';
      f++;
      continue;
    case 'c': {
      const size_t start = o.size();
      o += (char)va_arg(ap, int);
      pad_to(o, start, s);
      f++;
      continue;
    }
    case 's':
      string(o, va_arg(ap, const char *), s);
      f++;
      continue;
    case 'p':
      f = pointer(o, f + 1, va_arg(ap, void *), s);
      continue;
    case 'n': // Linux ignores %n (and its argument)
      (void)va_arg(ap, void *);
      f++;
      continue;
    case 'o':
      base = 8;
      break;
    case 'x':
      s.flags |= SMALL;
      [[fallthrough]];
    case 'X':
      base = 16;
      break;
    case 'd':
    case 'i':
      is_signed = true;
      s.flags |= SIGN;
      break;
    case 'u':
      break;
    default: // an unknown conversion ends the format, as in Linux
      if (*f)
        o += '%';
      return o;
    }
    f++;
    unsigned long long u;
    bool neg = false;
    if (qual == 'L' || qual == 'j') {
      u = va_arg(ap, unsigned long long);
      neg = is_signed && (long long)u < 0;
    } else if (qual == 'l' || qual == 'z' || qual == 't') {
      unsigned long x = va_arg(ap, unsigned long);
      u = is_signed ? (unsigned long long)(long long)(long)x : x;
      neg = is_signed && (long)x < 0;
    } else {
      unsigned x = va_arg(ap, unsigned);
      if (qual == 'H')
        u = is_signed ? (unsigned long long)(long long)(signed char)x
                      : (unsigned char)x;
      else if (qual == 'h')
        u = is_signed ? (unsigned long long)(long long)(short)x
                      : (unsigned short)x;
      else
        u = is_signed ? (unsigned long long)(long long)(int)x : x;
      neg = is_signed && (long long)u < 0;
    }
    if (neg)
      u = 0 - u;
    number(o, u, neg, base, s);
  }
  return o;
}

// ---- the C forms -----------------------------------------------------------

namespace {
int copy_out(char *buf, size_t size, const std::string &s) {
  if (size) {
    const size_t n = s.size() < size - 1 ? s.size() : size - 1;
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  return (int)s.size();
}
} // namespace

int lkpi_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) {
  return copy_out(buf, size, vformat(fmt, ap));
}
int lkpi_snprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = lkpi_vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}
// scnprintf: what was written, not what would have been.
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap) {
  int n = lkpi_vsnprintf(buf, size, fmt, ap);
  if ((size_t)n < size)
    return n;
  return size ? (int)size - 1 : 0;
}
int scnprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vscnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}
int lkpi_vsprintf(char *buf, const char *fmt, va_list ap) {
  return lkpi_vsnprintf(buf, (size_t)__INT_MAX__, fmt, ap);
}
int lkpi_sprintf(char *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = lkpi_vsprintf(buf, fmt, ap);
  va_end(ap);
  return n;
}

// seq_file's output side (fs/seq_file.c), into the buffer the seq_file's
// reader gave it: what does not fit marks it full (seq_set_overflow(),
// count = size), which tells the reader to retry with a larger one.
// Only the first fields of 6.1's struct seq_file are read.
struct seq_file {
  char *buf;
  size_t size, from, count;
};
static void seq_set_overflow(seq_file *m) { m->count = m->size; }
void seq_vprintf(seq_file *m, const char *fmt, va_list ap) {
  if (m->count < m->size) {
    const int n = lkpi_vsnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
    if (m->count + n < m->size) {
      m->count += n;
      return;
    }
  }
  seq_set_overflow(m);
}
void seq_printf(seq_file *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  seq_vprintf(m, fmt, ap);
  va_end(ap);
}
void seq_putc(seq_file *m, char c) {
  if (m->count < m->size)
    m->buf[m->count++] = c;
}
void seq_puts(seq_file *m, const char *s) {
  const size_t n = std::strlen(s);
  if (m->count + n >= m->size) {
    seq_set_overflow(m);
    return;
  }
  std::memcpy(m->buf + m->count, s, n);
  m->count += n;
}
int seq_write(seq_file *m, const void *data, size_t n) {
  if (m->count + n < m->size) {
    std::memcpy(m->buf + m->count, data, n);
    m->count += n;
    return 0;
  }
  seq_set_overflow(m);
  return -1;
}

namespace {
char *vasprintf_for(unsigned gfp, const char *fmt, va_list ap, u64 caller) {
  const std::string s = vformat(fmt, ap);
  auto *p = (char *)alloc(s.size() + 1, gfp, caller);
  if (p)
    std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}
} // namespace

__attribute__((noinline)) char *kvasprintf(unsigned gfp, const char *fmt,
                                           va_list ap) {
  return vasprintf_for(gfp, fmt, ap, LKPI_CALLER());
}
__attribute__((noinline)) char *kasprintf(unsigned gfp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = vasprintf_for(gfp, fmt, ap, LKPI_CALLER());
  va_end(ap);
  return p;
}

// ---- printk ----------------------------------------------------------------

std::string symbolize(u64 pc) {
  mk::Kernel *k = mk::curkernel();
  if (!k || !k->has_probes())
    return mk::strf("0x%llx", (unsigned long long)pc);
  return k->probes().code().symbolize(pc);
}

void console_line(int level, const std::string &line) {
  mk::Kernel *k = mk::curkernel();
  if (!k) {
    std::fputs(line.c_str(), stderr);
    return;
  }
  // console_loglevel 7: everything but KERN_DEBUG reaches the console.
  k->console().write(line, level < 7);
}

namespace {

// A message that did not end its line waits here for KERN_CONT pieces
// (pr_cont), per thread, until a newline or the next message ends it.
thread_local std::string t_partial;
thread_local int t_partial_level = 4;

int vprintk_level(const char *fmt, va_list ap) {
  int level = 4; // default_message_loglevel (KERN_WARNING)
  bool cont = false;
  while (fmt[0] == '\001' && fmt[1]) {
    const char c = fmt[1];
    if (c >= '0' && c <= '7')
      level = c - '0';
    else if (c == 'c')
      cont = true;
    fmt += 2;
  }
  std::string text = vformat(fmt, ap);
  const int n = (int)text.size();
  if (!cont && !t_partial.empty()) {
    console_line(t_partial_level, t_partial + "\n");
    t_partial.clear();
  }
  if (cont && !t_partial.empty())
    level = t_partial_level;
  t_partial += text;
  t_partial_level = level;
  // Every complete line goes now.
  for (size_t nl; (nl = t_partial.find('\n')) != std::string::npos;) {
    console_line(level, t_partial.substr(0, nl + 1));
    t_partial.erase(0, nl + 1);
  }
  return n;
}

} // namespace

int vprintk(const char *fmt, va_list ap) { return vprintk_level(fmt, ap); }
int _printk(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vprintk_level(fmt, ap);
  va_end(ap);
  return n;
}

// WARN()'s message (the lead's __bug_table prints the WARNING line).
void __warn_printk(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintk_level(fmt, ap);
  va_end(ap);
}

// pr_debug under CONFIG_DYNAMIC_DEBUG: called only once its site is
// enabled; the descriptor's layout is not needed to print it.
void __dynamic_pr_debug(void *descriptor, const char *fmt, ...) {
  std::string f = std::string("\0017") + fmt;
  va_list ap;
  va_start(ap, fmt);
  vprintk_level(f.c_str(), ap);
  va_end(ap);
}

// struct ratelimit_state and lib/ratelimit.c's check: at most `burst`
// messages per `interval` jiffies; the next interval starts by saying
// how many were suppressed (unless RATELIMIT_MSG_ON_RELEASE defers that
// to the owner).  Contended, a message is suppressed, as Linux's trylock
// does.
struct ratelimit_state {
  std::atomic<u32> lock;
  int interval, burst, printed, missed;
  unsigned long begin, flags;
};
static_assert(sizeof(ratelimit_state) == (sizeof(long) == 8 ? 40 : 28));
int ___ratelimit(ratelimit_state *rs, const char *func) {
  const int interval = rs->interval, burst = rs->burst;
  if (!interval)
    return 1;
  if (rs->lock.exchange(1, std::memory_order_acquire))
    return 0;
  const unsigned long now = (unsigned long)jiffies_now();
  if (!rs->begin)
    rs->begin = now;
  if ((long)(now - (rs->begin + (unsigned long)interval)) > 0) {
    if (rs->missed && !(rs->flags & 1)) {
      console_line(4, lformat("%s: %d callbacks suppressed\n", func, rs->missed));
      rs->missed = 0;
    }
    rs->begin = now;
    rs->printed = 0;
  }
  int ret = 0;
  if (burst && burst > rs->printed)
    rs->printed++, ret = 1;
  else
    rs->missed++;
  rs->lock.store(0, std::memory_order_release);
  return ret;
}

LINUX_EXPORT(_printk);
LINUX_EXPORT(vprintk);
LINUX_EXPORT(___ratelimit);
LINUX_EXPORT(__warn_printk);
LINUX_EXPORT(__dynamic_pr_debug);
LINUX_EXPORT_AS("snprintf", lkpi_snprintf);
LINUX_EXPORT_AS("vsnprintf", lkpi_vsnprintf);
LINUX_EXPORT_AS("sprintf", lkpi_sprintf);
LINUX_EXPORT_AS("vsprintf", lkpi_vsprintf);
LINUX_EXPORT(scnprintf);
LINUX_EXPORT(vscnprintf);
LINUX_EXPORT(kasprintf);
LINUX_EXPORT(kvasprintf);
LINUX_EXPORT(seq_vprintf);
LINUX_EXPORT(seq_printf);
LINUX_EXPORT(seq_putc);
LINUX_EXPORT(seq_puts);
LINUX_EXPORT(seq_write);

} // namespace lkpi
