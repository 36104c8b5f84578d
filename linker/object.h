// A relocatable ELF object read into memory and validated: sections, symbols
// and relocations with explicit addends (REL is normalised to RELA here, once,
// so nothing downstream knows the difference).
#pragma once

#include "arch.h"
#include "base.h"
#include "modsig.h"

#include <functional>
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

// One relocation, as everything downstream of the parser sees it: with its
// explicit addend.  Offsets are within a section (checked below 4 GiB),
// symbol indices below 2^24 and type numbers below 256 (a larger one is no
// type minikern knows).
struct Reloc {
  u32 offset;
  u32 sym : 24;
  u32 type : 8;
  i64 addend;
};
static_assert(sizeof(Reloc) == 16);

// How a relocation section's entries are laid out in the file.
enum class RelocFormat : u8 { Rela64, Rel64, Rela32, Rel32 };

// The relocations of one section: a view of its entries in the file, each
// decoded on the way out into a Reloc with its explicit addend (for REL,
// i386, the field's contents in the object, sign-extended).  This decoder
// is the one place REL and RELA are told apart; the parser checked every
// entry, so decoding cannot fail.  A module's relocations are megabytes:
// reading them where they lie, rather than copying them into records, is
// most of what makes a load fast.
class RelocList {
public:
  RelocList() = default;
  RelocList(RelocFormat fmt, const u8 *entries, size_t n, const u8 *target,
            const RelocTable *kinds)
      : ents_(entries), n_(n), target_(target), kinds_(kinds), fmt_(fmt) {}

  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Reloc operator[](size_t i) const;

  class iterator {
  public:
    using value_type = Reloc;
    using difference_type = std::ptrdiff_t;
    iterator(const RelocList *l, size_t i) : l_(l), i_(i) {}
    Reloc operator*() const { return (*l_)[i_]; }
    iterator &operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const iterator &o) const { return i_ != o.i_; }
    bool operator==(const iterator &o) const { return i_ == o.i_; }

  private:
    const RelocList *l_;
    size_t i_;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, n_}; }

  // For the relocation loops that decode entries themselves (link.cpp).
  RelocFormat format() const { return fmt_; }
  const u8 *entries() const { return ents_; }
  const u8 *target() const { return target_; } // the object's bytes

private:
  const u8 *ents_ = nullptr;
  size_t n_ = 0;
  const u8 *target_ = nullptr;
  const RelocTable *kinds_ = nullptr;
  RelocFormat fmt_ = RelocFormat::Rela64;
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
  // A module signature appended to the file (Linux's format), split off
  // before parsing: `size` is then the module's bytes without it, and
  // `signature` points into the same mapping, after them.
  AppendedSignature signature;
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
// `before_parse`, if given, sees the file's bytes and its appended
// signature before anything is parsed (the kernel verifies the signature
// there: nothing of an unverified file is interpreted).
using BeforeParse =
    std::function<Result<void>(const ObjectFile &unparsed)>;
Result<ObjectFile> read_object(const std::string &path,
                               RelocTypes types = RelocTypes::Loadable,
                               const BeforeParse &before_parse = nullptr);

// What a file of mode `mode` (st_mode) is, for messages: "a directory",
// "a FIFO" ...
const char *file_kind(unsigned mode);

// The `.modinfo` "key=value" strings, readable without linking.
std::vector<std::pair<std::string, std::string>>
read_modinfo(const ObjectFile &obj);
// The same of a `.modinfo` section's bytes.
std::vector<std::pair<std::string, std::string>> parse_modinfo(const char *p,
                                                               size_t n);

} // namespace mk
