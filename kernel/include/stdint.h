/*
 * <stdint.h> for modules (C17 7.20), the same for gcc and clang on x86_64
 * and i386.
 *
 * Why our own: the compilers' freestanding stdint.h headers disagree with
 * each other and with the psABI.  gcc's defines INT64_C() and the other
 * constant macros through macros only gcc predefines (__INT64_C), so clang
 * given gcc's include directory cannot expand them; clang's own makes
 * int_fast16_t a short and int_fast32_t an int on x86_64, where gcc and the
 * C library the kernel is built against make both a long.  A module's
 * types must not depend on which compiler built it, so every type here is
 * the one the kernel sees.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <stdint.h>
#else
#ifndef _MK_STDINT_H_
#define _MK_STDINT_H_

#if __SIZEOF_LONG__ == 8
#define __MK_I64(c) c##L
#define __MK_U64(c) c##UL
#define __MK_FAST_MAX __LONG_MAX__
#define __MK_FAST_UMAX (__LONG_MAX__ * 2UL + 1UL)
typedef long int_fast16_t;
typedef long int_fast32_t;
typedef unsigned long uint_fast16_t;
typedef unsigned long uint_fast32_t;
#else
#define __MK_I64(c) c##LL
#define __MK_U64(c) c##ULL
#define __MK_FAST_MAX __INT_MAX__
#define __MK_FAST_UMAX (__INT_MAX__ * 2U + 1U)
typedef int int_fast16_t;
typedef int int_fast32_t;
typedef unsigned int uint_fast16_t;
typedef unsigned int uint_fast32_t;
#endif

typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;

typedef int8_t int_least8_t;
typedef int16_t int_least16_t;
typedef int32_t int_least32_t;
typedef int64_t int_least64_t;
typedef uint8_t uint_least8_t;
typedef uint16_t uint_least16_t;
typedef uint32_t uint_least32_t;
typedef uint64_t uint_least64_t;

typedef signed char int_fast8_t;
typedef int64_t int_fast64_t;
typedef unsigned char uint_fast8_t;
typedef uint64_t uint_fast64_t;

typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __INTMAX_TYPE__ intmax_t;
typedef __UINTMAX_TYPE__ uintmax_t;

#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX __MK_I64(9223372036854775807)
#define INT8_MIN (-INT8_MAX - 1)
#define INT16_MIN (-INT16_MAX - 1)
#define INT32_MIN (-INT32_MAX - 1)
#define INT64_MIN (-INT64_MAX - 1)
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX __MK_U64(18446744073709551615)

#define INT_LEAST8_MIN INT8_MIN
#define INT_LEAST16_MIN INT16_MIN
#define INT_LEAST32_MIN INT32_MIN
#define INT_LEAST64_MIN INT64_MIN
#define INT_LEAST8_MAX INT8_MAX
#define INT_LEAST16_MAX INT16_MAX
#define INT_LEAST32_MAX INT32_MAX
#define INT_LEAST64_MAX INT64_MAX
#define UINT_LEAST8_MAX UINT8_MAX
#define UINT_LEAST16_MAX UINT16_MAX
#define UINT_LEAST32_MAX UINT32_MAX
#define UINT_LEAST64_MAX UINT64_MAX

#define INT_FAST8_MIN INT8_MIN
#define INT_FAST16_MIN (-__MK_FAST_MAX - 1)
#define INT_FAST32_MIN (-__MK_FAST_MAX - 1)
#define INT_FAST64_MIN INT64_MIN
#define INT_FAST8_MAX INT8_MAX
#define INT_FAST16_MAX __MK_FAST_MAX
#define INT_FAST32_MAX __MK_FAST_MAX
#define INT_FAST64_MAX INT64_MAX
#define UINT_FAST8_MAX UINT8_MAX
#define UINT_FAST16_MAX __MK_FAST_UMAX
#define UINT_FAST32_MAX __MK_FAST_UMAX
#define UINT_FAST64_MAX UINT64_MAX

#define INTPTR_MAX __INTPTR_MAX__
#define INTPTR_MIN (-INTPTR_MAX - 1)
#define UINTPTR_MAX __UINTPTR_MAX__
#define INTMAX_MAX __INTMAX_MAX__
#define INTMAX_MIN (-INTMAX_MAX - 1)
#define UINTMAX_MAX __UINTMAX_MAX__

#define PTRDIFF_MAX __PTRDIFF_MAX__
#define PTRDIFF_MIN (-PTRDIFF_MAX - 1)
#define SIZE_MAX __SIZE_MAX__
#define SIG_ATOMIC_MAX __SIG_ATOMIC_MAX__
#define SIG_ATOMIC_MIN (-SIG_ATOMIC_MAX - 1)
#define WCHAR_MAX __WCHAR_MAX__
#ifdef __WCHAR_UNSIGNED__
#define WCHAR_MIN 0
#else
#define WCHAR_MIN (-WCHAR_MAX - 1)
#endif
#define WINT_MAX __WINT_MAX__
#define WINT_MIN 0U /* wint_t is unsigned int on both arches */

#define INT8_C(c) c
#define INT16_C(c) c
#define INT32_C(c) c
#define INT64_C(c) __MK_I64(c)
#define UINT8_C(c) c
#define UINT16_C(c) c
#define UINT32_C(c) c##U
#define UINT64_C(c) __MK_U64(c)
#define INTMAX_C(c) __MK_I64(c)
#define UINTMAX_C(c) __MK_U64(c)

/* C23's widths. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L
#define INT8_WIDTH 8
#define INT16_WIDTH 16
#define INT32_WIDTH 32
#define INT64_WIDTH 64
#define UINT8_WIDTH 8
#define UINT16_WIDTH 16
#define UINT32_WIDTH 32
#define UINT64_WIDTH 64
#define INT_LEAST8_WIDTH 8
#define INT_LEAST16_WIDTH 16
#define INT_LEAST32_WIDTH 32
#define INT_LEAST64_WIDTH 64
#define UINT_LEAST8_WIDTH 8
#define UINT_LEAST16_WIDTH 16
#define UINT_LEAST32_WIDTH 32
#define UINT_LEAST64_WIDTH 64
#define INT_FAST8_WIDTH 8
#define INT_FAST16_WIDTH (__SIZEOF_LONG__ == 8 ? 64 : 32)
#define INT_FAST32_WIDTH (__SIZEOF_LONG__ == 8 ? 64 : 32)
#define INT_FAST64_WIDTH 64
#define UINT_FAST8_WIDTH 8
#define UINT_FAST16_WIDTH INT_FAST16_WIDTH
#define UINT_FAST32_WIDTH INT_FAST32_WIDTH
#define UINT_FAST64_WIDTH 64
#define INTPTR_WIDTH (__SIZEOF_POINTER__ * 8)
#define UINTPTR_WIDTH INTPTR_WIDTH
#define INTMAX_WIDTH 64
#define UINTMAX_WIDTH 64
#define PTRDIFF_WIDTH (__SIZEOF_PTRDIFF_T__ * 8)
#define SIZE_WIDTH (__SIZEOF_SIZE_T__ * 8)
#define SIG_ATOMIC_WIDTH 32
#define WCHAR_WIDTH (__SIZEOF_WCHAR_T__ * 8)
#define WINT_WIDTH (__SIZEOF_WINT_T__ * 8)
#endif

#endif /* _MK_STDINT_H_ */
#endif /* !__STDC_HOSTED__ */
