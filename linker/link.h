// The machine-independent stages of linking one relocatable object into
// memory, and link_image(), the pipeline that drives them.
#pragma once

#include "arch.h"
#include "object.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mk {

// Which region of a module a section goes to; each is page-aligned and gets
// one protection.
enum class Region { Text, Rodata, Data, None };

// The largest module image the loader lays out (and so the largest
// alignment it honours): rel32 fields reach +-2 GiB, relocation offsets are
// below 4 GiB, and no size or rounding in the layout can wrap below it.
constexpr u64 kMaxImageSize = 1ull << 32;

struct Layout {
  static constexpr u64 kNotLoaded = ~0ull;
  std::vector<u64> sec_off;    // per section: offset in the image, or kNotLoaded
  std::vector<Region> sec_region;
  std::vector<u64> common_off; // per symbol: offset of a COMMON symbol's space
  u64 text_off = 0, text_size = 0;
  u64 ro_off = 0, ro_size = 0;
  u64 data_off = 0, data_size = 0; // data then bss
  // Sections freed once the module's init has run (LinkOptions::
  // init_section) end each region, from its page-aligned offset here to
  // the region's end; equal to the region's end when there are none.
  u64 init_text_off = 0, init_ro_off = 0, init_data_off = 0;
  u64 got_off = 0;
  u64 total = 0;
  u64 align = 1; // the image's base must be this aligned
};

struct LinkPlan {
  std::vector<i32> got_slot; // per symbol: GOT slot index or -1
  u32 got_slots = 0;
  bool wants_got = false;    // some relocation names the GOT base
  Layout layout;
  size_t reloc_count = 0;
};

// Where each loaded section lives: its final address and where to write it.
struct Placement {
  std::vector<u64> sec_addr;
  std::vector<u8 *> sec_mem;
  std::vector<u64> common_addr;
  u64 got_addr = 0;
  u8 *got_mem = nullptr;
  u64 image_base = 0; // what __dso_handle resolves to: the image's identity
  u8 *image_mem = nullptr; // the image's writable view, image_size bytes
  u64 image_size = 0;
  bool image_zeroed = false; // the memory came zeroed: copy skips zero fill
  // The regions, as offsets in the image (from the layout), for checked
  // reads of what the image's own data points at (ImageReader).
  struct Span {
    u64 off = 0, size = 0;
  } text, rodata, data;
};

// How an undefined symbol is satisfied.
struct Binding {
  enum Kind { Value, SectionStart, SectionStop, Got, ImageBase, Zero } kind = Value;
  u64 value = 0;
  u32 section = 0; // for SectionStart/SectionStop
};

// Looks a name up outside the module (kernel exports, then dependencies).
using ExternalLookup = std::function<std::optional<u64>(const std::string &)>;

// A relocation a LinkHooks object claimed, offered before it is resolved.
struct SiteContext {
  const ObjectFile &obj;
  u32 section;
  const Reloc &rel;
  u64 field_addr;
  u8 *section_mem;  // writable view of `section`'s contents
  u64 symbol_value; // what the symbol was bound to
};

// What the layers above the linker add to a link without the linker
// knowing what it is: probe sites.  A relocation against a claimed symbol
// is offered to take() first; the hooks rewrite the instruction and record
// the site (true), or hand it back to be resolved normally (false).
class LinkHooks {
public:
  virtual ~LinkHooks() = default;
  // An undefined symbol the hooks bind themselves (a probe function's
  // stub); nullopt when the name is not theirs.
  virtual std::optional<Result<u64>> bind(const std::string &name) {
    (void)name;
    return std::nullopt;
  }
  // Whether relocations against undefined symbol `s` go to take().
  virtual bool claims(const Symbol &s) const {
    (void)s;
    return false;
  }
  virtual Result<bool> take(const SiteContext &c) {
    (void)c;
    return false;
  }
};

// The stages of link_image(), in order, for an observer that times them.
enum class LinkStage : u8 { Plan, Bind, Allocate, Place, Copy, Values, Relocate };
class LinkObserver {
public:
  virtual ~LinkObserver() = default;
  virtual void stage_done(LinkStage s) = 0;
};

// Where the image goes: the caller allocates (the kernel from its arena,
// mk-link and the unit tests from plain buffers) and owns the memory.  Its
// contents may be anything: the copy stage writes every byte of the image.
struct ImageMemory {
  u64 base = 0;      // executing address of the image's first byte
  u8 *mem = nullptr; // its writable view
  // Already all zeros (fresh anonymous memory): the copy stage then writes
  // only section contents, so a large .bss or alignment gap costs address
  // space, not memory (mk-link, the fuzzers).
  bool zeroed = false;
};
using ImageAllocator = std::function<Result<ImageMemory>(u64 size, u64 align)>;

// Whether a section's memory is given back once the module's init has run
// (Linux's .init.*): laid out on pages of its own at the end of its region.
using InitSection = std::function<bool(const Section &)>;

struct LinkOptions {
  u64 page_size = 4096;
  InitSection init_section; // none: nothing is freed after init
  ExternalLookup lookup;
  ImageAllocator allocate;
  LinkHooks *hooks = nullptr;
  // Moves sections or the GOT elsewhere after placement (mk-link places
  // named sections at addresses of the regression harness's choosing).
  std::function<void(const ObjectFile &, const LinkPlan &, Placement &)> adjust;
  LinkObserver *observer = nullptr;
};

// An object linked into memory: the outputs of every stage.
struct LinkedImage {
  LinkPlan plan;
  std::vector<Binding> bindings;
  Placement pl;
  std::vector<u64> values;
};

// The link pipeline, the one driver of the stages below, used by the
// kernel's loader, mk-link, the unit tests and the benchmark:
//
//   plan      scan relocations (GOT slots, refusals) and lay out sections
//   bind      find every undefined symbol outside the module, all at once
//   allocate  ask the caller for memory of the layout's size
//   place     give every loaded section an address and writable memory
//   copy      copy section contents in, zero bss
//   values    compute every symbol's final value
//   relocate  compute each field with its psABI formula, range-check, write
//
// On failure after `allocate` the memory is the caller's to release.
Result<LinkedImage> link_image(const ObjectFile &obj, const LinkOptions &o);

// The stages, for tests of one stage alone.
Result<LinkPlan> plan_link(const ObjectFile &obj, u64 page_size,
                           const InitSection &init_section = nullptr);
Result<std::vector<Binding>> bind_symbols(const ObjectFile &obj,
                                          const ExternalLookup &lookup,
                                          LinkHooks *hooks = nullptr);
// Placement of a plan's layout at `base`, writing through `mem` (the image's
// writable view).
Placement place_image(const ObjectFile &obj, const LinkPlan &plan, u64 base,
                      u8 *mem);
// Copy section contents to their places and zero everything else of the
// image (bss, COMMON, the gaps between sections and regions).
// (Not the zeroing, when the placement says its memory came zeroed.)
void copy_sections(const ObjectFile &obj, const Placement &pl);
std::vector<u64> symbol_values(const ObjectFile &obj, const Placement &pl,
                               const std::vector<Binding> &bindings);
Result<void> relocate(const ObjectFile &obj, const LinkPlan &plan,
                      const Placement &pl, const std::vector<u64> &values,
                      LinkHooks *hooks = nullptr);

// Names to addresses, for lookups by modules that depend on a module (and
// the kernel's own exports).  Built once per load into a single string
// pool and an open-addressing hash index: a module has thousands of
// globals, and sorting them, or an allocation per name, would cost more
// than its relocations.  For a name defined twice the first one counts.
class SymbolMap {
public:
  void reserve(size_t names, size_t bytes) {
    entries_.reserve(names);
    pool_.reserve(bytes);
  }
  void add(std::string_view name, u64 value);
  void finish(); // build the index; call after the last add()
  std::optional<u64> find(std::string_view name) const;
  u64 at(std::string_view name) const; // throws std::out_of_range
  size_t count(std::string_view name) const { return find(name) ? 1 : 0; }
  size_t size() const { return size_; }

private:
  struct Entry {
    u32 off, len;
    u64 value;
  };
  std::string_view name_of(const Entry &e) const {
    return std::string_view(pool_).substr(e.off, e.len);
  }
  static u32 hash(std::string_view s);
  std::string pool_;
  std::vector<Entry> entries_; // in add() order
  std::vector<u32> slots_;     // entry index + 1; 0: empty
  size_t size_ = 0;            // distinct names
};

// The module's global definitions, for modules that depend on it.
SymbolMap exported_symbols(const ObjectFile &obj,
                           const std::vector<u64> &values);

// Reads of a linked image's own data structures that the kernel then
// trusts: linker sets, the records their entries point at, the strings and
// functions those records name.  A module's relocations decide every one
// of those pointers, so a corrupt or hostile file can aim them anywhere;
// each is checked to lie inside the image, in the region its use needs
// (code in text, records and strings in rodata or data, what the kernel
// writes in data), aligned for its type, and strings NUL-terminated inside
// the image, before anyone dereferences it.  Every refusal is one line
// naming the module and what pointed where.
// What ImageReader calls a record in an error: {"module metadata", 3}
// .part("name") reads "module metadata 3 name".  The words are put
// together only for an error: a load names every record it reads and
// fails on few.  A Label refers to its parts; they outlive it.
class Label {
public:
  Label(const char *what) : what_(what) {}
  Label(const std::string &what) : what_(what) {}
  Label(std::string_view what, size_t index) : what_(what), index_(index) {}
  Label(std::string_view what, std::string_view name)
      : what_(what), name_(name), named_(true) {}
  Label part(const char *p) const {
    Label l = *this;
    l.part_ = p;
    return l;
  }
  std::string str() const;

private:
  static constexpr size_t kNoIndex = ~(size_t)0;
  std::string_view what_;
  size_t index_ = kNoIndex;
  std::string_view name_;
  bool named_ = false;
  const char *part_ = nullptr;
};

class ImageReader {
public:
  ImageReader(const ObjectFile &obj, const Placement &pl) : obj_(obj), pl_(pl) {}

  // The entries of linker set `set` (its "set_<set>" sections), each a
  // non-null pointer into the image's rodata or data.
  Result<std::vector<u64>> set(std::string_view set) const;
  // A record of `size` bytes at `addr`, for reading.
  Result<u64> record(u64 addr, u64 size, u64 align, const Label &what) const;
  // The same, for memory the kernel writes (a sysctl's variable).
  Result<u64> writable(u64 addr, u64 size, u64 align,
                       const Label &what) const;
  // A NUL-terminated string; null is "" when `optional`, refused otherwise.
  Result<const char *> string(u64 addr, const Label &what,
                              bool optional = false) const;
  // Code the kernel calls; null allowed when `optional`.
  Result<u64> function(u64 addr, const Label &what,
                       bool optional = false) const;
  // .init_array / .fini_array: the priority-suffixed sections first,
  // lowest number first, then the plain one; each entry a function.
  Result<std::vector<u64>> array(const std::string &base) const;

  template <class T>
  Result<T *> record_of(u64 addr, const Label &what) const {
    auto r = record(addr, sizeof(T), alignof(T), what);
    if (!r)
      return r.take_error();
    return (T *)(uintptr_t)*r;
  }

private:
  Error fail(const Label &what, u64 addr, const char *why) const;
  bool within(const Placement::Span &s, u64 addr, u64 size) const;
  const u8 *view(u64 addr) const {
    return pl_.image_mem + (addr - pl_.image_base);
  }
  const ObjectFile &obj_;
  const Placement &pl_;
};

// The pointers in linker set `set` (its "set_<set>" sections) of a linked
// image, read through the placement's memory, unchecked (the tools
// that print an image; the kernel goes through ImageReader).
std::vector<u64> image_set(const ObjectFile &obj, const Placement &pl,
                           std::string_view set);

// The single range check every written field goes through.
Result<void> check_field_range(const ObjectFile &obj, u32 section,
                               const Reloc &rel, i64 value,
                               const RelocHowto &how);

} // namespace mk
