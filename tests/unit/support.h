// What the loader tests share: parse a built object as "t.o", drive the link
// stages at a chosen base address into a plain buffer (the same stages the
// kernel runs into its arena), and read the bytes back.
#pragma once

#include "../../linker/code.h"
#include "../../linker/link.h"
#include "../../linker/object.h"
#include "elf_builder.h"

#include <map>
#include <string>
#include <vector>

namespace mkt {

// Every test object is called "t.o": messages start with it.
mk::Result<mk::ObjectFile> parse(const ObjBuilder &b);

// The message of a failed result, or "" when it succeeded: CHECK it against
// the exact expected line.
template <class T> std::string message_of(const mk::Result<T> &r) {
  return r ? std::string() : r.error().message;
}

using Externals = std::map<std::string, u64>;

// One object linked at `base`: every stage's output, and the image.
struct Linked {
  // Moved, never copied: the object's sections and the placement point
  // into buffers this owns.
  Linked() = default;
  Linked(Linked &&) = default;
  Linked &operator=(Linked &&) = default;
  Linked(const Linked &) = delete;

  mk::ObjectFile obj;
  mk::LinkPlan plan;
  std::vector<mk::Binding> bindings;
  mk::Placement pl;
  std::vector<u64> values;
  std::vector<u8> image; // the image's bytes; address base + i is image[i]
  u64 base = 0;

  u64 addr(u32 section) const { return pl.sec_addr.at(section); }
  // The field of `width` bytes at `off` in loaded section `section`.
  u64 field(u32 section, u64 off, unsigned width) const;
  // Signed view of the same field.
  i64 sfield(u32 section, u64 off, unsigned width) const;
  // The contents of GOT slot `slot`.
  u64 got_entry(u32 slot) const;
  // The GOT slot offset (G) of symbol `sym`.
  u64 G(u32 sym) const;
};

// Parse, then link_image() at `base` against `externals` (offering claimed
// relocations to `hooks`, if given).  The first failing stage's error comes
// back.
mk::Result<Linked> link(const ObjBuilder &b, u64 base,
                        const Externals &externals = {},
                        mk::LinkHooks *hooks = nullptr);

constexpr u64 kPage = 0x1000;
// The default base: below 2 GiB, like the kernel's arena on x86_64.
constexpr u64 kBase = 0x10000000;

} // namespace mkt

// Require success, showing the error otherwise.
#define REQUIRE_OK(expr)                                                       \
  do {                                                                         \
    const auto &mkt_r_ = (expr);                                               \
    REQUIRE_MESSAGE(static_cast<bool>(mkt_r_), ::mkt::message_of(mkt_r_));     \
  } while (0)
