/*
 * Kernel memory allocation.  Every block is charged to the module whose code
 * called the allocator; a module that still holds memory when it is unloaded
 * is named on the console with the bytes it leaked.
 */
#ifndef _SYS_MALLOC_H_
#define _SYS_MALLOC_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void free(void *p);

#ifdef __cplusplus
}
#endif
#endif
