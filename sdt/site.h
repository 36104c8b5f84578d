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
#include <functional>
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
  Entry,         // a function's entry (fbt) -> NOPs       / jmp (i386: call) stub
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
  std::string_view function; // its name, or the section's (a view of
                             // the object file)
  u64 value = 0;        // the symbol's offset in the section
};
SiteHolder find_holder(const ObjectFile &obj, u32 section, u64 off);

// find_holder() for many sites of one object: the function symbols sorted
// once, each lookup a binary search (a module may have 100 000 functions,
// each with an entry site).
class HolderIndex {
public:
  explicit HolderIndex(const ObjectFile &obj);
  // `hint`, if given, is kept between lookups made in ascending order
  // (start it at 0): each is then a step or two on from the last.
  SiteHolder find(u32 section, u64 off, size_t *hint = nullptr) const;

private:
  const ObjectFile &obj_;
  // STT_FUNC symbols by (section, value), copied out of the symbol table
  // so that sorting and searching touch one small array.
  struct Func {
    u64 value, end; // end: value + max(size, 1)
    u32 section, sym;
    bool local;
    bool operator<(const Func &o) const {
      return section != o.section ? section < o.section : value < o.value;
    }
  };
  std::vector<Func> funcs_;
};

// The function name a person knows: without the compiler's clone suffixes
// (foo.constprop.0, foo.isra.0, foo.part.0, foo.cold) and, for C++,
// demangled without parameters (Shell::run_line).
std::string pretty_function(std::string_view symbol);

// Where a site is, as every message about one names it:
// "memdev.ko:(.text+0x1a)".
std::string site_where(const ObjectFile &obj, u32 section, u64 off);

// The argument types an SDT_PROBE_DEFINE declared for (provider, name),
// from a set of definitions; empty if none matches.
std::vector<std::string>
probedef_argtypes(const std::vector<const sdt_probedef *> &defs,
                  const std::string &provider, const std::string &name);

// ---- function-entry sites (fbt) ---------------------------------------------------
//
// A function compiled for function-boundary tracing has a patch area the
// compiler marked: a call of __fentry__ first thing (-pg -mfentry), a call
// of mcount after the frame-pointer prologue (-pg), a 5-byte NOP listed in
// __mcount_loc (gcc -mrecord-mcount -mnop-mcount), or NOPs listed in
// __patchable_function_entries (-fpatchable-function-entry=5).  Each
// becomes one NOP instruction of its own length (5 bytes, 6 for a call
// through the GOT): an entry site (SiteKind::Entry).

// Where in its function an entry site is, which says where the function's
// return address (and, on i386, its arguments) are when the site runs.
enum class EntryStyle : u8 {
  AtEntry,    // first instruction (after an endbr): [sp] is the return address
  AfterFrame, // after push %rbp; mov %rsp,%rbp: the return address is at fp + 1 word
};

// Whether `sym` is a function-entry hook a compiler calls
// (__fentry__, mcount, _mcount).
bool is_entry_symbol(std::string_view sym);

// The call instruction a relocation against an entry symbol sits in.  gcc's
// large code model calls through a register the code before it loads
// (movabs $__fentry__,%r10; call *%r10: 13 bytes; when PIC, a GOT-relative
// sequence of 36): the site is then the first 5 bytes and the rest of the
// sequence NOP padding the function runs after it.
struct FoundEntry {
  u64 insn_off = 0; // in its section
  u8 len = 0;       // 5 (call rel32) or 6 (call through the GOT)
  u8 span = 0;      // the compiler's sequence, len or more
};
Result<FoundEntry> find_entry_call(const ObjectFile &obj, u32 section,
                                   const Reloc &r, const u8 *text);

// Whether the `n` bytes at `p` are nothing but NOP instructions (90, 66 90,
// 0f 1f /0 in its lengths): what compilers fill a patch area with.
bool is_nop_area(const u8 *p, size_t n);

// The style of an entry site `site_off` bytes into a function whose first
// bytes are `func` (`size` of them); an error says what is wrong, after
// what `where` makes ("memdev.ko: memdev_write": only asked on an error,
// a module may have 100 000 sites).
Result<EntryStyle> entry_style(const u8 *func, u64 size, u64 site_off,
                               bool is64,
                               const std::function<std::string()> &where);

} // namespace mk
