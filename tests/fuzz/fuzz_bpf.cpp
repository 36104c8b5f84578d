// Fuzz target: the BPF verifier.  The input is a program (8-byte
// instructions) run in an environment with a writable context, a scalar
// argument, an array map and the map helpers, after a prelude that gives
// every register a value (numbers, and pointers into each region) so that
// the mutated part reaches the verifier's interesting cases.  What the
// verifier accepts must run to an answer or a fault, never touch memory
// outside its regions (ASan would catch it), and the interpreter and the
// JIT must agree.
#include "fuzz.h"

#include "../../sdt/dtrace/bpf/bpf.h"
#include "../../sdt/dtrace/bpf/insn.h"

#include <cstring>

using namespace mk;
using namespace mk::bpf;

namespace {

Insn make(u8 code, u8 dst, u8 src, i16 off, i32 imm) {
  Insn i;
  i.code = code;
  i.dst = dst & 15;
  i.src = src & 15;
  i.off = off;
  i.imm = imm;
  return i;
}

struct Setup {
  std::unique_ptr<Map> map;
  Env env;
  Setup() {
    auto m = Map::create({"vals", MapType::Array, 4, 16, 2}, 1);
    if (!m)
      std::abort();
    map = std::move(*m);
    env.ctx_size = 32;
    env.ctx_writable = true;
    env.scalar_args = 1;
    env.maps = {map.get()};
    env.helpers = map_helpers();
    env.loop_budget = 200;
    env.max_analysis_steps = 200000;
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Setup *s = new Setup;
  if (size > 8 * 512)
    return 0;
  // r0 = 0, r2 = the scalar, r3 = fp - 16 (both slots written), r4 = the
  // map's value 0, r5 = ctx + 8, r6 = 7, r7 = ctx + r2, r8 = 1, r9 = fp.
  std::vector<Insn> c = {
      make(kST | kMEM | kDW, 10, 0, -8, 0),
      make(kST | kMEM | kDW, 10, 0, -16, 1),
      make(kALU64 | kMOV | kK, 0, 0, 0, 0),
      make(kALU64 | kMOV | kX, 3, 10, 0, 0),
      make(kALU64 | kADD | kK, 3, 0, 0, -16),
      make(kLD | kIMM | kDW, 4, 2, 0, 0), // map value: src 2, map 0
      make(0, 0, 0, 0, 0),
      make(kALU64 | kMOV | kX, 5, 1, 0, 0),
      make(kALU64 | kADD | kK, 5, 0, 0, 8),
      make(kALU64 | kMOV | kK, 6, 0, 0, 7),
      make(kALU64 | kMOV | kX, 7, 1, 0, 0),
      make(kALU64 | kADD | kX, 7, 2, 0, 0),
      make(kALU64 | kMOV | kK, 8, 0, 0, 1),
      make(kALU64 | kMOV | kX, 9, 10, 0, 0),
  };
  const size_t prelude = c.size();
  c.resize(prelude + size / 8);
  std::memcpy(c.data() + prelude, data, size / 8 * 8);
  LoadOptions io;
  io.engine = Engine::Interpreter;
  auto p = Program::load(c, s->env, io);
  if (!p) {
    const std::string &m = p.error().message;
    FUZZ_CHECK(!m.empty() && m.find('\n') == std::string::npos,
               "error not one line: '%s'", m.c_str());
    return 0;
  }
  // Each engine starts from the same state: zeroed map values and context,
  // at the same addresses (one context buffer, one Runner and so one BPF
  // stack): a program may compute with its pointers' values, which must
  // then be the same for both.
  std::memset(s->map->slab(), 0, s->map->slab_size());
  static u8 ctx[32];
  std::memset(ctx, 0, sizeof ctx);
  Runner r(s->env, 0);
  const RunResult a = r.interpret(**p, ctx, 5);
  if (jit_available()) {
    LoadOptions jo;
    jo.engine = Engine::Jit;
    auto j = Program::load(c, s->env, jo);
    FUZZ_CHECK(j, "the JIT refused what the verifier accepted: %s",
               j.error().message.c_str());
    const std::vector<u8> slab(s->map->slab(),
                               s->map->slab() + s->map->slab_size());
    u8 ictx[32];
    std::memcpy(ictx, ctx, sizeof ctx);
    std::memset(s->map->slab(), 0, s->map->slab_size());
    std::memset(ctx, 0, sizeof ctx);
    const RunResult b = r.run(**j, ctx, 5);
    FUZZ_CHECK(a.fault == b.fault && (a.fault != Fault::None || a.r0 == b.r0),
               "interpreter %s (r0 0x%llx), JIT %s (r0 0x%llx)",
               fault_name(a.fault), (unsigned long long)a.r0,
               fault_name(b.fault), (unsigned long long)b.r0);
    FUZZ_CHECK(a.fault != Fault::None || std::memcmp(ictx, ctx, 32) == 0,
               "the context differs after the run");
    FUZZ_CHECK(a.fault != Fault::None ||
                   std::memcmp(slab.data(), s->map->slab(), slab.size()) == 0,
               "the map differs after the run");
  }
  return 0;
}
