/*
 * <stdlib.h>, <inttypes.h>, <errno.h> and <assert.h>: conversions with
 * their end pointers and errno, the integer arithmetic (div_t and friends
 * come back by value), sorting and searching, the pseudo-random numbers,
 * malloc and realloc.
 * abort() and a failing assert() would panic the kernel: they are only
 * bound (their addresses taken), and assert() checked with true
 * expressions and under NDEBUG.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <sys/systm.h>

#include "libc_env.h"

#include <assert.h>

static int
le_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* An assertion that holds, with assert() live (NDEBUG is not defined). */
static int
le_assert_live(int x)
{
	assert(x > 0 && "a true assertion");
	return x;
}

#define NDEBUG
#include <assert.h>

/* Under NDEBUG assert() expands to nothing: its argument is not evaluated. */
static int
le_assert_off(void)
{
	int evaluated = 0;
	assert(++evaluated == 12345);
	return evaluated;
}

void
le_stdlib(void)
{
	char *end;
	const char *s;

	/* floating conversions */
	s = LE_HIDE("1e-3xyz");
	le_near("strtod(1e-3)", strtod(s, &end), 0.001, 1e-16);
	le_int("strtod end", end - s, 4);
	le_near("strtod hex", strtod(LE_HIDE("0x1.8p3"), NULL), 12.0, 0);
	le_near("strtod spaces and sign", strtod(LE_HIDE("  -2.5e+2"), NULL), -250.0, 0);
	LE_CHECK(__builtin_isinf(strtod(LE_HIDE("inf"), NULL)));
	LE_CHECK(__builtin_isnan(strtod(LE_HIDE("nan"), NULL)));
	s = LE_HIDE("abc");
	le_near("strtod nothing", strtod(s, &end), 0, 0);
	LE_CHECK(end == s);
	errno = 0;
	LE_CHECK(__builtin_isinf(strtod(LE_HIDE("1e999"), NULL)) && errno == ERANGE);
	le_near("strtof", strtof(LE_HIDE("0.1"), NULL), 0.1, 1e-7);
	{
		volatile float tenth = 0.1f; /* rounded to float, in memory */
		LE_CHECK(strtof(LE_HIDE("0.1"), NULL) == tenth);
	}
	le_near("strtold", strtold(LE_HIDE("0.1"), NULL), 0.1L, 1e-19L);
	le_near("strtold(1e4000)", strtold(LE_HIDE("1e4000"), NULL) / 1e3999L, 10, 1e-15L);
	le_near("atof", atof(LE_HIDE("3.25")), 3.25, 0);

	/* integer conversions */
	le_int("strtol base 10", strtol(LE_HIDE(" -123abc"), &end, 10), -123);
	le_int("strtol end", *end, 'a');
	le_int("strtol base 16", strtol(LE_HIDE("0x1F"), NULL, 16), 31);
	le_int("strtol base 0 octal", strtol(LE_HIDE("0755"), NULL, 0), 493);
	le_int("strtol base 36", strtol(LE_HIDE("zz"), NULL, 36), 36 * 35 + 35);
	errno = 0;
	le_int("strtol overflow", strtol(LE_HIDE("99999999999999999999"), NULL, 10), LONG_MAX);
	le_int("strtol overflow errno", errno, ERANGE);
	le_int("strtoul(-1)", strtoul(LE_HIDE("-1"), NULL, 10) == ULONG_MAX, 1);
	le_int("strtoll", strtoll(LE_HIDE("-9223372036854775808"), NULL, 10), LLONG_MIN);
	LE_CHECK(strtoull(LE_HIDE("18446744073709551615"), NULL, 10) == ULLONG_MAX);
	le_int("strtoimax", strtoimax(LE_HIDE("-42"), NULL, 10), -42);
	LE_CHECK(strtoumax(LE_HIDE("0xffffffffffffffff"), NULL, 16) == UINTMAX_MAX);
	le_int("atoi", atoi(LE_HIDE("  42x")), 42);
	le_int("atol", atol(LE_HIDE("-2147483648")), -2147483647L - 1);
	le_int("atoll", atoll(LE_HIDE("1234567890123")), 1234567890123LL);

	/* integer arithmetic */
	le_int("abs", abs(LE_HIDE(-7)), 7);
	le_int("labs", labs(LE_HIDE(-7L)), 7);
	le_int("llabs", llabs(LE_HIDE(-(1LL << 40))), 1LL << 40);
	le_int("imaxabs", imaxabs(LE_HIDE((intmax_t)-5)), 5);
	{
		div_t d = div(LE_HIDE(-7), 2);
		ldiv_t ld = ldiv(LE_HIDE(7L), -2);
		lldiv_t lld = lldiv(LE_HIDE(1LL << 40), 1000);
		imaxdiv_t imd = imaxdiv(LE_HIDE((intmax_t)-100), 7);

		le_int("div quot", d.quot, -3);
		le_int("div rem", d.rem, -1);
		le_int("ldiv quot", ld.quot, -3);
		le_int("ldiv rem", ld.rem, 1);
		le_int("lldiv quot", lld.quot, 1099511627LL);
		le_int("lldiv rem", lld.rem, 776);
		le_int("imaxdiv quot", imd.quot, -14);
		le_int("imaxdiv rem", imd.rem, -2);
	}

	/* sorting and searching */
	{
		int v[] = { 5, -1, 9, 3, 3, 0, 12, -8 };
		const int sorted[] = { -8, -1, 0, 3, 3, 5, 9, 12 };
		int key = 9, missing = 4;

		qsort(v, 8, sizeof(v[0]), le_cmp_int);
		LE_CHECK(memcmp(v, sorted, sizeof(v)) == 0);
		le_int("bsearch", (int *)bsearch(&key, v, 8, sizeof(v[0]),
		    le_cmp_int) - v, 6);
		LE_CHECK(bsearch(&missing, v, 8, sizeof(v[0]), le_cmp_int) == NULL);
	}

	/* pseudo-random numbers: in range, and the same after the same seed */
	{
		int a[4], b[4], inrange = 1;
		unsigned seed1 = 7, seed2 = 7;

		srand(LE_HIDE(42u));
		for (int i = 0; i < 4; i++)
			a[i] = rand();
		srand(LE_HIDE(42u));
		for (int i = 0; i < 4; i++) {
			b[i] = rand();
			inrange &= b[i] >= 0 && b[i] <= RAND_MAX;
		}
		LE_CHECK(memcmp(a, b, sizeof(a)) == 0 && inrange);
		LE_CHECK(a[0] != a[1] || a[1] != a[2]);
		le_int("rand_r repeats", rand_r(&seed1) == rand_r(&seed2) &&
		    seed1 == seed2 && seed1 != 7, 1);
	}

	/* the kernel's malloc, through <stdlib.h> */
	{
		char *p = malloc(LE_HIDE(16)), *q;

		LE_CHECK(p != NULL);
		strcpy(p, "kept by realloc");
		q = realloc(p, LE_HIDE(4096));
		le_str("realloc keeps the contents", q, "kept by realloc");
		q[4095] = 1;
		free(q);
	}

	/* errno is the thread's own, and writable */
	errno = 1234;
	le_int("errno", errno, 1234);
	errno = 0;

	/* assert and abort: bound, never fired */
	le_int("assert(true)", le_assert_live(LE_HIDE(3)), 3);
	le_int("assert under NDEBUG evaluates nothing", le_assert_off(), 0);
	{
		void (*volatile ab)(void) = abort;
		void (*volatile af)(const char *, const char *, unsigned int,
		    const char *) = __assert_fail;
		LE_CHECK(ab != NULL && af != NULL);
	}
}
