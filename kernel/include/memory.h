/*
 * <memory.h> for modules: the old System V name of the memory functions,
 * still included by real code (every file of some libraries starts with
 * it).  It is <string.h>, as on the C libraries that keep it.
 *
 * The kernel itself (hosted, built with -I kernel/include) gets the C
 * library's header unchanged.
 */
#if __STDC_HOSTED__
#include_next <memory.h>
#else
#ifndef _MK_MEMORY_H_
#define _MK_MEMORY_H_

#include <string.h>

#endif /* _MK_MEMORY_H_ */
#endif /* !__STDC_HOSTED__ */
