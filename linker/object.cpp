// Reading a relocatable object with libelf (through gelf, so ELF32 and ELF64
// share this code) and validating every field the loader will trust, before
// anything is allocated for the module.  Every failure is one line naming the
// file and the problem.
#include "object.h"

#include "code.h"
#include "sync.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <optional>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <memory>

namespace mk {

// ---- decoding -------------------------------------------------------------------

namespace {

i64 sign_extend(u64 v, unsigned bits) {
  return bits >= 64 ? (i64)v : (i64)(v << (64 - bits)) >> (64 - bits);
}

// An entry's fields as the file has them.
struct RawReloc {
  u64 offset;
  u64 sym;
  u64 type;
  i64 addend; // RELA's; 0 for REL
};

RawReloc raw_entry(RelocFormat fmt, const u8 *e) {
  RawReloc r{0, 0, 0, 0};
  switch (fmt) {
  case RelocFormat::Rela64:
  case RelocFormat::Rel64: {
    u64 info;
    std::memcpy(&r.offset, e, 8);
    std::memcpy(&info, e + 8, 8);
    if (fmt == RelocFormat::Rela64)
      std::memcpy(&r.addend, e + 16, 8);
    r.sym = info >> 32, r.type = (u32)info;
    break;
  }
  case RelocFormat::Rela32:
  case RelocFormat::Rel32: {
    u32 off, info;
    std::memcpy(&off, e, 4);
    std::memcpy(&info, e + 4, 4);
    if (fmt == RelocFormat::Rela32) {
      i32 a;
      std::memcpy(&a, e + 8, 4);
      r.addend = a;
    }
    r.offset = off, r.sym = info >> 8, r.type = info & 0xff;
    break;
  }
  }
  return r;
}

size_t entry_size(RelocFormat fmt) {
  switch (fmt) {
  case RelocFormat::Rela64: return sizeof(Elf64_Rela);
  case RelocFormat::Rel64: return sizeof(Elf64_Rel);
  case RelocFormat::Rela32: return sizeof(Elf32_Rela);
  case RelocFormat::Rel32: return sizeof(Elf32_Rel);
  }
  return 0;
}

bool is_rel(RelocFormat fmt) {
  return fmt == RelocFormat::Rel64 || fmt == RelocFormat::Rel32;
}

} // namespace

Reloc RelocList::operator[](size_t i) const {
  const RawReloc raw = raw_entry(fmt_, ents_ + i * entry_size(fmt_));
  Reloc r;
  r.offset = (u32)raw.offset;
  r.sym = (u32)raw.sym;
  r.type = raw.type < RelocTable::kSize ? (u32)raw.type : 255;
  r.addend = raw.addend;
  if (is_rel(fmt_) && target_) {
    // REL: the addend is what the field holds in the object.
    if (const auto &how = (*kinds_)[r.type].howto) {
      if (how->field == FieldKind::Custom)
        r.addend = kinds_->arch().read_addend(r.type, target_ + r.offset);
      else if (how->width)
        r.addend =
            sign_extend(read_field(target_ + r.offset, how->width), how->width * 8);
    }
  }
  return r;
}

namespace {

struct ElfCloser {
  void operator()(Elf *e) const { elf_end(e); }
};
using ElfPtr = std::unique_ptr<Elf, ElfCloser>;

const char *etype_name(unsigned t) {
  switch (t) {
  case ET_NONE: return "ET_NONE";
  case ET_EXEC: return "ET_EXEC";
  case ET_DYN: return "ET_DYN";
  case ET_CORE: return "ET_CORE";
  default: return "unknown";
  }
}

// a + b <= limit, without overflow.
bool fits(u64 a, u64 b, u64 limit) { return a <= limit && b <= limit - a; }

class Parser {
public:
  Parser(ObjectFile &o, RelocTypes t) : obj(o), types(t) {}
  Result<void> run();

private:
  Error fail(const std::string &what) { return error(obj.name + ": " + what); }
  Result<void> check_ident();
  Result<void> read_sections();
  Result<void> read_symbols();
  Result<void> read_relocs();
  std::string sec_name(u32 i) const {
    return i < obj.sections.size() && !obj.sections[i].name.empty()
               ? obj.sections[i].name
               : strf("section %u", i);
  }

  ObjectFile &obj;
  RelocTypes types;
  ElfPtr elf;
  GElf_Ehdr eh{};
  size_t shnum = 0;
  u32 symtab_shndx_sec = 0; // SHT_SYMTAB_SHNDX, if any
};

Result<void> Parser::check_ident() {
  const u8 *b = obj.data;
  if (obj.size < EI_NIDENT)
    return fail("file too short for an ELF header");
  if (std::memcmp(b, ELFMAG, SELFMAG) != 0)
    return fail("not an ELF file (bad magic)");
  u8 cls = b[EI_CLASS];
  if (cls != ELFCLASS32 && cls != ELFCLASS64)
    return fail(strf("invalid ELF class %u", cls));
  if (b[EI_DATA] != ELFDATA2LSB)
    return fail(strf("unsupported ELF data encoding %u (need little-endian)",
                     b[EI_DATA]));
  if (b[EI_VERSION] != EV_CURRENT)
    return fail(strf("unsupported ELF version %u", b[EI_VERSION]));
  size_t ehsize = cls == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  if (obj.size < ehsize)
    return fail("file too short for an ELF header");
  return {};
}

Result<void> Parser::read_sections() {
  const u64 fsize = obj.size;
  const bool is64 = obj.data[EI_CLASS] == ELFCLASS64;
  const u64 want_shentsize = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
  if (eh.e_shoff == 0)
    return fail("no section header table");
  if (eh.e_shentsize != want_shentsize)
    return fail(strf("section header entry size %u, expected %llu",
                     eh.e_shentsize, (unsigned long long)want_shentsize));
  // The real count may live in section 0 (more than SHN_LORESERVE sections).
  u64 count = eh.e_shnum;
  if (!fits(eh.e_shoff, want_shentsize, fsize))
    return fail("section header table lies outside the file");
  if (count == 0) {
    if (elf_getshdrnum(elf.get(), &shnum) != 0)
      return fail("cannot read the section count");
    count = shnum;
  }
  if (count == 0)
    return fail("no sections");
  if (count > fsize / want_shentsize ||
      !fits(eh.e_shoff, count * want_shentsize, fsize))
    return fail(strf("section header table (%llu entries at 0x%llx) lies "
                     "outside the file",
                     (unsigned long long)count,
                     (unsigned long long)eh.e_shoff));
  shnum = count;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf.get(), &shstrndx) != 0 || shstrndx >= shnum)
    return fail("section name string table index out of range");

  obj.sections.resize(shnum);
  std::vector<GElf_Shdr> hdrs(shnum);
  for (size_t i = 0; i < shnum; i++) {
    Elf_Scn *scn = elf_getscn(elf.get(), i);
    if (!scn || !gelf_getshdr(scn, &hdrs[i]))
      return fail(strf("cannot read section header %zu", i));
    const GElf_Shdr &sh = hdrs[i];
    if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
        !fits(sh.sh_offset, sh.sh_size, fsize))
      return fail(strf("section %zu: contents (0x%llx bytes at 0x%llx) lie "
                       "outside the file",
                       i, (unsigned long long)sh.sh_size,
                       (unsigned long long)sh.sh_offset));
    if (sh.sh_addralign > 1 && (sh.sh_addralign & (sh.sh_addralign - 1)))
      return fail(strf("section %zu: alignment %llu is not a power of two", i,
                       (unsigned long long)sh.sh_addralign));
  }
  const GElf_Shdr &strsh = hdrs[shstrndx];
  if (strsh.sh_type != SHT_STRTAB || strsh.sh_size == 0)
    return fail("section name table is not a string table");
  const char *shstr = (const char *)obj.data + strsh.sh_offset;
  if (shstr[strsh.sh_size - 1] != '\0')
    return fail("section name table is not NUL-terminated");

  u32 symtabs = 0;
  for (size_t i = 0; i < shnum; i++) {
    const GElf_Shdr &sh = hdrs[i];
    Section &s = obj.sections[i];
    if (sh.sh_name >= strsh.sh_size)
      return fail(strf("section %zu: name offset %u outside the section name "
                       "table",
                       i, sh.sh_name));
    s.name = shstr + sh.sh_name;
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.size = sh.sh_size;
    s.align = sh.sh_addralign ? sh.sh_addralign : 1;
    s.entsize = sh.sh_entsize;
    s.link = sh.sh_link;
    s.info = sh.sh_info;
    s.data = sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL
                 ? nullptr
                 : obj.data + sh.sh_offset;
    if (sh.sh_type == SHT_SYMTAB) {
      symtabs++;
      obj.symtab_index = i;
    }
    if (sh.sh_type == SHT_SYMTAB_SHNDX)
      symtab_shndx_sec = i;
  }
  if (symtabs == 0)
    return fail("no symbol table");
  if (symtabs > 1)
    return fail(strf("%u symbol tables (expected exactly one)", symtabs));
  return {};
}

Result<void> Parser::read_symbols() {
  const Section &st = obj.sections[obj.symtab_index];
  const bool is64 = obj.data[EI_CLASS] == ELFCLASS64;
  const u64 symsize = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
  if (st.entsize != symsize)
    return fail(strf("symbol table entry size %llu, expected %llu",
                     (unsigned long long)st.entsize,
                     (unsigned long long)symsize));
  if (st.size % symsize)
    return fail("symbol table size is not a multiple of its entry size");
  if (st.link == 0 || st.link >= obj.sections.size() ||
      obj.sections[st.link].type != SHT_STRTAB)
    return fail(strf("symbol table: string table index %u is not a string "
                     "table",
                     st.link));
  const Section &str = obj.sections[st.link];
  if (str.size == 0 || str.data[str.size - 1] != '\0')
    return fail("symbol string table is empty or not NUL-terminated");

  Elf_Scn *scn = elf_getscn(elf.get(), obj.symtab_index);
  Elf_Data *data = elf_getdata(scn, nullptr);
  Elf_Data *xdata = nullptr;
  if (symtab_shndx_sec)
    xdata = elf_getdata(elf_getscn(elf.get(), symtab_shndx_sec), nullptr);
  size_t n = st.size / symsize;
  if (!data && n)
    return fail("cannot read the symbol table");
  if (n >= (1u << 24))
    return fail(strf("%zu symbols (at most 16777215)", n));
  obj.symbols.resize(n);
  for (size_t i = 0; i < n; i++) {
    GElf_Sym sym;
    Elf32_Word xndx = 0;
    if (!gelf_getsymshndx(data, xdata, i, &sym, &xndx))
      return fail(strf("cannot read symbol %zu", i));
    Symbol &s = obj.symbols[i];
    if (sym.st_name >= str.size)
      return fail(strf("symbol %zu: name offset %u outside the string table",
                       i, sym.st_name));
    s.name = (const char *)str.data + sym.st_name;
    s.value = sym.st_value;
    s.size = sym.st_size;
    s.bind = GELF_ST_BIND(sym.st_info);
    s.type = GELF_ST_TYPE(sym.st_info);
    s.visibility = GELF_ST_VISIBILITY(sym.st_other);
    u32 shndx = sym.st_shndx;
    if (shndx == SHN_XINDEX) {
      if (!xdata)
        return fail(strf("symbol %zu (%s): extended section index without "
                         "SHT_SYMTAB_SHNDX",
                         i, s.name.c_str()));
      shndx = xndx;
    } else if (shndx >= SHN_LORESERVE && shndx != SHN_ABS &&
               shndx != SHN_COMMON) {
      return fail(strf("symbol %zu (%s): unsupported special section index "
                       "0x%x",
                       i, s.name.c_str(), shndx));
    }
    if (shndx != SHN_UNDEF && shndx != SHN_ABS && shndx != SHN_COMMON &&
        shndx >= obj.sections.size())
      return fail(strf("symbol %zu (%s): section index %u out of range", i,
                       s.name.c_str(), shndx));
    // An indirect function's address is whatever its resolver returns at
    // run time; a module has no dynamic linker to call it.
    if (s.type == STT_GNU_IFUNC && shndx != SHN_UNDEF &&
        types == RelocTypes::Loadable)
      return fail(strf("symbol %s is a GNU indirect function "
                       "(STT_GNU_IFUNC), which a module cannot define",
                       s.name.c_str()));
    s.shndx = shndx;
  }
  return {};
}

// The tight loops over a relocation section's entries (see read_relocs):
// each checks entries until one is not plainly good and returns how many it
// took; `got` says whether any of them is GOT-relative.  An entry is good
// when its symbol exists, its offset is below 4 GiB and its field ends
// within the section (a refused type's reach is more than any section
// holds).  One table lookup and one branch per entry.
size_t check_rela64(const u8 *ents, size_t k, size_t n, size_t nsyms,
                    u64 target_size, const RelocTable &kinds, u32 call,
                    bool &got) {
  bool g = false;
  for (; k < n; k++) {
    const u8 *e = ents + k * 24;
    u64 off, info;
    i64 addend;
    std::memcpy(&off, e, 8);
    std::memcpy(&info, e + 8, 8);
    std::memcpy(&addend, e + 16, 8);
    const u32 t = (u32)info & (RelocTable::kSize - 1);
    // off + reach cannot wrap where off is below 4 GiB, the only case the
    // second test decides.
    if (((info >> 32) >= nsyms) | ((info & 0xffffff00u) != 0) |
        ((off >> 32) != 0) | (off + kinds.reach(t) > target_size) |
        ((t == call) & (addend != -4)))
      break;
    g |= kinds.got_relative(t);
  }
  got = got || g;
  return k;
}

size_t check_rel32(const u8 *ents, size_t k, size_t n, size_t nsyms,
                   u64 target_size, const RelocTable &kinds, u32 call,
                   const u8 *contents, bool &got) {
  bool g = false;
  for (; k < n; k++) {
    const u8 *e = ents + k * 8;
    u32 off, info;
    std::memcpy(&off, e, 4);
    std::memcpy(&info, e + 4, 4);
    const u32 t = info & 0xff;
    if (((info >> 8) >= nsyms) | ((u64)off + kinds.reach(t) > target_size))
      break;
    if (t == call) {
      i32 addend;
      std::memcpy(&addend, contents + off, 4);
      if (addend != -4)
        break;
    }
    g |= kinds.got_relative(t);
  }
  got = got || g;
  return k;
}

Result<void> Parser::read_relocs() {
  const Arch &arch = *obj.arch;
  const bool is64 = obj.data[EI_CLASS] == ELFCLASS64;
  const RelocTable &kinds = arch.table();
  const size_t nsyms = obj.symbols.size();
  for (size_t i = 0; i < obj.sections.size(); i++) {
    const Section &rs = obj.sections[i];
    if (rs.type != SHT_REL && rs.type != SHT_RELA)
      continue;
    const bool rela = rs.type == SHT_RELA;
    const RelocFormat fmt = rela ? (is64 ? RelocFormat::Rela64
                                         : RelocFormat::Rela32)
                                 : (is64 ? RelocFormat::Rel64
                                         : RelocFormat::Rel32);
    const u64 entsize = entry_size(fmt);
    if (rs.entsize != entsize)
      return fail(strf("%s: entry size %llu, expected %llu", rs.name.c_str(),
                       (unsigned long long)rs.entsize,
                       (unsigned long long)entsize));
    if (rs.size % entsize)
      return fail(rs.name + ": size is not a multiple of its entry size");
    if (rs.link != obj.symtab_index)
      return fail(strf("%s: sh_link %u is not the symbol table",
                       rs.name.c_str(), rs.link));
    if (rs.info == 0 || rs.info >= obj.sections.size() ||
        obj.sections[rs.info].type == SHT_REL ||
        obj.sections[rs.info].type == SHT_RELA ||
        obj.sections[rs.info].type == SHT_NULL)
      return fail(strf("%s: sh_info %u does not name a section to relocate",
                       rs.name.c_str(), rs.info));
    const Section &target = obj.sections[rs.info];
    // Relocations of sections that are not loaded (debug info) are not
    // applied; they are still checked so a bad file is refused whole.
    const size_t n = rs.size / entsize;
    const u8 *ents = rs.data;
    RelocSection out{(u32)i, rs.info,
                     RelocList(fmt, ents, n, target.data, &kinds)};
    // Every entry is checked here, once.  The common cases (ELF64 RELA,
    // x86_64; ELF32 REL with contents, i386) go through a tight loop; it
    // stops at an entry that needs a closer look (a call whose addend is not
    // -4 among them), which the general check below takes, with its exact
    // message if the entry is bad, before the tight loop goes on.
    // (A section of 2^62 bytes or more, bss only, would let a refused
    // type's reach fit: the general check takes it.)
    const bool tight = (fmt == RelocFormat::Rela64 ||
                        (fmt == RelocFormat::Rel32 && target.data)) &&
                       target.size < RelocTable::kRefused;
    const u32 call = types == RelocTypes::Loadable ? arch.call_type()
                                                   : Arch::kNoCallType;
    for (size_t k = 0; k < n; k++) {
      if (tight) {
        k = fmt == RelocFormat::Rela64
                ? check_rela64(ents, k, n, nsyms, target.size, kinds, call,
                               out.uses_got)
                : check_rel32(ents, k, n, nsyms, target.size, kinds, call,
                              target.data, out.uses_got);
        if (k == n)
          break;
      }
      const RawReloc raw = raw_entry(fmt, ents + k * entsize);
      if (raw.sym >= nsyms)
        return error(strf("%s:(%s+0x%llx): relocation %s: symbol index %llu "
                          "out of range (%zu symbols)",
                          obj.name.c_str(), target.name.c_str(),
                          (unsigned long long)raw.offset,
                          arch.type_name((u32)raw.type).c_str(),
                          (unsigned long long)raw.sym, nsyms));
      const RelocKind &kind = kinds[(u32)raw.type];
      const unsigned width = kind.howto ? kind.howto->bytes_at_p() : 0;
      if (kind.howto && !fits(raw.offset, width, target.size))
        return error(strf("%s:(%s+0x%llx): relocation %s: field of %u bytes "
                          "lies outside %s (size 0x%llx)",
                          obj.name.c_str(), target.name.c_str(),
                          (unsigned long long)raw.offset,
                          arch.type_name((u32)raw.type).c_str(), width,
                          target.name.c_str(),
                          (unsigned long long)target.size));
      if (raw.offset >= (1ull << 32))
        return error(strf("%s: relocation offset 0x%llx is beyond 4 GiB",
                          rs.name.c_str(), (unsigned long long)raw.offset));
      const std::string site = strf("%s:(%s+0x%llx)", obj.name.c_str(),
                                    target.name.c_str(),
                                    (unsigned long long)raw.offset);
      if (!kind.howto) {
        if (types == RelocTypes::Any)
          continue;
        return error(strf("%s: relocation %s against %s: %s", site.c_str(),
                          arch.type_name((u32)raw.type).c_str(),
                          obj.symbol_label((u32)raw.sym).c_str(),
                          kind.refusal ? kind.refusal
                                       : "unknown relocation type"));
      }
      if (raw.type == call && obj.symbols[raw.sym].shndx == SHN_UNDEF) {
        i32 addend = (i32)raw.addend;
        if (is_rel(fmt) && target.data)
          std::memcpy(&addend, target.data + raw.offset, 4);
        if (addend != -4)
        {
          const i64 past = (i64)addend + 4;
          const std::string name = obj.symbol_label((u32)raw.sym);
          return error(strf("%s: relocation %s against %s: the call lands "
                            "at %s%c0x%llx, not at the function's start (a "
                            "call's addend is -4)",
                            site.c_str(), arch.type_name(call).c_str(),
                            name.c_str(), name.c_str(), past < 0 ? '-' : '+',
                            (unsigned long long)(past < 0 ? -past : past)));
        }
      }
      if (is_got_relative(kind.howto->expr))
        out.uses_got = true;
      if (is_rel(fmt) && width && !target.data)
        return error(site + ": REL relocation in a section with no contents");
    }
    obj.relocs.push_back(std::move(out));
  }
  return {};
}

Result<void> Parser::run() {
  MK_TRY(check_ident());
  elf.reset(elf_memory((char *)obj.data, obj.size));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF)
    return fail(strf("libelf cannot read it: %s", elf_errmsg(-1)));
  if (!gelf_getehdr(elf.get(), &eh))
    return fail(strf("cannot read the ELF header: %s", elf_errmsg(-1)));
  if (eh.e_version != EV_CURRENT)
    return fail(strf("unsupported ELF version %u", eh.e_version));
  obj.arch = arch_for_machine(eh.e_machine);
  if (!obj.arch)
    return fail(strf("unsupported machine %u", eh.e_machine));
  if (obj.arch->elf_class() != obj.data[EI_CLASS])
    return fail(strf("ELF class %s does not match machine %s",
                     obj.data[EI_CLASS] == ELFCLASS64 ? "ELF64" : "ELF32",
                     obj.arch->name()));
  if (eh.e_type != ET_REL)
    return fail(strf("not a relocatable object (e_type %s)",
                     etype_name(eh.e_type)));
  MK_TRY(read_sections());
  MK_TRY(read_symbols());
  MK_TRY(read_relocs());
  return {};
}

} // namespace

const Section *ObjectFile::find_section(const std::string &n) const {
  for (const auto &s : sections)
    if (s.name == n)
      return &s;
  return nullptr;
}

RelocHowto ObjectFile::howto(u32 section, const Reloc &r) const {
  RelocHowto how = *arch->table()[r.type].howto;
  if (arch->refines())
    how.expr = arch->refine(r.type, how.expr, sections[section].data, r.offset);
  return how;
}

std::string ObjectFile::symbol_label(u32 sym) const {
  if (sym == 0 || sym >= symbols.size())
    return "*ABS*";
  const Symbol &s = symbols[sym];
  if (s.type == STT_SECTION && s.shndx < sections.size())
    return sections[s.shndx].name;
  return s.name.empty() ? strf("symbol %u", sym) : s.name.str();
}

static Result<ObjectFile> parse_into(ObjectFile obj, RelocTypes types,
                                     const BeforeParse &before = nullptr) {
  static const bool libelf_ok = elf_version(EV_CURRENT) != EV_NONE;
  if (!libelf_ok)
    return error("libelf: version mismatch");
  // An appended signature is not part of the object: the parser sees the
  // module's bytes only (and a bad trailer is refused here, at once).
  auto sig = split_module_signature(obj.name, obj.data, obj.size);
  if (!sig)
    return sig.take_error();
  obj.signature = *sig;
  obj.size = sig->content_len;
  if (before)
    MK_TRY(before(obj));
  Parser p(obj, types);
  if (auto r = p.run(); !r)
    return one_line(r.take_error());
  return obj;
}

Result<ObjectFile> parse_object(std::vector<u8> bytes, std::string path,
                                std::string name, RelocTypes types) {
  ObjectFile obj;
  auto buf = std::make_shared<std::vector<u8>>(std::move(bytes));
  obj.data = buf->data();
  obj.size = buf->size();
  obj.storage = buf;
  obj.path = std::move(path);
  obj.name = std::move(name);
  return parse_into(std::move(obj), types);
}

const char *file_kind(unsigned mode) {
  switch (mode & S_IFMT) {
  case S_IFREG: return "a regular file";
  case S_IFDIR: return "a directory";
  case S_IFIFO: return "a FIFO";
  case S_IFCHR: return "a character device";
  case S_IFBLK: return "a block device";
  case S_IFSOCK: return "a socket";
  case S_IFLNK: return "a symbolic link";
  }
  return "not a regular file";
}

namespace {

// Every file is read into memory.  Files up to this size go to the heap;
// bigger ones to page-aligned buffers that are kept for the next read.
constexpr size_t kReadWhole = 256 << 10;
const u8 kNoBytes[1] = {0};

// Buffers of big files, kept after use up to kKeepBytes in all: a read into
// pages written before costs a copy out of the page cache, a read into
// fresh ones (or a fresh mapping of the file) a fault per page on top.  On
// the 2-core development machine, 3.6 MB of a module file: 190 us read
// into a kept buffer, 400 mapped with MAP_POPULATE and touched, 840
// mapped and touched.  The bytes of an earlier file are never reused, only
// the memory they were read into.
class ReadBuffers {
public:
  static constexpr size_t kKeepBytes = 32 << 20;

  // A buffer of at least `len` bytes and its size; nullptr if none can be
  // had.
  std::pair<u8 *, size_t> take(size_t len) EXCLUDES(mu_) {
    {
      MutexLock g(mu_);
      auto best = kept_.end();
      for (auto it = kept_.begin(); it != kept_.end(); ++it)
        if (it->second >= len &&
            (best == kept_.end() || it->second < best->second))
          best = it;
      if (best != kept_.end()) {
        auto b = *best;
        kept_.erase(best);
        kept_bytes_ -= b.second;
        return b;
      }
    }
    const size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    const size_t size = (len + ps - 1) & ~(ps - 1);
    void *m = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return {nullptr, 0};
    return {(u8 *)m, size};
  }
  // Back to the pool, or to the system once the pool holds enough; the
  // smallest buffers go first.
  void give(u8 *p, size_t size) EXCLUDES(mu_) {
    std::vector<std::pair<u8 *, size_t>> drop;
    {
      MutexLock g(mu_);
      kept_.emplace_back(p, size);
      kept_bytes_ += size;
      std::sort(kept_.begin(), kept_.end(),
                [](const auto &a, const auto &b) { return a.second > b.second; });
      while (kept_bytes_ > kKeepBytes) {
        drop.push_back(kept_.back());
        kept_bytes_ -= kept_.back().second;
        kept_.pop_back();
      }
    }
    for (auto [q, n] : drop)
      munmap(q, n);
  }

private:
  Mutex mu_;
  std::vector<std::pair<u8 *, size_t>> kept_ GUARDED_BY(mu_);
  size_t kept_bytes_ GUARDED_BY(mu_) = 0;
};

ReadBuffers &read_buffers() {
  // Never destroyed: an ObjectFile may outlive static destruction.
  static ReadBuffers *b = new ReadBuffers;
  return *b;
}

Result<void> read_into(int fd, u8 *buf, size_t len) {
  for (size_t got = 0; got < len;) {
    const ssize_t n = ::pread(fd, buf + got, len - got, (off_t)got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return error(std::strerror(errno));
    if (n == 0)
      return error("the file shrank while it was read");
    got += (size_t)n;
  }
  return {};
}

Result<std::shared_ptr<const void>> read_whole(int fd, size_t len) {
  if (len <= kReadWhole) {
    std::shared_ptr<u8[]> buf(new (std::nothrow) u8[len ? len : 1]);
    if (!buf)
      return error(strf("cannot allocate %zu bytes to read it", len));
    if (auto r = read_into(fd, buf.get(), len); !r)
      return r.take_error();
    return std::shared_ptr<const void>(buf, buf.get());
  }
  auto [buf, size] = read_buffers().take(len);
  if (!buf)
    return error(strf("cannot allocate %zu bytes to read it", len));
  if (auto r = read_into(fd, buf, len); !r) {
    read_buffers().give(buf, size);
    return r.take_error();
  }
  return std::shared_ptr<const void>(
      buf, [size = size](const void *p) { read_buffers().give((u8 *)p, size); });
}

} // namespace

Result<ObjectFile> read_object(const std::string &path, RelocTypes types,
                               const BeforeParse &before_parse) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  // Non-blocking: opening a FIFO for reading waits for a writer, and a
  // device's open may wait too; what it is is checked before any read.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return error(strf("%s: %s", path.c_str(), std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return error(strf("%s: %s", path.c_str(), std::strerror(e)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return error(strf("%s: is %s, not a module file", path.c_str(),
                      file_kind(st.st_mode)));
  }
  if ((unsigned long long)st.st_size > (unsigned long long)PTRDIFF_MAX) {
    ::close(fd);
    return error(strf("%s: %lld bytes is more than this kernel can read",
                      path.c_str(), (long long)st.st_size));
  }
  const size_t len = (size_t)st.st_size;
  ObjectFile obj;
  // Read, not mapped: one copy out of the page cache costs less than
  // mapping the file's pages and unmapping them (a 4 KiB module: 3.5
  // against 11 us on the 2-core development machine; a big one, above).
  auto bytes = read_whole(fd, len);
  ::close(fd);
  if (!bytes)
    return error(path + ": " + bytes.error().message);
  obj.storage = std::move(*bytes);
  obj.data = len ? (const u8 *)obj.storage.get() : kNoBytes;
  obj.size = len;
  obj.path = path;
  obj.name = name;
  return parse_into(std::move(obj), types, before_parse);
}



std::vector<std::pair<std::string, std::string>>
read_modinfo(const ObjectFile &obj) {
  const Section *s = obj.find_section(".modinfo");
  if (!s || !s->data)
    return {};
  return parse_modinfo((const char *)s->data, s->size);
}

std::vector<std::pair<std::string, std::string>> parse_modinfo(const char *p,
                                                               size_t n) {
  std::vector<std::pair<std::string, std::string>> out;
  const char *end = p + n;
  while (p < end) {
    const char *z = (const char *)std::memchr(p, '\0', end - p);
    const char *e = z ? z : end;
    if (const char *eq = (const char *)std::memchr(p, '=', e - p))
      out.emplace_back(std::string(p, eq), std::string(eq + 1, e));
    p = z ? z + 1 : end;
  }
  return out;
}

} // namespace mk
