// A relocatable ELF object read into memory and validated: sections, symbols
// and relocations with explicit addends (REL is normalised to RELA here, once,
// so nothing downstream knows the difference).
#pragma once

#include "arch.h"
#include "base.h"

#include <memory>
#include <string>
#include <string_view>
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

// A name in the object's string table: a view of the mapped file (which the
// ObjectFile keeps alive), NUL-terminated there, so c_str() is free.  A
// module has thousands of symbols; copying each name would cost more than
// the rest of parsing.
struct SymName : std::string_view {
  using std::string_view::string_view;
  SymName(std::string_view v) : std::string_view(v) {}
  const char *c_str() const { return data() ? data() : ""; }
  std::string str() const { return std::string(*this); }
};

struct Symbol {
  SymName name;
  u64 value = 0;
  u64 size = 0;
  u32 shndx = 0; // extended indices already resolved
  u8 bind = 0;
  u8 type = 0;
  u8 visibility = 0;
};

// 16 bytes: the loader streams 100 000s of these twice per load.  Offsets
// are within a section (checked below 4 GiB), symbol indices below 2^24 and
// type numbers below 256 (a larger one is no type minikern knows).
struct Reloc {
  u32 offset;
  u32 sym : 24;
  u32 type : 8;
  i64 addend;
};
static_assert(sizeof(Reloc) == 16);

// The relocations of one section, each decoded once at parse time into
// the record everything downstream uses, with its explicit addend (read
// from the field for REL, i386).
class RelocList {
public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const Reloc &operator[](size_t i) const { return v_[i]; }
  const Reloc *begin() const { return v_; }
  const Reloc *end() const { return v_ + n_; }

  // The parser's side: room for `n` records, left uninitialised (every
  // one is written before it is read), then the count actually kept.
  Reloc *reset(size_t n);
  void set_size(size_t n) { n_ = n; }

  RelocList() = default;
  RelocList(RelocList &&o) noexcept { *this = std::move(o); }
  RelocList &operator=(RelocList &&o) noexcept;
  ~RelocList() { delete[] v_; }

private:
  Reloc *v_ = nullptr;
  size_t n_ = 0;
};

// An ELF relocation entry's fields, before they are checked to fit Reloc.
struct RawReloc {
  u64 offset;
  u64 sym;
  u64 type;
  i64 addend;
};

struct RelocSection {
  u32 index;  // the SHT_REL/SHT_RELA section itself
  u32 target; // section the relocations apply to
  RelocList relocs;
  bool uses_got = false; // some entry is GOT-relative (the scan skips others)
};

struct ObjectFile {
  std::string path;
  std::string name; // "hello.ko": used in every message
  const Arch *arch = nullptr;
  const u8 *data = nullptr; // the file's bytes
  size_t size = 0;
  std::shared_ptr<const void> storage; // keeps `data` alive: a buffer or a mapping
  std::vector<Section> sections;
  std::vector<Symbol> symbols; // index 0 is the null symbol
  std::vector<RelocSection> relocs;
  u32 symtab_index = 0;

  const Section *find_section(const std::string &n) const;
  // What relocation `r` of section `section` computes and writes: the
  // backend's classification, refined by the instruction it sits in where
  // the psABI says so.  The one place a relocation's expression is derived.
  RelocHowto howto(u32 section, const Reloc &r) const;
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
