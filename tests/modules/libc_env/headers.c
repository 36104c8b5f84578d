/*
 * The headers C requires of a freestanding implementation, each included
 * and each of its macros and types used: <limits.h> and <stdint.h> are
 * ours (kernel/include), the rest the compiler's.  What can be checked at
 * compile time is (_Static_assert and #if); the rest at run time.
 */
#include <float.h>
#include <iso646.h>
#include <limits.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include <sys/systm.h>

#include "libc_env.h"

#define LP64 (__SIZEOF_LONG__ == 8)

/* <limits.h>, in the preprocessor too. */
#if CHAR_BIT != 8 || SCHAR_MAX != 127 || SCHAR_MIN != -128 || UCHAR_MAX != 255
#error "char limits"
#endif
#if SHRT_MAX != 32767 || SHRT_MIN != -32768 || USHRT_MAX != 65535
#error "short limits"
#endif
#if INT_MAX != 2147483647 || INT_MIN != -2147483647 - 1 || UINT_MAX != 4294967295U
#error "int limits"
#endif
#if LLONG_MAX != 9223372036854775807LL || ULLONG_MAX != 18446744073709551615ULL
#error "long long limits"
#endif
#if (LP64 && LONG_MAX != LLONG_MAX) || (!LP64 && LONG_MAX != INT_MAX)
#error "long limits"
#endif
#if ULONG_MAX != (LP64 ? 18446744073709551615UL : 4294967295UL) || MB_LEN_MAX < 1
#error "unsigned long limits"
#endif
#if CHAR_MIN != SCHAR_MIN || CHAR_MAX != SCHAR_MAX
#error "char is signed on x86"
#endif
_Static_assert(LONG_MIN == -LONG_MAX - 1 && LLONG_MIN == -LLONG_MAX - 1,
    "two's complement minimums");

/* <stdint.h>: types of the right size and signedness, limits, constants. */
#if INT8_MAX != 127 || INT16_MIN != -32768 || UINT32_MAX != 4294967295U
#error "exact-width limits"
#endif
#if INT64_MAX != 9223372036854775807LL || UINT64_MAX != 18446744073709551615ULL
#error "64-bit limits"
#endif
#if SIZE_MAX != UINTPTR_MAX || INTPTR_MAX != PTRDIFF_MAX || INTMAX_MAX != INT64_MAX
#error "pointer-sized limits"
#endif
#if INT_FAST16_MAX != LONG_MAX || UINT_FAST32_MAX != ULONG_MAX || WINT_MIN != 0
#error "fast types follow the psABI: long on x86_64, int on i386"
#endif
_Static_assert(sizeof(int8_t) == 1 && sizeof(int16_t) == 2 &&
    sizeof(int32_t) == 4 && sizeof(int64_t) == 8, "exact widths");
_Static_assert((int8_t)-1 < 0 && (uint8_t)-1 > 0 && (uint64_t)-1 > 0,
    "signedness");
_Static_assert(sizeof(int_least8_t) == 1 && sizeof(uint_least64_t) == 8 &&
    sizeof(int_fast8_t) == 1 && sizeof(int_fast16_t) == sizeof(long) &&
    sizeof(uint_fast32_t) == sizeof(long) && sizeof(int_fast64_t) == 8,
    "least and fast types");
_Static_assert(sizeof(intptr_t) == sizeof(void *) &&
    sizeof(uintptr_t) == sizeof(void *) && sizeof(intmax_t) == 8 &&
    sizeof(uintmax_t) == 8, "pointer and max types");
_Static_assert(INT8_C(-1) == -1 && INT16_C(300) == 300 &&
    INT32_C(70000) == 70000 && UINT8_C(200) == 200 && UINT16_C(60000) == 60000,
    "small constants");
_Static_assert(INT64_C(1) << 62 == 4611686018427387904LL &&
    sizeof(INT64_C(1)) == 8 && UINT64_C(1) << 63 == 9223372036854775808ULL &&
    sizeof(UINT32_C(1)) == 4 && (UINT32_C(0) - 1) > 0 &&
    sizeof(INTMAX_C(0)) == 8 && UINTMAX_C(18446744073709551615) + 1 == 0,
    "64-bit constants");
_Static_assert(SIG_ATOMIC_MAX == INT_MAX && WCHAR_MAX == 2147483647 &&
    WCHAR_MIN == -WCHAR_MAX - 1 && WINT_MAX == 4294967295U,
    "other limits");

/* <float.h>: IEEE single and double, x87 extended long double. */
_Static_assert(FLT_RADIX == 2 && FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53 &&
    LDBL_MANT_DIG == 64, "mantissas");
_Static_assert(FLT_DIG == 6 && DBL_DIG == 15 && LDBL_DIG == 18 &&
    DECIMAL_DIG == 21, "digits");
_Static_assert(FLT_MAX_EXP == 128 && DBL_MAX_EXP == 1024 &&
    LDBL_MAX_EXP == 16384 && FLT_MIN_EXP == -125 && DBL_MIN_EXP == -1021 &&
    FLT_MIN_10_EXP == -37 && DBL_MAX_10_EXP == 308, "exponents");
#if FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 2
#error "x86_64 evaluates in the type, i386's x87 in long double"
#endif

/* <stdalign.h>: an over-aligned object in the module's data. */
static alignas(64) char le_aligned[3] = { 1, 2, 3 };
_Static_assert(alignof(double) >= 4 && alignof(max_align_t) >= 8 &&
    __alignas_is_defined && __alignof_is_defined, "alignment");

/* <stdbool.h> */
_Static_assert(true == 1 && false == 0 && __bool_true_false_are_defined &&
    sizeof(bool) == 1, "bool");

/* <stddef.h> */
struct le_s {
	char c;
	double d;
	int a[3];
};
_Static_assert(sizeof(size_t) == sizeof(void *) &&
    sizeof(ptrdiff_t) == sizeof(void *) && sizeof(wchar_t) == 4 &&
    offsetof(struct le_s, a) > offsetof(struct le_s, d), "stddef");

/* <stdnoreturn.h>: taken only if the checks above lie. */
static noreturn void
le_impossible(const char *why)
{
	panic("libc_env: impossible: %s", why);
}

/* <stdarg.h>: ints, doubles and a long long through a va_list and a copy. */
static double
le_sum(int n, ...)
{
	va_list ap, again;
	double sum = 0;

	va_start(ap, n);
	va_copy(again, ap);
	for (int i = 0; i < n; i++) {
		if (i % 3 == 0)
			sum += va_arg(ap, int);
		else if (i % 3 == 1)
			sum += va_arg(ap, double);
		else
			sum += (double)va_arg(ap, long long);
	}
	/* The copy walks the same arguments again. */
	sum += va_arg(again, int);
	va_end(again);
	va_end(ap);
	return sum;
}

void
le_headers(void)
{
	volatile double one = 1.0, eps = DBL_EPSILON;
	volatile float fone = 1.0f, feps = FLT_EPSILON;
	char c = LE_HIDE((char)-1);

	if (sizeof(int) != 4)
		le_impossible("int is not 32 bits");

	/* limits.h at run time */
	le_int("(unsigned char)-1", (unsigned char)LE_HIDE(-1), UCHAR_MAX);
	le_int("(unsigned short)-1", (unsigned short)LE_HIDE(-1), USHRT_MAX);
	le_int("(unsigned)-1", (unsigned)LE_HIDE(-1), UINT_MAX);
	LE_CHECK((unsigned long)LE_HIDE(-1L) == ULONG_MAX);
	LE_CHECK(c < 0 && CHAR_MIN < 0);
	le_int("LONG_MAX bits", sizeof(long) * CHAR_BIT, LP64 ? 64 : 32);

	/* stdint.h at run time */
	le_int("INT64_MIN", LE_HIDE(INT64_MIN), -9223372036854775807LL - 1);
	LE_CHECK((uint64_t)LE_HIDE(-1) == UINT64_MAX);
	LE_CHECK((uintptr_t)(void *)le_aligned == (uintptr_t)&le_aligned[0]);
	LE_CHECK((size_t)LE_HIDE(-1) == SIZE_MAX);

	/* float.h: epsilon is the gap above 1 (stored, so no excess precision) */
	{
		volatile double above = one + eps, half = one + eps / 2;
		volatile float fabove = fone + feps, fhalf = fone + feps / 2;
		LE_CHECK(above != 1.0 && half == 1.0);
		LE_CHECK(fabove != 1.0f && fhalf == 1.0f);
	}
	/* (not in _Static_assert: clang's is for integer constants only) */
	LE_CHECK(FLT_EPSILON == 0x1p-23f && DBL_EPSILON == 0x1p-52 &&
	    LDBL_EPSILON == 0x1p-63L);
	LE_CHECK(FLT_MAX == 0x1.fffffep127f && DBL_MIN == 0x1p-1022 &&
	    DBL_MAX == 0x1.fffffffffffffp1023 && FLT_MIN == 0x1p-126f &&
	    LDBL_MAX > DBL_MAX && LDBL_MIN < DBL_MIN);
	le_int("FLT_EVAL_METHOD", FLT_EVAL_METHOD, LP64 ? 0 : 2);
	le_int("FLT_ROUNDS", FLT_ROUNDS, 1);

	/* stdalign.h: the object is where its alignment says */
	le_int("alignas(64) address % 64", (uintptr_t)le_aligned % 64, 0);
	le_int("le_aligned[2]", LE_HIDE(&le_aligned[0])[2], 3);

	/* stdarg.h: 1 + 2.5 + 3 + 4 + 5.25 + 1 (the copy's first) */
	le_near("variadic sum", le_sum(5, 1, 2.5, 3LL, 4, 5.25), 16.75, 0);

	/* stdbool.h, iso646.h */
	{
		bool t = LE_HIDE(5) > 3, f = LE_HIDE(5) < 3;
		int x = LE_HIDE(0x0f), y = LE_HIDE(0x3c);
		LE_CHECK((t and not f) or f);
		LE_CHECK((x bitand y) == 0x0c && (x bitor y) == 0x3f &&
		    (x xor y) == 0x33 && (compl x) == ~0x0f && x not_eq y);
		x and_eq 0x7;
		y or_eq 0x1;
		x xor_eq 0x1;
		le_int("iso646 assignments", x * 1000 + y, 6 * 1000 + 0x3d);
	}

	/* stddef.h */
	le_int("offsetof(le_s, d)", offsetof(struct le_s, d),
	    LP64 ? 8 : 4 /* i386 aligns double to 4 in structs */);
	LE_CHECK(NULL == (void *)0);
}
