// The link driver of the unit tests: the kernel's pipeline (kern_linker.cpp)
// minus the arena, the protections and the registration.
#include "support.h"

#include "../../linker/arch.h"

namespace mkt {

mk::Result<mk::ObjectFile> parse(const ObjBuilder &b) {
  return mk::parse_object(b.build(), "t.o", "t.o");
}

u64 Linked::field(u32 section, u64 off, unsigned width) const {
  const u64 at = plan.layout.sec_off.at(section) + off;
  return mk::read_field(image.data() + at, width);
}

i64 Linked::sfield(u32 section, u64 off, unsigned width) const {
  const u64 v = field(section, off, width);
  const unsigned bits = width * 8;
  return bits == 64 ? (i64)v : (i64)(v << (64 - bits)) >> (64 - bits);
}

u64 Linked::got_entry(u32 slot) const {
  const u32 gsz = obj.arch->got_entry_size();
  return mk::read_field(image.data() + plan.layout.got_off + slot * gsz, gsz);
}

u64 Linked::G(u32 sym) const {
  const i32 slot = plan.got_slot.at(sym);
  return slot < 0 ? ~0ull : (u64)slot * obj.arch->got_entry_size();
}

mk::Result<Linked> link(const ObjBuilder &b, u64 base,
                        const Externals &externals,
                        const mk::SiteHandler *sites) {
  Linked l;
  auto obj = parse(b);
  if (!obj)
    return obj.take_error();
  l.obj = std::move(*obj);
  auto plan = mk::plan_link(l.obj, kPage);
  if (!plan)
    return plan.take_error();
  l.plan = std::move(*plan);
  mk::ExternalLookup lookup =
      [&](const std::string &n) -> std::optional<u64> {
    auto it = externals.find(n);
    if (it == externals.end())
      return std::nullopt;
    return it->second;
  };
  auto bindings = mk::bind_symbols(l.obj, lookup);
  if (!bindings)
    return bindings.take_error();
  l.bindings = std::move(*bindings);
  l.base = base;
  l.image.assign(l.plan.layout.total, 0);
  l.pl = mk::place_image(l.obj, l.plan, base, l.image.data());
  mk::copy_sections(l.obj, l.plan, l.pl);
  l.values = mk::symbol_values(l.obj, l.pl, l.bindings);
  auto rel = mk::relocate(l.obj, l.plan, l.pl, l.values, sites);
  if (!rel)
    return rel.take_error();
  return l;
}

} // namespace mkt
