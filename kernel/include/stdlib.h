/*
 * <stdlib.h> for modules (C17 7.22): number conversions, integer
 * arithmetic, sorting and searching, pseudo-random numbers, and the
 * kernel's malloc (<sys/malloc.h>: every block is charged to the calling
 * module).  Conversions read numbers the C locale's way.  There is no
 * process to exit: abort() panics the kernel, as a failed assert() does.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <stdlib.h>
#else
#ifndef _MK_STDLIB_H_
#define _MK_STDLIB_H_

#include <stddef.h>
#include <sys/malloc.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { int quot; int rem; } div_t;
typedef struct { long quot; long rem; } ldiv_t;
typedef struct { long long quot; long long rem; } lldiv_t;

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
#define MB_CUR_MAX ((size_t)1)

double atof(const char *s);
int atoi(const char *s);
long atol(const char *s);
long long atoll(const char *s);
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
long double strtold(const char *s, char **end);
long strtol(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);

int abs(int v);
long labs(long v);
long long llabs(long long v);
div_t div(int num, int den);
ldiv_t ldiv(long num, long den);
lldiv_t lldiv(long long num, long long den);

void qsort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *));

int rand(void);
int rand_r(unsigned *seed);
void srand(unsigned seed);

void abort(void) __attribute__((__noreturn__));

#ifdef __cplusplus
}
#endif

#endif /* _MK_STDLIB_H_ */
#endif /* !__STDC_HOSTED__ */
