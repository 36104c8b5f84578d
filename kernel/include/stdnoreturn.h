/*
 * <stdnoreturn.h> for modules (C17 7.23): `noreturn` for _Noreturn, in C.
 *
 * Why our own: clang's (14) defines the macro in C++ too, where it turns
 * the C++ attribute [[noreturn]] into [[_Noreturn]], which clang ignores
 * with a warning; a C++ module that includes a C header using <stdnoreturn.h>
 * would lose its noreturn functions.  gcc's leaves C++ alone; so does this.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <stdnoreturn.h>
#else
#ifndef _MK_STDNORETURN_H_
#define _MK_STDNORETURN_H_

#ifndef __cplusplus
#define noreturn _Noreturn
#endif

#endif /* _MK_STDNORETURN_H_ */
#endif /* !__STDC_HOSTED__ */
