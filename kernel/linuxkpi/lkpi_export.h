// Exports of the Linux kernel API to Linux-format modules (the
// linux_export_set of kernel/export.h).  A Linux name that is also a C
// library name with other semantics (snprintf's %p extensions) is
// implemented under an lkpi_ name and exported under the Linux one.
//
// On i386 Linux code calls with -mregparm=3 (LKAPI, kernel/export.h): an
// exported function is not exported itself but through an adapter the
// export macro instantiates, which takes Linux's convention and calls it
// with the C ABI's, after aligning the stack to the 16 bytes that ABI
// promises (Linux keeps it 4-byte aligned).  Variadic functions and data
// are exported as they are.  On x86_64 the conventions are one, and the
// export is the symbol.
#pragma once

#include "../export.h"

#include <type_traits>

namespace lkabi {

template <class T> struct Variadic : std::false_type {};
template <class R, class... A> struct Variadic<R(A..., ...)> : std::true_type {};
template <class R, class... A>
struct Variadic<R(A..., ...) noexcept> : std::true_type {};

template <class R> constexpr bool small_struct = false;
template <class R>
  requires std::is_class_v<R>
constexpr bool small_struct<R> = sizeof(R) <= 8;

template <auto F, class T> struct Adapter {};
#if defined(__i386__)
// The code an adapter was called from, while the function it adapts runs:
// the module that pays for memory and is named in reports (LKPI_CALLER,
// lkpi.h), which the function's own return address no longer is.
inline thread_local const void *t_caller = nullptr;

template <auto F, class R, class... A> struct Adapter<F, R(A...)> {
  // Linux's i386 code returns small structures in registers
  // (-freg-struct-return), which no attribute of a function asks for.
  static_assert(!small_struct<R>,
                "a small structure returned to i386 Linux code");
  __attribute__((regparm(3), force_align_arg_pointer)) static R call(A... a) {
    struct Scope {
      const void *outer = t_caller;
      explicit Scope(const void *at) { t_caller = at; }
      ~Scope() { t_caller = outer; }
    } scope(__builtin_return_address(0));
    return F(a...);
  }
};
template <auto F, class R, class... A>
struct Adapter<F, R(A...) noexcept> : Adapter<F, R(A...)> {};
#endif

template <auto F> constexpr bool adapted() {
  using T = std::remove_pointer_t<decltype(F)>;
  if constexpr (std::is_function_v<T>)
    return requires { &Adapter<F, T>::call; };
  else
    return false;
}

// What a module binds for `F` (the address of the exported object or
// function): on i386 a function's adapter, unless it is variadic.
template <auto F> constexpr auto entry() {
  using T = std::remove_pointer_t<decltype(F)>;
  if constexpr (adapted<F>()) {
    return &Adapter<F, T>::call;
  } else {
#if defined(__i386__)
    // (A function declared LKAPI itself has no adapter: it is exported
    // with LINUX_EXPORT_LKAPI.)
    static_assert(!std::is_function_v<T> || Variadic<T>::value,
                  "an exported function without an adapter");
#endif
    return F;
  }
}

} // namespace lkabi

#define LINUX_EXPORT_FLAGS(name, sym, flags)                                   \
  static const linux_export __MK_CONCAT(__lexport_, __LINE__) = {              \
      name, (const void *)::lkabi::entry<&(sym)>(),                            \
      (unsigned char)((flags) |                                               \
                      (::lkabi::adapted<&(sym)>() ? LE_REGPARM : 0))};         \
  DATA_SET(linux_export_set, __MK_CONCAT(__lexport_, __LINE__))
// Code with a register convention of its own (the thunks), exported as it
// is.
#define LINUX_EXPORT_CODE(name, sym)                                           \
  static const linux_export __MK_CONCAT(__lexport_, __LINE__) = {              \
      name, (const void *)&(sym), 0};                                          \
  DATA_SET(linux_export_set, __MK_CONCAT(__lexport_, __LINE__))

// A function declared LKAPI (one the API also hands to modules or calls
// through Linux's function pointers: a parameter's set and get, a wake
// function), exported as it is.
#define LINUX_EXPORT_LKAPI(sym)                                                \
  static const linux_export __MK_CONCAT(__lexport_, __LINE__) = {              \
      #sym, (const void *)&(sym), sizeof(void *) == 4 ? LE_REGPARM : 0};       \
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
