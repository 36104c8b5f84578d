// Exports of the Linux kernel API to Linux-format modules (the
// linux_export_set of kernel/export.h).  A Linux name that is also a C
// library name with other semantics (snprintf's %p extensions) is
// implemented under an lkpi_ name and exported under the Linux one.
#pragma once

#include "../export.h"

#define LINUX_EXPORT_FLAGS(name, sym, flags)                                   \
  static const linux_export __MK_CONCAT(__lexport_, __LINE__) = {              \
      name, (const void *)&(sym), flags};                                      \
  DATA_SET(linux_export_set, __MK_CONCAT(__lexport_, __LINE__))

#define LINUX_EXPORT_AS(name, sym) LINUX_EXPORT_FLAGS(name, sym, 0)
#define LINUX_EXPORT(sym) LINUX_EXPORT_FLAGS(#sym, sym, 0)
#define LINUX_EXPORT_GPL(sym) LINUX_EXPORT_FLAGS(#sym, sym, LE_GPL)
// A per-CPU variable at `offset` in every CPU's area.
#define LINUX_EXPORT_PERCPU(name, offset)                                      \
  static const linux_export __MK_CONCAT(__lexport_, __LINE__) = {              \
      name, (const void *)(uintptr_t)(offset), LE_PERCPU};                     \
  DATA_SET(linux_export_set, __MK_CONCAT(__lexport_, __LINE__))
#define LINUX_EXPORT_PERCPU_GPL(name, offset)                                  \
  static const linux_export __MK_CONCAT(__lexport_, __LINE__) = {              \
      name, (const void *)(uintptr_t)(offset), LE_PERCPU | LE_GPL};            \
  DATA_SET(linux_export_set, __MK_CONCAT(__lexport_, __LINE__))
