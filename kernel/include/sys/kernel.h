/*
 * Everything a module usually needs from the kernel, in one include.
 * Modules build -ffreestanding -nostdinc: these headers are the whole ABI.
 */
#ifndef _SYS_KERNEL_H_
#define _SYS_KERNEL_H_

#include <sys/callout.h>
#include <sys/errno.h>
#include <sys/kthread.h>
#include <sys/linker_set.h>
#include <sys/malloc.h>
#include <sys/module.h>
#include <sys/mutex.h>
#include <sys/shell.h>
#include <sys/sysctl.h>
#include <sys/systm.h>

#endif
