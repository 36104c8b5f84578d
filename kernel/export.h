// The kernel's export table: the only symbols a module can bind to.  Each
// EXPORT_SYMBOL puts a {name, address} record into the `kernel_export_set`
// linker set of the kernel image (Linux's __ksymtab, FreeBSD's symbol table).
#pragma once

#include <sys/linker_set.h>

// Linux's calling convention, for every function Linux code calls or
// hands over (a callback of a timer, a work item, a parameter's ops ...).
// i386 Linux is built with -mregparm=3: the first three integer
// arguments in %eax, %edx and %ecx, the rest on the stack (variadic
// functions keep everything on the stack).  On x86_64 it is the psABI's,
// and LKAPI is nothing.
#if defined(__i386__)
#define LKAPI __attribute__((regparm(3)))
#else
#define LKAPI
#endif

struct kernel_export {
  const char *ke_name;
  const void *ke_addr;
};

#define EXPORT_SYMBOL_AS(name, sym)                                            \
  static const kernel_export __MK_CONCAT(__kexport_, __LINE__) = {             \
      name, (const void *)&(sym)};                                             \
  DATA_SET(kernel_export_set, __MK_CONCAT(__kexport_, __LINE__))

#define EXPORT_SYMBOL(sym) EXPORT_SYMBOL_AS(#sym, sym)

SET_DECLARE(kernel_export_set, const kernel_export);

// The Linux kernel API's exports (kernel/linuxkpi/): a namespace of their
// own, bound only by Linux-format modules, as minikern modules bind only
// kernel_export_set.  A per-CPU export's "address" is its offset in every
// CPU's area (kern_percpu.h), which code reaches through %gs (%fs on
// i386).  LE_REGPARM: a function taking Linux's calling convention (an
// adapter the export macros make; kernel/linuxkpi/lkpi_export.h).
enum : unsigned char { LE_GPL = 1, LE_PERCPU = 2, LE_REGPARM = 4 };
struct linux_export {
  const char *le_name;
  const void *le_addr;
  unsigned char le_flags;
};
SET_DECLARE(linux_export_set, const linux_export);
