// The registry of architecture backends and the little-endian field helpers
// they share.
#include "arch.h"

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

u64 read_field(const u8 *p, unsigned width) {
  u64 v = 0;
  for (unsigned i = 0; i < width; i++)
    v |= (u64)p[i] << (8 * i);
  return v;
}

void write_field(u8 *p, unsigned width, u64 value) {
  for (unsigned i = 0; i < width; i++)
    p[i] = (u8)(value >> (8 * i));
}

} // namespace mk
