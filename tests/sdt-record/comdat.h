/*
 * The COMDAT case of the site recorder's test: an inline function that
 * every object using it emits in a COMDAT group, the linker keeping one
 * copy.  comdat_traced.cc is compiled with entry sites (-pg -mfentry),
 * comdat_untraced.cc without, as the kernel's NOTRACE_SRCS are; both pass
 * through sdt-record.  The records of the copy the linker drops must go
 * with it.
 */
#ifndef COMDAT_H
#define COMDAT_H

#include <sys/sdt.h>

SDT_PROBE_DECLARE(test, , , inl);

inline int __attribute__((noinline)) comdat_twice(int x)
{
	int r = x * 2;
	SDT_PROBE0(test, , , inl);
	return r + 1;
}

int via_traced(int x);
int via_untraced(int x);

#endif
