// The one primitive through which minikern writes code and relocated data:
// relocation fields, probe sites rewritten at load, trampolines and stubs,
// and (under the cross-modifying-code protocol of sdt/patch.h) live
// patches.  Each call stores into a *writable view* of the bytes: a module
// image before it is protected, the arena's writable alias, the kernel
// text's alias.  Nothing else in minikern writes instruction bytes.
//
// The hosts are little-endian x86, so a field of `width` bytes is the low
// `width` bytes of the value.
#pragma once

#include "base.h"

namespace mk {

// The little-endian field of `width` bytes at `p`.
inline u64 read_field(const u8 *p, unsigned width) {
  u64 v = 0;
  __builtin_memcpy(&v, p, width);
  return v;
}

namespace code {

// A field of 1, 2, 4 or 8 bytes: one store of that size.
inline void store(u8 *view, unsigned width, u64 value) {
  switch (width) {
  case 1: *view = (u8)value; break;
  case 2: { u16 v = (u16)value; __builtin_memcpy(view, &v, 2); break; }
  case 4: { u32 v = (u32)value; __builtin_memcpy(view, &v, 4); break; }
  case 8: __builtin_memcpy(view, &value, 8); break;
  }
}

// The same field as one 8-byte read-modify-write that keeps the bytes
// outside `mask`: the relocation loop's fast path, for code nobody runs
// yet (8 bytes must be addressable at `view`).
inline void store_masked8(u8 *view, u64 mask, u64 value) {
  u64 old;
  __builtin_memcpy(&old, view, 8);
  old = (old & ~mask) | (value & mask);
  __builtin_memcpy(view, &old, 8);
}

// `n` bytes of instructions.
inline void copy(u8 *view, const void *src, size_t n) {
  __builtin_memcpy(view, src, n);
}

// One byte (the patch protocol's int3 and final first byte).
inline void byte(u8 *view, u8 b) { *(volatile u8 *)view = b; }

} // namespace code
} // namespace mk
