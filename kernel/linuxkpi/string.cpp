// lib/string.c, lib/kstrtox.c, lib/ctype.c and lib/hexdump.c's helpers,
// the fortify and stack-protector failure paths, and list debugging: with
// Linux's semantics where they differ from the C library's (strscpy's
// -E2BIG, kstrto*'s -EINVAL/-ERANGE and trailing newline, strim, ...).
#include "lkpi.h"

#include "../kern_panic.h"

#include <cctype>
#include <climits>
#include <cstring>
#include <strings.h>

namespace lkpi {

namespace {
constexpr int EINVAL_ = 22, ERANGE_ = 34, E2BIG_ = 7;
}

// ---- memory
// ------------------------------------------------------------------

// Linux's take a null pointer with a zero length (ecdh's set_secret
// copies a key of none): the C library's may not, so zero lengths stop
// here.
void *lkpi_memcpy(void *d, const void *s, size_t n) {
  return n ? std::memcpy(d, s, n) : d;
}
void *lkpi_memmove(void *d, const void *s, size_t n) {
  return n ? std::memmove(d, s, n) : d;
}
void *lkpi_memset(void *d, int c, size_t n) { return n ? std::memset(d, c, n) : d; }
int lkpi_memcmp(const void *a, const void *b, size_t n) {
  return n ? std::memcmp(a, b, n) : 0;
}
void *lkpi_memchr(const void *s, int c, size_t n) {
  return n ? (void *)std::memchr(s, c, n) : nullptr;
}
// The first byte that is not `c`, or null.
void *memchr_inv(const void *s, int c, size_t n) {
  const u8 *p = (const u8 *)s;
  for (size_t i = 0; i < n; i++)
    if (p[i] != (u8)c)
      return (void *)(p + i);
  return nullptr;
}
// The first `c`, or the end of the area.
void *memscan(void *s, int c, size_t n) {
  u8 *p = (u8 *)s;
  while (n && *p != (u8)c) {
    p++;
    n--;
  }
  return p;
}

// ---- strings ---------------------------------------------------------------

int lkpi_strcmp(const char *a, const char *b) { return std::strcmp(a, b); }
int lkpi_strncmp(const char *a, const char *b, size_t n) {
  return std::strncmp(a, b, n);
}
int lkpi_strcasecmp(const char *a, const char *b) {
  for (;; a++, b++) {
    int d = std::tolower((u8)*a) - std::tolower((u8)*b);
    if (d || !*a)
      return d;
  }
}
int lkpi_strncasecmp(const char *a, const char *b, size_t n) {
  for (; n; a++, b++, n--) {
    int d = std::tolower((u8)*a) - std::tolower((u8)*b);
    if (d || !*a)
      return d;
  }
  return 0;
}
size_t lkpi_strlen(const char *s) { return std::strlen(s); }
size_t lkpi_strnlen(const char *s, size_t n) { return ::strnlen(s, n); }
char *lkpi_strcpy(char *d, const char *s) { return std::strcpy(d, s); }
char *lkpi_strncpy(char *d, const char *s, size_t n) {
  return std::strncpy(d, s, n);
}
char *lkpi_strcat(char *d, const char *s) { return std::strcat(d, s); }
char *lkpi_strncat(char *d, const char *s, size_t n) {
  return std::strncat(d, s, n);
}
char *lkpi_strchr(const char *s, int c) { return (char *)std::strchr(s, c); }
char *lkpi_strrchr(const char *s, int c) { return (char *)std::strrchr(s, c); }
char *lkpi_strstr(const char *h, const char *n) {
  return (char *)std::strstr(h, n);
}
char *lkpi_strpbrk(const char *s, const char *set) {
  return (char *)std::strpbrk(s, set);
}
size_t lkpi_strspn(const char *s, const char *set) {
  return std::strspn(s, set);
}
size_t lkpi_strcspn(const char *s, const char *set) {
  return std::strcspn(s, set);
}
char *lkpi_strsep(char **s, const char *delim) { return ::strsep(s, delim); }

// The copied length, or -E2BIG when `s` did not fit (`d` is then
// truncated, still terminated).
long strscpy(char *d, const char *s, size_t size) {
  if (size == 0 || size > INT_MAX)
    return -E2BIG_;
  size_t n = ::strnlen(s, size);
  if (n == size) {
    std::memcpy(d, s, size - 1);
    d[size - 1] = '\0';
    return -E2BIG_;
  }
  std::memcpy(d, s, n + 1);
  return (long)n;
}
size_t lkpi_strlcpy(char *d, const char *s, size_t size) {
  size_t n = std::strlen(s);
  if (size) {
    size_t c = n >= size ? size - 1 : n;
    std::memcpy(d, s, c);
    d[c] = '\0';
  }
  return n;
}
size_t lkpi_strlcat(char *d, const char *s, size_t size) {
  size_t dl = ::strnlen(d, size);
  if (dl == size)
    return size + std::strlen(s);
  return dl + lkpi_strlcpy(d + dl, s, size - dl);
}
char *strnchr(const char *s, size_t n, int c) {
  for (; n-- && *s; s++)
    if (*s == (char)c)
      return (char *)s;
  return nullptr;
}
char *strnstr(const char *h, const char *n, size_t len) {
  size_t nl = std::strlen(n);
  if (!nl)
    return (char *)h;
  while (len >= nl) {
    len--;
    if (!std::memcmp(h, n, nl))
      return (char *)h;
    h++;
  }
  return nullptr;
}
char *skip_spaces(const char *s) {
  while (std::isspace((u8)*s))
    s++;
  return (char *)s;
}
// Trailing white space cut, leading skipped.
char *strim(char *s) {
  size_t n = std::strlen(s);
  if (!n)
    return s;
  char *end = s + n - 1;
  while (end >= s && std::isspace((u8)*end))
    end--;
  end[1] = '\0';
  return skip_spaces(s);
}
// Equal but for one trailing newline on either side (sysfs input).
bool sysfs_streq(const char *a, const char *b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  if (*a == *b)
    return true;
  if (!*a && *b == '\n' && !b[1])
    return true;
  return *a == '\n' && !a[1] && !*b;
}
int match_string(const char *const *array, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++) {
    if (!array[i])
      break;
    if (!std::strcmp(array[i], s))
      return (int)i;
  }
  return -EINVAL_;
}

// ---- ctype
// -------------------------------------------------------------------

// lib/ctype.c's table: _U 0x01, _L 0x02, _D 0x04, _C 0x08, _P 0x10,
// _S 0x20, _X 0x40, _SP 0x80; Latin-1 in the upper half.
const unsigned char _ctype[256] = {
    8,  8,  8,  8,  8,  8,  8,  8,  8,  40, 40, 40, 40, 40, 8,   8,  8,   8,
    8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  8,  160, 16, 16,  16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 4,  4,  4,   4,  4,   4,
    4,  4,  4,  4,  16, 16, 16, 16, 16, 16, 16, 65, 65, 65, 65,  65, 65,  1,
    1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,   1,  1,   1,
    1,  16, 16, 16, 16, 16, 16, 66, 66, 66, 66, 66, 66, 2,  2,   2,  2,   2,
    2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,   16, 16,  16,
    16, 8,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,   0,  0,   0,
    0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,   0,  160, 16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,  16, 16,  16,
    16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 1,  1,  1,   1,  1,   1,
    1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,   1,  1,   16,
    1,  1,  1,  1,  1,  1,  1,  2,  2,  2,  2,  2,  2,  2,  2,   2,  2,   2,
    2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  16, 2,   2,  2,   2,
    2,  2,  2,  2};

int hex_to_bin(unsigned char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c = (unsigned char)std::tolower(c);
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}
int hex2bin(u8 *dst, const char *src, size_t count) {
  while (count--) {
    int hi = hex_to_bin((u8)*src++);
    if (hi < 0)
      return -EINVAL_;
    int lo = hex_to_bin((u8)*src++);
    if (lo < 0)
      return -EINVAL_;
    *dst++ = (u8)(hi << 4 | lo);
  }
  return 0;
}
char *bin2hex(char *dst, const void *src, size_t count) {
  static const char hex[] = "0123456789abcdef";
  const u8 *s = (const u8 *)src;
  while (count--) {
    *dst++ = hex[*s >> 4];
    *dst++ = hex[*s++ & 15];
  }
  return dst;
}
const char hex_asc[] = "0123456789abcdef";
const char hex_asc_upper[] = "0123456789ABCDEF";

// ---- kstrto* ---------------------------------------------------------------

namespace {

// lib/kstrtox.c: an optional "0x"/"0" prefix picks the base when `base`
// is 0, one trailing newline is allowed, anything else after the digits
// is -EINVAL, overflow -ERANGE.
int parse_ull(const char *s, unsigned base, unsigned long long *res) {
  if (*s == '+')
    s++;
  if (base == 0) {
    if (s[0] == '0' && std::tolower((u8)s[1]) == 'x' && std::isxdigit((u8)s[2]))
      base = 16, s += 2;
    else if (s[0] == '0')
      base = 8;
    else
      base = 10;
  } else if (base == 16 && s[0] == '0' && std::tolower((u8)s[1]) == 'x') {
    s += 2;
  }
  unsigned long long v = 0;
  const char *start = s;
  for (;; s++) {
    int d = hex_to_bin((u8)*s);
    if (d < 0 || (unsigned)d >= base)
      break;
    if (v > (ULLONG_MAX - (unsigned)d) / base)
      return -ERANGE_;
    v = v * base + (unsigned)d;
  }
  if (s == start)
    return -EINVAL_;
  if (*s == '\n')
    s++;
  if (*s)
    return -EINVAL_;
  *res = v;
  return 0;
}

int parse_ll(const char *s, unsigned base, long long *res) {
  unsigned long long v;
  if (*s == '-') {
    int r = parse_ull(s + 1, base, &v);
    if (r)
      return r;
    if (v > (unsigned long long)LLONG_MAX + 1)
      return -ERANGE_;
    *res = (long long)(0 - v);
    return 0;
  }
  int r = parse_ull(s, base, &v);
  if (r)
    return r;
  if (v > (unsigned long long)LLONG_MAX)
    return -ERANGE_;
  *res = (long long)v;
  return 0;
}

template <class T> int to_unsigned(const char *s, unsigned base, T *res) {
  unsigned long long v;
  int r = parse_ull(s, base, &v);
  if (r)
    return r;
  if (v != (T)v)
    return -ERANGE_;
  *res = (T)v;
  return 0;
}
template <class T> int to_signed(const char *s, unsigned base, T *res) {
  long long v;
  int r = parse_ll(s, base, &v);
  if (r)
    return r;
  if (v != (T)v)
    return -ERANGE_;
  *res = (T)v;
  return 0;
}

} // namespace

int kstrtoull(const char *s, unsigned base, unsigned long long *res) {
  return to_unsigned(s, base, res);
}
int kstrtoll(const char *s, unsigned base, long long *res) {
  return to_signed(s, base, res);
}
int _kstrtoul(const char *s, unsigned base, unsigned long *res) {
  return to_unsigned(s, base, res);
}
int _kstrtol(const char *s, unsigned base, long *res) {
  return to_signed(s, base, res);
}
int kstrtouint(const char *s, unsigned base, unsigned *res) {
  return to_unsigned(s, base, res);
}
int kstrtoint(const char *s, unsigned base, int *res) {
  return to_signed(s, base, res);
}
int kstrtou16(const char *s, unsigned base, u16 *res) {
  return to_unsigned(s, base, res);
}
int kstrtos16(const char *s, unsigned base, short *res) {
  return to_signed(s, base, res);
}
int kstrtou8(const char *s, unsigned base, u8 *res) {
  return to_unsigned(s, base, res);
}
int kstrtos8(const char *s, unsigned base, signed char *res) {
  return to_signed(s, base, res);
}
// y/Y/1 and n/N/0, "on"/"off": only the first characters count.
int kstrtobool(const char *s, bool *res) {
  if (!s)
    return -EINVAL_;
  switch (s[0]) {
  case 'y':
  case 'Y':
  case 't':
  case 'T':
  case '1':
    *res = true;
    return 0;
  case 'n':
  case 'N':
  case 'f':
  case 'F':
  case '0':
    *res = false;
    return 0;
  case 'o':
  case 'O':
    if (s[1] == 'n' || s[1] == 'N') {
      *res = true;
      return 0;
    }
    if (s[1] == 'f' || s[1] == 'F') {
      *res = false;
      return 0;
    }
    break;
  }
  return -EINVAL_;
}

// simple_strto*: C's strtoul without errors, Linux's base detection.
unsigned long long simple_strtoull(const char *s, char **end, unsigned base) {
  if (base == 0)
    base = s[0] == '0'
               ? (std::tolower((u8)s[1]) == 'x' && std::isxdigit((u8)s[2]) ? 16
                                                                           : 8)
               : 10;
  if (base == 16 && s[0] == '0' && std::tolower((u8)s[1]) == 'x')
    s += 2;
  unsigned long long v = 0;
  for (int d; (d = hex_to_bin((u8)*s)) >= 0 && (unsigned)d < base; s++)
    v = v * base + (unsigned)d;
  if (end)
    *end = (char *)s;
  return v;
}
unsigned long simple_strtoul(const char *s, char **end, unsigned base) {
  return (unsigned long)simple_strtoull(s, end, base);
}
long simple_strtol(const char *s, char **end, unsigned base) {
  if (*s == '-')
    return -(long)simple_strtoull(s + 1, end, base);
  return (long)simple_strtoull(s, end, base);
}
long long simple_strtoll(const char *s, char **end, unsigned base) {
  if (*s == '-')
    return -(long long)simple_strtoull(s + 1, end, base);
  return (long long)simple_strtoull(s, end, base);
}

// ---- failure paths
// -------------------------------------------------------------

// CONFIG_FORTIFY_SOURCE found an overflow at compile time's promise.
[[noreturn]] void fortify_panic(const char *name) {
  mk::panic("detected buffer overflow in %s", name);
}

// The canary at %gs:40 changed under a function's frame.
[[noreturn]] __attribute__((noinline)) void __stack_chk_fail() {
  std::string where;
  symbol(where, (uintptr_t)LKPI_CALLER(), 'B');
  mk::panic("stack-protector: Kernel stack is corrupted in: %s", where.c_str());
}

// ---- list debugging (CONFIG_DEBUG_LIST)
// ----------------------------------------

namespace {
// CHECK_DATA_CORRUPTION's WARN: the message, then the WARNING line.
void list_warning(const std::string &msg, const char *fn) {
  const int cpu = mk::PerCpu::current_index();
  console_line(4, msg + "\n");
  console_line(4, lformat("WARNING: CPU: %d PID: %d at lib/list_debug.c %s\n",
                          cpu < 0 ? 0 : cpu, cpu < 0 ? 0 : cpu + 1, fn));
}
} // namespace

bool __list_add_valid(list_head *n, list_head *prev, list_head *next) {
  if (next->prev != prev) {
    list_warning(lformat("list_add corruption. next->prev should be prev "
                         "(%px), but was %px. (next=%px).",
                         (void *)prev, (void *)next->prev, (void *)next),
                 "__list_add_valid");
    return false;
  }
  if (prev->next != next) {
    list_warning(lformat("list_add corruption. prev->next should be next "
                         "(%px), but was %px. (prev=%px).",
                         (void *)next, (void *)prev->next, (void *)prev),
                 "__list_add_valid");
    return false;
  }
  if (n == prev || n == next) {
    list_warning(lformat("list_add double add: new=%px, prev=%px, next=%px.",
                         (void *)n, (void *)prev, (void *)next),
                 "__list_add_valid");
    return false;
  }
  return true;
}

bool __list_del_entry_valid(list_head *e) {
  constexpr uintptr_t POISON1 = 0xdead000000000100ull & UINTPTR_MAX;
  constexpr uintptr_t POISON2 = 0xdead000000000122ull & UINTPTR_MAX;
  list_head *prev = e->prev, *next = e->next;
  if ((uintptr_t)next == POISON1) {
    list_warning(lformat("list_del corruption, %px->next is LIST_POISON1 (%px)",
                         (void *)e, (void *)next),
                 "__list_del_entry_valid");
    return false;
  }
  if ((uintptr_t)prev == POISON2) {
    list_warning(lformat("list_del corruption, %px->prev is LIST_POISON2 (%px)",
                         (void *)e, (void *)prev),
                 "__list_del_entry_valid");
    return false;
  }
  if (prev->next != e) {
    list_warning(lformat("list_del corruption. prev->next should be %px, but "
                         "was %px. (prev=%px)",
                         (void *)e, (void *)prev->next, (void *)prev),
                 "__list_del_entry_valid");
    return false;
  }
  if (next->prev != e) {
    list_warning(lformat("list_del corruption. next->prev should be %px, but "
                         "was %px. (next=%px)",
                         (void *)e, (void *)next->prev, (void *)next),
                 "__list_del_entry_valid");
    return false;
  }
  return true;
}

LINUX_EXPORT_AS("memcpy", lkpi_memcpy);
LINUX_EXPORT_AS("memmove", lkpi_memmove);
LINUX_EXPORT_AS("memset", lkpi_memset);
LINUX_EXPORT_AS("memcmp", lkpi_memcmp);
LINUX_EXPORT_AS("memchr", lkpi_memchr);
LINUX_EXPORT(memchr_inv);
LINUX_EXPORT(memscan);
LINUX_EXPORT_AS("strcmp", lkpi_strcmp);
LINUX_EXPORT_AS("strncmp", lkpi_strncmp);
LINUX_EXPORT_AS("strcasecmp", lkpi_strcasecmp);
LINUX_EXPORT_AS("strncasecmp", lkpi_strncasecmp);
LINUX_EXPORT_AS("strlen", lkpi_strlen);
LINUX_EXPORT_AS("strnlen", lkpi_strnlen);
LINUX_EXPORT_AS("strcpy", lkpi_strcpy);
LINUX_EXPORT_AS("strncpy", lkpi_strncpy);
LINUX_EXPORT_AS("strcat", lkpi_strcat);
LINUX_EXPORT_AS("strncat", lkpi_strncat);
LINUX_EXPORT_AS("strchr", lkpi_strchr);
LINUX_EXPORT_AS("strrchr", lkpi_strrchr);
LINUX_EXPORT_AS("strstr", lkpi_strstr);
LINUX_EXPORT_AS("strpbrk", lkpi_strpbrk);
LINUX_EXPORT_AS("strspn", lkpi_strspn);
LINUX_EXPORT_AS("strcspn", lkpi_strcspn);
LINUX_EXPORT_AS("strsep", lkpi_strsep);
LINUX_EXPORT_AS("strlcpy", lkpi_strlcpy);
LINUX_EXPORT_AS("strlcat", lkpi_strlcat);
LINUX_EXPORT(strscpy);
LINUX_EXPORT(strnchr);
LINUX_EXPORT(strnstr);
LINUX_EXPORT(skip_spaces);
LINUX_EXPORT(strim);
LINUX_EXPORT(sysfs_streq);
LINUX_EXPORT(match_string);
LINUX_EXPORT(_ctype);
LINUX_EXPORT(hex_to_bin);
LINUX_EXPORT(hex2bin);
LINUX_EXPORT(bin2hex);
LINUX_EXPORT(hex_asc);
LINUX_EXPORT(hex_asc_upper);
LINUX_EXPORT(kstrtoull);
LINUX_EXPORT(kstrtoll);
LINUX_EXPORT(_kstrtoul);
LINUX_EXPORT(_kstrtol);
LINUX_EXPORT(kstrtouint);
LINUX_EXPORT(kstrtoint);
LINUX_EXPORT(kstrtou16);
LINUX_EXPORT(kstrtos16);
LINUX_EXPORT(kstrtou8);
LINUX_EXPORT(kstrtos8);
LINUX_EXPORT(kstrtobool);
LINUX_EXPORT(simple_strtoull);
LINUX_EXPORT(simple_strtoul);
LINUX_EXPORT(simple_strtol);
LINUX_EXPORT(simple_strtoll);
LINUX_EXPORT(fortify_panic);
LINUX_EXPORT(__stack_chk_fail);
LINUX_EXPORT(__list_add_valid);
LINUX_EXPORT(__list_del_entry_valid);

} // namespace lkpi
