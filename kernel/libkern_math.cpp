// <math.h> for modules (kernel/include/math.h): every C17 7.12 function in
// its double, float and long double form, computed by the host's libm,
// plus the GNU sincos and exp10 that gcc substitutes for sin+cos of one
// argument and for pow(10, x) when a module is built with builtins.
//
// On i386 the kernel and its modules share the psABI's conventions for
// floating point: arguments on the stack, results in st(0), long double
// the 80-bit x87 format in 12 bytes; on x86_64 float and double travel in
// xmm registers and long double on the stack.  The wrappers are plain C
// functions of the same types, so both sides agree; each float or double
// result passes through mk::fp_return, which on i386 rounds what the x87
// holds to the type (libkern_c.h).  errno is the calling thread's, set by
// libm (<errno.h>).
#include "libkern_c.h"

#include <cmath>

using mk::fp_return;

// Each family as (C name, kernel name) for the double, float and long
// double forms, grouped by signature (T is the family's floating type).
#define MK_FAMILY(X, n) X(n, T_D) X(n##f, T_F) X(n##l, T_L)

// T f(T)
#define MK_MATH_1(X)                                                           \
  X(acos) X(asin) X(atan) X(cos) X(sin) X(tan) X(acosh) X(asinh) X(atanh)     \
  X(cosh) X(sinh) X(tanh) X(exp) X(exp2) X(expm1) X(log) X(log10) X(log1p)    \
  X(log2) X(logb) X(cbrt) X(fabs) X(sqrt) X(erf) X(erfc) X(lgamma) X(tgamma)  \
  X(ceil) X(floor) X(nearbyint) X(rint) X(round) X(trunc) X(exp10)
// T f(T, T)
#define MK_MATH_2(X)                                                           \
  X(atan2) X(hypot) X(pow) X(fmod) X(remainder) X(copysign) X(nextafter)      \
  X(fdim) X(fmax) X(fmin)

namespace {
using T_D = double;
using T_F = float;
using T_L = long double;
} // namespace

extern "C" {

#define MK_DEF_1(name, T) T kern_##name(T x) { return fp_return<T>(::name(x)); }
#define MK_DEF_2(name, T) T kern_##name(T x, T y) { return fp_return<T>(::name(x, y)); }
#define MK_FAM_1(n) MK_FAMILY(MK_DEF_1, n)
#define MK_FAM_2(n) MK_FAMILY(MK_DEF_2, n)
MK_MATH_1(MK_FAM_1)
MK_MATH_2(MK_FAM_2)

// The families of other shapes, one form per line.
double kern_fma(double x, double y, double z) { return fp_return<double>(::fma(x, y, z)); }
float kern_fmaf(float x, float y, float z) { return fp_return<float>(::fmaf(x, y, z)); }
long double kern_fmal(long double x, long double y, long double z) { return ::fmal(x, y, z); }
double kern_frexp(double x, int *e) { return fp_return<double>(::frexp(x, e)); }
float kern_frexpf(float x, int *e) { return fp_return<float>(::frexpf(x, e)); }
long double kern_frexpl(long double x, int *e) { return ::frexpl(x, e); }
int kern_ilogb(double x) { return ::ilogb(x); }
int kern_ilogbf(float x) { return ::ilogbf(x); }
int kern_ilogbl(long double x) { return ::ilogbl(x); }
double kern_ldexp(double x, int e) { return fp_return<double>(::ldexp(x, e)); }
float kern_ldexpf(float x, int e) { return fp_return<float>(::ldexpf(x, e)); }
long double kern_ldexpl(long double x, int e) { return ::ldexpl(x, e); }
double kern_scalbn(double x, int n) { return fp_return<double>(::scalbn(x, n)); }
float kern_scalbnf(float x, int n) { return fp_return<float>(::scalbnf(x, n)); }
long double kern_scalbnl(long double x, int n) { return ::scalbnl(x, n); }
double kern_scalbln(double x, long n) { return fp_return<double>(::scalbln(x, n)); }
float kern_scalblnf(float x, long n) { return fp_return<float>(::scalblnf(x, n)); }
long double kern_scalblnl(long double x, long n) { return ::scalblnl(x, n); }
double kern_modf(double x, double *i) { return fp_return<double>(::modf(x, i)); }
float kern_modff(float x, float *i) { return fp_return<float>(::modff(x, i)); }
long double kern_modfl(long double x, long double *i) { return ::modfl(x, i); }
long kern_lrint(double x) { return ::lrint(x); }
long kern_lrintf(float x) { return ::lrintf(x); }
long kern_lrintl(long double x) { return ::lrintl(x); }
long long kern_llrint(double x) { return ::llrint(x); }
long long kern_llrintf(float x) { return ::llrintf(x); }
long long kern_llrintl(long double x) { return ::llrintl(x); }
long kern_lround(double x) { return ::lround(x); }
long kern_lroundf(float x) { return ::lroundf(x); }
long kern_lroundl(long double x) { return ::lroundl(x); }
long long kern_llround(double x) { return ::llround(x); }
long long kern_llroundf(float x) { return ::llroundf(x); }
long long kern_llroundl(long double x) { return ::llroundl(x); }
double kern_remquo(double x, double y, int *q) { return fp_return<double>(::remquo(x, y, q)); }
float kern_remquof(float x, float y, int *q) { return fp_return<float>(::remquof(x, y, q)); }
long double kern_remquol(long double x, long double y, int *q) { return ::remquol(x, y, q); }
double kern_nan(const char *t) { return fp_return<double>(::nan(t)); }
float kern_nanf(const char *t) { return fp_return<float>(::nanf(t)); }
long double kern_nanl(const char *t) { return ::nanl(t); }
double kern_nexttoward(double x, long double y) { return fp_return<double>(::nexttoward(x, y)); }
float kern_nexttowardf(float x, long double y) { return fp_return<float>(::nexttowardf(x, y)); }
long double kern_nexttowardl(long double x, long double y) { return ::nexttowardl(x, y); }
void kern_sincos(double x, double *s, double *c) { ::sincos(x, s, c); }
void kern_sincosf(float x, float *s, float *c) { ::sincosf(x, s, c); }
void kern_sincosl(long double x, long double *s, long double *c) { ::sincosl(x, s, c); }

} // extern "C"

#define MK_EXPORT_ONE(name, T) LIBKERN_EXPORT(#name, kern_##name)
#define MK_EXPORT_FAM(n) MK_FAMILY(MK_EXPORT_ONE, n)
MK_MATH_1(MK_EXPORT_FAM)
MK_MATH_2(MK_EXPORT_FAM)
MK_EXPORT_FAM(fma)
MK_EXPORT_FAM(frexp)
MK_EXPORT_FAM(ilogb)
MK_EXPORT_FAM(ldexp)
MK_EXPORT_FAM(scalbn)
MK_EXPORT_FAM(scalbln)
MK_EXPORT_FAM(modf)
MK_EXPORT_FAM(lrint)
MK_EXPORT_FAM(llrint)
MK_EXPORT_FAM(lround)
MK_EXPORT_FAM(llround)
MK_EXPORT_FAM(remquo)
MK_EXPORT_FAM(nan)
MK_EXPORT_FAM(nexttoward)
MK_EXPORT_FAM(sincos)
