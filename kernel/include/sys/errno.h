/*
 * Error numbers shared by the kernel and modules: Linux's, the values the
 * host C library behind the modules' C library sets (most are FreeBSD's
 * too).
 */
#ifndef _SYS_ERRNO_H_
#define _SYS_ERRNO_H_

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define ENOEXEC 8
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define EDOM 33
#define ERANGE 34
#define ENOSYS 38
#define EOVERFLOW 75
#define EILSEQ 84
#define EOPNOTSUPP 95

#endif
