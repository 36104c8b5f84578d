// The site model (see site.h).
#include "site.h"

#include "x86.h"

#include <sys/sdt.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <cxxabi.h>
#include <elf.h>

namespace mk {

const char *site_kind_name(SiteKind k) {
  switch (k) {
  case SiteKind::Call: return "call";
  case SiteKind::TailJump: return "tail call";
  case SiteKind::IsEnabled: return "is-enabled";
  case SiteKind::IsEnabledTail: return "is-enabled tail";
  case SiteKind::Goto: return "asm-goto";
  case SiteKind::Entry: return "entry";
  }
  return "?";
}

// ---- probe function names ------------------------------------------------------

namespace {
constexpr std::string_view kSdt = "__dtrace_sdt_",
                           kIsEnabled = "__dtrace_isenabled_";
} // namespace

std::string probe_name_from_c(std::string_view ident) {
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

bool is_probe_symbol(std::string_view sym) {
  return sym.substr(0, kSdt.size()) == kSdt ||
         sym.substr(0, kIsEnabled.size()) == kIsEnabled;
}

std::optional<ProbeSymbol> parse_probe_symbol(std::string_view sym) {
  ProbeSymbol p;
  std::string_view rest;
  if (sym.substr(0, kSdt.size()) == kSdt) {
    rest = sym.substr(kSdt.size());
  } else if (sym.substr(0, kIsEnabled.size()) == kIsEnabled) {
    p.is_enabled = true;
    rest = sym.substr(kIsEnabled.size());
  } else {
    return std::nullopt;
  }
  size_t sep = rest.find("___");
  if (sep == std::string_view::npos || sep == 0 || sep + 3 >= rest.size())
    return std::nullopt;
  p.provider = std::string(rest.substr(0, sep));
  p.name = probe_name_from_c(rest.substr(sep + 3));
  return p;
}

// ---- sites in an object ------------------------------------------------------------

Result<FoundSite> find_site(const ObjectFile &obj, u32 section, const Reloc &r,
                            const u8 *text) {
  const Symbol &sym = obj.symbols[r.sym];
  const Section &sec = obj.sections[section];
  const std::string where = site_where(obj, section, r.offset);
  FoundSite f;
  auto ps = parse_probe_symbol(sym.name);
  if (!ps)
    return error(strf("%s: malformed probe symbol %s", where.c_str(),
                      sym.name.c_str()));
  f.probe = std::move(*ps);
  if (!(sec.flags & SHF_EXECINSTR))
    return error(strf("%s: probe symbol %s referenced outside code",
                      where.c_str(), sym.name.c_str()));
  if (!obj.arch->table()[r.type].howto)
    return error(strf("%s: probe symbol %s in a %s relocation", where.c_str(),
                      sym.name.c_str(), obj.arch->type_name(r.type).c_str()));
  const RelocHowto how = obj.howto(section, r);
  const bool is64 = obj.arch->elf_class() == ELFCLASS64;
  auto insn = x86::recognise(text, r.offset, how.expr, is64);
  if (!insn) {
    if (x86::is_address_load(text, r.offset, how.expr, how.width, is64)) {
      f.address_load = true;
      f.kind = f.probe.is_enabled ? SiteKind::IsEnabledTail
                                  : SiteKind::TailJump;
      return f;
    }
    std::string bytes;
    for (u64 i = r.offset >= 2 ? r.offset - 2 : 0;
         i < r.offset + 4 && i < sec.size; i++)
      bytes += strf("%s%02x", bytes.empty() ? "" : " ", text[i]);
    return error(strf("%s: probe site %s is not a call or jump (%s, bytes "
                      "%s)",
                      where.c_str(), sym.name.c_str(),
                      obj.arch->type_name(r.type).c_str(), bytes.c_str()));
  }
  f.insn_off = insn->offset;
  f.len = insn->len;
  f.kind = f.probe.is_enabled
               ? (insn->jump ? SiteKind::IsEnabledTail : SiteKind::IsEnabled)
               : (insn->jump ? SiteKind::TailJump : SiteKind::Call);
  return f;
}

SiteHolder find_holder(const ObjectFile &obj, u32 section, u64 off) {
  SiteHolder h;
  for (size_t i = 1; i < obj.symbols.size(); i++) {
    const Symbol &s = obj.symbols[i];
    if (s.type != STT_FUNC || s.shndx != section)
      continue;
    if (off < s.value || off >= s.value + std::max<u64>(s.size, 1))
      continue;
    if (h.sym == 0 || obj.symbols[h.sym].bind == STB_LOCAL) {
      h.sym = (u32)i;
      h.function = s.name;
      h.value = s.value;
    }
  }
  if (h.sym)
    return h;
  for (size_t i = 1; i < obj.symbols.size(); i++)
    if (obj.symbols[i].type == STT_SECTION && obj.symbols[i].shndx == section) {
      h.sym = (u32)i;
      h.value = obj.symbols[i].value;
      break;
    }
  h.function = obj.sections[section].name;
  return h;
}

HolderIndex::HolderIndex(const ObjectFile &obj) : obj_(obj) {
  for (size_t i = 1; i < obj.symbols.size(); i++) {
    const Symbol &s = obj.symbols[i];
    if (s.type == STT_FUNC)
      funcs_.push_back(Func{s.value, s.value + std::max<u64>(s.size, 1),
                            s.shndx, (u32)i, s.bind == STB_LOCAL});
  }
  // Sorted by (section, value) in a few linear passes (a least
  // significant digit radix sort of 11-bit digits): a module may have
  // 100 000 functions, and the symbol table's order is the compiler's.
  u32 max_sec = 0;
  u64 max_val = 0;
  for (const Func &f : funcs_)
    max_sec = std::max(max_sec, f.section), max_val = std::max(max_val, f.value);
  const int vbits = std::bit_width(max_val), sbits = std::bit_width(max_sec);
  if (vbits + sbits >= 64) { // (a key of 64 bits: a value of 2^63 or more)
    std::sort(funcs_.begin(), funcs_.end());
    return;
  }
  auto key = [&](const Func &f) { return (u64)f.section << vbits | f.value; };
  constexpr int kDigit = 11;
  std::vector<Func> tmp(funcs_.size());
  for (int shift = 0; shift < vbits + sbits; shift += kDigit) {
    u32 count[(1u << kDigit) + 1] = {};
    for (const Func &f : funcs_)
      count[((key(f) >> shift) & ((1u << kDigit) - 1)) + 1]++;
    for (u32 d = 1; d <= (1u << kDigit); d++)
      count[d] += count[d - 1];
    for (const Func &f : funcs_)
      tmp[count[(key(f) >> shift) & ((1u << kDigit) - 1)]++] = f;
    funcs_.swap(tmp);
  }
}

SiteHolder HolderIndex::find(u32 section, u64 off, size_t *hint) const {
  // The symbols starting at or before `off` in `section`, nearest first;
  // functions do not overlap, so the first few that hold it are aliases.
  // With a hint (lookups in ascending order), a walk on from the last.
  const Func key{off, 0, section, 0, false};
  auto it = funcs_.begin();
  if (hint && *hint <= funcs_.size() &&
      (*hint == 0 || !(key < funcs_[*hint - 1]))) {
    it += (std::ptrdiff_t)*hint;
    while (it != funcs_.end() && !(key < *it))
      ++it;
    *hint = (size_t)(it - funcs_.begin());
  } else {
    it = std::upper_bound(funcs_.begin(), funcs_.end(), key);
    if (hint)
      *hint = (size_t)(it - funcs_.begin());
  }
  SiteHolder h;
  bool local = false;
  while (it != funcs_.begin()) {
    --it;
    if (it->section != section || off >= it->end)
      break;
    if (h.sym == 0 || local) {
      h.sym = it->sym;
      local = it->local;
    }
  }
  if (!h.sym) // outside every function: the slow path names the section
    return find_holder(obj_, section, off);
  const Symbol &s = obj_.symbols[h.sym];
  h.function = s.name;
  h.value = s.value;
  return h;
}

std::string site_where(const ObjectFile &obj, u32 section, u64 off) {
  return strf("%s:(%s+0x%llx)", obj.name.c_str(),
              obj.sections[section].name.c_str(), (unsigned long long)off);
}

namespace {

// Where the function's own name starts in a demangled `head` (what comes
// before its parameter list): after the return type that template
// functions carry ("void tv<int>", "decltype ({parm#1}.x) getx<S>"), which
// ends at the last space outside brackets.  An operator's name holds
// spaces and brackets of its own ("operator new", "operator unsigned
// long", "operator><int>"): the scan starts before it.
size_t name_start(std::string_view head) {
  size_t end = head.size();
  for (size_t at = head.rfind("operator"); at != std::string_view::npos;
       at = at ? head.rfind("operator", at - 1) : std::string_view::npos) {
    const size_t after = at + 8;
    const bool word_start = at == 0 || head[at - 1] == ':' || head[at - 1] == ' ';
    const bool word_end = after == head.size() ||
                          !(std::isalnum((unsigned char)head[after]) ||
                            head[after] == '_');
    if (word_start && word_end) {
      end = at;
      break;
    }
  }
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    const char c = head[i];
    if (c == ')' || c == '>' || c == ']' || c == '}')
      depth++;
    else if (c == '(' || c == '<' || c == '[' || c == '{')
      depth--;
    else if (c == ' ' && depth == 0)
      return i + 1;
  }
  return 0;
}

// The demangled name without its parameter list, qualifiers and return
// type: "Shell::run_line", "tv<int>", "S::operator<".
std::string function_part(std::string s) {
  // The qualifiers after the parameters: "S::get() const &".
  for (bool more = true; more;) {
    more = false;
    for (const char *q : {" const", " volatile", " &&", " &", " noexcept"}) {
      const size_t n = std::strlen(q);
      if (s.size() > n && s.compare(s.size() - n, n, q) == 0) {
        s.resize(s.size() - n);
        more = true;
      }
    }
  }
  // The parameter list is the last parenthesised group; before it, the
  // return type (if any) and the name.
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')')
        depth++;
      else if (s[i] == '(' && --depth == 0) {
        s.resize(i);
        break;
      }
    }
    s.erase(0, name_start(s));
  }
  // A function-local entity (a lambda's operator()) goes by the function
  // it is in: cut at the first top-level '('.
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '<')
      depth++;
    else if (s[i] == '>')
      depth--;
    else if (s[i] == '(' && depth == 0 &&
             s.compare(i, 12, "(anonymous n") != 0 &&
             !(i >= 8 && s.compare(i - 8, 10, "operator()") == 0))
      return s.substr(0, i);
  }
  return s;
}

} // namespace

std::string pretty_function(std::string_view symbol) {
  std::string mangled(symbol);
  size_t dot = mangled.find('.');
  if (dot != std::string::npos && dot > 0)
    mangled.resize(dot);
  // Only C++ names are mangled: "f" is a C function, not the type float.
  if (mangled.compare(0, 2, "_Z") != 0)
    return mangled;
  int st = 0;
  char *d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &st);
  if (st != 0 || !d)
    return mangled;
  std::string s = d;
  free(d);
  // The kernel's own namespaces say nothing in a probe's name.
  for (const char *ns : {"(anonymous namespace)::", "mk::"})
    for (size_t at; (at = s.find(ns)) != std::string::npos;)
      s.erase(at, std::strlen(ns));
  return function_part(std::move(s));
}

std::vector<std::string>
probedef_argtypes(const std::vector<const sdt_probedef *> &defs,
                  const std::string &provider, const std::string &name) {
  std::vector<std::string> out;
  for (const sdt_probedef *d : defs) {
    if (provider != (d->provider ? d->provider : "") ||
        name != probe_name_from_c(d->name ? d->name : ""))
      continue;
    for (int i = 0; i < d->nargs && i < 6; i++)
      out.push_back(d->argtypes[i] ? d->argtypes[i] : "uintptr_t");
    break;
  }
  return out;
}

// ---- function-entry sites ---------------------------------------------------------

bool is_entry_symbol(std::string_view sym) {
  return sym == "__fentry__" || sym == "mcount" || sym == "_mcount";
}

namespace {
// gcc -mcmodel=large's call of __fentry__ through %r10, around a relocation
// at `off` of a `size`-byte section `text`, or nothing:
//   movabs $__fentry__,%r10; call *%r10                 (R_X86_64_64)
//   movabs $_GLOBAL_OFFSET_TABLE_-.,%r11; lea .(%rip),%r10; add %r11,%r10;
//   movabs $__fentry__@PLTOFF,%r11; add %r11,%r10; call *%r10
//                                               (PIC: R_X86_64_PLTOFF64)
// The other relocation of the PIC form (GOTPC64, at +2) is written first,
// into bytes the padding then covers.
std::optional<FoundEntry> large_model_entry(const u8 *text, u64 size, u64 off,
                                            RelExpr expr, bool is64) {
  if (!is64)
    return std::nullopt;
  static const u8 movabs_r10[] = {0x49, 0xba}, movabs_r11[] = {0x49, 0xbb},
                  lea_r10[] = {0x4c, 0x8d, 0x15}, add_r11_r10[] = {0x4d, 0x01, 0xda},
                  call_r10[] = {0x41, 0xff, 0xd2};
  auto at = [&](u64 o, const u8 *b, size_t n) {
    return o + n <= size && std::memcmp(text + o, b, n) == 0;
  };
  if (expr == RelExpr::Abs && off >= 2 && at(off - 2, movabs_r10, 2) &&
      at(off + 8, call_r10, 3))
    return FoundEntry{off - 2, 5, 13};
  if (expr == RelExpr::GotRel && off >= 0x16 && at(off - 0x16, movabs_r11, 2) &&
      at(off - 0x0c, lea_r10, 3) && at(off - 0x05, add_r11_r10, 3) &&
      at(off - 0x02, movabs_r11, 2) && at(off + 0x08, add_r11_r10, 3) &&
      at(off + 0x0b, call_r10, 3))
    return FoundEntry{off - 0x16, 5, 0x24};
  return std::nullopt;
}
} // namespace

Result<FoundEntry> find_entry_call(const ObjectFile &obj, u32 section,
                                   const Reloc &r, const u8 *text) {
  const Section &sec = obj.sections[section];
  // Named only on an error: a module may have 100 000 entry sites.
  const char *sym = obj.symbols[r.sym].name.c_str();
  auto where = [&] { return site_where(obj, section, r.offset); };
  if (!(sec.flags & SHF_EXECINSTR))
    return error(strf("%s: %s referenced outside code", where().c_str(), sym));
  if (!obj.arch->table()[r.type].howto)
    return error(strf("%s: %s in a %s relocation", where().c_str(), sym,
                      obj.arch->type_name(r.type).c_str()));
  const RelocHowto how = obj.howto(section, r);
  if (auto large = large_model_entry(text, sec.size, r.offset, how.expr,
                                     obj.arch->elf_class() == ELFCLASS64))
    return *large;
  auto insn = x86::recognise(text, r.offset, how.expr,
                             obj.arch->elf_class() == ELFCLASS64);
  if (!insn || insn->jump) {
    std::string bytes;
    for (u64 i = r.offset >= 2 ? r.offset - 2 : 0;
         i < r.offset + 4 && i < sec.size; i++)
      bytes += strf("%s%02x", bytes.empty() ? "" : " ", text[i]);
    return error(strf("%s: function-entry hook %s is not called here (%s, "
                      "bytes %s); build the module with FBT=patchable",
                      where().c_str(), sym,
                      obj.arch->type_name(r.type).c_str(), bytes.c_str()));
  }
  return FoundEntry{insn->offset, insn->len, insn->len};
}

namespace {
// The length of the NOP instruction at `p` (at most `n` bytes), or 0.
size_t nop_length(const u8 *p, size_t n) {
  size_t i = 0;
  while (i < n && p[i] == 0x66) // operand-size prefixes pad NOPs out
    i++;
  if (i < n && p[i] == 0x90)
    return i + 1;
  if (i + 2 >= n || p[i] != 0x0f || p[i + 1] != 0x1f)
    return 0;
  // 0f 1f /0: nopw/nopl with a memory operand that is never accessed.
  const u8 modrm = p[i + 2];
  const u8 mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  if (reg != 0 || mod == 3)
    return 0;
  size_t len = i + 3;
  bool disp32_base = false;
  if (rm == 4) { // a SIB byte
    if (len >= n)
      return 0;
    disp32_base = mod == 0 && (p[len] & 7) == 5;
    len++;
  } else if (mod == 0 && rm == 5) {
    disp32_base = true;
  }
  len += mod == 1 ? 1 : mod == 2 || disp32_base ? 4 : 0;
  return len <= n ? len : 0;
}
} // namespace

bool is_nop_area(const u8 *p, size_t n) {
  for (size_t at = 0; at < n;) {
    size_t l = nop_length(p + at, n - at);
    if (!l)
      return false;
    at += l;
  }
  return true;
}

Result<EntryStyle> entry_style(const u8 *func, u64 size, u64 site_off,
                               bool is64,
                               const std::function<std::string()> &where) {
  // An indirect-branch target marker (-fcf-protection) comes first.
  static const u8 endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  static const u8 endbr32[] = {0xf3, 0x0f, 0x1e, 0xfb};
  u64 start = 0;
  if (size >= 4 && std::memcmp(func, is64 ? endbr64 : endbr32, 4) == 0)
    start = 4;
  if (site_off == start)
    return EntryStyle::AtEntry;
  // push %rbp; mov %rsp,%rbp (either encoding of the mov).
  static const u8 frame64a[] = {0x55, 0x48, 0x89, 0xe5},
                  frame64b[] = {0x55, 0x48, 0x8b, 0xec},
                  frame32a[] = {0x55, 0x89, 0xe5}, frame32b[] = {0x55, 0x8b, 0xec};
  const u64 flen = is64 ? 4 : 3;
  const u8 *a = is64 ? frame64a : frame32a, *b = is64 ? frame64b : frame32b;
  if (start + flen <= size && site_off >= start + flen &&
      (std::memcmp(func + start, a, flen) == 0 ||
       std::memcmp(func + start, b, flen) == 0))
    return EntryStyle::AfterFrame;
  return error(strf("%s: entry site at +0x%llx is neither the function's first "
                    "instruction nor after a frame-pointer prologue",
                    where().c_str(), (unsigned long long)site_off));
}

} // namespace mk
