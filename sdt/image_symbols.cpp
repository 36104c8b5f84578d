// Function symbols of an executable image (see image_symbols.h).
#include "image_symbols.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

namespace mk {

Result<void> ImageSymbols::load(const std::string &path) {
  funcs_.clear();
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return error(strf("%s: %s", path.c_str(), std::strerror(errno)));
  Elf *e = elf_begin(fd, ELF_C_READ, nullptr);
  Elf_Scn *scn = nullptr;
  while (e && (scn = elf_nextscn(e, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
      continue;
    Elf_Data *d = elf_getdata(scn, nullptr);
    const size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; d && i < n; i++) {
      GElf_Sym s;
      if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
          !s.st_value || s.st_shndx == SHN_UNDEF)
        continue;
      const char *name = elf_strptr(e, sh.sh_link, s.st_name);
      funcs_.push_back(Func{s.st_value, s.st_size, name ? name : "",
                            GELF_ST_BIND(s.st_info) != STB_LOCAL});
    }
  }
  const bool ok = e != nullptr;
  if (e)
    elf_end(e);
  close(fd);
  if (!ok)
    return error(path + ": not an ELF file");
  std::sort(funcs_.begin(), funcs_.end(),
            [](const Func &a, const Func &b) { return a.addr < b.addr; });
  return {};
}

const ImageSymbols::Func *ImageSymbols::function_at(u64 addr) const {
  // Functions do not overlap; aliases share a start, so the nearest few
  // starts at or below `addr` are all the candidates.
  auto it = std::upper_bound(funcs_.begin(), funcs_.end(), addr,
                             [](u64 a, const Func &f) { return a < f.addr; });
  const Func *best = nullptr;
  for (int n = 0; n < 8 && it != funcs_.begin(); n++) {
    --it;
    if (addr >= it->addr + std::max<u64>(it->size, 1))
      continue;
    if (!best || (!best->global && it->global))
      best = &*it;
  }
  return best;
}

} // namespace mk
