// ObjBuilder's file writer.  The file is laid out as: ELF header, section
// contents in section order, then the section header table.  The builder
// appends the symbol table(s), .strtab and .shstrtab after the sections the
// test made, so the indices of the test's own sections never move.
#include "elf_builder.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace mkt {

std::vector<u8> le(u64 v, unsigned width) {
  std::vector<u8> out(width);
  for (unsigned i = 0; i < width; i++)
    out[i] = (u8)(v >> (8 * i));
  return out;
}

std::vector<u8> cat(std::initializer_list<std::vector<u8>> parts) {
  std::vector<u8> out;
  for (const auto &p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

ObjBuilder::ObjBuilder(Target t) : target_(t) {
  sections_.emplace_back();
  sections_[0].type = SHT_NULL;
  sections_[0].align = 0;
  symbols_.emplace_back();
  symbols_[0].bind = STB_LOCAL;
}

u32 ObjBuilder::section(std::string name, u32 type, u64 flags, u64 align,
                        std::vector<u8> bytes) {
  SectionSpec s;
  s.name = std::move(name);
  s.type = type;
  s.flags = flags;
  s.align = align;
  s.bytes = std::move(bytes);
  sections_.push_back(std::move(s));
  return (u32)sections_.size() - 1;
}

u32 ObjBuilder::nobits(std::string name, u64 flags, u64 align, u64 size) {
  u32 i = section(std::move(name), SHT_NOBITS, flags, align, {});
  sections_[i].nobits_size = size;
  return i;
}

u32 ObjBuilder::symbol(std::string name, u32 shndx, u64 value, u64 size,
                       u8 bind, u8 type) {
  SymbolSpec s;
  s.name = std::move(name);
  s.shndx = shndx;
  s.value = value;
  s.size = size;
  s.bind = bind;
  s.type = type;
  symbols_.push_back(std::move(s));
  return (u32)symbols_.size() - 1;
}

u32 ObjBuilder::reloc_section(u32 target, bool rela) const {
  const u32 type = rela ? SHT_RELA : SHT_REL;
  for (u32 i = 1; i < sections_.size(); i++)
    if (sections_[i].type == type && sections_[i].info == target)
      return i;
  throw std::logic_error("no relocation section for that target");
}

u32 ObjBuilder::reloc_section_for(u32 target, bool rela) {
  const u32 type = rela ? SHT_RELA : SHT_REL;
  for (u32 i = 1; i < sections_.size(); i++)
    if (sections_[i].type == type && sections_[i].info == target)
      return i;
  const std::string name =
      (rela ? ".rela" : ".rel") + sections_.at(target).name;
  u32 i = section(name, type, SHF_INFO_LINK, is64() ? 8 : 4, {});
  sections_[i].info = target;
  return i;
}

void ObjBuilder::rela(u32 target, u64 offset, u32 type, u32 sym, i64 addend) {
  sections_[reloc_section_for(target, true)].relocs.push_back(
      {offset, type, sym, addend});
}

void ObjBuilder::rel(u32 target, u64 offset, u32 type, u32 sym) {
  sections_[reloc_section_for(target, false)].relocs.push_back(
      {offset, type, sym, 0});
}

namespace {

struct StrTab {
  std::vector<u8> bytes{0};
  u32 add(const std::string &s) {
    if (s.empty())
      return 0;
    u32 off = (u32)bytes.size();
    bytes.insert(bytes.end(), s.begin(), s.end());
    bytes.push_back(0);
    return off;
  }
};

template <class T> std::vector<u8> as_bytes(const std::vector<T> &v) {
  std::vector<u8> out(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(out.data(), v.data(), out.size());
  return out;
}

} // namespace

template <class Ehdr, class Shdr, class Sym, class Rel, class Rela>
std::vector<u8> ObjBuilder::build_as() const {
  constexpr bool k64 = std::is_same_v<Ehdr, Elf64_Ehdr>;

  // The finished section list: the test's own, then the tables.
  std::vector<SectionSpec> secs = sections_;
  const u32 first_symtab = (u32)secs.size();
  const u32 strtab = first_symtab + symtab.count;
  const u32 shstrtab = strtab + 1;

  StrTab names;
  std::vector<Sym> syms(symbols_.size());
  u32 first_global = (u32)symbols_.size();
  for (u32 i = 0; i < symbols_.size(); i++) {
    const SymbolSpec &s = symbols_[i];
    Sym &e = syms[i];
    std::memset(&e, 0, sizeof e);
    if (i == 0)
      continue;
    e.st_name = s.name_offset ? *s.name_offset : names.add(s.name);
    e.st_value = s.value;
    e.st_size = s.size;
    e.st_info = ELF64_ST_INFO(s.bind, s.type);
    e.st_other = s.visibility;
    e.st_shndx = (u16)s.shndx;
    if (s.bind != STB_LOCAL && first_global == symbols_.size())
      first_global = i;
  }

  for (SectionSpec &s : secs) {
    if (s.type != SHT_REL && s.type != SHT_RELA)
      continue;
    if (!s.link)
      s.link = first_symtab;
    auto info = [](u32 sym, u32 type) -> u64 {
      if constexpr (k64)
        return ELF64_R_INFO((u64)sym, type);
      else
        return ELF32_R_INFO(sym, type);
    };
    if (s.type == SHT_RELA) {
      std::vector<Rela> v;
      for (const RelocEntry &r : s.relocs)
        v.push_back(Rela{(decltype(Rela::r_offset))r.offset,
                         (decltype(Rela::r_info))info(r.sym, r.type),
                         (decltype(Rela::r_addend))r.addend});
      s.bytes = as_bytes(v);
      if (!s.entsize)
        s.entsize = sizeof(Rela);
    } else {
      std::vector<Rel> v;
      for (const RelocEntry &r : s.relocs)
        v.push_back(Rel{(decltype(Rel::r_offset))r.offset,
                        (decltype(Rel::r_info))info(r.sym, r.type)});
      s.bytes = as_bytes(v);
      if (!s.entsize)
        s.entsize = sizeof(Rel);
    }
  }
  for (unsigned k = 0; k < symtab.count; k++) {
    SectionSpec st;
    st.name = ".symtab";
    st.type = SHT_SYMTAB;
    st.align = k64 ? 8 : 4;
    st.bytes = as_bytes(syms);
    st.entsize = symtab.entsize ? *symtab.entsize : sizeof(Sym);
    st.link = symtab.link ? *symtab.link : strtab;
    st.info = first_global;
    secs.push_back(std::move(st));
  }
  {
    SectionSpec st;
    st.name = ".strtab";
    st.type = SHT_STRTAB;
    st.bytes = names.bytes;
    secs.push_back(std::move(st));
  }
  {
    SectionSpec st;
    st.name = ".shstrtab";
    st.type = SHT_STRTAB;
    secs.push_back(std::move(st));
  }
  StrTab shnames;
  std::vector<u32> sh_name(secs.size(), 0);
  for (size_t i = 1; i < secs.size(); i++)
    sh_name[i] = shnames.add(secs[i].name);
  secs[shstrtab].bytes = shnames.bytes;

  // Contents, each at an offset aligned for it (up to 16 bytes).
  std::vector<u8> out(sizeof(Ehdr), 0);
  std::vector<u64> offsets(secs.size(), 0);
  for (size_t i = 1; i < secs.size(); i++) {
    const SectionSpec &s = secs[i];
    if (s.type == SHT_NOBITS) {
      offsets[i] = out.size();
      continue;
    }
    u64 a = std::clamp<u64>(s.align, 8, 16);
    out.resize(mk::align_up(out.size(), a), 0);
    offsets[i] = out.size();
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
  }
  out.resize(mk::align_up(out.size(), 8), 0);
  const u64 shoff = out.size();

  std::vector<Shdr> shdrs(secs.size());
  for (size_t i = 0; i < secs.size(); i++) {
    const SectionSpec &s = secs[i];
    Shdr &h = shdrs[i];
    std::memset(&h, 0, sizeof h);
    if (i == 0) {
      // All zero, but for extended numbering (e_shnum 0, e_shstrndx
      // SHN_XINDEX) which keeps the real values here.
      h.sh_size = s.size ? *s.size : 0;
      h.sh_link = s.link ? *s.link : 0;
      continue;
    }
    h.sh_name = s.name_offset ? *s.name_offset : sh_name[i];
    h.sh_type = s.type;
    h.sh_flags = s.flags;
    h.sh_offset = s.offset ? *s.offset : offsets[i];
    h.sh_size = s.size ? *s.size
                       : (s.type == SHT_NOBITS ? s.nobits_size : s.bytes.size());
    h.sh_link = s.link ? *s.link : 0;
    h.sh_info = s.info ? *s.info : 0;
    h.sh_addralign = s.align;
    h.sh_entsize = s.entsize;
  }
  std::vector<u8> table = as_bytes(shdrs);
  out.insert(out.end(), table.begin(), table.end());

  Ehdr eh;
  std::memset(&eh, 0, sizeof eh);
  std::memcpy(eh.e_ident, hdr.magic, 4);
  eh.e_ident[EI_CLASS] = hdr.ei_class ? *hdr.ei_class
                                      : (k64 ? ELFCLASS64 : ELFCLASS32);
  eh.e_ident[EI_DATA] = hdr.ei_data;
  eh.e_ident[EI_VERSION] = hdr.ei_version;
  eh.e_type = hdr.e_type;
  eh.e_machine = hdr.e_machine ? *hdr.e_machine
                               : (target_ == Target::X86_64 ? EM_X86_64 : EM_386);
  eh.e_version = hdr.e_version;
  eh.e_ehsize = sizeof(Ehdr);
  eh.e_shoff = hdr.e_shoff ? *hdr.e_shoff : shoff;
  eh.e_shentsize = hdr.e_shentsize ? *hdr.e_shentsize : sizeof(Shdr);
  eh.e_shnum = hdr.e_shnum ? *hdr.e_shnum : (u16)secs.size();
  eh.e_shstrndx = hdr.e_shstrndx ? *hdr.e_shstrndx : (u16)shstrtab;
  std::memcpy(out.data(), &eh, sizeof eh);
  return out;
}

std::vector<u8> ObjBuilder::build() const {
  if (is64())
    return build_as<Elf64_Ehdr, Elf64_Shdr, Elf64_Sym, Elf64_Rel, Elf64_Rela>();
  return build_as<Elf32_Ehdr, Elf32_Shdr, Elf32_Sym, Elf32_Rel, Elf32_Rela>();
}

} // namespace mkt
