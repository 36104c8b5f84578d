// The function symbols of an executable image, read from its ELF symbol
// table: which function holds an address of the kernel image.  The site
// recorder names the function of every call site at build time; asm-goto
// records carry only addresses, so the kernel image's are named at boot
// from its own symbol table (read only when there are some).
#pragma once

#include "../linker/base.h"

#include <string>
#include <vector>

namespace mk {

class ImageSymbols {
public:
  // The STT_FUNC symbols of the ELF file at `path` ("/proc/self/exe": the
  // running executable), at their link-time addresses.
  Result<void> load(const std::string &path);
  // The symbol of the function containing `addr`: a global name before a
  // local alias; nullptr if none.
  struct Func {
    u64 addr, size;
    std::string name;
    bool global;
  };
  const Func *function_at(u64 addr) const;
  bool empty() const { return funcs_.empty(); }

private:
  std::vector<Func> funcs_; // by address
};

} // namespace mk
