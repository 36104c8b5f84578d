// The kernel's export table: the only symbols a module can bind to.  Each
// EXPORT_SYMBOL puts a {name, address} record into the `kernel_export_set`
// linker set of the kernel image (Linux's __ksymtab, FreeBSD's symbol table).
#pragma once

#include <sys/linker_set.h>

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
