// <stdio.h> for modules (kernel/include/stdio.h): the host libc's string
// formatting and scanning in the C locale, and puts/putchar to the console
// beside printf (libkern.cpp).  There are no FILE streams.
//
// Each variadic export has its v* form, which takes the module's va_list:
// modules and the kernel share the psABI's va_list (a pointer to the
// register save area's tag on x86_64, a stack pointer on i386), so the
// wrappers hand it on unchanged.
#include "libkern_c.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

using mk::CLocaleScope;

namespace {

// Whether a scanf format has a conversion with the 'm' (allocate) flag,
// %ms, %m[...], %mc, possibly with a position or width before it.  The C
// library would allocate the buffer with its own malloc, which the module's
// free() (the kernel's allocator, with its per-module accounting) cannot
// release.
bool scan_allocates(const char *fmt) {
  for (const char *p = fmt; *p; p++) {
    if (*p != '%')
      continue;
    p++;
    if (*p == '%')
      continue;
    const char *q = p;
    while (*q >= '0' && *q <= '9')
      q++;
    if (*q == '$') // %N$: the argument's position
      p = q + 1;
    if (*p == '*')
      p++;
    while (*p >= '0' && *p <= '9')
      p++;
    if (*p == 'm')
      return true;
    while (*p && std::strchr("hljztLq", *p))
      p++;
    if (*p == '[') { // a scanset: ']' right after '[' or "[^" is a member
      p++;
      if (*p == '^')
        p++;
      if (*p == ']')
        p++;
      while (*p && *p != ']')
        p++;
    }
    if (!*p)
      break;
  }
  return false;
}

} // namespace

extern "C" {

int kern_printf(const char *fmt, ...); // libkern.cpp

int kern_vsprintf(char *b, const char *f, va_list ap) {
  CLocaleScope c;
  return std::vsprintf(b, f, ap);
}
int kern_sprintf(char *b, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int r = kern_vsprintf(b, f, ap);
  va_end(ap);
  return r;
}
int kern_vsnprintf(char *b, size_t n, const char *f, va_list ap) {
  CLocaleScope c;
  return std::vsnprintf(b, n, f, ap);
}
int kern_snprintf(char *b, size_t n, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int r = kern_vsnprintf(b, n, f, ap);
  va_end(ap);
  return r;
}

int kern_vsscanf(const char *s, const char *f, va_list ap) {
  if (scan_allocates(f)) {
    errno = EINVAL;
    return EOF;
  }
  CLocaleScope c;
  return std::vsscanf(s, f, ap);
}
int kern_sscanf(const char *s, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int r = kern_vsscanf(s, f, ap);
  va_end(ap);
  return r;
}

// The console, like printf; gcc turns printf("text\n") into puts("text")
// and printf("%c", c) into putchar(c) when builtins are enabled.
int kern_puts(const char *s) { return kern_printf("%s\n", s) < 0 ? EOF : 1; }
int kern_putchar(int c) {
  unsigned char ch = (unsigned char)c;
  return kern_printf("%c", ch) < 0 ? EOF : ch;
}

} // extern "C"

EXPORT_SYMBOL_AS("sprintf", kern_sprintf);
EXPORT_SYMBOL_AS("vsprintf", kern_vsprintf);
EXPORT_SYMBOL_AS("snprintf", kern_snprintf);
EXPORT_SYMBOL_AS("vsnprintf", kern_vsnprintf);
EXPORT_SYMBOL_AS("sscanf", kern_sscanf);
EXPORT_SYMBOL_AS("vsscanf", kern_vsscanf);
EXPORT_SYMBOL_AS("puts", kern_puts);
EXPORT_SYMBOL_AS("putchar", kern_putchar);
