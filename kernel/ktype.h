// The D types of kernel variables, what DTrace reads from the kernel's
// CTF: a script names a variable with D's scoping operator (`max_pfn,
// vmlinux`max_pfn), the dtrace command finds its address among the
// kernel's exports and its type here.  Each KERNEL_DTYPE sits beside the
// definition it describes; `type` is D's spelling of the C type ("unsigned
// long"), with "[]" after it for an array (the variable is its first
// element: `&` of it is a pointer to the element type).
#pragma once

#include <sys/linker_set.h>

struct kernel_dtype {
  const char *kt_name;
  const char *kt_type;
};

#define KERNEL_DTYPE(sym, type)                                                \
  static const kernel_dtype __MK_CONCAT(__kdtype_, __LINE__) = {#sym, type};   \
  DATA_SET(kernel_dtype_set, __MK_CONCAT(__kdtype_, __LINE__))

SET_DECLARE(kernel_dtype_set, const kernel_dtype);
