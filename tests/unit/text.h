// Text helpers the unit tests share.
#pragma once

#include <cctype>
#include <string>

namespace mkt {

// `s` with each `prefix` followed by a decimal number replaced by `as`: the
// BPF pc in an error line ("at BPF pc 17"), which the code generator decides.
inline std::string replace_numbered(const std::string &s,
                                    const std::string &prefix,
                                    const std::string &as) {
  std::string out;
  size_t from = 0;
  for (size_t at; (at = s.find(prefix, from)) != std::string::npos;) {
    size_t end = at + prefix.size();
    while (end < s.size() && std::isdigit((unsigned char)s[end]))
      end++;
    if (end == at + prefix.size()) { // no number: keep the text
      out.append(s, from, end - from);
    } else {
      out.append(s, from, at - from);
      out += as;
    }
    from = end;
  }
  return out.append(s, from, std::string::npos);
}

} // namespace mkt
