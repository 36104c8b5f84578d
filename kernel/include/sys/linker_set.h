/*
 * Linker sets: arrays of pointers assembled by the linker from every object
 * that contributes one (FreeBSD's <sys/linker_set.h> model).  Each entry lives
 * in a section named "set_<name>"; the linker (or minikern's module loader)
 * defines __start_set_<name> and __stop_set_<name> around it.  In C++,
 * declare a set at namespace scope (the bounds are extern "C").
 */
#ifndef _SYS_LINKER_SET_H_
#define _SYS_LINKER_SET_H_

#define __MK_CONCAT1(a, b) a##b
#define __MK_CONCAT(a, b) __MK_CONCAT1(a, b)
#define __MK_STRING1(x) #x
#define __MK_STRING(x) __MK_STRING1(x)

/* Put a pointer to `sym` into set `set`. */
#define DATA_SET(set, sym)                                                     \
	static const void *const __MK_CONCAT(__set_##set##_sym_, sym)         \
	    __attribute__((section("set_" #set), used,                         \
	        aligned(sizeof(void *)))) = (const void *)&(sym)

#define TEXT_SET(set, sym) DATA_SET(set, sym)

/*
 * Declare the bounds of a set.  Weak so that an empty set links: both bounds
 * are then 0 and the set iterates no element.
 */
#ifdef __cplusplus
#define __MK_EXTERN extern "C"
#else
#define __MK_EXTERN extern
#endif
#define SET_DECLARE(set, ptype)                                                \
	__MK_EXTERN ptype *__start_set_##set[] __attribute__((weak));          \
	__MK_EXTERN ptype *__stop_set_##set[] __attribute__((weak))

#define SET_BEGIN(set) (__start_set_##set)
#define SET_LIMIT(set) (__stop_set_##set)
#define SET_FOREACH(pvar, set)                                                 \
	for (pvar = SET_BEGIN(set); pvar < SET_LIMIT(set); pvar++)
#define SET_COUNT(set) ((unsigned long)(SET_LIMIT(set) - SET_BEGIN(set)))

#endif
