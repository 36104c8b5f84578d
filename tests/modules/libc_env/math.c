/*
 * <math.h>: every function in its double, float and long double form
 * against a known value (computed beforehand to double precision), the
 * special results and errno, and the classification macros.  The tables
 * call through pointers, the rest directly.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "libc_env.h"

/* Not in <math.h>: GNU names gcc calls for sin+cos and pow(10, x). */
double exp10(double x);
float exp10f(float x);
long double exp10l(long double x);
void sincos(double x, double *s, double *c);
void sincosf(float x, float *s, float *c);
void sincosl(long double x, long double *s, long double *c);

/* Relative tolerances: a few units in the last place of each type (the
 * expected values are doubles, so long double cannot do better). */
#define TOL_D 1e-14
#define TOL_F 2e-6
#define TOL_L 1e-15

struct le_math1 {
	const char *name;
	double (*d)(double);
	float (*f)(float);
	long double (*l)(long double);
	double x, want;
};
#define LE_M1(n, x, w) { #n, n, n##f, n##l, x, w }

struct le_math2 {
	const char *name;
	double (*d)(double, double);
	float (*f)(float, float);
	long double (*l)(long double, long double);
	double x, y, want;
};
#define LE_M2(n, x, y, w) { #n, n, n##f, n##l, x, y, w }

static const struct le_math1 le_math1[] = {
	LE_M1(acos, 0.5, 1.0471975511965979),
	LE_M1(asin, 0.5, 0.5235987755982989),
	LE_M1(atan, 1.0, 0.7853981633974483),
	LE_M1(cos, 1.0, 0.5403023058681398),
	LE_M1(sin, 1.0, 0.8414709848078965),
	LE_M1(tan, 1.0, 1.5574077246549023),
	LE_M1(acosh, 2.0, 1.3169578969248166),
	LE_M1(asinh, 1.0, 0.881373587019543),
	LE_M1(atanh, 0.5, 0.5493061443340548),
	LE_M1(cosh, 1.0, 1.5430806348152437),
	LE_M1(sinh, 1.0, 1.1752011936438014),
	LE_M1(tanh, 1.0, 0.7615941559557649),
	LE_M1(exp, 1.0, 2.718281828459045),
	LE_M1(exp2, 10.0, 1024.0),
	LE_M1(expm1, 0.5, 0.6487212707001282),
	LE_M1(log, 10.0, 2.302585092994046),
	LE_M1(log10, 1000.0, 3.0),
	LE_M1(log1p, 0.5, 0.4054651081081644),
	LE_M1(log2, 1024.0, 10.0),
	LE_M1(logb, 1000.0, 9.0),
	LE_M1(cbrt, 27.0, 3.0),
	LE_M1(fabs, -2.5, 2.5),
	LE_M1(sqrt, 2.0, 1.4142135623730951),
	LE_M1(erf, 1.0, 0.8427007929497149),
	LE_M1(erfc, 1.0, 0.15729920705028513),
	LE_M1(lgamma, 10.0, 12.801827480081467),
	LE_M1(tgamma, 5.0, 24.0),
	LE_M1(ceil, -1.5, -1.0),
	LE_M1(floor, -1.5, -2.0),
	LE_M1(nearbyint, 2.5, 2.0),
	LE_M1(rint, 3.5, 4.0),
	LE_M1(round, 2.5, 3.0),
	LE_M1(trunc, -2.7, -2.0),
	LE_M1(exp10, 3.0, 1000.0),
};

static const struct le_math2 le_math2[] = {
	LE_M2(atan2, 1.0, -1.0, 2.356194490192345),
	LE_M2(hypot, 3.0, 4.0, 5.0),
	LE_M2(pow, 2.0, 0.5, 1.4142135623730951),
	LE_M2(fmod, 7.5, 2.0, 1.5),
	LE_M2(remainder, 7.5, 2.0, -0.5),
	LE_M2(copysign, 3.0, -0.0, -3.0),
	LE_M2(fdim, 5.0, 3.0, 2.0),
	LE_M2(fmax, 1.0, 2.0, 2.0),
	LE_M2(fmin, 1.0, 2.0, 1.0),
};

static void
le_math_tables(void)
{
	char what[48];

	for (unsigned i = 0; i < sizeof(le_math1) / sizeof(le_math1[0]); i++) {
		const struct le_math1 *m = &le_math1[i];

		snprintf(what, sizeof(what), "%s(%g)", m->name, m->x);
		le_near(what, m->d(m->x), m->want, TOL_D);
		snprintf(what, sizeof(what), "%sf(%g)", m->name, m->x);
		le_near(what, m->f((float)m->x), m->want, TOL_F);
		snprintf(what, sizeof(what), "%sl(%g)", m->name, m->x);
		le_near(what, m->l(m->x), m->want, TOL_L);
	}
	for (unsigned i = 0; i < sizeof(le_math2) / sizeof(le_math2[0]); i++) {
		const struct le_math2 *m = &le_math2[i];

		snprintf(what, sizeof(what), "%s(%g, %g)", m->name, m->x, m->y);
		le_near(what, m->d(m->x, m->y), m->want, TOL_D);
		snprintf(what, sizeof(what), "%sf(%g, %g)", m->name, m->x, m->y);
		le_near(what, m->f((float)m->x, (float)m->y), m->want, TOL_F);
		snprintf(what, sizeof(what), "%sl(%g, %g)", m->name, m->x, m->y);
		le_near(what, m->l(m->x, m->y), m->want, TOL_L);
	}
}

/* The families of other shapes, called directly. */
static void
le_math_shapes(void)
{
	volatile double one = 1.0;
	volatile float fone = 1.0f;
	volatile long double lone = 1.0L;
	double di, ds, dc;
	float fi, fs, fc;
	long double li, ls, lc;
	int e, q;

	le_near("fma", fma(LE_HIDE(2.0), 3.0, 4.0), 10, 0);
	le_near("fmaf", fmaf(LE_HIDE(2.0f), 3.0f, 4.0f), 10, 0);
	le_near("fmal", fmal(LE_HIDE(2.0L), 3.0L, 4.0L), 10, 0);
	/* fma rounds once: (1 + 2^-30)^2 - 1 keeps the 2^-60 term */
	le_near("fma single rounding", fma(LE_HIDE(1 + 0x1p-30), 1 + 0x1p-30,
	    -1.0), 0x1p-29 + 0x1p-60, 0);

	le_near("frexp", frexp(LE_HIDE(8.0), &e), 0.5, 0);
	le_int("frexp exponent", e, 4);
	le_near("frexpf", frexpf(LE_HIDE(8.0f), &e), 0.5, 0);
	le_int("frexpf exponent", e, 4);
	le_near("frexpl", frexpl(LE_HIDE(8.0L), &e), 0.5, 0);
	le_int("frexpl exponent", e, 4);

	le_int("ilogb", ilogb(LE_HIDE(1000.0)), 9);
	le_int("ilogbf", ilogbf(LE_HIDE(1000.0f)), 9);
	le_int("ilogbl", ilogbl(LE_HIDE(1000.0L)), 9);
	le_int("ilogb(0)", ilogb(LE_HIDE(0.0)), FP_ILOGB0);
	le_int("ilogb(NaN)", ilogb(LE_HIDE((double)NAN)), FP_ILOGBNAN);

	le_near("ldexp", ldexp(LE_HIDE(0.75), 4), 12, 0);
	le_near("ldexpf", ldexpf(LE_HIDE(0.75f), 4), 12, 0);
	le_near("ldexpl", ldexpl(LE_HIDE(0.75L), 4), 12, 0);
	le_near("scalbn", scalbn(LE_HIDE(1.0), 10), 1024, 0);
	le_near("scalbnf", scalbnf(LE_HIDE(1.0f), 10), 1024, 0);
	le_near("scalbnl", scalbnl(LE_HIDE(1.0L), 10), 1024, 0);
	le_near("scalbln", scalbln(LE_HIDE(1.0), 10L), 1024, 0);
	le_near("scalblnf", scalblnf(LE_HIDE(1.0f), 10L), 1024, 0);
	le_near("scalblnl", scalblnl(LE_HIDE(1.0L), 10L), 1024, 0);

	le_near("modf", modf(LE_HIDE(3.25), &di), 0.25, 0);
	le_near("modf integral part", di, 3, 0);
	le_near("modff", modff(LE_HIDE(3.25f), &fi), 0.25, 0);
	le_near("modff integral part", fi, 3, 0);
	le_near("modfl", modfl(LE_HIDE(3.25L), &li), 0.25, 0);
	le_near("modfl integral part", li, 3, 0);

	/* to integers: rint rounds to even, round away from zero */
	le_int("lrint", lrint(LE_HIDE(2.5)), 2);
	le_int("lrintf", lrintf(LE_HIDE(2.5f)), 2);
	le_int("lrintl", lrintl(LE_HIDE(2.5L)), 2);
	le_int("llrint", llrint(LE_HIDE(-2.5)), -2);
	le_int("llrintf", llrintf(LE_HIDE(-2.5f)), -2);
	le_int("llrintl", llrintl(LE_HIDE(-2.5L)), -2);
	le_int("lround", lround(LE_HIDE(2.5)), 3);
	le_int("lroundf", lroundf(LE_HIDE(2.5f)), 3);
	le_int("lroundl", lroundl(LE_HIDE(2.5L)), 3);
	le_int("llround", llround(LE_HIDE(-2.5)), -3);
	le_int("llroundf", llroundf(LE_HIDE(-2.5f)), -3);
	le_int("llroundl", llroundl(LE_HIDE(-2.5L)), -3);
	le_int("llround(2^40)", llround(LE_HIDE(0x1p40)), 1LL << 40);

	/* 10 = 3 * 3 + 1 */
	le_near("remquo", remquo(LE_HIDE(10.0), 3.0, &q), 1, 0);
	le_int("remquo quotient", q & 7, 3);
	le_near("remquof", remquof(LE_HIDE(10.0f), 3.0f, &q), 1, 0);
	le_int("remquof quotient", q & 7, 3);
	le_near("remquol", remquol(LE_HIDE(10.0L), 3.0L, &q), 1, 0);
	le_int("remquol quotient", q & 7, 3);

	LE_CHECK(isnan(nan(LE_HIDE(""))));
	LE_CHECK(isnan(nanf(LE_HIDE(""))));
	LE_CHECK(isnan(nanl(LE_HIDE(""))));

	/* the next representable value above 1 is 1 + epsilon */
	LE_CHECK(nextafter(one, 2.0) == 1.0 + DBL_EPSILON);
	LE_CHECK(nextafterf(fone, 2.0f) == 1.0f + FLT_EPSILON);
	LE_CHECK(nextafterl(lone, 2.0L) == 1.0L + LDBL_EPSILON);
	LE_CHECK(nexttoward(one, 2.0L) == 1.0 + DBL_EPSILON);
	LE_CHECK(nexttowardf(fone, 2.0L) == 1.0f + FLT_EPSILON);
	LE_CHECK(nexttowardl(lone, 2.0L) == 1.0L + LDBL_EPSILON);

	sincos(LE_HIDE(1.0), &ds, &dc);
	le_near("sincos sin", ds, 0.8414709848078965, TOL_D);
	le_near("sincos cos", dc, 0.5403023058681398, TOL_D);
	sincosf(LE_HIDE(1.0f), &fs, &fc);
	le_near("sincosf sin", fs, 0.8414709848078965, TOL_F);
	le_near("sincosf cos", fc, 0.5403023058681398, TOL_F);
	sincosl(LE_HIDE(1.0L), &ls, &lc);
	le_near("sincosl sin", ls, 0.8414709848078965, TOL_L);
	le_near("sincosl cos", lc, 0.5403023058681398, TOL_L);
}

/* Errors through errno (math_errhandling has MATH_ERRNO). */
static void
le_math_errors(void)
{
	LE_CHECK(math_errhandling & MATH_ERRNO);
	errno = 0;
	LE_CHECK(isnan(sqrt(LE_HIDE(-1.0))) && errno == EDOM);
	errno = 0;
	LE_CHECK(log(LE_HIDE(0.0)) == -HUGE_VAL && errno == ERANGE);
	errno = 0;
	LE_CHECK(exp(LE_HIDE(1000.0)) == HUGE_VAL && errno == ERANGE);
	errno = 0;
	LE_CHECK(isnan(acosf(LE_HIDE(2.0f))) && errno == EDOM);
	errno = 0;
	le_near("sqrt(4) leaves errno", sqrt(LE_HIDE(4.0)), 2, 0);
	le_int("errno after sqrt(4)", errno, 0);
}

/* The macros, on each type. */
static void
le_math_macros(void)
{
	double zero = LE_HIDE(0.0), tiny = LE_HIDE(DBL_MIN / 4);
	float fnan = LE_HIDE(NAN);
	long double linf = LE_HIDE((long double)INFINITY);

	le_int("fpclassify zero", fpclassify(zero), FP_ZERO);
	le_int("fpclassify normal", fpclassify(LE_HIDE(1.0f)), FP_NORMAL);
	le_int("fpclassify subnormal", fpclassify(tiny), FP_SUBNORMAL);
	le_int("fpclassify infinite", fpclassify(linf), FP_INFINITE);
	le_int("fpclassify nan", fpclassify(fnan), FP_NAN);
	LE_CHECK(isfinite(zero) && !isfinite(linf) && !isfinite(fnan));
	LE_CHECK(isinf(linf) && !isinf(zero) && isinf(-HUGE_VALF));
	LE_CHECK(isnan(fnan) && !isnan(linf));
	LE_CHECK(isnormal(LE_HIDE(1.0)) && !isnormal(tiny) && !isnormal(zero));
	LE_CHECK(signbit(LE_HIDE(-0.0)) && !signbit(zero));
	LE_CHECK(signbit(LE_HIDE(-1.0f)) && signbit(LE_HIDE(-2.0L)) &&
	    !signbit(linf));
	LE_CHECK(isgreater(2.0, zero) && isgreaterequal(zero, zero) &&
	    isless(zero, 1.0) && islessequal(zero, zero) &&
	    islessgreater(zero, 1.0) && !islessgreater(zero, zero));
	LE_CHECK(isunordered(fnan, zero) && !isunordered(zero, 1.0) &&
	    !isgreater(fnan, zero));
	LE_CHECK(HUGE_VAL == INFINITY && HUGE_VALF == INFINITY &&
	    HUGE_VALL == INFINITY);
	le_int("sizeof(float_t)", sizeof(float_t),
	    FLT_EVAL_METHOD == 2 ? sizeof(long double) : sizeof(float));
	le_int("sizeof(double_t)", sizeof(double_t),
	    FLT_EVAL_METHOD == 2 ? sizeof(long double) : sizeof(double));
	le_near("M_PI", M_PI, 4 * atan(LE_HIDE(1.0)), TOL_D);
	le_near("M_E", M_E, exp(LE_HIDE(1.0)), TOL_D);
	le_near("M_SQRT2", M_SQRT2 * M_SQRT1_2, 1, TOL_D);
	le_near("M_LN2", M_LN2 * M_LOG2E, 1, TOL_D);
}

void
le_math(void)
{
	le_math_tables();
	le_math_shapes();
	le_math_errors();
	le_math_macros();
}
