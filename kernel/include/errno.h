/*
 * <errno.h> for modules (C17 7.5): the error numbers of <sys/errno.h> and
 * errno, the calling thread's last error, as the C library functions and
 * the math functions set it.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <errno.h>
#else
#ifndef _MK_ERRNO_H_
#define _MK_ERRNO_H_

#include <sys/errno.h>

#ifdef __cplusplus
extern "C" {
#endif

int *__errno_location(void) __attribute__((__const__));
#define errno (*__errno_location())

#ifdef __cplusplus
}
#endif

#endif /* _MK_ERRNO_H_ */
#endif /* !__STDC_HOSTED__ */
