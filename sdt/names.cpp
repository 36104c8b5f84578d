// Probe naming (see names.h).
#include "names.h"

namespace mk {

std::string probe_name_from_c(const std::string &ident) {
  std::string out;
  for (size_t i = 0; i < ident.size(); i++) {
    if (ident[i] == '_' && i + 1 < ident.size() && ident[i + 1] == '_') {
      out += '-';
      i++;
    } else {
      out += ident[i];
    }
  }
  return out;
}

namespace {
constexpr std::string_view sdt = "__dtrace_sdt_", ise = "__dtrace_isenabled_";
} // namespace

bool is_probe_symbol(std::string_view sym) {
  return sym.substr(0, sdt.size()) == sdt || sym.substr(0, ise.size()) == ise;
}

bool parse_probe_symbol(std::string_view sym, bool &is_enabled,
                        std::string &provider, std::string &name) {
  std::string rest;
  if (sym.substr(0, sdt.size()) == sdt) {
    is_enabled = false;
    rest = sym.substr(sdt.size());
  } else if (sym.substr(0, ise.size()) == ise) {
    is_enabled = true;
    rest = sym.substr(ise.size());
  } else {
    return false;
  }
  size_t sep = rest.find("___");
  if (sep == std::string::npos || sep == 0 || sep + 3 >= rest.size())
    return false;
  provider = rest.substr(0, sep);
  name = probe_name_from_c(rest.substr(sep + 3));
  return true;
}

} // namespace mk
