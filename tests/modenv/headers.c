/*
 * Every header of the module C environment, compiled by tests/modenv/run
 * as C (c99, c11, c17, c2x, gnu17) and as C++ (c++11, c++17, c++20), with
 * gcc and clang, -Wall -Wextra -pedantic-errors -Werror: the headers must
 * not depend on a dialect or a compiler.  Also a little of each is used.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <iso646.h>
#include <limits.h>
#include <math.h>
#include <memory.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* A compile-time check in every dialect: a negative array size fails. */
#define CHECK(name, cond) typedef char check_##name[(cond) ? 1 : -1]

CHECK(limits, INT_MAX == 2147483647 && CHAR_BIT == 8 && LLONG_MAX > LONG_MAX - 1);
CHECK(stdint, INT64_C(1) << 40 > 0 && UINT32_MAX == 4294967295U &&
    sizeof(int_fast16_t) == sizeof(long) && sizeof(intptr_t) == sizeof(void *));
CHECK(stddef, sizeof(size_t) == sizeof(void *) && offsetof(div_t, rem) == sizeof(int));
CHECK(float, FLT_RADIX == 2 && DBL_MANT_DIG == 53);
CHECK(math, FP_NAN != FP_NORMAL && MATH_ERRNO == 1);
CHECK(stdlib, RAND_MAX == 2147483647 && EXIT_FAILURE == 1);
CHECK(stdio, EOF == -1);
CHECK(errno, ERANGE == 34 && EDOM == 33);
CHECK(time, sizeof(time_t) == 8 && CLOCKS_PER_SEC == 1000000 && TIME_UTC == 1);

/* C11's keywords behind the C11 headers' macros (C++ has its own). */
#if defined(__cplusplus)
#define ALIGNED alignas(16)
#elif __STDC_VERSION__ >= 201112L
#define ALIGNED alignas(16)
noreturn void check_noreturn(void);
#else
#define ALIGNED
#endif

int check_all(const char *s, ...);

int
check_all(const char *s, ...)
{
	char buf[64];
	va_list ap;
	int n;
	div_t d = div(7, 2);
	ALIGNED double x = sqrt(2.0) + (double)d.quot;

	assert(s != NULL);
	va_start(ap, s);
	n = vsnprintf(buf, sizeof(buf), s, ap);
	va_end(ap);
	n += snprintf(buf, sizeof(buf), "%" PRId64 "%" PRIuPTR, INT64_C(1),
	    (uintptr_t)0);
	n += (int)strlen(buf) + isalpha((unsigned char)buf[0]) +
	    strcasecmp(buf, "x") + (int)fpclassify(x) + (isnan(x) ? 1 : 0);
	if (n > 0 and errno == 0 and not false)
		n += (int)strtol(buf, NULL, 10) + abs(n);
	{
		time_t t = time(NULL);
		struct tm *tm = gmtime(&t);
		struct timespec ts;

		n += (int)strftime(buf, sizeof(buf), "%F", tm) +
		    (timespec_get(&ts, TIME_UTC) == TIME_UTC) +
		    (int)(difftime(mktime(tm), t) + (double)clock());
	}
	return n;
}
