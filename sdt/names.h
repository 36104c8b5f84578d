// Probe naming shared by the loader's site handler and the site recorder:
// __dtrace_sdt_<provider>___<name> and __dtrace_isenabled_<provider>___<name>,
// where "__" inside a C identifier stands for "-" in the probe's name.
#pragma once

#include <string>
#include <string_view>

namespace mk {

// The DTrace name for a C identifier: "module__load" -> "module-load".
std::string probe_name_from_c(const std::string &ident);

// Whether `sym` names a probe function (the prefix test: the one place it
// is made).  A malformed one is still a probe symbol, and an error.
bool is_probe_symbol(std::string_view sym);

// Split a probe function's symbol; false if `sym` is not one.
bool parse_probe_symbol(std::string_view sym, bool &is_enabled,
                        std::string &provider, std::string &name);

} // namespace mk
