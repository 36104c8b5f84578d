// The site model (see site.h).
#include "site.h"

#include "x86.h"

#include <sys/sdt.h>

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
  const std::string where = strf("%s:(%s+0x%llx)", obj.name.c_str(),
                                 sec.name.c_str(), (unsigned long long)r.offset);
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
      h.function = s.name.str();
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

std::string pretty_function(std::string_view symbol) {
  std::string mangled(symbol);
  size_t dot = mangled.find('.');
  if (dot != std::string::npos && dot > 0)
    mangled.resize(dot);
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
  // Cut the parameter list: the last top-level '('.
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '<')
      depth++;
    else if (s[i] == '>')
      depth--;
    else if (s[i] == '(' && depth == 0 && s.compare(i, 12, "(anonymous n") != 0)
      return s.substr(0, i);
  }
  return s;
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

} // namespace mk
