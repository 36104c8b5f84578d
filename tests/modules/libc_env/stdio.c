/*
 * <stdio.h>: formatting (every conversion a library uses, and truncation),
 * the v* forms through a va_list of ours, scanning several fields, the
 * refusal of the allocating 'm' flag, and <inttypes.h>'s conversions.
 * printf, vprintf, puts and putchar write to the console:
 * tests/integration/libc-env.t checks their lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libc_env.h"

static int
le_vsprintf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsprintf(buf, fmt, ap);
	va_end(ap);
	return n;
}

static int
le_vsnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static int
le_vprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

static int
le_vsscanf(const char *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsscanf(s, fmt, ap);
	va_end(ap);
	return n;
}

void
le_stdio(void)
{
	char buf[128];
	int n;

	/* sprintf: integers, floating point, strings, characters */
	n = sprintf(buf, "%d|%5d|%-5d|%05d|%+d|%u", -42, 7, 7, 42, 3,
	    LE_HIDE(4000000000u));
	le_str("sprintf %d", buf, "-42|    7|7    |00042|+3|4000000000");
	le_int("sprintf count", n, (int)strlen(buf));
	sprintf(buf, "%x|%X|%#x|%o|%#o|%08x", 255, 255, 255, 8, 8, 0xbeef);
	le_str("sprintf %x", buf, "ff|FF|0xff|10|010|0000beef");
	sprintf(buf, "%f|%.2f|%10.3f|%-8.1f|%.0f", 3.14159265, 2.675, -1.5,
	    LE_HIDE(0.25), 2.5);
	le_str("sprintf %f", buf, "3.141593|2.67|    -1.500|0.2     |2");
	sprintf(buf, "%e|%.3E|%g|%g|%g|%.3g", 12345.678, 0.000123, 0.0001,
	    1e-5, 123456789.0, LE_HIDE(2.0 / 3));
	le_str("sprintf %e %g", buf,
	    "1.234568e+04|1.230E-04|0.0001|1e-05|1.23457e+08|0.667");
	sprintf(buf, "%a|%Lf|%.3Lg", 1.0, LE_HIDE(1.5L), 1e100L);
	le_str("sprintf %a %Lf", buf, "0x1p+0|1.500000|1e+100");
	sprintf(buf, "%s|%.3s|%8s|%-4s|%c%c|%%", "abc", "abcdef", "right",
	    "l", 'o', LE_HIDE('k'));
	le_str("sprintf %s %c", buf, "abc|abc|   right|l   |ok|%");
	sprintf(buf, "%ld|%lld|%hhd|%hd|%zu|%td|%jd", LONG_MIN, LLONG_MAX,
	    (signed char)LE_HIDE(-100), (short)LE_HIDE(-30000), sizeof(int),
	    (ptrdiff_t)-3, (intmax_t)INT64_MIN);
	le_str("sprintf lengths", buf, sizeof(long) == 8 ?
	    "-9223372036854775808|9223372036854775807|-100|-30000|4|-3|-9223372036854775808" :
	    "-2147483648|9223372036854775807|-100|-30000|4|-3|-9223372036854775808");
	sprintf(buf, "%s|%f|%f", (const char *)LE_HIDE((void *)0),
	    LE_HIDE(__builtin_inf()), -__builtin_nan(""));
	le_str("sprintf (null), inf, nan", buf, "(null)|inf|-nan");
	sprintf(buf, "%p", (void *)LE_HIDE((void *)0x1234));
	le_str("sprintf %p", buf, "0x1234");
	sprintf(buf, "ab%ncd", &n);
	le_int("sprintf %n", n, 2);
	sprintf(buf, "%2$s %1$s", "world", "hello");
	le_str("sprintf positional", buf, "hello world");

	/* snprintf: truncation, the would-be length, size 0 */
	n = snprintf(buf, 6, "%s", LE_HIDE("truncated"));
	le_str("snprintf truncates", buf, "trunc");
	le_int("snprintf returns the full length", n, 9);
	n = snprintf(NULL, 0, "%d", LE_HIDE(123456));
	le_int("snprintf size 0", n, 6);

	/* the v* forms, through this module's own va_list */
	n = le_vsprintf(buf, "%s=%d (%.1f)", "x", 5, 0.5);
	le_str("vsprintf", buf, "x=5 (0.5)");
	le_int("vsprintf count", n, 9);
	n = le_vsnprintf(buf, 4, "%d%d%d", 12, 34, 56);
	le_str("vsnprintf truncates", buf, "123");
	le_int("vsnprintf count", n, 6);

	/* sscanf: several fields, what each consumed */
	{
		int i = 0, x = 0, pos = 0;
		double d = 0;
		float f = 0;
		char word[16] = "", letters[16] = "", c = 0;
		long long ll = 0;
		unsigned char hh = 0;

		n = sscanf(LE_HIDE("  -17 3.5e2 name ff Z abc123 9000000000 200 rest"),
		    "%d %lf %15s %x %c %15[a-z]%*d %lld %hhu%n", &i, &d, word, &x,
		    &c, letters, &ll, &hh, &pos);
		le_int("sscanf fields", n, 8);
		le_int("sscanf %d", i, -17);
		le_near("sscanf %lf", d, 350, 0);
		le_str("sscanf %s", word, "name");
		le_int("sscanf %x", x, 255);
		le_int("sscanf %c", c, 'Z');
		le_str("sscanf %[a-z]", letters, "abc");
		le_int("sscanf %lld", ll, 9000000000LL);
		le_int("sscanf %hhu", hh, 200);
		le_int("sscanf %n", pos, 43);
		n = sscanf(LE_HIDE("1.25"), "%f", &f);
		le_near("sscanf %f", f, 1.25, 0);
		n = sscanf(LE_HIDE("12 abc"), "%d %d", &i, &x);
		le_int("sscanf stops at a mismatch", n, 1);
		n = sscanf(LE_HIDE(""), "%d", &i);
		le_int("sscanf of nothing is EOF", n, EOF);
		n = le_vsscanf(LE_HIDE("7,8"), "%d,%d", &i, &x);
		le_int("vsscanf", n * 100 + i * 10 + x, 278);
	}

	/* 'm' would allocate outside the module's malloc: refused */
	{
		char *p = NULL;
		int i = 0;

		errno = 0;
		n = sscanf(LE_HIDE("word"), "%ms", &p);
		le_int("sscanf %ms refused", n, EOF);
		le_int("sscanf %ms errno", errno, EINVAL);
		LE_CHECK(p == NULL);
		n = sscanf(LE_HIDE("5 x"), "%2$d %1$m[a-z]", &p, &i);
		le_int("sscanf %1$m[ refused", n, EOF);
		/* ...but an 'm' in a scanset or after %% is only a character */
		n = sscanf(LE_HIDE("%m 3"), "%%m %d", &i);
		le_int("sscanf %%m is literal", n * 10 + i, 13);
		n = sscanf(LE_HIDE("mm7"), "%[m]%d", buf, &i);
		le_int("sscanf %[m] is a scanset", n * 10 + i, 27);
	}

	/* <inttypes.h> conversions for either arch's types */
	{
		int64_t i64 = LE_HIDE(INT64_MIN);
		uint64_t u64 = LE_HIDE(UINT64_MAX);
		intptr_t ip = LE_HIDE((intptr_t)-1);
		uintptr_t up = LE_HIDE((uintptr_t)0xabc);
		int_fast16_t f16 = LE_HIDE((int_fast16_t)-2);
		uint_fast32_t f32 = LE_HIDE((uint_fast32_t)4000000000u);
		intmax_t im = LE_HIDE((intmax_t)INTMAX_MAX);
		uint8_t u8 = 0;
		int16_t i16 = 0;
		uint64_t s64 = 0;
		int_fast16_t sf16 = 0;

		sprintf(buf, "%" PRId64 "|%" PRIu64 "|%" PRIxPTR "|%" PRIdPTR
		    "|%" PRIdFAST16 "|%" PRIuFAST32 "|%" PRIdMAX "|%" PRIX64
		    "|%" PRIo8 "|%" PRIi32, i64, u64, up, ip, f16, f32, im,
		    (uint64_t)0xabcdef, (uint8_t)8, (int32_t)-9);
		le_str("PRI macros", buf, "-9223372036854775808|18446744073709551615"
		    "|abc|-1|-2|4000000000|9223372036854775807|ABCDEF|10|-9");
		n = sscanf(LE_HIDE("255 -300 18446744073709551615 -7"),
		    "%" SCNu8 " %" SCNd16 " %" SCNu64 " %" SCNdFAST16, &u8,
		    &i16, &s64, &sf16);
		le_int("SCN macros", n, 4);
		LE_CHECK(u8 == 255 && i16 == -300 && s64 == UINT64_MAX &&
		    sf16 == -7);
	}

	/* the console: tests/integration/libc-env.t expects this line */
	n = puts(LE_LABEL ": puts and putchar reach the console:");
	le_int("puts", n >= 0, 1);
	n = putchar('o');
	n += putchar(LE_HIDE('k'));
	n += putchar('\n');
	le_int("putchar", n, 'o' + 'k' + '\n');
	n = le_vprintf("%s: %s\n", LE_LABEL, "vprintf too");
	le_int("vprintf", n, (int)strlen(LE_LABEL) + 14);
}
