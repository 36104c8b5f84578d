// The three-phase linking of a BPF program with the D library (see
// proglink.h).
#include "proglink.h"

#include "../../../linker/object.h"

#include <elf.h>

#include <cstring>
#include <set>

namespace mk::bpf {

namespace {
constexpr u32 kR_BPF_64_64 = 1, kR_BPF_64_32 = 10;
}

Result<BpfLibrary> BpfLibrary::read(const std::string &path) {
  auto obj = read_object(path);
  if (!obj)
    return obj.take_error();
  std::vector<u8> bytes(obj->data, obj->data + obj->size);
  const size_t slash = path.rfind('/');
  return parse(std::move(bytes),
               slash == std::string::npos ? path : path.substr(slash + 1));
}

Result<BpfLibrary> BpfLibrary::parse(std::vector<u8> bytes, std::string name) {
  auto parsed = parse_object(std::move(bytes), name, name);
  if (!parsed)
    return parsed.take_error();
  const ObjectFile &obj = *parsed;
  if (obj.arch->machine() != EM_BPF)
    return error(strf("%s: not a BPF object (it is for %s)", name.c_str(),
                      obj.arch->name()));
  BpfLibrary lib;
  lib.name_ = name;
  // Functions: name, section, range.
  struct Range {
    u32 sec;
    u64 start, end;
    std::string name;
  };
  std::vector<Range> ranges;
  for (const Symbol &s : obj.symbols) {
    if (s.type != STT_FUNC || s.shndx == SHN_UNDEF || s.shndx >= obj.sections.size())
      continue;
    const Section &sec = obj.sections[s.shndx];
    if (!(sec.flags & SHF_EXECINSTR) || !sec.data)
      continue;
    if (s.size == 0 || s.size % 8 || s.value % 8 || s.value + s.size > sec.size)
      return error(strf("%s: function %s: its extent [0x%llx, +0x%llx) is not "
                        "whole instructions inside %s", name.c_str(),
                        s.name.c_str(), (unsigned long long)s.value,
                        (unsigned long long)s.size, sec.name.c_str()));
    ranges.push_back({s.shndx, s.value, s.value + s.size, std::string(s.name)});
    LibFunction f;
    f.name = s.name;
    f.code.resize(s.size / 8);
    std::memcpy(f.code.data(), sec.data + s.value, s.size);
    lib.funcs_[f.name] = std::move(f);
  }
  // Data the functions refer to (.rodata and the like): the embedder binds
  // each section to memory holding these bytes.
  for (const Section &sec : obj.sections)
    if ((sec.flags & SHF_ALLOC) && !(sec.flags & SHF_EXECINSTR) && sec.size)
      lib.data_[sec.name] = sec.data ? std::vector<u8>(sec.data, sec.data + sec.size)
                                     : std::vector<u8>(sec.size, 0);
  auto function_at = [&](u32 sec, u64 off) -> const Range * {
    for (const Range &r : ranges)
      if (r.sec == sec && off >= r.start && off < r.end)
        return &r;
    return nullptr;
  };
  for (const RelocSection &rs : obj.relocs) {
    for (size_t k = 0; k < rs.relocs.size(); k++) {
      const Reloc &r = rs.relocs[k];
      const Range *in = function_at(rs.target, r.offset);
      if (!in)
        continue; // data, or code outside any function
      LibFunction &f = lib.funcs_[in->name];
      const Symbol &sym = obj.symbols[r.sym];
      SymbolRef ref;
      ref.insn = (u32)((r.offset - in->start) / 8);
      if (r.type == kR_BPF_64_32) {
        ref.kind = SymbolRef::Call;
        if (sym.type == STT_SECTION) {
          // A static callee: its offset in the section is in the addend.
          const u64 target = (u64)((i64)8 + r.addend);
          const Range *callee = function_at(sym.shndx, target);
          if (!callee || callee->start != target)
            return error(strf("%s:(%s+0x%llx): call into the middle of a "
                              "function", name.c_str(),
                              obj.sections[rs.target].name.c_str(),
                              (unsigned long long)r.offset));
          ref.symbol = callee->name;
        } else {
          ref.symbol = sym.name;
        }
      } else if (r.type == kR_BPF_64_64) {
        ref.kind = SymbolRef::Imm64;
        ref.symbol = sym.type == STT_SECTION
                         ? obj.sections[sym.shndx].name
                         : std::string(sym.name);
        ref.addend = r.addend;
      } else {
        return error(strf("%s:(%s+0x%llx): relocation %s in code is not a call "
                          "or an ld_imm64", name.c_str(),
                          obj.sections[rs.target].name.c_str(),
                          (unsigned long long)r.offset,
                          obj.arch->type_name(r.type).c_str()));
      }
      f.refs.push_back(std::move(ref));
    }
  }
  return lib;
}

const LibFunction *BpfLibrary::find(const std::string &name) const {
  auto it = funcs_.find(name);
  return it == funcs_.end() ? nullptr : &it->second;
}

const std::vector<u8> *BpfLibrary::data(const std::string &section) const {
  auto it = data_.find(section);
  return it == data_.end() ? nullptr : &it->second;
}

std::vector<std::string> BpfLibrary::function_names() const {
  std::vector<std::string> v;
  for (const auto &[n, f] : funcs_)
    v.push_back(n);
  return v;
}

const std::string &LinkedProgram::origin(u32 insn) const {
  static const std::string none;
  const std::string *o = &none;
  for (const auto &[start, fn] : functions)
    if (start <= insn)
      o = &fn;
  return *o;
}

std::string listing(const LinkedProgram &p) {
  std::string out;
  size_t next_fn = 0;
  for (u32 pc = 0; pc < p.code.size(); pc++) {
    while (next_fn < p.functions.size() && p.functions[next_fn].first <= pc) {
      const std::string &fn = p.functions[next_fn].second;
      out += (fn.empty() ? std::string("<clause>") : "<" + fn + ">") + ":\n";
      next_fn++;
    }
    const Insn &i = p.code[pc];
    const bool wide = is_ld_imm64(i) && pc + 1 < p.code.size();
    out += strf("%5u: %s\n", pc,
                disasm(i, wide ? &p.code[pc + 1] : nullptr).c_str());
    if (wide)
      pc++;
  }
  return out;
}

Result<LinkedProgram> link_program(std::vector<Insn> code,
                                   std::vector<SymbolRef> refs,
                                   const BpfLibrary &lib,
                                   const Imm64Binder &bind,
                                   const std::string &name) {
  // Phase 1, layout: each function reached gets its place, depth first.
  std::map<std::string, u32> place;
  std::vector<const LibFunction *> order;
  u32 total = (u32)code.size();
  std::set<std::string> undefined;
  std::function<void(const std::vector<SymbolRef> &)> lay_out =
      [&](const std::vector<SymbolRef> &rs) {
        for (const SymbolRef &r : rs) {
          if (r.kind != SymbolRef::Call || place.count(r.symbol))
            continue;
          const LibFunction *f = lib.find(r.symbol);
          if (!f) {
            undefined.insert(r.symbol);
            continue;
          }
          place[r.symbol] = total;
          total += (u32)f->code.size();
          order.push_back(f);
          lay_out(f->refs);
        }
      };
  lay_out(refs);
  if (!undefined.empty()) {
    std::string names;
    for (const std::string &n : undefined)
      names += (names.empty() ? "" : ", ") + n;
    return error(strf("%s: undefined function%s: %s (not in %s)", name.c_str(),
                      undefined.size() > 1 ? "s" : "", names.c_str(),
                      lib.name().c_str()));
  }
  // Phase 2, construct: the code and the references, moved along.
  LinkedProgram out;
  out.functions.push_back({0, ""});
  out.code = std::move(code);
  std::vector<SymbolRef> all = std::move(refs);
  for (const LibFunction *f : order) {
    const u32 at = (u32)out.code.size();
    out.functions.push_back({at, f->name});
    out.code.insert(out.code.end(), f->code.begin(), f->code.end());
    for (SymbolRef r : f->refs) {
      r.insn += at;
      all.push_back(std::move(r));
    }
  }
  // Phase 3, resolve.
  for (const SymbolRef &r : all) {
    if (r.insn >= out.code.size())
      return error(strf("%s: a reference to %s at insn %u is outside the "
                        "program", name.c_str(), r.symbol.c_str(), r.insn));
    Insn &i = out.code[r.insn];
    if (r.kind == SymbolRef::Call) {
      if (i.code != (kJMP | kCALL))
        return error(strf("%s: insn %u: a call of %s on an instruction that is "
                          "not a call", name.c_str(), r.insn, r.symbol.c_str()));
      i.src = kPseudoCall;
      i.imm = (i32)place.at(r.symbol) - (i32)(r.insn + 1);
      continue;
    }
    if (!is_ld_imm64(i) || r.insn + 1 >= out.code.size())
      return error(strf("%s: insn %u: a reference to %s on an instruction that "
                        "is not ld_imm64", name.c_str(), r.insn,
                        r.symbol.c_str()));
    auto b = bind(r.symbol, r.addend);
    if (!b)
      return error(strf("%s: insn %u: %s", name.c_str(), r.insn,
                        b.error().message.c_str()));
    i.src = b->src;
    i.imm = b->imm;
    out.code[r.insn + 1].imm = b->next_imm;
  }
  return out;
}

} // namespace mk::bpf
