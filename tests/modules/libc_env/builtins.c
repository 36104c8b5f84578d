/*
 * Calls the compilers make on their own.  Even -ffreestanding, gcc and
 * clang copy and clear with memcpy/memset/memmove, call libgcc for what the
 * CPU cannot do in one instruction, and expand __builtin_* functions into
 * C library calls: __builtin_sqrt is sqrtsd with a call to sqrt for the
 * errno case, __builtin_sprintf(buf, "%s", s) a strcpy, sin and cos of one
 * argument a sincos, (float)sqrt((double)f) a sqrtf, (long)round(x) an
 * lround, printf("...\n") a puts.  Built -fbuiltin (tests/modenv/run), gcc
 * does the same to every plain call of the module.  Whatever they chose,
 * the module loaded (every such symbol is exported) and these answers are
 * right.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libc_env.h"

struct le_big {
	char bytes[300];
	long words[20];
};

static struct le_big le_src;

/* A copying loop, which -O2 turns into memcpy, a clearing one memset. */
static void __attribute__((noinline))
le_copy_loop(char *dst, const char *src, int n)
{
	for (int i = 0; i < n; i++)
		dst[i] = src[i];
}

static void __attribute__((noinline))
le_clear_loop(long *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = 0;
}

void
le_builtins(void)
{
	struct le_big copy, zero = { { 0 }, { 0 } };
	char buf[64], buf2[64];
	const char *s = LE_HIDE("builtin");
	double x = LE_HIDE(2.0), sn, cs;
	float f = LE_HIDE(2.0f);

	/* struct copies and initialisation */
	memset(&le_src, 0x5a, sizeof(le_src));
	copy = *LE_HIDE(&le_src);
	LE_CHECK(copy.bytes[299] == 0x5a && copy.words[19] != 0);
	copy = zero;
	LE_CHECK(copy.bytes[150] == 0 && copy.words[10] == 0);
	le_copy_loop(buf, "0123456789abcdef", 17);
	le_str("copy loop", buf, "0123456789abcdef");
	le_clear_loop(copy.words, 20);
	LE_CHECK(copy.words[19] == 0);

	/* the __builtin_ memory and string functions with run-time sizes */
	__builtin_memcpy(buf, s, LE_HIDE(8));
	le_str("__builtin_memcpy", buf, "builtin");
	__builtin_memmove(buf + 1, buf, LE_HIDE(8));
	le_str("__builtin_memmove", buf + 1, "builtin");
	__builtin_memset(buf, 'z', LE_HIDE(3));
	LE_CHECK(buf[2] == 'z' && buf[3] == 'i');
	le_int("__builtin_memcmp", __builtin_memcmp(s, "builtin", LE_HIDE(7)), 0);
	le_int("__builtin_strlen", __builtin_strlen(s), 7);
	le_str("__builtin_strcpy", __builtin_strcpy(buf, s), "builtin");
	le_int("__builtin_stpcpy", __builtin_stpcpy(buf, s) - buf, 7);
	le_str("__builtin_strcat", __builtin_strcat(buf, "!"), "builtin!");
	le_int("__builtin_strcmp", __builtin_strcmp(buf, s) > 0, 1);
	le_int("__builtin_strchr", __builtin_strchr(s, 'i') - s, 2);
	__builtin_sprintf(buf2, "%s", s);
	le_str("__builtin_sprintf %s", buf2, "builtin");
	le_int("__builtin_snprintf", __builtin_snprintf(buf2, 4, "%s", s), 7);
	le_str("__builtin_snprintf truncates", buf2, "bui");

	/* math: open-coded where the CPU can, the library otherwise */
	le_near("__builtin_sqrt", __builtin_sqrt(x), 1.4142135623730951, 1e-15);
	LE_CHECK(__builtin_isnan(__builtin_sqrt(LE_HIDE(-1.0))));
	le_near("(float)__builtin_sqrt((double)f)", (float)__builtin_sqrt((double)f),
	    1.4142135623730951, 1e-6);
	le_near("__builtin_sqrtf", __builtin_sqrtf(f), 1.4142135623730951, 1e-6);
	sn = __builtin_sin(x);
	cs = __builtin_cos(x);
	le_near("__builtin_sin", sn, 0.9092974268256817, 1e-14);
	le_near("__builtin_cos", cs, -0.4161468365471424, 1e-14);
	le_int("(long)__builtin_round", (long)__builtin_round(LE_HIDE(2.5)), 3);
	le_int("(long)__builtin_rint", (long)__builtin_rint(LE_HIDE(2.5)), 2);
	le_int("(long)__builtin_floor", (long)__builtin_floor(LE_HIDE(-2.5)), -3);
	le_int("(long long)__builtin_ceil", (long long)__builtin_ceil(LE_HIDE(2.1)), 3);
	le_near("__builtin_pow", __builtin_pow(x, LE_HIDE(10.0)), 1024, 0);
	le_near("__builtin_pow(x, 0.5)", __builtin_pow(x, 0.5), 1.4142135623730951, 1e-15);
	le_near("__builtin_exp2", __builtin_exp2((double)LE_HIDE(5)), 32, 0);
	le_near("__builtin_fabs", __builtin_fabs(-x), 2, 0);
	le_near("__builtin_fmax", __builtin_fmax(x, LE_HIDE(3.0)), 3, 0);
	le_near("__builtin_powi", __builtin_powi(x, LE_HIDE(-3)), 0.125, 0);
	le_near("__builtin_powif", __builtin_powif(f, LE_HIDE(4)), 16, 0);
	le_near("__builtin_fmod", __builtin_fmod(LE_HIDE(7.5), x), 1.5, 0);

	/* integer operations libgcc may do */
	{
		long long a = LE_HIDE(-123456789012345LL), b = LE_HIDE(97LL);
		unsigned long long ua = LE_HIDE(18446744073709551557ULL);
		double d = LE_HIDE(1e19);
		long double ld = LE_HIDE(1.5e19L);

		le_int("64-bit /", a / b, -1272750402189LL);
		le_int("64-bit %", a % b, -12LL);
		LE_CHECK(ua / 1000 == 18446744073709551ULL && ua % 1000 == 557);
		le_int("64-bit / and % together", a / b * 100 + a % b,
		    -127275040218900LL - 12);
		LE_CHECK((unsigned long long)d == 10000000000000000000ULL);
		LE_CHECK((unsigned long long)ld == 15000000000000000000ULL);
		le_near("(double)unsigned long long", (double)ua, 1.8446744073709552e19, 1e-15);
		le_int("__builtin_popcountll", __builtin_popcountll(ua), 60);
		le_int("__builtin_parityll", __builtin_parityll(ua), 0);
		le_int("__builtin_clzll", __builtin_clzll(LE_HIDE(1ULL)), 63);
		le_int("__builtin_ctzll", __builtin_ctzll(LE_HIDE(1ULL << 50)), 50);
		le_int("__builtin_ffsll", __builtin_ffsll(LE_HIDE(1LL << 50)), 51);
		le_int("__builtin_clrsbll", __builtin_clrsbll(LE_HIDE(-1LL)), 63);
#ifdef __x86_64__
		{
			__int128 w = (__int128)a * b * LE_HIDE(1000000007);
			unsigned __int128 uw = (unsigned __int128)ua * ua;

			LE_CHECK(w / b == (__int128)a * 1000000007 && w % 7 == -5);
			LE_CHECK(uw / ua == ua && uw % 1000 == 249);
			le_near("(double)__int128", (double)w,
			    -1.1975308618024625e25, 1e-15);
			LE_CHECK((__int128)LE_HIDE(-0x1p100) == -((__int128)1 << 100));
		}
#endif
	}

	/* complex arithmetic: (1+2i)(3+4i) = -5+10i */
	{
		double _Complex z = LE_HIDE(1.0) + 2.0i, w = 3.0 + LE_HIDE(4.0) * 1.0i;
		float _Complex zf = LE_HIDE(1.0f) + 2.0fi;
		long double _Complex zl = LE_HIDE(1.0L) + 2.0il;

		z *= w;
		le_near("complex * re", __real__ z, -5, 0);
		le_near("complex * im", __imag__ z, 10, 0);
		z /= w;
		le_near("complex / re", __real__ z, 1, 1e-15);
		zf = zf * zf / zf;
		le_near("float complex", __imag__ zf, 2, 1e-6);
		zl = zl * zl / zl;
		le_near("long double complex", __real__ zl, 1, 1e-15);
	}

	/* printf("%s\n", s) becomes puts(s): libc-env.t expects this line */
	__builtin_printf("%s\n", LE_LABEL ": printf(\"%s\\n\") reached the console");
}
