/*
 * <strings.h> for modules: the BSD string functions (POSIX).  Case is the
 * C locale's: only A-Z and a-z have a case.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <strings.h>
#else
#ifndef _MK_STRINGS_H_
#define _MK_STRINGS_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int strcasecmp(const char *a, const char *b);
int strncasecmp(const char *a, const char *b, size_t n);
int bcmp(const void *a, const void *b, size_t n);
void bcopy(const void *src, void *dst, size_t n);
void bzero(void *s, size_t n);
void explicit_bzero(void *s, size_t n);
int ffs(int v);
int ffsl(long v);
int ffsll(long long v);

#ifdef __cplusplus
}
#endif

#endif /* _MK_STRINGS_H_ */
#endif /* !__STDC_HOSTED__ */
