// sdt-record: the site recorder for the kernel image (like `dtrace -G` or
// recordmcount).  For each kernel object it finds the relocations against
// __dtrace_sdt_* / __dtrace_isenabled_* in code, checks each is a call or
// jump, rewrites the instruction into its NOP sled in the object, drops the
// relocation, and adds a record of the site to a `set_sdt_sites_set`
// section whose one relocation the final link resolves.  At boot the kernel
// walks that linker set: the probes of the core image come from it, and the
// kernel binary contains no call to a __dtrace_* symbol.  Calls of the
// function-entry hooks (__fentry__, mcount: the object was built with -pg)
// get the same treatment: each becomes a NOP and a record in
// `set_fbt_sites_set` (the fbt provider's).
//
// The record references the function that holds the site (or its section:
// always so when the function's symbol is global or weak, as another
// object's copy of the function may take the symbol), never a section
// offset alone, so static functions, -ffunction-sections
// and --gc-sections all work: each text section gets its own record section
// with SHF_LINK_ORDER pointing at it, so a section the linker discards takes
// its records with it.  A text section in a section group (a C++ inline
// function or template instance, emitted by every object that uses it, the
// linker keeping one copy) gets record sections that are members of the
// same group: the linker keeps or drops them with the copy they describe,
// so no record outlives its copy to name another object's (which may have
// no site there at all: the files built without entry sites).
//
//   sdt-record IN.o OUT.o     (OUT may be IN)
//   sdt-record --mcount-loc IN.o OUT.o
//       for a module built by a compiler that cannot list its entry sites
//       itself (clang has no -mrecord-mcount on x86): only the entry hooks'
//       calls, each made a NOP and listed in an __mcount_loc section, as gcc
//       -mrecord-mcount -mnop-mcount would have.
#include "../../linker/object.h"
#include "../site.h"
#include "../site_record.h"
#include "../x86.h"

#include <gelf.h>
#include <libelf.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <map>
#include <unistd.h>

using namespace mk;

namespace {

struct Site {
  u32 section;
  u64 insn_off;
  u8 len;
  SiteKind kind;
  u32 sym;      // symbol the record's relocation names
  i64 addend;   // site offset from that symbol
  std::string provider, name, function;
  EntryStyle style = EntryStyle::AtEntry; // an entry site's
  size_t rel_section_index; // the relocation section holding the entry
  size_t rel_index;         // its index there
};

int fail(const std::string &msg) {
  std::fprintf(stderr, "sdt-record: %s\n", msg.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  bool mcount_loc = argc == 4 && std::strcmp(argv[1], "--mcount-loc") == 0;
  if (argc != 3 && !mcount_loc)
    return fail("usage: sdt-record [--mcount-loc] IN.o OUT.o");
  std::string in = argv[argc - 2], out = argv[argc - 1];

  // Find the sites with the loader's own reader: validated, REL and RELA
  // alike.
  auto objr = read_object(in, RelocTypes::Any);
  if (!objr)
    return fail(objr.error().message);
  const ObjectFile &obj = *objr;
  const bool is64 = obj.arch->elf_class() == ELFCLASS64;
  std::vector<Site> sites;
  for (size_t ri = 0; ri < obj.relocs.size(); ri++) {
    const RelocSection &rs = obj.relocs[ri];
    const Section &text = obj.sections[rs.target];
    for (size_t k = 0; k < rs.relocs.size(); k++) {
      const Reloc &r = rs.relocs[k];
      const Symbol &sym = obj.symbols[r.sym];
      const bool entry = is_entry_symbol(sym.name);
      if (sym.shndx != 0 || (!entry && (mcount_loc || !is_probe_symbol(sym.name))))
        continue;
      std::string where = strf("%s:(%s+0x%llx)", obj.name.c_str(),
                               text.name.c_str(), (unsigned long long)r.offset);
      Site s;
      s.section = rs.target;
      s.rel_section_index = obj.relocs[ri].index;
      s.rel_index = k;
      if (entry) {
        // A function-entry hook's call: the same check the loader makes.
        auto found = find_entry_call(obj, rs.target, r, text.data);
        if (!found)
          return fail(found.error().message);
        if (found->span != found->len)
          return fail(where + ": " + sym.name.str() + " is called through a "
                      "register; the kernel image must call it directly");
        s.insn_off = found->insn_off;
        s.len = found->len;
        s.kind = SiteKind::Entry;
      } else {
        // The loader's own site model: the same instruction check, the same
        // holding function.
        auto found = find_site(obj, rs.target, r, text.data);
        if (!found)
          return fail(found.error().message);
        if (found->address_load)
          return fail(where + ": probe site " + sym.name.str() +
                      " loads the probe function's address; the kernel image "
                      "must call it");
        s.insn_off = found->insn_off;
        s.len = found->len;
        s.kind = found->kind;
        s.provider = found->probe.provider;
        s.name = found->probe.name;
      }
      // The record's relocation names the function holding the site (or
      // its section), so section garbage collection keeps them together.
      const SiteHolder h = find_holder(obj, s.section, s.insn_off);
      if (h.sym == 0)
        return fail(where + ": no symbol to anchor the site to");
      s.sym = h.sym;
      s.function = std::string(h.function);
      s.addend = (i64)(s.insn_off - h.value);
      // A global or weak holder may resolve to another object's copy of the
      // function (an inline function's, a weak one's), whose code differs:
      // anchor the record to this copy, by its section's symbol.
      if (obj.symbols[h.sym].bind != STB_LOCAL)
        for (size_t i = 1; i < obj.symbols.size(); i++)
          if (obj.symbols[i].type == STT_SECTION &&
              obj.symbols[i].shndx == s.section) {
            s.sym = (u32)i;
            s.addend = (i64)(s.insn_off - obj.symbols[i].value);
            break;
          }
      if (entry) {
        const Symbol &hs = obj.symbols[h.sym];
        const u64 fsize = hs.type == STT_FUNC && hs.size ? hs.size
                                                         : text.size - h.value;
        auto style = entry_style(text.data + h.value, fsize, s.insn_off - h.value,
                                 is64, [&] { return obj.name + ": " + std::string(h.function); });
        if (!style)
          return fail(style.error().message);
        s.style = *style;
      } else if (s.provider.size() >= SDT_SITE_PROVIDER_MAX ||
                 s.name.size() >= SDT_SITE_NAME_MAX ||
                 s.function.size() >= SDT_SITE_FUNC_MAX) {
        return fail(where + ": probe or function name too long for a site "
                            "record");
      }
      sites.push_back(s);
    }
  }

  // Rewrite the object with libelf.
  elf_version(EV_CURRENT);
  int fd = open(in.c_str(), O_RDONLY);
  if (fd < 0)
    return fail(in + ": " + std::strerror(errno));
  Elf *src = elf_begin(fd, ELF_C_READ, nullptr);
  if (!src)
    return fail(in + ": " + elf_errmsg(-1));
  std::string tmp = out + ".sdt-tmp";
  int ofd = open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (ofd < 0)
    return fail(tmp + ": " + std::strerror(errno));
  Elf *dst = elf_begin(ofd, ELF_C_WRITE, nullptr);
  GElf_Ehdr eh;
  gelf_getehdr(src, &eh);
  gelf_newehdr(dst, is64 ? ELFCLASS64 : ELFCLASS32);
  gelf_update_ehdr(dst, &eh);
  size_t shstrndx;
  elf_getshdrstrndx(src, &shstrndx);

  // Copy every section, keeping indices.
  std::vector<std::vector<u8>> owned; // buffers the new file's data live in
  owned.reserve(obj.sections.size() * 2 + sites.size() * 2 + 8);
  Elf_Scn *scn = nullptr;
  std::vector<Elf_Scn *> dscn(obj.sections.size(), nullptr);
  while ((scn = elf_nextscn(src, scn))) {
    size_t idx = elf_ndxscn(scn);
    GElf_Shdr sh;
    gelf_getshdr(scn, &sh);
    Elf_Scn *d = elf_newscn(dst);
    dscn[idx] = d;
    gelf_update_shdr(d, &sh);
    Elf_Data *sd = nullptr;
    while ((sd = elf_getdata(scn, sd))) {
      Elf_Data *dd = elf_newdata(d);
      *dd = *sd;
      if (sd->d_buf && sd->d_size) {
        owned.emplace_back((u8 *)sd->d_buf, (u8 *)sd->d_buf + sd->d_size);
        dd->d_buf = owned.back().data();
      }
    }
  }
  auto data_of = [&](size_t idx) { return elf_getdata(dscn[idx], nullptr); };

  // The section group (SHT_GROUP section) each section belongs to, 0 for
  // none, and the record sections to add to each group's member list.
  std::vector<u32> group_of(obj.sections.size(), 0);
  for (size_t g = 1; g < obj.sections.size(); g++) {
    const Section &gs = obj.sections[g];
    if (gs.type != SHT_GROUP)
      continue;
    if (gs.size % 4 || !gs.data)
      return fail(in + ": section group " + gs.name + " is malformed");
    for (u64 o = 4; o < gs.size; o += 4) { // word 0 holds the flags
      u32 member;
      std::memcpy(&member, gs.data + o, 4);
      if (member == 0 || member >= group_of.size() || group_of[member])
        return fail(in + ": section group " + gs.name +
                    " names a bad member section " + std::to_string(member));
      group_of[member] = (u32)g;
    }
  }
  std::map<u32, std::vector<u32>> group_adds;

  // NOP the sites and drop their relocations.
  for (const Site &s : sites) {
    Elf_Data *td = data_of(s.section);
    x86::disabled_bytes(s.kind, s.len, (u8 *)td->d_buf + s.insn_off);
    Elf_Data *rd = data_of(s.rel_section_index);
    if (obj.arch->uses_rela()) {
      GElf_Rela r;
      gelf_getrela(rd, (int)s.rel_index, &r);
      r.r_info = 0, r.r_addend = 0;
      gelf_update_rela(rd, (int)s.rel_index, &r);
    } else {
      GElf_Rel r;
      gelf_getrel(rd, (int)s.rel_index, &r);
      r.r_info = 0;
      gelf_update_rel(rd, (int)s.rel_index, &r);
    }
  }

  auto add_name = [&](const std::string &n) -> u32 {
    Elf_Scn *ss = dscn[shstrndx];
    GElf_Shdr sh;
    gelf_getshdr(ss, &sh);
    u32 off = (u32)sh.sh_size;
    owned.emplace_back(n.begin(), n.end());
    owned.back().push_back(0);
    Elf_Data *d = elf_newdata(ss);
    d->d_buf = owned.back().data();
    d->d_size = owned.back().size();
    d->d_type = ELF_T_BYTE;
    d->d_align = 1;
    d->d_off = off;
    sh.sh_size += d->d_size;
    gelf_update_shdr(ss, &sh);
    return off;
  };
  const char *rel_prefix = obj.arch->uses_rela() ? ".rela" : ".rel";

  // A record section (and its relocations) holding one fixed-size record
  // per site of `list`: `make` writes a record, whose word at offset 0 the
  // relocation fills with the site's address.  `link` (a text section, or
  // 0) ties the section to the code it describes; `group` (a SHT_GROUP
  // section, or 0) is the group both sections join.
  auto emit = [&](u32 name_off, u32 rel_name_off,
                  const std::vector<const Site *> &list, size_t recsize,
                  size_t align, u32 link, u32 group,
                  const std::function<void(const Site &, u8 *)> &make) {
    const u64 in_group = group ? SHF_GROUP : 0;
    std::vector<u8> recs(list.size() * recsize, 0);
    for (size_t i = 0; i < list.size(); i++) {
      make(*list[i], recs.data() + i * recsize);
      // REL: the addend is the field's contents.
      if (!obj.arch->uses_rela()) {
        const u32 a = (u32)list[i]->addend;
        std::memcpy(recs.data() + i * recsize, &a, 4);
      }
    }
    owned.push_back(std::move(recs));
    Elf_Scn *set = elf_newscn(dst);
    Elf_Data *sd = elf_newdata(set);
    sd->d_buf = owned.back().data();
    sd->d_size = owned.back().size();
    sd->d_type = ELF_T_BYTE;
    sd->d_align = align;
    GElf_Shdr sh{};
    sh.sh_name = name_off;
    sh.sh_type = SHT_PROGBITS;
    sh.sh_flags = SHF_ALLOC | (link ? SHF_WRITE | SHF_LINK_ORDER : 0) | in_group;
    sh.sh_link = link; // discarded together with its text section
    sh.sh_addralign = align;
    sh.sh_size = sd->d_size;
    gelf_update_shdr(set, &sh);

    Elf_Scn *rel = elf_newscn(dst);
    Elf_Data *rd = elf_newdata(rel);
    size_t entsz = obj.arch->uses_rela()
                       ? (is64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela))
                       : (is64 ? sizeof(Elf64_Rel) : sizeof(Elf32_Rel));
    owned.emplace_back(list.size() * entsz, 0);
    rd->d_buf = owned.back().data();
    rd->d_size = owned.back().size();
    rd->d_type = obj.arch->uses_rela() ? ELF_T_RELA : ELF_T_REL;
    rd->d_align = is64 ? 8 : 4;
    for (size_t i = 0; i < list.size(); i++) {
      u64 off = i * recsize;
      if (obj.arch->uses_rela()) {
        GElf_Rela r{off, GELF_R_INFO(list[i]->sym, R_X86_64_64),
                    list[i]->addend};
        gelf_update_rela(rd, (int)i, &r);
      } else {
        GElf_Rel r{off, GELF_R_INFO(list[i]->sym, R_386_32)};
        gelf_update_rel(rd, (int)i, &r);
      }
    }
    GElf_Shdr rh{};
    rh.sh_name = rel_name_off;
    rh.sh_type = obj.arch->uses_rela() ? SHT_RELA : SHT_REL;
    rh.sh_flags = SHF_INFO_LINK | in_group;
    rh.sh_link = obj.symtab_index;
    rh.sh_info = (u32)elf_ndxscn(set);
    rh.sh_addralign = is64 ? 8 : 4;
    rh.sh_entsize = entsz;
    rh.sh_size = rd->d_size;
    gelf_update_shdr(rel, &rh);
    if (group) {
      group_adds[group].push_back((u32)elf_ndxscn(set));
      group_adds[group].push_back((u32)elf_ndxscn(rel));
    }
  };

  // The records, one record section per text section with sites of the
  // kind.
  std::map<u32, std::vector<const Site *>> probes, entries;
  for (const Site &s : sites)
    (s.kind == SiteKind::Entry ? entries : probes)[s.section].push_back(&s);
  if (mcount_loc) {
    // One __mcount_loc, as gcc writes it: a pointer per site; and one in
    // each section group with sites, to go with the group's copy.
    std::map<u32, std::vector<const Site *>> by_group;
    for (auto &[sec, list] : entries) {
      auto &all = by_group[group_of[sec]];
      all.insert(all.end(), list.begin(), list.end());
    }
    if (!by_group.empty()) {
      u32 name_set = add_name("__mcount_loc");
      u32 name_rel = add_name(std::string(rel_prefix) + "__mcount_loc");
      for (auto &[group, all] : by_group)
        emit(name_set, name_rel, all, is64 ? 8 : 4, is64 ? 8 : 4, 0, group,
             [](const Site &, u8 *) {});
    }
  } else {
    if (!probes.empty()) {
      u32 name_set = add_name("set_sdt_sites_set");
      u32 name_rel = add_name(std::string(rel_prefix) + "set_sdt_sites_set");
      for (auto &[secidx, list] : probes)
        emit(name_set, name_rel, list, sizeof(sdt_site_record), 8, secidx,
             group_of[secidx],
             [](const Site &s, u8 *out) {
               sdt_site_record r{};
               r.kind = (u32)s.kind;
               r.len = s.len;
               std::strncpy(r.provider, s.provider.c_str(), sizeof r.provider - 1);
               std::strncpy(r.name, s.name.c_str(), sizeof r.name - 1);
               std::strncpy(r.function, s.function.c_str(),
                            sizeof r.function - 1);
               std::memcpy(out, &r, sizeof r);
             });
    }
    if (!entries.empty()) {
      u32 name_set = add_name("set_fbt_sites_set");
      u32 name_rel = add_name(std::string(rel_prefix) + "set_fbt_sites_set");
      for (auto &[secidx, list] : entries)
        emit(name_set, name_rel, list, sizeof(fbt_site_record), 8, secidx,
             group_of[secidx],
             [](const Site &s, u8 *out) {
               fbt_site_record r{};
               r.len = s.len;
               r.style = (u32)s.style;
               std::memcpy(out, &r, sizeof r);
             });
    }
  }

  // The groups' member lists, with the record sections added.
  for (auto &[group, adds] : group_adds) {
    const Section &gs = obj.sections[group];
    std::vector<u32> words(gs.size / 4 + adds.size());
    std::memcpy(words.data(), gs.data, gs.size);
    std::memcpy(words.data() + gs.size / 4, adds.data(), adds.size() * 4);
    owned.emplace_back((u8 *)words.data(), (u8 *)(words.data() + words.size()));
    Elf_Data *gd = data_of(group);
    gd->d_buf = owned.back().data();
    gd->d_size = owned.back().size();
    GElf_Shdr gh;
    gelf_getshdr(dscn[group], &gh);
    gh.sh_size = gd->d_size;
    gelf_update_shdr(dscn[group], &gh);
  }

  if (elf_update(dst, ELF_C_WRITE) < 0)
    return fail(out + ": " + elf_errmsg(-1));
  elf_end(dst);
  elf_end(src);
  close(ofd);
  close(fd);
  if (rename(tmp.c_str(), out.c_str()) != 0)
    return fail(out + ": " + std::strerror(errno));
  return 0;
}
