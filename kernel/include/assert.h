/*
 * <assert.h> for modules (C17 7.2).  A failed assertion panics the kernel
 * with the expression, file, line and function, as a failed assertion in
 * a kernel does; with NDEBUG defined, assert() does nothing.  Like the C
 * library's, this header has no include guard: each inclusion redefines
 * assert() for the NDEBUG then in force.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <assert.h>
#else

#ifndef _MK_ASSERT_FAIL_DECLARED
#define _MK_ASSERT_FAIL_DECLARED
#ifdef __cplusplus
extern "C" {
#endif
void __assert_fail(const char *expr, const char *file, unsigned int line,
    const char *func) __attribute__((__noreturn__));
#ifdef __cplusplus
}
#endif
#endif

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#if defined(__cplusplus) ||                                                     \
    (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define __MK_ASSERT_FUNC __func__
#else
#define __MK_ASSERT_FUNC __FUNCTION__
#endif
#define assert(e)                                                              \
	((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __MK_ASSERT_FUNC))
#endif

#if !defined(__cplusplus) && defined(__STDC_VERSION__) &&                      \
    __STDC_VERSION__ >= 201112L && __STDC_VERSION__ <= 201710L &&              \
    !defined(static_assert)
#define static_assert _Static_assert
#endif

#endif /* !__STDC_HOSTED__ */
