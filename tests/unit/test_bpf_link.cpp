// Linking a BPF program with a library of precompiled functions
// (sdt/dtrace/bpf/proglink.cpp): the three phases of seed 003.  The library
// is a hand-built EM_BPF object: f calls g, g calls h, u is never called.
#include "support.h"

#include "../../sdt/dtrace/bpf/builder.h"
#include "../../sdt/dtrace/bpf/proglink.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace mk::bpf;
using namespace mk::bpf::ins;
using mkt::ObjBuilder;
using mkt::Target;

namespace {

std::vector<mk::u8> bytes_of(const std::vector<Insn> &code) {
  std::vector<mk::u8> b(code.size() * 8);
  std::memcpy(b.data(), code.data(), b.size());
  return b;
}

// .text: f (3 insns) g (3) h (3) u (2).
BpfLibrary library() {
  ObjBuilder b{Target::X86_64};
  b.hdr.e_machine = EM_BPF;
  std::vector<Insn> text = {
      mov64i(1, 1), call_local(-1), exit(),            // f: g(1)
      mov64i(1, 2), call_local(-1), exit(),            // g: h(2)
      mov64(0, 1), alu64i(kADD, 0, 40), exit(),        // h: r1 + 40
      mov64i(0, 99), exit(),                           // u
  };
  const mk::u32 t = b.text(bytes_of(text), 8);
  b.symbol("f", t, 0, 24, STB_GLOBAL, STT_FUNC);
  const mk::u32 g = b.symbol("g", t, 24, 24, STB_GLOBAL, STT_FUNC);
  const mk::u32 h = b.symbol("h", t, 48, 24, STB_GLOBAL, STT_FUNC);
  b.symbol("u", t, 72, 16, STB_GLOBAL, STT_FUNC);
  b.rel(t, 8, R_BPF_64_32, g);
  b.rel(t, 32, R_BPF_64_32, h);
  auto lib = BpfLibrary::parse(b.build(), "lib.o");
  REQUIRE_OK(lib);
  return std::move(*lib);
}

Imm64Binder none() {
  return [](const std::string &s, mk::i64) -> mk::Result<Imm64Binding> {
    return mk::error("no binding for " + s);
  };
}

} // namespace

TEST_CASE("bpf link: exactly the functions reached, each once, in call order") {
  BpfLibrary lib = library();
  CHECK(lib.size() == 4);
  // main: r1 = 5; call f; r1 = r0; call h; exit
  std::vector<Insn> main = {mov64i(1, 5), call_local(-1), mov64(1, 0),
                            call_local(-1), exit()};
  std::vector<SymbolRef> refs = {{SymbolRef::Call, 1, "f", 0},
                                 {SymbolRef::Call, 3, "h", 0}};
  auto l = link_program(main, refs, lib, none());
  REQUIRE_OK(l);
  // Layout: main (5), f at 5, g at 8, h at 11 (once); u is not there.
  CHECK(l->code.size() == 14);
  REQUIRE(l->functions.size() == 4);
  CHECK(l->functions[1] == std::pair<mk::u32, std::string>{5, "f"});
  CHECK(l->functions[2] == std::pair<mk::u32, std::string>{8, "g"});
  CHECK(l->functions[3] == std::pair<mk::u32, std::string>{11, "h"});
  CHECK(l->origin(9) == "g");
  // Resolve: each call counts instructions from the next one.
  CHECK(l->code[1].imm == 5 - 2);   // main -> f
  CHECK(l->code[3].imm == 11 - 4);  // main -> h
  CHECK(l->code[6].imm == 8 - 7);   // f -> g
  CHECK(l->code[9].imm == 11 - 10); // g -> h
  CHECK(unsigned(l->code[6].src) == kPseudoCall);
  // The listing names each function where it starts.
  CHECK(listing(*l) == "<clause>:\n"
                       "    0: r1 = 5\n"
                       "    1: call +3\n"
                       "    2: r1 = r0\n"
                       "    3: call +7\n"
                       "    4: exit\n"
                       "<f>:\n"
                       "    5: r1 = 1\n"
                       "    6: call +1\n"
                       "    7: exit\n"
                       "<g>:\n"
                       "    8: r1 = 2\n"
                       "    9: call +1\n"
                       "   10: exit\n"
                       "<h>:\n"
                       "   11: r0 = r1\n"
                       "   12: r0 += 40\n"
                       "   13: exit\n");
  // And it runs: f() = h(2) = 42, then h(42) = 82.
  Env env;
  auto p = Program::load(l->code, env);
  REQUIRE_OK(p);
  mk::bpf::Runner r(env, 0);
  CHECK(r.run(**p, nullptr).r0 == 82);
}

TEST_CASE("bpf link: undefined functions are named, all of them") {
  BpfLibrary lib = library();
  std::vector<Insn> main = {call_local(-1), call_local(-1), exit()};
  std::vector<SymbolRef> refs = {{SymbolRef::Call, 0, "nope", 0},
                                 {SymbolRef::Call, 1, "gone", 0}};
  auto l = link_program(main, refs, lib, none(), "clause 1");
  CHECK(mkt::message_of(l) ==
        "clause 1: undefined functions: gone, nope (not in lib.o)");
}

TEST_CASE("bpf link: a library that is not BPF is refused") {
  ObjBuilder b{Target::X86_64};
  b.text(std::vector<mk::u8>(16, 0x90));
  auto lib = BpfLibrary::parse(b.build(), "x.o");
  CHECK(mkt::message_of(lib) == "x.o: not a BPF object (it is for x86_64)");
}
