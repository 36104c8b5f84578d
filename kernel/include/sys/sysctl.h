/*
 * sysctl nodes: named integers and strings a person reads and sets from the
 * shell (`sysctl hello.greeting=hi`).  Static nodes are declared with the
 * macros below and go live when the module loads; they vanish at unload.
 */
#ifndef _SYS_SYSCTL_H_
#define _SYS_SYSCTL_H_

#include <stddef.h>
#include <sys/linker_set.h>

#define CTLFLAG_RD 0x1
#define CTLFLAG_WR 0x2
#define CTLFLAG_RW (CTLFLAG_RD | CTLFLAG_WR)

#define CTLTYPE_INT 1
#define CTLTYPE_STRING 2

struct sysctl_oid {
	const char *oid_name;  /* dotted path, e.g. "hello.greeting" */
	int oid_kind;          /* CTLTYPE_* */
	int oid_flags;         /* CTLFLAG_* */
	void *oid_arg;         /* int * or char buffer */
	size_t oid_len;        /* buffer size for strings */
	const char *oid_descr;
};

#define __SYSCTL_DEFINE(name, kind, flags, ptr, len, descr)                    \
	static struct sysctl_oid __MK_CONCAT(__sysctl_oid_, __LINE__) = {      \
		name, kind, flags, (void *)(ptr), len, descr };                 \
	DATA_SET(sysctl_set, __MK_CONCAT(__sysctl_oid_, __LINE__))

#define SYSCTL_INT(name, flags, ptr, descr)                                    \
	__SYSCTL_DEFINE(name, CTLTYPE_INT, flags, ptr, sizeof(int), descr)
#define SYSCTL_STRING(name, flags, buf, len, descr)                            \
	__SYSCTL_DEFINE(name, CTLTYPE_STRING, flags, buf, len, descr)

#endif
