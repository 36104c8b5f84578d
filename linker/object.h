// A relocatable ELF object read into memory and validated: sections, symbols
// and relocations with explicit addends (REL is normalised to RELA here, once,
// so nothing downstream knows the difference).
#pragma once

#include "arch.h"
#include "base.h"

#include <string>
#include <vector>

namespace mk {

struct Section {
  std::string name;
  u32 type = 0;
  u64 flags = 0;
  u64 size = 0;
  u64 align = 1;
  u64 entsize = 0;
  u32 link = 0;
  u32 info = 0;
  const u8 *data = nullptr; // file contents (nullptr for NOBITS)
};

struct Symbol {
  std::string name;
  u64 value = 0;
  u64 size = 0;
  u32 shndx = 0; // extended indices already resolved
  u8 bind = 0;
  u8 type = 0;
  u8 visibility = 0;
};

struct Reloc {
  u64 offset;
  u32 type;
  u32 sym;
  i64 addend;
};

struct RelocSection {
  u32 index;  // the SHT_REL/SHT_RELA section itself
  u32 target; // section the relocations apply to
  std::vector<Reloc> relocs;
};

struct ObjectFile {
  std::string path;
  std::string name; // "hello.ko": used in every message
  const Arch *arch = nullptr;
  std::vector<u8> bytes;
  std::vector<Section> sections;
  std::vector<Symbol> symbols; // index 0 is the null symbol
  std::vector<RelocSection> relocs;
  u32 symtab_index = 0;

  const Section *find_section(const std::string &n) const;
  // The name to print for a symbol: its own, or its section's for
  // STT_SECTION symbols.
  std::string symbol_label(u32 sym) const;
};

// What to do with relocation types the loader refuses (TLS, unknown): a
// module is refused; a tool that reads any object (the site recorder) keeps
// them, unchecked, with the addend the entry has.
enum class RelocTypes { Loadable, Any };

// Read and validate an object.  `name` is how messages refer to it.
// Validation happens before anything else is allocated for the module.
Result<ObjectFile> parse_object(std::vector<u8> bytes, std::string path,
                                std::string name,
                                RelocTypes types = RelocTypes::Loadable);
Result<ObjectFile> read_object(const std::string &path,
                               RelocTypes types = RelocTypes::Loadable);

// The `.modinfo` "key=value" strings, readable without linking.
std::vector<std::pair<std::string, std::string>>
read_modinfo(const ObjectFile &obj);

} // namespace mk
