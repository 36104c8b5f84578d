/*
 * <stdio.h> for modules: formatting into and scanning from strings
 * (C17 7.21.6), and printf/puts/putchar to the kernel console.  There are
 * no FILE streams.  Numbers are written and read the C locale's way.
 * Scanning with the 'm' (allocate) flag is refused: sscanf returns EOF
 * with errno EINVAL, since the buffer would not come from the module's
 * malloc.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <stdio.h>
#else
#ifndef _MK_STDIO_H_
#define _MK_STDIO_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EOF (-1)

/* The kernel console (and the dmesg ring buffer). */
int printf(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));
int vprintf(const char *fmt, __builtin_va_list ap)
    __attribute__((__format__(__printf__, 1, 0)));
int puts(const char *s);
int putchar(int c);

int sprintf(char *buf, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));
int vsprintf(char *buf, const char *fmt, __builtin_va_list ap)
    __attribute__((__format__(__printf__, 2, 0)));
int snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((__format__(__printf__, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, __builtin_va_list ap)
    __attribute__((__format__(__printf__, 3, 0)));
int sscanf(const char *s, const char *fmt, ...)
    __attribute__((__format__(__scanf__, 2, 3)));
int vsscanf(const char *s, const char *fmt, __builtin_va_list ap)
    __attribute__((__format__(__scanf__, 2, 0)));

#ifdef __cplusplus
}
#endif

#endif /* _MK_STDIO_H_ */
#endif /* !__STDC_HOSTED__ */
