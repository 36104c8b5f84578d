// The site model: what a probe site is, found the same way by the module
// loader (at load, from a module's relocations) and by the site recorder
// (at build time, from a kernel object's relocations).
//
// A site is a call or jump to an undefined probe function
// __dtrace_sdt_<provider>___<name> (or an is-enabled test,
// __dtrace_isenabled_<provider>___<name>), where "__" inside a C identifier
// stands for "-" in the probe's name.  find_site() says which instruction
// it is and so what it becomes (its SiteKind); find_holder() names the
// function that holds it; probedef_argtypes() gives the argument types the
// probe's SDT_PROBE_DEFINE declared.
#pragma once

#include "../linker/object.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sdt_probedef;

namespace mk {

// What instruction a site was and so what it becomes.
enum class SiteKind : u8 {
  Call,          // call probe            -> NOPs          / call trampoline
  TailJump,      // jmp probe (tail call) -> ret + NOPs    / jmp trampoline
  IsEnabled,     // call is-enabled       -> xor eax + NOPs / mov $1,%eax
  IsEnabledTail, // jmp is-enabled        -> xor eax; ret  / jmp ret-1 stub
  Goto,          // asm-goto patch point  (5-byte NOP)   / jmp out-of-line block
};
const char *site_kind_name(SiteKind k); // "call site", ...

// ---- probe function names

// The DTrace name for a C identifier: "module__load" -> "module-load".
std::string probe_name_from_c(std::string_view ident);
// Whether `sym` names a probe function (the one place the prefix is
// tested).  A malformed one is still a probe symbol, and an error.
bool is_probe_symbol(std::string_view sym);

struct ProbeSymbol {
  bool is_enabled = false;
  std::string provider, name; // name with '-'
};
// Split a probe function's symbol; empty if it is not a well-formed one.
std::optional<ProbeSymbol> parse_probe_symbol(std::string_view sym);

// ---- sites in an object

// The site a relocation against a probe symbol makes.
struct FoundSite {
  ProbeSymbol probe;
  bool address_load = false; // the code loads the probe function's address
                             // (to call it through a register): no
                             // instruction to rewrite here
  u64 insn_off = 0;          // of the instruction in its section
  u8 len = 0;                // 5 or 6
  SiteKind kind = SiteKind::Call;
};

// The site relocation `r` of section `section` makes; `text` holds the
// section's bytes as they are now (the object's, or the loader's copy).
// An error names the object, section+offset and what is wrong.
Result<FoundSite> find_site(const ObjectFile &obj, u32 section, const Reloc &r,
                            const u8 *text);

// The function that holds offset `off` of `section`: the STT_FUNC symbol
// whose range holds it (a size-0 one holds its first byte), a global name
// before a local alias; else the section itself.
struct SiteHolder {
  u32 sym = 0;          // the symbol (STT_FUNC or STT_SECTION), 0: none
  std::string function; // its name, or the section's
  u64 value = 0;        // the symbol's offset in the section
};
SiteHolder find_holder(const ObjectFile &obj, u32 section, u64 off);

// The function name a person knows: without the compiler's clone suffixes
// (foo.constprop.0, foo.isra.0, foo.part.0, foo.cold) and, for C++,
// demangled without parameters (Shell::run_line).
std::string pretty_function(std::string_view symbol);

// The argument types an SDT_PROBE_DEFINE declared for (provider, name),
// from a set of definitions; empty if none matches.
std::vector<std::string>
probedef_argtypes(const std::vector<const sdt_probedef *> &defs,
                  const std::string &provider, const std::string &name);

} // namespace mk
