// The link driver of the unit tests: the kernel's pipeline (link_image)
// into a plain buffer instead of the arena.
#include "support.h"

#include "../../linker/code.h"

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
                        const Externals &externals, mk::LinkHooks *hooks) {
  Linked l;
  auto obj = parse(b);
  if (!obj)
    return obj.take_error();
  l.obj = std::move(*obj);
  l.base = base;
  mk::LinkOptions o;
  o.page_size = kPage;
  o.lookup = [&](const std::string &n) -> std::optional<u64> {
    auto it = externals.find(n);
    if (it == externals.end())
      return std::nullopt;
    return it->second;
  };
  o.allocate = [&](u64 size, u64) -> mk::Result<mk::ImageMemory> {
    l.image.assign(size, 0);
    return mk::ImageMemory{base, l.image.data()};
  };
  o.hooks = hooks;
  auto linked = mk::link_image(l.obj, o);
  if (!linked)
    return linked.take_error();
  l.plan = std::move(linked->plan);
  l.bindings = std::move(linked->bindings);
  l.pl = std::move(linked->pl);
  l.values = std::move(linked->values);
  return l;
}

} // namespace mkt
