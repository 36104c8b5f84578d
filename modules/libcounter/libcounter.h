/*
 * libcounter's interface for the modules that depend on it.  These are plain
 * globals of libcounter.ko; the kernel binds a dependent module to them
 * because it declares MODULE_DEPEND(..., libcounter, ...).
 */
#ifndef _LIBCOUNTER_H_
#define _LIBCOUNTER_H_

/* Bumped when the interface changes incompatibly; see MODULE_VERSION. */
#define LIBCOUNTER_VERSION 2

/* Add `n` on behalf of `who`; returns the new total. */
int counter_add(const char *who, int n);
/* The current total. */
int counter_get(void);

/* Exported data: the number of counter_add calls so far, and a name. */
extern int counter_calls;
extern const char counter_name[];

#endif
