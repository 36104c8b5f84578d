// Calls from the kernel into a module's functions (constructors, module
// event handlers, Linux init and exit, shell commands) through a gate that
// checks the stack above the callee's frame.
//
// A function owns its frame and nothing above its return address.  Module
// code that stores past it (a stray store through %rsp or %rbp, a corrupt
// displacement) would overwrite its caller's locals, which the kernel would
// then use far from the module, as if nothing had happened.  The gate puts
// a guard of known words between its own frame and the callee's and checks
// them when the callee returns: a changed word is a panic naming the
// function called, as Linux's stack protector panics naming the function
// whose canary it found overwritten.  Stores that reach past the guard
// (more than 256 bytes above the return address) are not caught.
#pragma once

#include <cstdint>
#include <type_traits>

extern "C" uintptr_t mk_module_call(uintptr_t a0, uintptr_t a1, uintptr_t a2,
                                    uintptr_t a3, const void *fn);

namespace mk {

namespace modcall_detail {
template <class T> uintptr_t word(T v) {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<uintptr_t>(v);
  else
    return static_cast<uintptr_t>(v);
}
} // namespace modcall_detail

// fn(args...) through the gate: up to four integer or pointer arguments,
// a void, integer or pointer result.
template <class R, class... P, class... A> R module_call(R (*fn)(P...), A... a) {
  static_assert(sizeof...(P) <= 4 && sizeof...(P) == sizeof...(A),
                "module_call: up to four arguments, each given");
  static_assert(((std::is_integral_v<P> || std::is_pointer_v<P> ||
                  std::is_enum_v<P>) && ...),
                "module_call: integer or pointer arguments only");
  uintptr_t w[4] = {modcall_detail::word(static_cast<P>(a))...};
  const uintptr_t r =
      mk_module_call(w[0], w[1], w[2], w[3], (const void *)fn);
  if constexpr (std::is_void_v<R>)
    (void)r;
  else if constexpr (std::is_pointer_v<R>)
    return reinterpret_cast<R>(r);
  else
    return static_cast<R>(r);
}

} // namespace mk
