// The factory that picks a backend by e_machine, and the per-backend table
// of relocation kinds.
#include "arch.h"

#include <elf.h>

namespace mk {

const Arch *arch_for_machine(u16 machine) {
  switch (machine) {
  case EM_X86_64: return &x86_64_arch();
  case EM_386: return &i386_arch();
  case EM_BPF: return &bpf_arch();
  }
  return nullptr;
}

RelocTable::RelocTable(const Arch &arch) : arch_(arch) {
  for (u32 t = 0; t < kSize; t++) {
    table_[t] = arch.classify(t);
    const auto &h = table_[t].howto;
    reach_[t] = h ? h->bytes_at_p() : kRefused;
    got_[t] = h && is_got_relative(h->expr);
  }
}

} // namespace mk
