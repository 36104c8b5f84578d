// The kernel variables D can name, with their types (what DTrace reads
// from the kernel's symbol table and CTF): a script names one with D's
// scoping operator (`max_pfn, vmlinux`max_pfn), and the dtrace command
// finds its address and type here.  Being named here exports nothing to
// modules.  Each KERNEL_DTYPE sits beside the definition it describes; `type` is D's spelling of the C type ("unsigned
// long"), with "[]" after it for an array (the variable is its first
// element: `&` of it is a pointer to the element type).
#pragma once

#include <sys/linker_set.h>

struct kernel_dtype {
  const char *kt_name;
  const char *kt_type;
  const void *kt_addr;
};

#define KERNEL_DTYPE(sym, type)                                                \
  static const kernel_dtype __MK_CONCAT(__kdtype_, __LINE__) = {               \
      #sym, type, (const void *)&(sym)};                                       \
  DATA_SET(kernel_dtype_set, __MK_CONCAT(__kdtype_, __LINE__))

SET_DECLARE(kernel_dtype_set, const kernel_dtype);
