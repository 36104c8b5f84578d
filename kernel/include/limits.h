/*
 * <limits.h> for modules: the sizes of the integer types (C17 5.2.4.2.1),
 * for x86_64 (LP64) and i386 (ILP32), with gcc or clang.
 *
 * Why our own: gcc's <limits.h> (in `gcc -print-file-name=include`) is the
 * fixincludes wrapper, which unless _LIBC_LIMITS_H_ is defined includes
 * "syslimits.h", whose `#include_next <limits.h>` expects the C library's
 * limits.h further down the search path.  Modules build -nostdinc, so there
 * is none and the compile stops with "no include path in which to search
 * for limits.h".  clang's own limits.h would do, but modules may be built
 * with either compiler's include directory.  Every value below comes from
 * the compiler's predefined macros, which gcc and clang both provide.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <limits.h>
#else
#ifndef _MK_LIMITS_H_
#define _MK_LIMITS_H_

#define CHAR_BIT __CHAR_BIT__
/* Modules have the C locale only: a character is one byte. */
#define MB_LEN_MAX 1

#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-SCHAR_MAX - 1)
#define UCHAR_MAX (SCHAR_MAX * 2 + 1)
#ifdef __CHAR_UNSIGNED__
#define CHAR_MIN 0
#define CHAR_MAX UCHAR_MAX
#else
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#endif

#define SHRT_MAX __SHRT_MAX__
#define SHRT_MIN (-SHRT_MAX - 1)
#define USHRT_MAX (SHRT_MAX * 2 + 1)

#define INT_MAX __INT_MAX__
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX (INT_MAX * 2U + 1U)

#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-LONG_MAX - 1L)
#define ULONG_MAX (LONG_MAX * 2UL + 1UL)

#define LLONG_MAX __LONG_LONG_MAX__
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define ULLONG_MAX (LLONG_MAX * 2ULL + 1ULL)

/* C23's widths, also offered by the C library when asked for C2x. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L
#define BOOL_WIDTH 1
#define CHAR_WIDTH __CHAR_BIT__
#define SCHAR_WIDTH __CHAR_BIT__
#define UCHAR_WIDTH __CHAR_BIT__
#define SHRT_WIDTH (__SIZEOF_SHORT__ * __CHAR_BIT__)
#define USHRT_WIDTH SHRT_WIDTH
#define INT_WIDTH (__SIZEOF_INT__ * __CHAR_BIT__)
#define UINT_WIDTH INT_WIDTH
#define LONG_WIDTH (__SIZEOF_LONG__ * __CHAR_BIT__)
#define ULONG_WIDTH LONG_WIDTH
#define LLONG_WIDTH (__SIZEOF_LONG_LONG__ * __CHAR_BIT__)
#define ULLONG_WIDTH LLONG_WIDTH
#endif

#endif /* _MK_LIMITS_H_ */
#endif /* !__STDC_HOSTED__ */
