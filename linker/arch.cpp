// The registry of architecture backends and the little-endian field helpers
// they share.
#include "arch.h"

#include <mutex>
#include <vector>

namespace mk {

namespace {
std::vector<const Arch *> &registry() {
  static std::vector<const Arch *> r;
  return r;
}
} // namespace

ArchRegistration::ArchRegistration(const Arch *arch) {
  registry().push_back(arch);
}

const Arch *arch_for_machine(u16 machine) {
  for (const Arch *a : registry())
    if (a->machine() == machine)
      return a;
  return nullptr;
}

RelocTable::RelocTable(const Arch &arch) {
  for (u32 t = 0; t < kSize; t++) {
    table_[t] = arch.classify(t);
    const auto &h = table_[t].howto;
    width_[t] = h ? h->width : 0xff;
    got_[t] = h && (h->expr == RelExpr::GotSlotPC ||
                    h->expr == RelExpr::GotSlotAbs ||
                    h->expr == RelExpr::GotSlotOff ||
                    h->expr == RelExpr::GotBasePC ||
                    h->expr == RelExpr::GotBaseAbs ||
                    h->expr == RelExpr::GotRel);
  }
}

const RelocTable &reloc_table(const Arch &arch) {
  // One table per backend, built on first use, never freed.
  static std::mutex mu;
  static std::vector<std::pair<const Arch *, const RelocTable *>> tables;
  std::lock_guard<std::mutex> g(mu);
  for (auto &[a, t] : tables)
    if (a == &arch)
      return *t;
  tables.emplace_back(&arch, new RelocTable(arch));
  return *tables.back().second;
}

} // namespace mk
