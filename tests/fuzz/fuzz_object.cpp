// Fuzz target: an object file through the mk-link path.  parse_object()
// (for loading, and for the site recorder, which keeps every relocation
// type), read_modinfo(), then link_image() into fresh anonymous memory at a
// fixed base with every undefined symbol bound, and the checked reads of
// the image's linker sets and arrays the kernel would do.
#include "fuzz.h"

#include "../../linker/link.h"
#include "../../linker/object.h"

#include <sys/mman.h>

using namespace mk;

namespace {

// Undefined symbols bind to addresses derived from their names, within
// rel32 reach of the image, so most relocations resolve and get applied.
std::optional<u64> lookup(const std::string &name) {
  u64 h = 1469598103934665603ull;
  for (unsigned char c : name)
    h = (h ^ c) * 1099511628211ull;
  return 0x10000000 + (h & 0xfffffff);
}

void link_one(const ObjectFile &obj) {
  void *mem = nullptr;
  u64 mapped = 0;
  LinkOptions o;
  o.lookup = lookup;
  o.allocate = [&](u64 size, u64) -> Result<ImageMemory> {
    // The layout keeps images within kMaxImageSize; reserve address space
    // only (a large .bss is never touched: the memory comes zeroed).
    FUZZ_CHECK(size <= kMaxImageSize, "image of %llu bytes",
               (unsigned long long)size);
    void *p = size ? mmap(nullptr, size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                   : nullptr;
    if (p == MAP_FAILED)
      return error("no address space");
    mem = p;
    mapped = size;
    return ImageMemory{0x40000000, (u8 *)p, true};
  };
  auto li = link_image(obj, o);
  if (li) {
    const ImageReader img(obj, li->pl);
    for (const char *set : {"modmetadata_set", "sysctl_set", "shell_cmd_set",
                            "sdt_probes_set"})
      if (auto s = img.set(set))
        for (u64 a : *s)
          (void)img.record(a, 16, 8, set);
    (void)img.array(".init_array");
    (void)img.array(".fini_array");
    (void)exported_symbols(obj, li->values);
  }
  if (mem)
    munmap(mem, mapped);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<u8> bytes(data, data + size);
  auto any = parse_object(bytes, "fuzz.o", "fuzz.o", RelocTypes::Any);
  auto obj = parse_object(std::move(bytes), "fuzz.o", "fuzz.o");
  if (any)
    (void)read_modinfo(*any);
  if (!obj) {
    FUZZ_CHECK(!obj.error().message.empty() &&
                   obj.error().message.find('\n') == std::string::npos,
               "error not one line: '%s'", obj.error().message.c_str());
    return 0;
  }
  link_one(*obj);
  return 0;
}
