/*
 * Console output and the libkern C library exported to modules.  The names are
 * the C names; the kernel binds them to its own implementations, so a module
 * built -ffreestanding -nostdinc needs nothing but these headers.  The whole
 * C library modules have is in the standard headers beside sys/ (<string.h>,
 * <stdlib.h>, <stdio.h>, <ctype.h>, <math.h> …); this header declares the
 * part kernel code uses most, with the same prototypes.
 */
#ifndef _SYS_SYSTM_H_
#define _SYS_SYSTM_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Console printf: goes to the console and the dmesg ring buffer. */
int printf(const char *fmt, ...) __attribute__((__format__(__printf__, 1, 2)));
int vprintf(const char *fmt, va_list ap);
/*
 * Like printf but only into the dmesg ring buffer: FreeBSD's log(9), named
 * klog because log() is the C library's natural logarithm (<math.h>).
 */
#define LOG_ERR 3
#define LOG_WARNING 4
#define LOG_NOTICE 5
#define LOG_INFO 6
#define LOG_DEBUG 7
void klog(int level, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *s, const char *needle);
char *strcpy(char *dst, const char *src);
char *strncpy(char *dst, const char *src, size_t n);
char *strcat(char *dst, const char *src);
size_t strlcpy(char *dst, const char *src, size_t size);
size_t strlcat(char *dst, const char *src, size_t size);
char *strdup(const char *s);
int snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((__format__(__printf__, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
int atoi(const char *s);
void qsort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *));
int abs(int v);

/* Kernel clock: nanoseconds since boot, and a pause. */
uint64_t nanouptime(void);
void pause_ms(unsigned ms);
/* The CPU (kernel worker thread) the caller runs on; 0 for the shell. */
int curcpu(void);
int mp_ncpus(void);

void panic(const char *fmt, ...)
    __attribute__((__noreturn__, __format__(__printf__, 1, 2)));

#ifdef __cplusplus
}
#endif
#endif
