// Implementation of the few helpers base.h declares.
#include "base.h"

#include <cstdio>
#include <vector>

namespace mk {

// Most messages fit the stack buffer in one pass; a longer one is
// formatted again into a string of its exact size, never cut short.
std::string vstrf(const char *fmt, va_list ap) {
  char buf[512];
  va_list again;
  va_copy(again, ap);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  std::string s;
  if (n > 0 && (size_t)n < sizeof buf) {
    s.assign(buf, (size_t)n);
  } else if (n > 0) {
    s.resize((size_t)n);
    std::vsnprintf(s.data(), (size_t)n + 1, fmt, again);
  }
  va_end(again);
  return s;
}

std::string strf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vstrf(fmt, ap);
  va_end(ap);
  return s;
}

std::string one_line(const std::string &s) {
  std::string o;
  o.reserve(s.size());
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f)
      o += strf("\\x%02x", c);
    else
      o += (char)c;
  return o;
}

} // namespace mk
