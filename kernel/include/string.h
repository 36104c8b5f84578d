/*
 * <string.h> for modules: the C library's string and memory functions
 * (C17 7.24), plus the POSIX and BSD ones real-world code expects
 * (strnlen, stpcpy, strtok_r, strlcpy …).  Each is exported by the kernel
 * under its C name (kernel/libkern_string.cpp); strdup and strndup
 * allocate from the module's malloc.  strerror knows the kernel's error
 * numbers (<sys/errno.h>).  Collation is the C locale's: strcoll is
 * strcmp.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <string.h>
#else
#ifndef _MK_STRING_H_
#define _MK_STRING_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
void *memrchr(const void *s, int c, size_t n);
void *memccpy(void *dst, const void *src, int c, size_t n);
void *mempcpy(void *dst, const void *src, size_t n);
void *memmem(const void *hay, size_t haylen, const void *needle,
    size_t needlelen);

size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
char *strcpy(char *dst, const char *src);
char *strncpy(char *dst, const char *src, size_t n);
char *stpcpy(char *dst, const char *src);
char *stpncpy(char *dst, const char *src, size_t n);
char *strcat(char *dst, const char *src);
char *strncat(char *dst, const char *src, size_t n);
size_t strlcpy(char *dst, const char *src, size_t size);
size_t strlcat(char *dst, const char *src, size_t size);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
int strcoll(const char *a, const char *b);
size_t strxfrm(char *dst, const char *src, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strchrnul(const char *s, int c);
size_t strspn(const char *s, const char *accept);
size_t strcspn(const char *s, const char *reject);
char *strpbrk(const char *s, const char *accept);
char *strstr(const char *s, const char *needle);
char *strcasestr(const char *s, const char *needle);
char *strtok(char *s, const char *delim);
char *strtok_r(char *s, const char *delim, char **save);
char *strsep(char **sp, const char *delim);
char *strdup(const char *s);
char *strndup(const char *s, size_t n);
char *strerror(int error);

#ifdef __cplusplus
}
#endif

/* strcasecmp and the other BSD names live in <strings.h>. */
#include <strings.h>

#endif /* _MK_STRING_H_ */
#endif /* !__STDC_HOSTED__ */
