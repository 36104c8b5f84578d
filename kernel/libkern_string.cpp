// <string.h>, <strings.h> and <ctype.h> for modules (kernel/include/).
//
// The string functions are the host libc's, behind kern_ wrappers
// (libkern_c.h says why); where the C library would consult the process's
// locale, the C locale is passed or put in force.  The character classes
// are our own: a module sees the C locale's classes whatever LC_CTYPE the
// kernel runs under, and an argument outside unsigned char and EOF
// answers 0 instead of reading outside a table.
#include "libkern_c.h"

#include <cstring>
#include <strings.h>

using mk::CLocaleScope;

namespace {
bool in(int c, int lo, int hi) { return c >= lo && c <= hi; }
} // namespace

extern "C" {

// ---- <string.h> ------------------------------------------------------------

void *kern_memcpy(void *d, const void *s, size_t n) { return std::memcpy(d, s, n); }
void *kern_memmove(void *d, const void *s, size_t n) { return std::memmove(d, s, n); }
void *kern_memset(void *d, int c, size_t n) { return std::memset(d, c, n); }
int kern_memcmp(const void *a, const void *b, size_t n) { return std::memcmp(a, b, n); }
void *kern_memchr(const void *s, int c, size_t n) { return (void *)std::memchr(s, c, n); }
void *kern_memrchr(const void *s, int c, size_t n) { return (void *)::memrchr(s, c, n); }
void *kern_memccpy(void *d, const void *s, int c, size_t n) { return ::memccpy(d, s, c, n); }
void *kern_mempcpy(void *d, const void *s, size_t n) { return ::mempcpy(d, s, n); }
void *kern_memmem(const void *h, size_t hn, const void *n, size_t nn) {
  return ::memmem(h, hn, n, nn);
}
size_t kern_strlen(const char *s) { return std::strlen(s); }
size_t kern_strnlen(const char *s, size_t n) { return ::strnlen(s, n); }
char *kern_strcpy(char *d, const char *s) { return std::strcpy(d, s); }
char *kern_strncpy(char *d, const char *s, size_t n) { return std::strncpy(d, s, n); }
char *kern_stpcpy(char *d, const char *s) { return ::stpcpy(d, s); }
char *kern_stpncpy(char *d, const char *s, size_t n) { return ::stpncpy(d, s, n); }
char *kern_strcat(char *d, const char *s) { return std::strcat(d, s); }
char *kern_strncat(char *d, const char *s, size_t n) { return std::strncat(d, s, n); }
int kern_strcmp(const char *a, const char *b) { return std::strcmp(a, b); }
int kern_strncmp(const char *a, const char *b, size_t n) { return std::strncmp(a, b, n); }
int kern_strcoll(const char *a, const char *b) {
  return ::strcoll_l(a, b, CLocaleScope::c_locale());
}
size_t kern_strxfrm(char *d, const char *s, size_t n) {
  return ::strxfrm_l(d, s, n, CLocaleScope::c_locale());
}
char *kern_strchr(const char *s, int c) { return (char *)std::strchr(s, c); }
char *kern_strrchr(const char *s, int c) { return (char *)std::strrchr(s, c); }
char *kern_strchrnul(const char *s, int c) { return (char *)::strchrnul(s, c); }
size_t kern_strspn(const char *s, const char *a) { return std::strspn(s, a); }
size_t kern_strcspn(const char *s, const char *r) { return std::strcspn(s, r); }
char *kern_strpbrk(const char *s, const char *a) { return (char *)std::strpbrk(s, a); }
char *kern_strstr(const char *s, const char *n) { return (char *)std::strstr(s, n); }
char *kern_strcasestr(const char *s, const char *n) {
  CLocaleScope c;
  return (char *)::strcasestr(s, n);
}
char *kern_strtok(char *s, const char *d) { return std::strtok(s, d); }
char *kern_strtok_r(char *s, const char *d, char **save) { return ::strtok_r(s, d, save); }
char *kern_strsep(char **sp, const char *d) { return ::strsep(sp, d); }
char *kern_strerror(int e) { return ::strerror_l(e, CLocaleScope::c_locale()); }

// BSD's bounded copies; not in this glibc.
size_t kern_strlcpy(char *dst, const char *src, size_t size) {
  size_t n = std::strlen(src);
  if (size) {
    size_t c = n < size - 1 ? n : size - 1;
    std::memcpy(dst, src, c);
    dst[c] = '\0';
  }
  return n;
}

size_t kern_strlcat(char *dst, const char *src, size_t size) {
  size_t d = strnlen(dst, size);
  if (d == size)
    return d + std::strlen(src);
  return d + kern_strlcpy(dst + d, src, size - d);
}

// ---- <strings.h> -----------------------------------------------------------

int kern_strcasecmp(const char *a, const char *b) {
  return ::strcasecmp_l(a, b, CLocaleScope::c_locale());
}
int kern_strncasecmp(const char *a, const char *b, size_t n) {
  return ::strncasecmp_l(a, b, n, CLocaleScope::c_locale());
}
int kern_bcmp(const void *a, const void *b, size_t n) { return std::memcmp(a, b, n); }
void kern_bcopy(const void *s, void *d, size_t n) { std::memmove(d, s, n); }
void kern_bzero(void *s, size_t n) { std::memset(s, 0, n); }
void kern_explicit_bzero(void *s, size_t n) { ::explicit_bzero(s, n); }
int kern_ffs(int v) { return __builtin_ffs(v); }
int kern_ffsl(long v) { return __builtin_ffsl(v); }
int kern_ffsll(long long v) { return __builtin_ffsll(v); }

// ---- <ctype.h>: the C locale's classes ---------------------------------------

int kern_isupper(int c) { return in(c, 'A', 'Z'); }
int kern_islower(int c) { return in(c, 'a', 'z'); }
int kern_isdigit(int c) { return in(c, '0', '9'); }
int kern_isalpha(int c) { return kern_isupper(c) || kern_islower(c); }
int kern_isalnum(int c) { return kern_isalpha(c) || kern_isdigit(c); }
int kern_isxdigit(int c) { return kern_isdigit(c) || in(c, 'a', 'f') || in(c, 'A', 'F'); }
int kern_isspace(int c) { return c == ' ' || in(c, '\t', '\r'); } // \t \n \v \f \r
int kern_isblank(int c) { return c == ' ' || c == '\t'; }
int kern_iscntrl(int c) { return in(c, 0, 0x1f) || c == 0x7f; }
int kern_isprint(int c) { return in(c, 0x20, 0x7e); }
int kern_isgraph(int c) { return in(c, 0x21, 0x7e); }
int kern_ispunct(int c) { return kern_isgraph(c) && !kern_isalnum(c); }
int kern_isascii(int c) { return in(c, 0, 0x7f); }
int kern_tolower(int c) { return kern_isupper(c) ? c - 'A' + 'a' : c; }
int kern_toupper(int c) { return kern_islower(c) ? c - 'a' + 'A' : c; }
int kern_toascii(int c) { return c & 0x7f; }

} // extern "C"

EXPORT_SYMBOL_AS("memcpy", kern_memcpy);
EXPORT_SYMBOL_AS("memmove", kern_memmove);
EXPORT_SYMBOL_AS("memset", kern_memset);
EXPORT_SYMBOL_AS("memcmp", kern_memcmp);
EXPORT_SYMBOL_AS("memchr", kern_memchr);
EXPORT_SYMBOL_AS("memrchr", kern_memrchr);
EXPORT_SYMBOL_AS("memccpy", kern_memccpy);
EXPORT_SYMBOL_AS("mempcpy", kern_mempcpy);
EXPORT_SYMBOL_AS("memmem", kern_memmem);
EXPORT_SYMBOL_AS("strlen", kern_strlen);
EXPORT_SYMBOL_AS("strnlen", kern_strnlen);
EXPORT_SYMBOL_AS("strcpy", kern_strcpy);
EXPORT_SYMBOL_AS("strncpy", kern_strncpy);
EXPORT_SYMBOL_AS("stpcpy", kern_stpcpy);
EXPORT_SYMBOL_AS("stpncpy", kern_stpncpy);
EXPORT_SYMBOL_AS("strcat", kern_strcat);
EXPORT_SYMBOL_AS("strncat", kern_strncat);
EXPORT_SYMBOL_AS("strlcpy", kern_strlcpy);
EXPORT_SYMBOL_AS("strlcat", kern_strlcat);
EXPORT_SYMBOL_AS("strcmp", kern_strcmp);
EXPORT_SYMBOL_AS("strncmp", kern_strncmp);
EXPORT_SYMBOL_AS("strcoll", kern_strcoll);
EXPORT_SYMBOL_AS("strxfrm", kern_strxfrm);
EXPORT_SYMBOL_AS("strchr", kern_strchr);
EXPORT_SYMBOL_AS("strrchr", kern_strrchr);
EXPORT_SYMBOL_AS("strchrnul", kern_strchrnul);
EXPORT_SYMBOL_AS("strspn", kern_strspn);
EXPORT_SYMBOL_AS("strcspn", kern_strcspn);
EXPORT_SYMBOL_AS("strpbrk", kern_strpbrk);
EXPORT_SYMBOL_AS("strstr", kern_strstr);
EXPORT_SYMBOL_AS("strcasestr", kern_strcasestr);
EXPORT_SYMBOL_AS("strtok", kern_strtok);
EXPORT_SYMBOL_AS("strtok_r", kern_strtok_r);
EXPORT_SYMBOL_AS("strsep", kern_strsep);
EXPORT_SYMBOL_AS("strerror", kern_strerror);
EXPORT_SYMBOL_AS("strcasecmp", kern_strcasecmp);
EXPORT_SYMBOL_AS("strncasecmp", kern_strncasecmp);
EXPORT_SYMBOL_AS("bcmp", kern_bcmp);
EXPORT_SYMBOL_AS("bcopy", kern_bcopy);
EXPORT_SYMBOL_AS("bzero", kern_bzero);
EXPORT_SYMBOL_AS("explicit_bzero", kern_explicit_bzero);
EXPORT_SYMBOL_AS("ffs", kern_ffs);
EXPORT_SYMBOL_AS("ffsl", kern_ffsl);
EXPORT_SYMBOL_AS("ffsll", kern_ffsll);
EXPORT_SYMBOL_AS("isalnum", kern_isalnum);
EXPORT_SYMBOL_AS("isalpha", kern_isalpha);
EXPORT_SYMBOL_AS("isblank", kern_isblank);
EXPORT_SYMBOL_AS("iscntrl", kern_iscntrl);
EXPORT_SYMBOL_AS("isdigit", kern_isdigit);
EXPORT_SYMBOL_AS("isgraph", kern_isgraph);
EXPORT_SYMBOL_AS("islower", kern_islower);
EXPORT_SYMBOL_AS("isprint", kern_isprint);
EXPORT_SYMBOL_AS("ispunct", kern_ispunct);
EXPORT_SYMBOL_AS("isspace", kern_isspace);
EXPORT_SYMBOL_AS("isupper", kern_isupper);
EXPORT_SYMBOL_AS("isxdigit", kern_isxdigit);
EXPORT_SYMBOL_AS("isascii", kern_isascii);
EXPORT_SYMBOL_AS("tolower", kern_tolower);
EXPORT_SYMBOL_AS("toupper", kern_toupper);
EXPORT_SYMBOL_AS("toascii", kern_toascii);
