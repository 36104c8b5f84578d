// Resolution (link.cpp, bind_symbols and symbol_values): the module's own
// definitions first, then the outside lookup (kernel exports, then
// dependencies: see test_kernel.cpp for that order in a live kernel), weak
// undefined symbols as 0, linker-set bounds from the module's own sections,
// the GOT symbol, and every missing symbol named in one sorted error.
#include "support.h"

#include <doctest/doctest.h>

#include <set>

using namespace mkt;

namespace {

mk::Result<std::vector<mk::Binding>>
bind(const mk::ObjectFile &obj, const Externals &ext,
     std::set<std::string> *asked = nullptr) {
  mk::ExternalLookup lookup =
      [&](const std::string &n) -> std::optional<u64> {
    if (asked)
      asked->insert(n);
    auto it = ext.find(n);
    return it == ext.end() ? std::nullopt : std::optional<u64>(it->second);
  };
  return mk::bind_symbols(obj, lookup);
}

} // namespace

TEST_CASE("resolve: the module's own definitions come first") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(32));
  u32 data = b.data(zeros(16));
  u32 local = b.symbol("helper", text, 0x10, 4, STB_LOCAL, STT_FUNC);
  u32 strlen_ = b.symbol("strlen", text, 0x4, 8, STB_GLOBAL, STT_FUNC);
  u32 weak = b.symbol("tunable", data, 0x8, 4, STB_WEAK, STT_OBJECT);
  b.rela(data, 0, R_X86_64_64, strlen_, 0);
  std::set<std::string> asked;
  auto obj = parse(b);
  REQUIRE_OK(obj);
  // The outside world also has a strlen and a tunable; the module's win,
  // and the lookup is never even asked.
  auto bound = bind(*obj, {{"strlen", 0xdead0000}, {"tunable", 0xbeef0000}},
                    &asked);
  REQUIRE_OK(bound);
  CHECK(asked.empty());

  auto l = link(b, kBase, {{"strlen", 0xdead0000}, {"tunable", 0xbeef0000}});
  REQUIRE_OK(l);
  CHECK(l->values[local] == kBase + 0x10);
  CHECK(l->values[strlen_] == kBase + 0x4);
  CHECK(l->values[weak] == kBase + 0x1000 + 0x8);
  CHECK(l->field(data, 0, 8) == kBase + 0x4);
}

TEST_CASE("resolve: undefined symbols through the outside lookup") {
  ObjBuilder b(Target::X86_64);
  u32 data = b.data(zeros(16));
  u32 printf_ = b.undef("printf");
  u32 malloc_ = b.undef("malloc");
  b.rela(data, 0, R_X86_64_64, printf_, 0);
  b.rela(data, 8, R_X86_64_64, malloc_, 0x10);
  auto l = link(b, kBase, {{"printf", 0x401000}, {"malloc", 0x402000}});
  REQUIRE_OK(l);
  CHECK(l->bindings[printf_].kind == mk::Binding::Value);
  CHECK(l->values[printf_] == 0x401000);
  CHECK(l->field(data, 0, 8) == 0x401000);
  CHECK(l->field(data, 8, 8) == 0x402010);
}

TEST_CASE("resolve: weak undefined resolves to 0, or to a definition outside") {
  ObjBuilder b(Target::X86_64);
  u32 data = b.data(zeros(16));
  u32 missing = b.undef("optional_hook", STB_WEAK);
  u32 present = b.undef("present_hook", STB_WEAK);
  b.rela(data, 0, R_X86_64_64, missing, 0);
  b.rela(data, 8, R_X86_64_64, present, 0);
  auto l = link(b, kBase, {{"present_hook", 0x555000}});
  REQUIRE_OK(l);
  CHECK(l->bindings[missing].kind == mk::Binding::Zero);
  CHECK(l->values[missing] == 0);
  CHECK(l->field(data, 0, 8) == 0);
  CHECK(l->values[present] == 0x555000);
  CHECK(l->field(data, 8, 8) == 0x555000);
}

TEST_CASE("resolve: __start_SECNAME / __stop_SECNAME bound to the module's own section") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(16));
  u32 data = b.data(zeros(8));
  u32 set = b.section("set_sysinit", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8,
                      zeros(24));
  u32 start = b.undef("__start_set_sysinit", STB_WEAK);
  u32 stop = b.undef("__stop_set_sysinit", STB_WEAK);
  b.rela(text, 0, R_X86_64_64, start, 0);
  b.rela(text, 8, R_X86_64_64, stop, 0);
  // The kernel has its own set_sysinit: the module's section wins.
  auto l = link(b, kBase,
                {{"__start_set_sysinit", 0x1000}, {"__stop_set_sysinit", 0x2000}});
  REQUIRE_OK(l);
  CHECK(l->bindings[start].kind == mk::Binding::SectionStart);
  CHECK(l->bindings[start].section == set);
  CHECK(l->bindings[stop].kind == mk::Binding::SectionStop);
  CHECK(l->addr(set) == kBase + 0x1008); // after .data in the data region
  CHECK(l->addr(data) == kBase + 0x1000);
  CHECK(l->values[start] == l->addr(set));
  CHECK(l->values[stop] == l->addr(set) + 24);
  CHECK(l->field(text, 0, 8) == kBase + 0x1008);
  CHECK(l->field(text, 8, 8) == kBase + 0x1008 + 24);
}

TEST_CASE("resolve: __start_/__stop_ of a section the module lacks") {
  ObjBuilder b(Target::X86_64);
  u32 data = b.data(zeros(16));
  // Not loaded: a section that is not SHF_ALLOC does not count.
  b.section("set_notes", SHT_PROGBITS, 0, 1, zeros(8));
  u32 wstart = b.undef("__start_set_empty", STB_WEAK);
  u32 nstart = b.undef("__start_set_notes", STB_WEAK);
  b.rela(data, 0, R_X86_64_64, wstart, 0);
  b.rela(data, 8, R_X86_64_64, nstart, 0);
  auto l = link(b, kBase);
  REQUIRE_OK(l);
  // Weak, as SET_DECLARE makes them: an empty set iterates nothing.
  CHECK(l->values[wstart] == 0);
  CHECK(l->values[nstart] == 0);

  ObjBuilder s(Target::X86_64);
  s.data(zeros(8));
  s.undef("__stop_set_absent"); // strong, and no such section anywhere
  CHECK(message_of(link(s, kBase)) == "t.o: undefined symbol: __stop_set_absent");
}

TEST_CASE("resolve: _GLOBAL_OFFSET_TABLE_ is the module's GOT") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(16));
  u32 got = b.undef("_GLOBAL_OFFSET_TABLE_");
  b.rela(text, 0, R_X86_64_64, got, 0);
  auto l = link(b, kBase);
  REQUIRE_OK(l);
  CHECK(l->bindings[got].kind == mk::Binding::Got);
  CHECK(l->pl.got_addr == kBase + 0x1000);
  CHECK(l->values[got] == l->pl.got_addr);
  CHECK(l->field(text, 0, 8) == kBase + 0x1000);
}

TEST_CASE("resolve: __dso_handle is the image's base") {
  ObjBuilder b(Target::X86_64);
  u32 data = b.data(zeros(8));
  u32 dso = b.undef("__dso_handle");
  b.rela(data, 0, R_X86_64_64, dso, 0);
  auto l = link(b, kBase, {{"__dso_handle", 0x1234}});
  REQUIRE_OK(l);
  CHECK(l->values[dso] == kBase);
}

TEST_CASE("resolve: ABS, COMMON and section-relative values") {
  ObjBuilder b(Target::I386);
  u32 text = b.text(zeros(16));
  u32 data = b.data(zeros(8), 4);
  u32 abs = b.symbol("magic", SHN_ABS, 0xcafe);
  u32 com = b.common("pool", 64, 32);
  u32 fn = b.symbol("fn", text, 6, 2, STB_GLOBAL, STT_FUNC);
  u32 sec = b.section_symbol(data);
  auto l = link(b, 0x20000000);
  REQUIRE_OK(l);
  CHECK(l->values[abs] == 0xcafe);
  CHECK(l->values[com] == 0x20001020);
  CHECK(l->values[fn] == 0x20000006);
  CHECK(l->values[sec] == 0x20001000);
}

TEST_CASE("resolve: all undefined symbols in one sorted error") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(16));
  u32 z = b.undef("zeta");
  u32 a = b.undef("alpha");
  b.undef("optional", STB_WEAK); // weak: not an error
  b.undef("printf");             // found outside: not an error
  b.undef("mid");
  b.rela(text, 0, R_X86_64_PC32, z, -4);
  b.rela(text, 4, R_X86_64_PLT32, a, -4);
  CHECK(message_of(link(b, kBase, {{"printf", 0x401000}})) ==
        "t.o: undefined symbols: alpha, mid, zeta");
}

TEST_CASE("resolve: one undefined symbol") {
  ObjBuilder b(Target::I386);
  b.text(zeros(4));
  b.undef("kprintf");
  CHECK(message_of(link(b, kBase)) == "t.o: undefined symbol: kprintf");
}

TEST_CASE("resolve: a name listed twice is reported once") {
  // Two undefined entries of one name (hand-made; ld -r merges them).
  ObjBuilder b(Target::X86_64);
  b.text(zeros(4));
  b.undef("dup");
  b.undef("dup");
  b.undef("other");
  CHECK(message_of(link(b, kBase)) == "t.o: undefined symbols: dup, other");
}

TEST_CASE("resolve: probe symbols bind through the outside lookup") {
  // The kernel's lookup binds __dtrace_* to a probe stub (for code that
  // takes the probe's address); without one it is an undefined symbol.
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(8));
  u32 p = b.undef("__dtrace_sdt_test___fire");
  b.rela(text, 1, R_X86_64_PLT32, p, -4);
  auto obj = parse(b);
  REQUIRE_OK(obj);
  CHECK(message_of(bind(*obj, {})) ==
        "t.o: undefined symbol: __dtrace_sdt_test___fire");
  auto bound = bind(*obj, {{"__dtrace_sdt_test___fire", 0x7000}});
  REQUIRE_OK(bound);
  CHECK((*bound)[p].kind == mk::Binding::Value);
  CHECK((*bound)[p].value == 0x7000);
}

TEST_CASE("relocate: relocations the hooks claim go to them first") {
  ObjBuilder b(Target::X86_64);
  // call __dtrace_sdt_test___fire; mov __dtrace_sdt_test___fire(%rip), %rax
  u32 text = b.text(cat({{0xe8}, le(0, 4), {0x48, 0x8b, 0x05}, le(0, 4)}));
  u32 p = b.undef("__dtrace_sdt_test___fire");
  b.rela(text, 1, R_X86_64_PLT32, p, -4);
  b.rela(text, 8, R_X86_64_PC32, p, -4);
  // Takes the call (a probe site), hands the load back to be resolved.
  struct Hooks : mk::LinkHooks {
    std::vector<u64> offered;
    bool claims(const mk::Symbol &s) const override {
      return s.name.substr(0, 9) == "__dtrace_";
    }
    mk::Result<bool> take(const mk::SiteContext &c) override {
      offered.push_back(c.rel.offset);
      CHECK(c.field_addr == kBase + c.rel.offset);
      return c.rel.offset == 1;
    }
  } h;
  auto l = link(b, kBase, {{"__dtrace_sdt_test___fire", kBase + 0x800}}, &h);
  std::vector<u64> &offered = h.offered;
  REQUIRE_OK(l);
  CHECK(offered == std::vector<u64>{1, 8});
  CHECK(l->field(text, 1, 4) == 0); // the handler's to rewrite
  CHECK(l->field(text, 8, 4) == 0x800 - 4 - 8); // S + A - P
}

TEST_CASE("relocate: a hook's error fails the link") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(8));
  u32 p = b.undef("__dtrace_sdt_test___fire");
  b.rela(text, 1, R_X86_64_PLT32, p, -4);
  struct Hooks : mk::LinkHooks {
    bool claims(const mk::Symbol &) const override { return true; }
    mk::Result<bool> take(const mk::SiteContext &) override {
      return mk::error("t.o:(.text+0x1): not a call");
    }
  } h;
  CHECK(message_of(link(b, kBase, {{"__dtrace_sdt_test___fire", 1}}, &h)) ==
        "t.o:(.text+0x1): not a call");
}

TEST_CASE("resolve: what a module exports to its dependents") {
  ObjBuilder b(Target::X86_64);
  u32 text = b.text(zeros(32));
  b.symbol("local_fn", text, 0, 1, STB_LOCAL, STT_FUNC);
  b.symbol("api_fn", text, 4, 1, STB_GLOBAL, STT_FUNC);
  b.symbol("weak_fn", text, 8, 1, STB_WEAK, STT_FUNC);
  u32 hidden = b.symbol("hidden_fn", text, 12, 1, STB_GLOBAL, STT_FUNC);
  b.sym(hidden).visibility = STV_HIDDEN;
  b.undef("printf");
  auto l = link(b, kBase, {{"printf", 0x401000}});
  REQUIRE_OK(l);
  auto ex = mk::exported_symbols(l->obj, l->values);
  CHECK(ex.size() == 2);
  CHECK(ex.at("api_fn") == kBase + 4);
  CHECK(ex.at("weak_fn") == kBase + 8);
  CHECK(ex.count("local_fn") == 0);
  CHECK(ex.count("hidden_fn") == 0);
  CHECK(ex.count("printf") == 0);
}

TEST_CASE("resolve: code or data aiming at a section that is not loaded is refused") {
  // .comment has no SHF_ALLOC: it gets no address in the image, and its
  // symbols' values are offsets into the file's section.  A relocation
  // against one resolved to that small number (say 0x8) and the load went
  // on: only pointers in metadata (linker sets, init arrays) were checked.
  for (Target t : {Target::X86_64, Target::I386}) {
    const bool is64 = t == Target::X86_64;
    CAPTURE(is64);
    ObjBuilder b(t);
    u32 text = b.text(zeros(16));
    u32 data = b.data(zeros(8), 4);
    u32 comment = b.section(".comment", SHT_PROGBITS, SHF_MERGE | SHF_STRINGS,
                            1, zeros(16));
    u32 note = b.symbol("note", comment, 8, 4, STB_LOCAL, STT_OBJECT);
    u32 sec = b.section_symbol(comment);
    // A call into it from code: `call note`.
    ObjBuilder c = b;
    if (is64)
      c.rela(text, 1, R_X86_64_PC32, note, -4);
    else
      c.rel(text, 1, R_386_PC32, note);
    CHECK(message_of(link(c, kBase)) ==
          std::string("t.o:(.text+0x1): relocation ") +
              (is64 ? "R_X86_64_PC32" : "R_386_PC32") +
              " against note: it is in section .comment, which is not "
              "loaded (no SHF_ALLOC)");
    // A pointer to it in data, against the section symbol.
    ObjBuilder d = b;
    if (is64)
      d.rela(data, 0, R_X86_64_64, sec, 8);
    else
      d.rel(data, 0, R_386_32, sec);
    CHECK(message_of(link(d, kBase)) ==
          std::string("t.o:(.data+0x0): relocation ") +
              (is64 ? "R_X86_64_64" : "R_386_32") +
              " against .comment: it is in section .comment, which is not "
              "loaded (no SHF_ALLOC)");
    // Relocations of a section that is not loaded itself (debug info
    // pointing at code, or at other debug info) are not applied at all.
    ObjBuilder e = b;
    if (is64) {
      e.rela(comment, 0, R_X86_64_32, e.section_symbol(text), 0);
      e.rela(comment, 4, R_X86_64_32, note, 0);
    } else {
      e.rel(comment, 0, R_386_32, e.section_symbol(text));
      e.rel(comment, 4, R_386_32, note);
    }
    REQUIRE_OK(link(e, kBase));
  }
}
