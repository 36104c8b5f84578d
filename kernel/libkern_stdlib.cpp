// <stdlib.h>, <inttypes.h>, <errno.h> and <assert.h> for modules
// (kernel/include/): the host libc's conversions, read in the C locale,
// and the integer arithmetic, sorting, searching and pseudo-random
// numbers.  A module has no process to end: abort() and a failed assert()
// panic the kernel.  malloc and friends are in libkern.cpp, charged to the
// calling module.
#include "libkern_c.h"

#include <cerrno>
#include <cinttypes>
#include <cstdlib>

using mk::CLocaleScope;
using mk::fp_return;

namespace {
locale_t c_locale() { return CLocaleScope::c_locale(); }
} // namespace

extern "C" {

__attribute__((noreturn)) void kern_panic(const char *fmt, ...); // libkern.cpp

// ---- conversions -----------------------------------------------------------

double kern_strtod(const char *s, char **e) {
  return fp_return<double>(::strtod_l(s, e, c_locale()));
}
float kern_strtof(const char *s, char **e) {
  return fp_return<float>(::strtof_l(s, e, c_locale()));
}
long double kern_strtold(const char *s, char **e) { return ::strtold_l(s, e, c_locale()); }
long kern_strtol(const char *s, char **e, int b) { return ::strtol_l(s, e, b, c_locale()); }
long long kern_strtoll(const char *s, char **e, int b) { return ::strtoll_l(s, e, b, c_locale()); }
unsigned long kern_strtoul(const char *s, char **e, int b) {
  return ::strtoul_l(s, e, b, c_locale());
}
unsigned long long kern_strtoull(const char *s, char **e, int b) {
  return ::strtoull_l(s, e, b, c_locale());
}
intmax_t kern_strtoimax(const char *s, char **e, int b) { return kern_strtoll(s, e, b); }
uintmax_t kern_strtoumax(const char *s, char **e, int b) { return kern_strtoull(s, e, b); }
// The ato* functions are the strto* ones without the end pointer (C17
// 7.22.1.2), errno included.
double kern_atof(const char *s) { return kern_strtod(s, nullptr); }
int kern_atoi(const char *s) { return (int)kern_strtol(s, nullptr, 10); }
long kern_atol(const char *s) { return kern_strtol(s, nullptr, 10); }
long long kern_atoll(const char *s) { return kern_strtoll(s, nullptr, 10); }

// ---- integer arithmetic ----------------------------------------------------

int kern_abs(int v) { return std::abs(v); }
long kern_labs(long v) { return std::labs(v); }
long long kern_llabs(long long v) { return std::llabs(v); }
intmax_t kern_imaxabs(intmax_t v) { return ::imaxabs(v); }
// Structures returned by value: on i386 through a hidden pointer the
// callee pops, on x86_64 in rax:rdx; modules declare the same layouts.
div_t kern_div(int n, int d) { return std::div(n, d); }
ldiv_t kern_ldiv(long n, long d) { return std::ldiv(n, d); }
lldiv_t kern_lldiv(long long n, long long d) { return std::lldiv(n, d); }
imaxdiv_t kern_imaxdiv(intmax_t n, intmax_t d) { return ::imaxdiv(n, d); }

// ---- sorting, searching, random numbers ------------------------------------

void kern_qsort(void *b, size_t n, size_t sz, int (*c)(const void *, const void *)) {
  std::qsort(b, n, sz, c);
}
void *kern_bsearch(const void *k, const void *b, size_t n, size_t sz,
                   int (*c)(const void *, const void *)) {
  return std::bsearch(k, b, n, sz, c);
}
int kern_rand(void) { return std::rand(); }
int kern_rand_r(unsigned *seed) { return ::rand_r(seed); }
void kern_srand(unsigned seed) { std::srand(seed); }

// ---- errors ----------------------------------------------------------------

// The calling thread's errno: the one the C library functions behind these
// exports set.
int *kern_errno_location(void) { return &errno; }

__attribute__((noreturn)) void kern_abort(void) {
  kern_panic("abort() called by %p", __builtin_return_address(0));
}

__attribute__((noreturn)) void kern_assert_fail(const char *expr, const char *file,
                                                unsigned line, const char *func) {
  kern_panic("assertion \"%s\" failed: %s:%u, function %s", expr, file, line, func);
}

} // extern "C"

EXPORT_SYMBOL_AS("strtod", kern_strtod);
EXPORT_SYMBOL_AS("strtof", kern_strtof);
EXPORT_SYMBOL_AS("strtold", kern_strtold);
EXPORT_SYMBOL_AS("strtol", kern_strtol);
EXPORT_SYMBOL_AS("strtoll", kern_strtoll);
EXPORT_SYMBOL_AS("strtoul", kern_strtoul);
EXPORT_SYMBOL_AS("strtoull", kern_strtoull);
EXPORT_SYMBOL_AS("strtoimax", kern_strtoimax);
EXPORT_SYMBOL_AS("strtoumax", kern_strtoumax);
EXPORT_SYMBOL_AS("atof", kern_atof);
EXPORT_SYMBOL_AS("atoi", kern_atoi);
EXPORT_SYMBOL_AS("atol", kern_atol);
EXPORT_SYMBOL_AS("atoll", kern_atoll);
EXPORT_SYMBOL_AS("abs", kern_abs);
EXPORT_SYMBOL_AS("labs", kern_labs);
EXPORT_SYMBOL_AS("llabs", kern_llabs);
EXPORT_SYMBOL_AS("imaxabs", kern_imaxabs);
EXPORT_SYMBOL_AS("div", kern_div);
EXPORT_SYMBOL_AS("ldiv", kern_ldiv);
EXPORT_SYMBOL_AS("lldiv", kern_lldiv);
EXPORT_SYMBOL_AS("imaxdiv", kern_imaxdiv);
EXPORT_SYMBOL_AS("qsort", kern_qsort);
EXPORT_SYMBOL_AS("bsearch", kern_bsearch);
EXPORT_SYMBOL_AS("rand", kern_rand);
EXPORT_SYMBOL_AS("rand_r", kern_rand_r);
EXPORT_SYMBOL_AS("srand", kern_srand);
EXPORT_SYMBOL_AS("__errno_location", kern_errno_location);
EXPORT_SYMBOL_AS("abort", kern_abort);
EXPORT_SYMBOL_AS("__assert_fail", kern_assert_fail);
