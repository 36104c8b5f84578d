// The machine-independent link stages (see link.h).  Semantics live here:
// each relocation's value is computed from its arch-neutral RelExpr with the
// psABI formula; the backend only said which expression and which field.
#include "link.h"

#include "code.h"
#include "sync.h"

#include <elf.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>
#include <cstring>

namespace mk {

namespace {

Region region_of(const Section &s) {
  if (!(s.flags & SHF_ALLOC))
    return Region::None;
  if (s.flags & SHF_EXECINSTR)
    return Region::Text;
  if (s.flags & SHF_WRITE)
    return Region::Data;
  return Region::Rodata;
}

std::string hex_signed(i64 v) {
  return v < 0 ? strf("-0x%llx", (unsigned long long)(-(u64)v))
               : strf("0x%llx", (unsigned long long)v);
}

// The values a field accepts, [lo, hi]; every range check derives from it.
struct FieldBounds {
  i64 lo, hi;
};
FieldBounds field_bounds(const RelocHowto &how) {
  const unsigned bits = how.width * 8;
  if (how.range == Range::Wrap || bits == 0 || bits >= 64)
    return {INT64_MIN, INT64_MAX};
  const i64 smin = -(i64(1) << (bits - 1)), smax = -smin - 1;
  const i64 umax = (i64(1) << bits) - 1;
  switch (how.range) {
  case Range::Signed: return {smin, smax};
  case Range::Unsigned: return {0, umax};
  case Range::Either: return {smin, umax};
  case Range::Wrap: break;
  }
  return {INT64_MIN, INT64_MAX};
}

// Whether `value` fits the field; check_field_range() says why not.
inline bool fits_field(i64 value, const RelocHowto &how) {
  const FieldBounds b = field_bounds(how);
  return value >= b.lo && value <= b.hi;
}

// A type of the relocation loops' fast path: S + A or S + A - P into a
// plain field, checked and written without looking at the type again.
struct FastKind {
  u64 pc_mask;    // all ones for S + A - P
  u64 field_mask; // the field's bits
  u64 lo, span;   // value - lo must be <= span (unsigned)
  u8 width;
  bool on;
  bool full64;    // an 8-byte field that takes any value: a plain store
  bool wrap32;    // a 4-byte field that takes any value modulo 2^32 (i386):
                  // 32-bit arithmetic and a plain store
};

FastKind fast_kind(const RelocKind &k) {
  FastKind f{0, 0, 0, 0, 0, false, false, false};
  // (ObjectFile::howto() only ever refines GOT forms, never these two.)
  // Fields spread over an instruction, or scaled, take the general path.
  if (!k.howto ||
      (k.howto->expr != RelExpr::Abs && k.howto->expr != RelExpr::PC) ||
      k.howto->field != FieldKind::Plain || k.howto->scale != 1)
    return f;
  const unsigned bits = k.howto->width * 8;
  const auto [lo, hi] = field_bounds(*k.howto);
  f.pc_mask = k.howto->expr == RelExpr::PC ? ~0ull : 0;
  f.field_mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  f.lo = (u64)lo;
  f.span = (u64)hi - (u64)lo;
  f.width = k.howto->width;
  f.on = bits > 0;
  f.full64 = bits == 64 && k.howto->range == Range::Wrap;
  f.wrap32 = bits == 32 && k.howto->range == Range::Wrap;
  return f;
}

// The fast paths' view of every type of one relocation table: built once
// per backend, on first use, not per load.
struct FastTables {
  FastKind fast[RelocTable::kSize];
  u32 pc32[RelocTable::kSize]; // see fast_rel32
};

struct BuiltFastTables {
  Mutex mu;
  std::vector<std::pair<const RelocTable *, std::unique_ptr<FastTables>>>
      built GUARDED_BY(mu);
};

const FastTables &fast_tables(const RelocTable &kinds) {
  static BuiltFastTables b;
  MutexLock g(b.mu);
  auto &built = b.built;
  for (const auto &[k, t] : built)
    if (k == &kinds)
      return *t;
  auto t = std::make_unique<FastTables>();
  for (u32 i = 0; i < RelocTable::kSize; i++) {
    t->fast[i] = fast_kind(kinds[i]);
    t->pc32[i] = t->fast[i].wrap32 ? (u32)t->fast[i].pc_mask : 1;
  }
  built.emplace_back(&kinds, std::move(t));
  return *built.back().second;
}

} // namespace

Result<void> check_field_range(const ObjectFile &obj, u32 section,
                               const Reloc &rel, i64 value,
                               const RelocHowto &how) {
  const auto [lo, hi] = field_bounds(how);
  if (value >= lo && value <= hi)
    return {};
  return error(strf("%s:(%s+0x%llx): relocation %s against %s out of range: "
                    "%s is not in [%lld, %lld]",
                    obj.name.c_str(), obj.sections[section].name.c_str(),
                    (unsigned long long)rel.offset,
                    obj.arch->type_name(rel.type).c_str(),
                    obj.symbol_label(rel.sym).c_str(), hex_signed(value).c_str(),
                    (long long)lo, (long long)hi));
}

Result<LinkPlan> plan_link(const ObjectFile &obj, u64 page_size,
                           const InitSection &init_section) {
  LinkPlan plan;
  const Arch &arch = *obj.arch;
  plan.got_slot.assign(obj.symbols.size(), -1);

  // Scan: which symbols need a GOT slot, whether the GOT base is used.
  for (const RelocSection &rs : obj.relocs) {
    if (!(obj.sections[rs.target].flags & SHF_ALLOC))
      continue;
    plan.reloc_count += rs.relocs.size();
    if (!rs.uses_got)
      continue; // parsing saw no GOT-relative entry here
    for (const Reloc &r : rs.relocs) {
      const RelExpr e = obj.howto(rs.target, r).expr;
      if (needs_got_slot(e)) {
        if (plan.got_slot[r.sym] < 0)
          plan.got_slot[r.sym] = (i32)plan.got_slots++;
        plan.wants_got = true;
      } else if (needs_got_base(e)) {
        plan.wants_got = true;
      }
    }
  }
  for (const Symbol &s : obj.symbols)
    if (s.shndx == SHN_UNDEF && s.name == "_GLOBAL_OFFSET_TABLE_")
      plan.wants_got = true;

  // Layout: text, then rodata and the GOT, then data, bss and COMMON; each
  // region page-aligned so it can get its own protection.  Sizes and
  // alignments come from the file: every step is checked against
  // kMaxImageSize, so no sum or rounding can wrap (a .bss of 2^64 - 1
  // bytes, an alignment of 2^63).
  Layout &L = plan.layout;
  L.sec_off.assign(obj.sections.size(), Layout::kNotLoaded);
  L.sec_region.assign(obj.sections.size(), Region::None);
  L.common_off.assign(obj.symbols.size(), Layout::kNotLoaded);
  L.align = page_size;
  u64 cur = 0;
  auto too_big = [&](const std::string &what) {
    return error(strf("%s: %s: the module image would exceed %llu GiB",
                      obj.name.c_str(), what.c_str(),
                      (unsigned long long)(kMaxImageSize >> 30)));
  };
  // Place `size` bytes aligned to `align` at the end of the image so far.
  auto claim = [&](u64 size, u64 align, const std::string &what,
                   u64 &off) -> Result<void> {
    if (align > kMaxImageSize)
      return error(strf("%s: %s: alignment 0x%llx is above the largest a "
                        "module may ask for (0x%llx)",
                        obj.name.c_str(), what.c_str(),
                        (unsigned long long)align,
                        (unsigned long long)kMaxImageSize));
    u64 end;
    if (!align_ok(cur, align, off) || !add_ok(off, size, end) ||
        end > kMaxImageSize)
      return too_big(what);
    cur = end;
    L.align = std::max(L.align, align);
    return {};
  };
  auto region_start = [&](u64 &off) -> Result<void> {
    if (!align_ok(cur, page_size, off) || off > kMaxImageSize)
      return too_big("layout");
    cur = off;
    return {};
  };
  auto is_init = [&](const Section &s) {
    return init_section && init_section(s);
  };
  // A region's sections: those kept (or those freed after init), contents
  // first, then NOBITS.
  auto place = [&](Region want, bool init) -> Result<void> {
    for (bool nobits : {false, true})
      for (size_t i = 0; i < obj.sections.size(); i++) {
        const Section &s = obj.sections[i];
        if (region_of(s) != want || (s.type == SHT_NOBITS) != nobits ||
            is_init(s) != init)
          continue;
        MK_TRY(claim(s.size, s.align, "section " + s.name, L.sec_off[i]));
        L.sec_region[i] = want;
      }
    return {};
  };
  // The init part of a region starts a page of its own, so that it can be
  // given back alone.
  auto place_init = [&](Region want, u64 &init_off) -> Result<void> {
    bool any = false;
    for (const Section &s : obj.sections)
      any |= region_of(s) == want && is_init(s);
    if (!any) {
      init_off = cur;
      return {};
    }
    MK_TRY(region_start(init_off));
    return place(want, true);
  };
  L.text_off = 0;
  MK_TRY(place(Region::Text, false));
  MK_TRY(place_init(Region::Text, L.init_text_off));
  L.text_size = cur;
  MK_TRY(region_start(L.ro_off));
  MK_TRY(place(Region::Rodata, false));
  if (plan.wants_got)
    MK_TRY(claim((u64)plan.got_slots * arch.got_entry_size(),
                 arch.got_entry_size(), "GOT", L.got_off));
  MK_TRY(place_init(Region::Rodata, L.init_ro_off));
  L.ro_size = cur - L.ro_off;
  MK_TRY(region_start(L.data_off));
  MK_TRY(place(Region::Data, false));
  for (size_t i = 0; i < obj.symbols.size(); i++) {
    const Symbol &s = obj.symbols[i];
    if (s.shndx != SHN_COMMON)
      continue;
    // For COMMON symbols st_value is the required alignment.
    u64 a = s.value ? s.value : 1;
    if (!is_pow2(a))
      return error(strf("%s: COMMON symbol %s: alignment %llu is not a power "
                        "of two",
                        obj.name.c_str(), s.name.c_str(),
                        (unsigned long long)a));
    MK_TRY(claim(s.size, a, "COMMON symbol " + s.name.str(), L.common_off[i]));
  }
  MK_TRY(place_init(Region::Data, L.init_data_off));
  L.data_size = cur - L.data_off;
  u64 total;
  MK_TRY(region_start(total));
  L.total = total;
  return plan;
}

Result<std::vector<Binding>> bind_symbols(const ObjectFile &obj,
                                          const ExternalLookup &lookup,
                                          LinkHooks *hooks) {
  std::vector<Binding> out(obj.symbols.size());
  std::vector<std::string> missing;
  for (size_t i = 1; i < obj.symbols.size(); i++) {
    const Symbol &s = obj.symbols[i];
    if (s.shndx != SHN_UNDEF || s.name.empty())
      continue;
    Binding &b = out[i];
    if (s.name == "_GLOBAL_OFFSET_TABLE_") {
      b.kind = Binding::Got;
      continue;
    }
    if (s.name == "__dso_handle") {
      b.kind = Binding::ImageBase;
      continue;
    }
    // __start_X / __stop_X bound the module's own section X (linker sets).
    for (const char *pfx : {"__start_", "__stop_"}) {
      size_t n = std::strlen(pfx);
      if (s.name.compare(0, n, pfx) != 0)
        continue;
      std::string_view sec = s.name.substr(n);
      for (size_t k = 0; k < obj.sections.size(); k++) {
        if (obj.sections[k].name == sec &&
            (obj.sections[k].flags & SHF_ALLOC)) {
          b.kind = n == 8 ? Binding::SectionStart : Binding::SectionStop;
          b.section = (u32)k;
        }
      }
    }
    if (b.kind != Binding::Value)
      continue;
    if (hooks)
      if (auto v = hooks->bind(s.name.str())) {
        if (!*v)
          return v->take_error();
        b.value = **v;
        continue;
      }
    if (auto v = lookup ? lookup(s.name.str()) : std::nullopt) {
      b.value = *v;
      continue;
    }
    if (s.bind == STB_WEAK) {
      b.kind = Binding::Zero;
      continue;
    }
    missing.push_back(s.name.str());
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    std::string list;
    for (const auto &m : missing)
      list += (list.empty() ? "" : ", ") + m;
    return error(strf("%s: undefined symbol%s: %s", obj.name.c_str(),
                      missing.size() > 1 ? "s" : "", list.c_str()));
  }
  return out;
}

Placement place_image(const ObjectFile &obj, const LinkPlan &plan, u64 base,
                      u8 *mem) {
  const Layout &L = plan.layout;
  Placement pl;
  pl.image_base = base;
  pl.image_mem = mem;
  pl.image_size = L.total;
  pl.sec_addr.assign(obj.sections.size(), 0);
  pl.sec_mem.assign(obj.sections.size(), nullptr);
  pl.common_addr.assign(obj.symbols.size(), 0);
  for (size_t i = 0; i < obj.sections.size(); i++) {
    if (L.sec_off[i] == Layout::kNotLoaded)
      continue;
    pl.sec_addr[i] = base + L.sec_off[i];
    pl.sec_mem[i] = mem + L.sec_off[i];
  }
  for (size_t i = 0; i < obj.symbols.size(); i++)
    if (L.common_off[i] != Layout::kNotLoaded)
      pl.common_addr[i] = base + L.common_off[i];
  if (plan.wants_got) {
    pl.got_addr = base + L.got_off;
    pl.got_mem = mem + L.got_off;
  }
  pl.text = {L.text_off, L.text_size};
  pl.rodata = {L.ro_off, L.ro_size};
  pl.data = {L.data_off, L.data_size};
  return pl;
}

void copy_sections(const ObjectFile &obj, const Placement &pl) {
  // The image's memory may hold anything: every byte is written, the
  // contents of PROGBITS sections copied, all the rest zeroed.  Sections
  // moved out of the image (mk-link) are filled where they went.
  std::vector<std::pair<u64, u64>> filled; // [start, end) in the image
  for (size_t i = 0; i < obj.sections.size(); i++) {
    u8 *dst = pl.sec_mem[i];
    const Section &s = obj.sections[i];
    if (!dst)
      continue;
    const bool in_image =
        dst >= pl.image_mem && dst < pl.image_mem + pl.image_size;
    if (s.data && s.size)
      code::copy(dst, s.data, s.size);
    else if (s.size && !(in_image && pl.image_zeroed))
      std::memset(dst, 0, s.size);
    if (in_image)
      filled.emplace_back(dst - pl.image_mem, dst - pl.image_mem + s.size);
  }
  if (pl.image_zeroed)
    return;
  std::sort(filled.begin(), filled.end());
  u64 at = 0;
  for (auto [lo, hi] : filled) {
    if (lo > at)
      std::memset(pl.image_mem + at, 0, lo - at);
    at = std::max(at, hi);
  }
  if (at < pl.image_size)
    std::memset(pl.image_mem + at, 0, pl.image_size - at);
}

std::vector<u64> symbol_values(const ObjectFile &obj, const Placement &pl,
                               const std::vector<Binding> &bindings) {
  std::vector<u64> v(obj.symbols.size(), 0);
  for (size_t i = 1; i < obj.symbols.size(); i++) {
    const Symbol &s = obj.symbols[i];
    if (s.shndx == SHN_ABS) {
      v[i] = s.value;
    } else if (s.shndx == SHN_COMMON) {
      v[i] = pl.common_addr[i];
    } else if (s.shndx == SHN_UNDEF) {
      const Binding &b = bindings[i];
      switch (b.kind) {
      case Binding::Value: v[i] = b.value; break;
      case Binding::Zero: v[i] = 0; break;
      case Binding::Got: v[i] = pl.got_addr; break;
      case Binding::ImageBase: v[i] = pl.image_base; break;
      case Binding::SectionStart: v[i] = pl.sec_addr[b.section]; break;
      case Binding::SectionStop:
        v[i] = pl.sec_addr[b.section] + obj.sections[b.section].size;
        break;
      }
    } else if (pl.sec_addr[s.shndx] || pl.sec_mem[s.shndx]) {
      v[i] = pl.sec_addr[s.shndx] + s.value;
    } else {
      v[i] = s.value; // in a section that is not loaded
    }
  }
  return v;
}

namespace {

// The relocation loops' fast paths, one per entry format the loader meets
// in bulk: from entry `k` on, apply every entry of a FastKind type against
// a symbol the hooks do not claim, whose value fits; stop at the first
// other one.  Returns how many were applied.  `mem` is written through
// __restrict so stores into the image need not reload the tables.
size_t fast_rela64(const u8 *ents, size_t k, size_t n, const FastKind *fast,
                   const u64 *values, const u8 *claimed, u64 base, u64 room8,
                   u8 *__restrict mem) {
  const size_t first = k;
  for (const u8 *e = ents + k * 24; k < n; k++, e += 24) {
    u64 off, info;
    i64 addend;
    std::memcpy(&off, e, 8);
    std::memcpy(&info, e + 8, 8);
    std::memcpy(&addend, e + 16, 8);
    const u32 sym = (u32)(info >> 32), type = (u32)info;
    if (type >= RelocTable::kSize || claimed[sym])
      break;
    const FastKind &f = fast[type];
    const u64 v = values[sym] + (u64)addend - ((base + off) & f.pc_mask);
    if (f.full64) {
      code::store(mem + off, 8, v);
      continue;
    }
    if (!f.on || off >= room8 || v - f.lo > f.span)
      break;
    // A 4-byte field (PC32, PLT32, 32S: nearly all of them) is one 4-byte
    // store.  The 8-byte read-modify-write would read back the half the
    // previous entry's store just wrote wherever fields are adjacent (ORC
    // and site tables, __ksymtab), which the CPU cannot forward.
    if (f.width == 4)
      code::store(mem + off, 4, v);
    else
      code::store_masked8(mem + off, f.field_mask, v);
  }
  return k - first;
}

// i386: the addend is the field's contents in the object (`orig`); every
// fast field is 4 bytes and wraps, so the arithmetic is 32-bit (`pc32`:
// all ones for S + A - P, 0 for S + A, 1 for a type the loop leaves alone)
// and `values32` holds the symbols' values modulo 2^32.
size_t fast_rel32(const u8 *ents, size_t k, size_t n, const u32 *pc32,
                  const u32 *values32, const u8 *claimed, u32 base,
                  u8 *__restrict mem, const u8 *orig) {
  const size_t first = k;
  for (const u8 *e = ents + k * 8; k < n; k++, e += 8) {
    u32 off, info;
    std::memcpy(&off, e, 4);
    std::memcpy(&info, e + 4, 4);
    const u32 sym = info >> 8, mask = pc32[info & 0xff];
    if (mask == 1 || claimed[sym])
      break;
    u32 addend;
    std::memcpy(&addend, orig + off, 4);
    code::store(mem + off, 4, values32[sym] + addend - ((base + off) & mask));
  }
  return k - first;
}

} // namespace

Result<void> relocate(const ObjectFile &obj, const LinkPlan &plan,
                      const Placement &pl, const std::vector<u64> &values,
                      LinkHooks *hooks) {
  const Arch &arch = *obj.arch;
  const u32 gsz = arch.got_entry_size();
  // Fill the GOT: each slot holds its symbol's address.
  if (pl.got_mem)
    for (size_t i = 0; i < plan.got_slot.size(); i++)
      if (plan.got_slot[i] >= 0)
        code::store(pl.got_mem + (u64)plan.got_slot[i] * gsz, gsz, values[i]);

  // Which symbols the fast paths leave to the general one, decided once,
  // not per relocation: those the hooks claim (probe functions), and those
  // defined in a section that is not loaded (no SHF_ALLOC: .comment, debug
  // info), which have no address in the image.
  enum : u8 { kPlain = 0, kClaimed = 1, kNotLoaded = 2 };
  std::vector<u8> claimed(obj.symbols.size(), kPlain);
  for (size_t i = 1; i < obj.symbols.size(); i++) {
    const Symbol &s = obj.symbols[i];
    if (s.shndx == SHN_UNDEF)
      claimed[i] = hooks && hooks->claims(s) ? kClaimed : kPlain;
    else if (s.shndx < obj.sections.size() && s.shndx != SHN_ABS &&
             s.shndx != SHN_COMMON && !pl.sec_addr[s.shndx] &&
             !pl.sec_mem[s.shndx])
      claimed[i] = kNotLoaded;
  }
  const RelocTable &kinds = arch.table();
  // The fast path for the common types, S + A and S + A - P (almost every
  // relocation of a module): no switch per entry, the range check as one
  // unsigned compare, the field written as a masked 8-byte store.
  const FastTables &tables = fast_tables(kinds);
  const FastKind *fast = tables.fast;
  const u32 *pc32 = tables.pc32;
  std::vector<u32> values32;

  // Everything else: every expression, the hooks, the exact messages.
  auto general = [&](const RelocSection &rs, const Reloc &r, u8 *mem,
                     u64 base) -> Result<void> {
    const Section &target = obj.sections[rs.target];
    if (claimed[r.sym] == kClaimed) {
      auto took = hooks->take(
          SiteContext{obj, rs.target, r, base + r.offset, mem, values[r.sym]});
      if (!took)
        return took.take_error();
      if (*took)
        return {};
    }
    const RelocHowto how = obj.howto(rs.target, r);
    if (claimed[r.sym] == kNotLoaded && how.expr != RelExpr::None &&
        how.expr != RelExpr::Size) {
      const u32 where = obj.symbols[r.sym].shndx;
      return error(strf("%s:(%s+0x%llx): relocation %s against %s: it is in "
                        "section %s, which is not loaded (no SHF_ALLOC)",
                        obj.name.c_str(), target.name.c_str(),
                        (unsigned long long)r.offset,
                        arch.type_name(r.type).c_str(),
                        obj.symbol_label(r.sym).c_str(),
                        obj.sections[where].name.c_str()));
    }
    const u64 S = values[r.sym];
    const u64 A = (u64)r.addend;
    const u64 P = base + r.offset;
    const u64 GOT = pl.got_addr;
    const u64 G =
        plan.got_slot[r.sym] >= 0 ? (u64)plan.got_slot[r.sym] * gsz : 0;
    u64 v = 0;
    switch (how.expr) {
    case RelExpr::None: return {};
    case RelExpr::Abs: v = S + A; break;
    case RelExpr::PC: v = S + A - P; break;
    case RelExpr::GotSlotPC: v = GOT + G + A - P; break;
    case RelExpr::GotSlotAbs: v = GOT + G + A; break;
    case RelExpr::GotSlotOff: v = G + A; break;
    case RelExpr::GotBasePC: v = GOT + A - P; break;
    case RelExpr::GotRel: v = S + A - GOT; break;
    case RelExpr::Size: {
      const Symbol &sym = obj.symbols[r.sym];
      const u64 Z = sym.size;
      // Z is the definition's size; a kernel export's or another
      // module's is not known here, and 0 would be silently wrong.
      if (sym.shndx == SHN_UNDEF)
        return error(strf("%s:(%s+0x%llx): relocation %s against %s: the "
                          "size of a symbol outside the module is unknown",
                          obj.name.c_str(), target.name.c_str(),
                          (unsigned long long)r.offset,
                          arch.type_name(r.type).c_str(),
                          obj.symbol_label(r.sym).c_str()));
      v = Z + A;
      break;
    }
    }
    if (how.scale > 1) { // in units of the scale (BPF: instructions)
      if ((i64)v % how.scale)
        return error(strf("%s:(%s+0x%llx): relocation %s against %s: %s "
                          "is not a multiple of %u",
                          obj.name.c_str(), target.name.c_str(),
                          (unsigned long long)r.offset,
                          arch.type_name(r.type).c_str(),
                          obj.symbol_label(r.sym).c_str(),
                          hex_signed((i64)v).c_str(), how.scale));
      v = (u64)((i64)v / how.scale);
    }
    if (!fits_field((i64)v, how))
      return check_field_range(obj, rs.target, r, (i64)v, how);
    if (how.field == FieldKind::Custom)
      arch.encode(r.type, mem + r.offset, v);
    else
      code::store(mem + r.offset, how.width, v);
    return {};
  };

  for (const RelocSection &rs : obj.relocs) {
    u8 *mem = pl.sec_mem[rs.target];
    if (!mem)
      continue;
    const Section &target = obj.sections[rs.target];
    const u64 base = pl.sec_addr[rs.target];
    // Fields the 8-byte read-modify-write of the fast path may touch.
    const u64 room8 = target.size >= 8 ? target.size - 8 + 1 : 0;
    const RelocList &list = rs.relocs;
    const size_t n = list.size();
    const u8 *e = list.entries();
    if (list.format() == RelocFormat::Rel32 && values32.empty()) {
      values32.resize(values.size());
      for (size_t i = 0; i < values.size(); i++)
        values32[i] = (u32)values[i];
    }
    switch (list.format()) {
    case RelocFormat::Rela64:
    case RelocFormat::Rel32: {
      // The tight loop takes what it can; each entry it leaves goes to the
      // general path, then the loop resumes after it.
      size_t k = 0;
      while (k < n) {
        k += list.format() == RelocFormat::Rela64
                 ? fast_rela64(e, k, n, fast, values.data(), claimed.data(),
                               base, room8, mem)
                 : fast_rel32(e, k, n, pc32, values32.data(), claimed.data(),
                              (u32)base, mem, list.target());
        if (k < n)
          MK_TRY(general(rs, list[k++], mem, base));
      }
      break;
    }
    default:
      for (size_t k = 0; k < n; k++)
        MK_TRY(general(rs, list[k], mem, base));
    }
  }
  return {};
}

static Result<LinkedImage> link_stages(const ObjectFile &obj,
                                       const LinkOptions &o);

Result<LinkedImage> link_image(const ObjectFile &obj, const LinkOptions &o) {
  auto r = link_stages(obj, o);
  if (!r)
    return one_line(r.take_error());
  return r;
}

static Result<LinkedImage> link_stages(const ObjectFile &obj,
                                       const LinkOptions &o) {
  auto done = [&](LinkStage s) {
    if (o.observer)
      o.observer->stage_done(s);
  };
  LinkedImage li;
  auto plan = plan_link(obj, o.page_size, o.init_section);
  if (!plan)
    return plan.take_error();
  li.plan = std::move(*plan);
  done(LinkStage::Plan);
  auto bindings = bind_symbols(obj, o.lookup, o.hooks);
  if (!bindings)
    return bindings.take_error();
  li.bindings = std::move(*bindings);
  done(LinkStage::Bind);
  auto mem = o.allocate(li.plan.layout.total, li.plan.layout.align);
  if (!mem)
    return mem.take_error();
  done(LinkStage::Allocate);
  li.pl = place_image(obj, li.plan, mem->base, mem->mem);
  li.pl.image_zeroed = mem->zeroed;
  if (o.adjust)
    o.adjust(obj, li.plan, li.pl);
  done(LinkStage::Place);
  copy_sections(obj, li.pl);
  done(LinkStage::Copy);
  li.values = symbol_values(obj, li.pl, li.bindings);
  done(LinkStage::Values);
  MK_TRY(relocate(obj, li.plan, li.pl, li.values, o.hooks));
  done(LinkStage::Relocate);
  return li;
}

void SymbolMap::add(std::string_view name, u64 value) {
  entries_.push_back(Entry{(u32)pool_.size(), (u32)name.size(), value});
  pool_.append(name);
}

u32 SymbolMap::hash(std::string_view s) {
  u32 h = 2166136261u; // FNV-1a
  for (unsigned char c : s)
    h = (h ^ c) * 16777619u;
  return h;
}

void SymbolMap::finish() {
  size_t cap = 16;
  while (cap < entries_.size() * 2)
    cap *= 2;
  slots_.assign(cap, 0);
  size_ = 0;
  const size_t mask = cap - 1;
  for (size_t i = 0; i < entries_.size(); i++) {
    const std::string_view n = name_of(entries_[i]);
    for (size_t at = hash(n) & mask;; at = (at + 1) & mask) {
      if (!slots_[at]) {
        slots_[at] = (u32)i + 1;
        size_++;
        break;
      }
      if (name_of(entries_[slots_[at] - 1]) == n)
        break; // defined before: the first definition counts
    }
  }
}

std::optional<u64> SymbolMap::find(std::string_view name) const {
  if (slots_.empty())
    return std::nullopt;
  const size_t mask = slots_.size() - 1;
  for (size_t at = hash(name) & mask; slots_[at]; at = (at + 1) & mask) {
    const Entry &e = entries_[slots_[at] - 1];
    if (e.len == name.size() && name_of(e) == name)
      return e.value;
  }
  return std::nullopt;
}

u64 SymbolMap::at(std::string_view name) const {
  if (auto v = find(name))
    return *v;
  throw std::out_of_range("SymbolMap::at: " + std::string(name));
}

std::vector<u64> image_set(const ObjectFile &obj, const Placement &pl,
                           std::string_view set) {
  std::vector<u64> out;
  const u32 psize = obj.arch->elf_class() == ELFCLASS64 ? 8 : 4;
  for (size_t i = 0; i < obj.sections.size(); i++) {
    const std::string &n = obj.sections[i].name;
    if (!pl.sec_mem[i] || n.size() != set.size() + 4 ||
        n.compare(0, 4, "set_") != 0 || n.compare(4, set.size(), set) != 0)
      continue;
    for (u64 k = 0; k + psize <= obj.sections[i].size; k += psize)
      out.push_back(read_field(pl.sec_mem[i] + k, psize));
  }
  return out;
}

// ---- checked reads of the image's own data (see link.h) ---------------------

std::string Label::str() const {
  std::string s(what_);
  if (index_ != kNoIndex)
    s += " " + std::to_string(index_);
  if (named_)
    (s += " ") += name_;
  if (part_)
    (s += " ") += part_;
  return s;
}

Error ImageReader::fail(const Label &what, u64 addr, const char *why) const {
  return error(strf("%s: %s: pointer 0x%llx %s", obj_.name.c_str(),
                    what.str().c_str(), (unsigned long long)addr, why));
}

bool ImageReader::within(const Placement::Span &s, u64 addr, u64 size) const {
  if (addr < pl_.image_base)
    return false;
  const u64 off = addr - pl_.image_base;
  return off >= s.off && size <= s.size && off - s.off <= s.size - size;
}

Result<std::vector<u64>> ImageReader::set(std::string_view set) const {
  const u32 psize = obj_.arch->elf_class() == ELFCLASS64 ? 8 : 4;
  std::vector<u64> out;
  for (size_t i = 0; i < obj_.sections.size(); i++) {
    const Section &s = obj_.sections[i];
    const std::string &n = s.name;
    if (!pl_.sec_mem[i] || n.size() != set.size() + 4 ||
        n.compare(0, 4, "set_") != 0 || n.compare(4, set.size(), set) != 0)
      continue;
    if (s.size % psize)
      return error(strf("%s: %s: size %llu is not a multiple of a pointer's",
                        obj_.name.c_str(), n.c_str(),
                        (unsigned long long)s.size));
    for (u64 k = 0; k < s.size; k += psize)
      out.push_back(read_field(pl_.sec_mem[i] + k, psize));
  }
  return out;
}

Result<u64> ImageReader::record(u64 addr, u64 size, u64 align,
                                const Label &what) const {
  if (!addr)
    return fail(what, addr, "is null");
  if (!within(pl_.rodata, addr, size) && !within(pl_.data, addr, size))
    return fail(what, addr,
                strf("does not point at %llu bytes of the module's data",
                     (unsigned long long)size)
                    .c_str());
  if (align > 1 && addr % align)
    return fail(what, addr, strf("is not aligned to %llu",
                                 (unsigned long long)align)
                                .c_str());
  return addr;
}

Result<u64> ImageReader::writable(u64 addr, u64 size, u64 align,
                                  const Label &what) const {
  if (!addr)
    return fail(what, addr, "is null");
  if (!within(pl_.data, addr, size))
    return fail(what, addr,
                strf("does not point at %llu bytes of the module's writable "
                     "data",
                     (unsigned long long)size)
                    .c_str());
  if (align > 1 && addr % align)
    return fail(what, addr, strf("is not aligned to %llu",
                                 (unsigned long long)align)
                                .c_str());
  return addr;
}

Result<const char *> ImageReader::string(u64 addr, const Label &what,
                                         bool optional) const {
  if (!addr) {
    if (optional)
      return "";
    return fail(what, addr, "is null");
  }
  for (const Placement::Span *s : {&pl_.rodata, &pl_.data}) {
    if (!within(*s, addr, 1))
      continue;
    const u64 left = s->off + s->size - (addr - pl_.image_base);
    if (!std::memchr(view(addr), 0, left))
      return fail(what, addr, "is a string not NUL-terminated inside the "
                              "module's data");
    return (const char *)(uintptr_t)addr;
  }
  return fail(what, addr, "does not point at a string in the module's data");
}

Result<u64> ImageReader::function(u64 addr, const Label &what,
                                  bool optional) const {
  if (!addr) {
    if (optional)
      return addr;
    return fail(what, addr, "is null");
  }
  if (!within(pl_.text, addr, 1))
    return fail(what, addr, "is not in the module's code");
  return addr;
}

Result<std::vector<u64>> ImageReader::array(const std::string &base) const {
  const u32 psize = obj_.arch->elf_class() == ELFCLASS64 ? 8 : 4;
  std::vector<std::pair<unsigned long, size_t>> secs;
  for (size_t i = 0; i < obj_.sections.size(); i++) {
    const std::string &n = obj_.sections[i].name;
    if (!pl_.sec_mem[i] || n.compare(0, base.size(), base) != 0)
      continue;
    if (n.size() == base.size())
      secs.emplace_back(ULONG_MAX, i);
    else if (n[base.size()] == '.')
      secs.emplace_back(std::strtoul(n.c_str() + base.size() + 1, nullptr, 10),
                        i);
  }
  std::stable_sort(secs.begin(), secs.end());
  std::vector<u64> out;
  for (auto [prio, i] : secs) {
    (void)prio;
    const Section &s = obj_.sections[i];
    if (s.size % psize)
      return error(strf("%s: %s: size %llu is not a multiple of a pointer's",
                        obj_.name.c_str(), s.name.c_str(),
                        (unsigned long long)s.size));
    for (u64 k = 0; k < s.size; k += psize) {
      auto fn = function(read_field(pl_.sec_mem[i] + k, psize),
                         strf("%s[%llu]", s.name.c_str(),
                              (unsigned long long)(k / psize)));
      if (!fn)
        return fn.take_error();
      out.push_back(*fn);
    }
  }
  return out;
}

SymbolMap exported_symbols(const ObjectFile &obj,
                           const std::vector<u64> &values) {
  auto exported = [&](const Symbol &s) {
    return s.shndx != SHN_UNDEF && !s.name.empty() &&
           (s.bind == STB_GLOBAL || s.bind == STB_WEAK) &&
           s.visibility != STV_HIDDEN && s.visibility != STV_INTERNAL;
  };
  size_t n = 0, bytes = 0;
  for (size_t i = 1; i < obj.symbols.size(); i++)
    if (exported(obj.symbols[i]))
      n++, bytes += obj.symbols[i].name.size();
  SymbolMap out;
  out.reserve(n, bytes);
  for (size_t i = 1; i < obj.symbols.size(); i++)
    if (exported(obj.symbols[i]))
      out.add(obj.symbols[i].name, values[i]);
  out.finish();
  return out;
}

} // namespace mk
