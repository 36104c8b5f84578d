/*
 * libm_eval: float and double functions of <math.h> evaluated on arguments
 * read at run time, each result printed exactly.  tests/modenv/run builds
 * this file twice and wants the same lines from both:
 *
 * - as a module (gcc, the module flags): its `libm_eval` command calls the
 *   kernel's exports and prints what it got back, widened to long double
 *   as it arrived.  On i386 a float or double result comes back in the
 *   x87's st(0), and gcc's default ("fast") excess precision passes on
 *   whatever the callee left there: more bits than the type, or a value
 *   beyond its range, would show.
 * - as a host program (the same arch, libm): each result stored to a
 *   volatile of its type first, so it is the host's value rounded to the
 *   type, as C17 Annex F asks of the function.
 *
 *   libm_eval NAME ARG [ARG ...] [NAME ARG ...]
 *   sqrtf(0x1.8p+1) = 0xd.db3d7p-3
 *   libm_eval all X Y Z     (every function, on as many of X Y Z as it takes)
 *
 * Arguments are strtod's (hexadecimal floats included); a float
 * function's are rounded to float.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !__STDC_HOSTED__
#include <sys/kernel.h>
#endif

#if __STDC_HOSTED__
/* The host's value, rounded to the type by a store. */
#define RESULT(T, call) ({ volatile T r_ = (call); (long double)r_; })
#else
/* What the kernel returned, as it arrived. */
#define RESULT(T, call) ((long double)(call))
#endif

enum shape { D1, D2, D3, F1, F2, F3 };

struct fn {
	const char *name;
	enum shape shape;
	void (*f)(void);	/* cast to the shape's type to call */
};

#define FN(n, s) { #n, s, (void (*)(void))n }

static const struct fn fns[] = {
	FN(sqrt, D1), FN(sin, D1), FN(cos, D1), FN(tan, D1), FN(exp, D1),
	FN(exp2, D1), FN(expm1, D1), FN(log, D1), FN(log2, D1), FN(log10, D1),
	FN(log1p, D1), FN(cbrt, D1), FN(asin, D1), FN(acos, D1), FN(atan, D1),
	FN(sinh, D1), FN(cosh, D1), FN(tanh, D1), FN(asinh, D1), FN(acosh, D1),
	FN(atanh, D1), FN(erf, D1), FN(erfc, D1), FN(lgamma, D1),
	FN(tgamma, D1), FN(rint, D1),
	FN(pow, D2), FN(atan2, D2), FN(hypot, D2), FN(fmod, D2),
	FN(remainder, D2), FN(fdim, D2), FN(fma, D3),
	FN(sqrtf, F1), FN(sinf, F1), FN(cosf, F1), FN(tanf, F1), FN(expf, F1),
	FN(exp2f, F1), FN(expm1f, F1), FN(logf, F1), FN(log2f, F1),
	FN(log10f, F1), FN(log1pf, F1), FN(cbrtf, F1), FN(asinf, F1),
	FN(acosf, F1), FN(atanf, F1), FN(sinhf, F1), FN(coshf, F1),
	FN(tanhf, F1), FN(asinhf, F1), FN(acoshf, F1), FN(atanhf, F1),
	FN(erff, F1), FN(erfcf, F1), FN(lgammaf, F1), FN(tgammaf, F1),
	FN(rintf, F1),
	FN(powf, F2), FN(atan2f, F2), FN(hypotf, F2), FN(fmodf, F2),
	FN(remainderf, F2), FN(fdimf, F2), FN(fmaf, F3),
};

static int
arity(enum shape s)
{
	return s == D1 || s == F1 ? 1 : s == D2 || s == F2 ? 2 : 3;
}

/* Evaluate the calls in argv, one line each; 0, or 1 for a bad call. */
static int
eval(int argc, char **argv)
{
	for (int i = 0; i < argc;) {
		const struct fn *fn = NULL;
		double a[3];
		float f[3];
		long double r;
		int n;

		/* all X Y Z: every function on X (, Y (, Z)) */
		if (strcmp(argv[i], "all") == 0 && i + 3 < argc) {
			for (unsigned k = 0; k < sizeof(fns) / sizeof(fns[0]); k++) {
				char *call[4] = { (char *)fns[k].name,
				    argv[i + 1], argv[i + 2], argv[i + 3] };

				if (eval(1 + arity(fns[k].shape), call))
					return 1;
			}
			i += 4;
			continue;
		}
		for (unsigned k = 0; k < sizeof(fns) / sizeof(fns[0]); k++)
			if (strcmp(fns[k].name, argv[i]) == 0)
				fn = &fns[k];
		if (!fn || i + arity(fn->shape) >= argc) {
			printf("libm_eval: %s: unknown function or too few "
			    "arguments\n", argv[i]);
			return 1;
		}
		n = arity(fn->shape);
		for (int k = 0; k < n; k++) {
			a[k] = strtod(argv[i + 1 + k], NULL);
			f[k] = (float)a[k];
		}
		switch (fn->shape) {
		case D1: r = RESULT(double, ((double (*)(double))fn->f)(a[0])); break;
		case D2: r = RESULT(double, ((double (*)(double, double))fn->f)(a[0], a[1])); break;
		case D3: r = RESULT(double, ((double (*)(double, double, double))fn->f)(a[0], a[1], a[2])); break;
		case F1: r = RESULT(float, ((float (*)(float))fn->f)(f[0])); break;
		case F2: r = RESULT(float, ((float (*)(float, float))fn->f)(f[0], f[1])); break;
		default: r = RESULT(float, ((float (*)(float, float, float))fn->f)(f[0], f[1], f[2])); break;
		}
		printf("%s(", fn->name);
		for (int k = 0; k < n; k++)
			printf(k ? ", %a" : "%a",
			    fn->shape >= F1 ? (double)f[k] : a[k]);
		printf(") = %La\n", r);
		i += 1 + n;
	}
	return 0;
}

#if __STDC_HOSTED__
int
main(int argc, char **argv)
{
	return eval(argc - 1, argv + 1);
}
#else
static int
libm_eval_cmd(int argc, char **argv)
{
	return eval(argc - 1, argv + 1);
}

SHELL_COMMAND(libm_eval, libm_eval_cmd, "libm_eval NAME ARG... [NAME ARG...]",
    "print float and double <math.h> results exactly");
#endif
