// Shared vocabulary of the loader and the kernel: fixed-width integers, and
// errors as values (Result<T>) that travel up to the shell, which prints the
// one line they carry.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace mk {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i8 = std::int8_t;
using i16 = std::int16_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

struct Error {
  std::string message;
};

std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string vstrf(const char *fmt, va_list ap);

inline Error error(std::string msg) { return Error{std::move(msg)}; }

// `s` with control characters shown as \xNN: names inside a file (sections,
// symbols) may hold newlines, and an error is one line.
std::string one_line(const std::string &s);
// The same for an error on its way out.
inline Error one_line(Error e) { return Error{one_line(e.message)}; }

template <class T> class [[nodiscard]] Result {
public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  explicit operator bool() const { return v_.index() == 0; }
  T &operator*() { return std::get<0>(v_); }
  const T &operator*() const { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const T *operator->() const { return &std::get<0>(v_); }
  const Error &error() const { return std::get<1>(v_); }
  Error take_error() { return std::move(std::get<1>(v_)); }

private:
  std::variant<T, Error> v_;
};

template <> class [[nodiscard]] Result<void> {
public:
  Result() = default;
  Result(Error e) : err_(std::move(e)), failed_(true) {}
  explicit operator bool() const { return !failed_; }
  const Error &error() const { return err_; }
  Error take_error() { return std::move(err_); }

private:
  Error err_;
  bool failed_ = false;
};

// Propagate a failed Result<U> out of a function returning Result<T>.
#define MK_TRY(expr)                                                           \
  do {                                                                         \
    auto mk_try_r_ = (expr);                                                   \
    if (!mk_try_r_)                                                            \
      return mk_try_r_.take_error();                                           \
  } while (0)

inline u64 align_up(u64 v, u64 a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// Layout arithmetic on sizes and alignments that come from a file: any of
// them may be near 2^64, so every step says whether it overflowed instead
// of wrapping into a small, plausible number.
inline bool add_ok(u64 a, u64 b, u64 &out) {
  return !__builtin_add_overflow(a, b, &out);
}
// v rounded up to a multiple of power-of-two `a` (0 and 1: no alignment).
inline bool align_ok(u64 v, u64 a, u64 &out) {
  if (a <= 1) {
    out = v;
    return true;
  }
  u64 t;
  if (!add_ok(v, a - 1, t))
    return false;
  out = t & ~(a - 1);
  return true;
}
inline bool is_pow2(u64 a) { return a && !(a & (a - 1)); }

// A function without a function-entry site, whatever the file's build
// flags: what function-boundary tracing itself and every probe firing
// run (tracing it would re-enter the tracer).
#define MK_NOTRACE                                                             \
  __attribute__((no_instrument_function, patchable_function_entry(0, 0)))

// A function that reads stack words assembly or module code wrote (what a
// trampoline saved, the frames a walk crosses).  AddressSanitizer's shadow
// of that memory may still mark the redzones of an instrumented frame that
// once lay at that depth, and no instrumented code wrote it since: its
// check there would report live memory (and can trip AddressSanitizer's
// own frame lookup).  Such a read is checked against the stack's bounds
// instead.
#define MK_READS_RAW_STACK __attribute__((no_sanitize("address")))

// After a call into code that may not have returned through its callees'
// epilogues (module code: a wrecked stack, a jump out of a frame), the
// shadow AddressSanitizer keeps of the stack below the caller may still
// mark the redzones of frames that are gone; the next instrumented
// frames there would be reported for writing their own variables.
// Everything below the current frame is dead: forget it.  Nothing
// without AddressSanitizer.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MK_ASAN 1
#endif
#ifdef MK_ASAN
extern "C" void __asan_handle_no_return();
inline void forget_dead_stack() { __asan_handle_no_return(); }
#else
inline void forget_dead_stack() {}
#endif

// Stack memory that assembly wrote (a trampoline's saved registers and
// arguments) and C++ is about to read: no instrumented frame owns it,
// whatever the shadow still says of the frames that were there before
// (module code may have left them without their epilogues).  Nothing
// without AddressSanitizer.
#ifdef MK_ASAN
extern "C" void __asan_unpoison_memory_region(const volatile void *, size_t);
inline void asm_wrote(const void *p, size_t n) {
  __asan_unpoison_memory_region(p, n);
}
#else
inline void asm_wrote(const void *, size_t) {}
#endif

} // namespace mk
