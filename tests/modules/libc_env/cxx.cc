// Every header from C++: the declarations are extern "C" (a C++ name would
// not bind: the load would fail on the mangled name), the macros work in
// C++, and overloading does not get in the way.
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

#include <sys/kernel.h>

#include "libc_env.h"

static_assert(INT_MAX == 2147483647 && LLONG_MIN < 0 && CHAR_BIT == 8, "limits");
static_assert(sizeof(int_fast32_t) == sizeof(long) && INT64_C(1) << 40 > 0 &&
    UINTMAX_MAX == ~uintmax_t(0), "stdint");
static_assert(DBL_MANT_DIG == 53 && FLT_RADIX == 2, "float");
static_assert(alignof(max_align_t) >= 8 && sizeof(bool) == 1, "stddef");

namespace {

// A C++ overload beside the C function: both must resolve.
int twice(int x) { return 2 * x; }
double twice(double x) { return 2 * x; }

[[noreturn]] void never(const char *why) { panic("libc_env: %s", why); }

int sum(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

} // namespace

extern "C" void
le_cxx(void)
{
	char buf[64];
	char *end;

	if (sizeof(void *) != sizeof(uintptr_t))
		never("uintptr_t is not a pointer's size");
	le_int("strlen", strlen(LE_HIDE("c++")), 3);
	le_int("snprintf", snprintf(buf, sizeof(buf), "%s %" PRId64 " %.2f", "x",
	    INT64_C(-5), 0.125), 9);
	le_str("snprintf text", buf, "x -5 0.12");
	le_near("strtod", strtod(LE_HIDE("2.5e1"), &end), 25, 0);
	le_int("strtod end", *end, 0);
	le_near("sqrt", sqrt(LE_HIDE(16.0)), 4, 0);
	le_near("sqrtf", sqrtf(LE_HIDE(16.0f)), 4, 0);
	le_near("pow", pow(LE_HIDE(2.0), 8), 256, 0);
	le_near("twice(sin(0.5))", twice(sin(LE_HIDE(0.5))), 0.958851077208406, 1e-14);
	le_int("twice(abs)", twice(abs(LE_HIDE(-21))), 42);
	LE_CHECK(isnan(nan("")) && isinf(HUGE_VAL) && signbit(-LE_HIDE(1.0)));
	LE_CHECK(isalpha('x') and not isdigit('x') and toupper('x') == 'X');
	le_int("strcasecmp", strcasecmp("ABC", LE_HIDE("abc")), 0);
	{
		div_t d = div(LE_HIDE(17), 5);
		lldiv_t ld = lldiv(LE_HIDE(-17LL), 5);
		imaxdiv_t im = imaxdiv(LE_HIDE(INTMAX_C(17)), -5);
		le_int("div", d.quot * 10 + d.rem, 32);
		le_int("lldiv", ld.quot * 10 + ld.rem, -32);
		le_int("imaxdiv", im.quot * 10 + im.rem, -28);
	}
	{
		int a = 0, b = 0;
		le_int("sscanf", sscanf(LE_HIDE("4 5"), "%d %d", &a, &b) * 100 +
		    a * 10 + b, 245);
	}
	errno = 0;
	(void)strtol(LE_HIDE("999999999999999999999"), nullptr, 10);
	le_int("errno", errno, ERANGE);
	assert(sum(3, 1, 2, 3) == 6);
	le_int("variadic", sum(4, 1, 2, 3, 4), 10);
	{
		alignas(32) char aligned[8] = "";
		le_int("alignas", reinterpret_cast<uintptr_t>(aligned) % 32, 0);
	}
	{
		char *p = strndup("c++ string", 3);
		le_str("strndup", p, "c++");
		free(p);
		void *q = calloc(4, 8);
		LE_CHECK(q && memcmp(q, "\0\0\0\0\0\0\0\0", 8) == 0);
		free(q);
	}
	{
		time_t t = LE_HIDE(time_t(86400 * 366));
		struct tm tm = {};
		char buf[32];
		le_int("gmtime_r", gmtime_r(&t, &tm)->tm_year, 71);
		le_int("strftime", strftime(buf, sizeof(buf), "%F", &tm), 10);
		le_str("strftime text", buf, "1971-01-02");
		le_int("mktime", mktime(&tm), t);
		LE_CHECK(clock() > 0 && time(nullptr) > t);
	}
}
