// The BPF engine (sdt/dtrace/bpf/): the verifier's refusals with their exact
// messages, the interpreter and the JIT agreeing on every instruction class
// (and on thousands of random programs), maps, BPF-to-BPF calls, run-time
// checks that stop a program instead of the process, the loop budget, and
// the disassembler's syntax.
#include "../../sdt/dtrace/bpf/bpf.h"
#include "../../sdt/dtrace/bpf/builder.h"
#include "../../sdt/dtrace/bpf/semantics.h"

#include <doctest/doctest.h>

#include <cstring>
#include <random>

using namespace mk;
using namespace mk::bpf;
using namespace mk::bpf::ins;

namespace {

// Loads `code` under `env`; the message when refused.
std::string refusal(std::vector<Insn> code, const Env &env) {
  auto p = Program::load(std::move(code), env);
  return p ? std::string("loaded") : p.error().message;
}

std::unique_ptr<Program> load(std::vector<Insn> code, const Env &env,
                              Engine e = Engine::Auto) {
  LoadOptions o;
  o.engine = e;
  auto p = Program::load(std::move(code), env, o);
  REQUIRE_MESSAGE(static_cast<bool>(p), (p ? "" : p.error().message));
  return std::move(*p);
}

// Runs `code` through the interpreter and, where there is one, the JIT;
// both must agree.  Returns the result.
RunResult run_both(const std::vector<Insn> &code, Env &env, void *ctx = nullptr,
                   u64 a2 = 0) {
  auto pi = load(code, env, Engine::Interpreter);
  Runner r(env, 0);
  RunResult ri = r.run(*pi, ctx, a2);
  if (jit_available()) {
    auto pj = load(code, env, Engine::Jit);
    CHECK(pj->jitted());
    RunResult rj = r.run(*pj, ctx, a2);
    CHECK(rj.r0 == ri.r0);
    CHECK(rj.fault == ri.fault);
    CHECK(rj.pc == ri.pc);
  }
  return ri;
}

u64 r0_of(std::vector<Insn> code) {
  Env env;
  code.push_back(exit());
  RunResult r = run_both(code, env);
  CHECK(r.fault == Fault::None);
  return r.r0;
}

} // namespace

TEST_CASE("bpf: ALU64 and ALU32 results per RFC 9669") {
  CHECK(r0_of({mov64i(0, 7), alu64i(kADD, 0, -9)}) == u64(-2));
  CHECK(r0_of({mov64i(0, 7), alu32i(kADD, 0, -9)}) == 0xfffffffeu); // zero-extended
  CHECK(r0_of({mov64i(0, 6), mov64i(1, 7), alu64(kMUL, 0, 1)}) == 42);
  CHECK(r0_of({mov64i(0, -1), alu32i(kMUL, 0, 3)}) == 0xfffffffdu);
  // Division and modulo by zero are defined.
  CHECK(r0_of({mov64i(0, 9), mov64i(1, 0), alu64(kDIV, 0, 1)}) == 0);
  CHECK(r0_of({mov64i(0, 9), mov64i(1, 0), alu64(kMOD, 0, 1)}) == 9);
  CHECK(r0_of({mov64i(0, -1), mov64i(1, 0), alu32(kMOD, 0, 1)}) == 0xffffffffu);
  CHECK(r0_of({mov64i(0, 100), alu64i(kDIV, 0, 7)}) == 14);
  CHECK(r0_of({mov64i(0, 100), alu64i(kMOD, 0, 7)}) == 2);
  // SDIV/SMOD, including INT_MIN / -1.
  CHECK(r0_of({mov64i(0, -7), alu64ioff(kDIV, 0, 2, 1)}) == u64(-3));
  CHECK(r0_of({mov64i(0, -7), alu64ioff(kMOD, 0, 2, 1)}) == u64(-1));
  {
    std::vector<Insn> c;
    ld64(c, 0, 0x8000000000000000ull);
    c.push_back(alu64ioff(kDIV, 0, -1, 1));
    CHECK(r0_of(c) == 0x8000000000000000ull);
  }
  // Shifts mask their count.
  CHECK(r0_of({mov64i(0, 1), alu64i(kLSH, 0, 65)}) == 2);
  CHECK(r0_of({mov64i(0, 1), mov64i(4, 33), alu32(kLSH, 0, 4)}) == 2);
  CHECK(r0_of({mov64i(0, -16), alu64i(kARSH, 0, 2)}) == u64(-4));
  CHECK(r0_of({mov64i(0, -16), alu32i(kARSH, 0, 2)}) == 0xfffffffcu);
  CHECK(r0_of({mov64i(0, 5), alu64i(kNEG, 0, 0)}) == u64(-5));
  // MOVSX and byte swaps.
  CHECK(r0_of({mov64i(1, 0x80), alu64off(kMOV, 0, 1, 8)}) == u64(-128));
  CHECK(r0_of({mov64i(1, 0x8000), make(kALU | kMOV | kX, 0, 1, 16, 0)}) ==
        0xffff8000u);
  CHECK(r0_of({mov64i(0, 0x1234), make(kALU | kEND | kX, 0, 0, 0, 16)}) == 0x3412);
  CHECK(r0_of({mov64i(0, 0x12345678), make(kALU | kEND | kK, 0, 0, 0, 16)}) ==
        0x5678);
  CHECK(r0_of({mov64i(0, 0x11223344), make(kALU64 | kEND | kK, 0, 0, 0, 32)}) ==
        0x44332211);
}

TEST_CASE("bpf: jumps, JMP32, ld_imm64, loads and stores of every width") {
  CHECK(r0_of({mov64i(0, 1), mov64i(1, -1), jmpi(kJSGT, 1, 0, 1),
               mov64i(0, 2)}) == 2);
  CHECK(r0_of({mov64i(0, 1), mov64i(1, -1), jmpi(kJGT, 1, 0, 1),
               mov64i(0, 2)}) == 1);
  {
    std::vector<Insn> c;
    ld64(c, 1, 0x100000005ull);
    c.push_back(mov64i(0, 1));
    c.push_back(jmp32i(kJEQ, 1, 5, 1)); // compares the low 32 bits only
    c.push_back(mov64i(0, 2));
    CHECK(r0_of(c) == 1);
  }
  {
    std::vector<Insn> c;
    ld64(c, 1, 0x8899aabbccddeeffull);
    c.push_back(stx(kDW, 10, -8, 1));
    c.push_back(ldx(kB, 0, 10, -8));
    c.push_back(ldx(kH, 2, 10, -7));
    c.push_back(alu64(kADD, 0, 2));
    c.push_back(ldxsx(kW, 3, 10, -4)); // 0x8899aabb sign-extended
    c.push_back(alu64(kADD, 0, 3));
    c.push_back(st(kW, 10, -16, -2));
    c.push_back(ldx(kW, 4, 10, -16));
    c.push_back(alu64(kADD, 0, 4));
    CHECK(r0_of(c) == 0xffu + 0xddeeu + u64(i64(i32(0x8899aabbu))) + 0xfffffffeu);
  }
}

TEST_CASE("bpf: atomics on the stack") {
  std::vector<Insn> c = {mov64i(1, 10), stx(kDW, 10, -8, 1), mov64i(2, 5),
                         atomic(kDW, 10, -8, 2, kADD | kFETCH), // r2 = 10
                         mov64i(3, 3), atomic(kDW, 10, -8, 3, kOR),  // 15 | 3
                         mov64i(0, 15), mov64i(4, 99),
                         atomic(kDW, 10, -8, 4, kCMPXCHG), // replaced, r0 = 15
                         ldx(kDW, 5, 10, -8), alu64(kADD, 0, 5), // 15 + 99
                         alu64(kADD, 0, 2)};                      // + 10
  CHECK(r0_of(c) == 124);
  std::vector<Insn> x = {mov64i(1, 0xf0), stx(kW, 10, -4, 1), mov64i(0, 0x3c),
                         atomic(kW, 10, -4, 0, kXOR | kFETCH), // r0 = 0xf0
                         ldx(kW, 1, 10, -4), alu64i(kLSH, 1, 8),
                         alu64(kOR, 0, 1)};
  CHECK(r0_of(x) == ((0xf0u ^ 0x3cu) << 8 | 0xf0u));
}

TEST_CASE("bpf: BPF-to-BPF calls get their own frames and keep r6-r9") {
  // main: r6 = 6; *(r10-8) = 1; r1 = 20; call f; r0 += r6 + *(r10-8)
  // f:    *(r10-8) = 1000 (its own frame); r6 = 0; r0 = r1 * 2
  std::vector<Insn> c = {
      mov64i(6, 6), st(kDW, 10, -8, 1), mov64i(1, 20), call_local(4), // f at 8
      alu64(kADD, 0, 6), ldx(kDW, 2, 10, -8), alu64(kADD, 0, 2), exit(),
      st(kDW, 10, -8, 1000), mov64i(6, 0), mov64(0, 1), alu64i(kMUL, 0, 2),
      exit()};
  Env env;
  RunResult r = run_both(c, env);
  CHECK(r.fault == Fault::None);
  CHECK(r.r0 == 40 + 6 + 1);
}

TEST_CASE("bpf: a callee may write through a pointer into its caller's frame") {
  // main passes &buf (r10-8) to f, which stores 77 there.
  std::vector<Insn> c = {st(kDW, 10, -8, 0), mov64(1, 10), alu64i(kADD, 1, -8),
                         call_local(2), ldx(kDW, 0, 10, -8), exit(),
                         st(kDW, 1, 0, 77), mov64i(0, 0), exit()};
  Env env;
  RunResult r = run_both(c, env);
  CHECK(r.r0 == 77);
}

TEST_CASE("bpf: verifier refusals name the instruction and the rule") {
  Env env;
  CHECK(refusal({}, env) == "bpf: program has no instructions");
  CHECK(refusal({mov64i(0, 1)}, env) ==
        "bpf: insn 0 'r0 = 1': the function falls off its end (the last "
        "instruction must be exit or a jump)");
  CHECK(refusal({alu64i(kADD, 0, 1), exit()}, env) ==
        "bpf: insn 0 'r0 += 1': r0 is not initialised");
  CHECK(refusal({exit()}, env) == "bpf: insn 0 'exit': r0 is not initialised "
                                  "at exit");
  CHECK(refusal({mov64i(10, 1), exit()}, env) ==
        "bpf: insn 0 'r10 = 1': r10 is read-only");
  CHECK(refusal({mov64i(0, 0), ja(5), exit()}, env) ==
        "bpf: insn 1 'goto +5': jump target 7 is outside the program [0, 3)");
  CHECK(refusal({mov64i(0, 0), call(99), exit()}, env) ==
        "bpf: insn 1 'call 99': unknown helper 99");
  CHECK(refusal({make(0xff, 0, 0, 0, 0), exit()}, env) ==
        "bpf: insn 0 '<unknown opcode 0xff>': unknown opcode 0xff");
  CHECK(refusal({mov64i(0, 0), ldx(kDW, 0, 1, 0), exit()}, env) ==
        "bpf: insn 1 'r0 = *(u64 *)(r1 + 0)': r1 is a number, not a pointer");
  CHECK(refusal({ldx(kDW, 0, 10, -8), exit()}, env) ==
        "bpf: insn 0 'r0 = *(u64 *)(r10 - 8)': reading 8 bytes at -8 of the "
        "stack: byte -8 is not initialised");
  CHECK(refusal({mov64i(0, 0), st(kDW, 10, -520, 1), exit()}, env) ==
        "bpf: insn 1 '*(u64 *)(r10 - 520) = 1': writing 8 bytes at -520 is "
        "outside the stack frames [-512, 0)");
  // Recursion, and calls nested too deep.
  CHECK(refusal({call_local(-1), exit()}, env) ==
        "bpf: insn 0 'call -1': recursive call (function at insn 0 is already "
        "on the call path)");
  std::vector<Insn> deep;
  for (int k = 0; k < 9; k++) {
    deep.push_back(call_local(1));
    deep.push_back(exit());
  }
  deep.push_back(mov64i(0, 0));
  deep.push_back(exit());
  CHECK(refusal(deep, env) ==
        "bpf: insn 14 'call +1': calls nest more than 8 deep");
  Env ctx_env;
  ctx_env.ctx_size = 16;
  CHECK(refusal({ldx(kDW, 0, 1, 12), exit()}, ctx_env) ==
        "bpf: insn 0 'r0 = *(u64 *)(r1 + 12)': reading 8 bytes at offset 12 "
        "is outside the probe context (16 bytes)");
  CHECK(refusal({st(kB, 1, 0, 1), mov64i(0, 0), exit()}, ctx_env) ==
        "bpf: insn 0 '*(u8 *)(r1 + 0) = 1': the probe context is read-only");
  env.max_insns = 2;
  CHECK(refusal({mov64i(0, 0), mov64i(0, 0), exit()}, env) ==
        "bpf: program has 3 instructions, more than the limit of 2");
}

TEST_CASE("bpf: maps: lookups must be checked for null, values are bounded") {
  auto m = Map::create({"counts", MapType::Array, 4, 8, 4}, 1);
  REQUIRE(static_cast<bool>(m));
  Env env;
  env.maps = {m->get()};
  env.helpers = map_helpers();
  // key 2 on the stack; r0 = lookup(map, &key); *r0 += 1 without a check.
  std::vector<Insn> c = {st(kW, 10, -4, 2), mov64(2, 10), alu64i(kADD, 2, -4)};
  ld_map(c, 1, 0);
  c.push_back(call(kHelperMapLookup));
  std::vector<Insn> unchecked = c;
  unchecked.push_back(mov64i(1, 1));
  unchecked.push_back(atomic(kDW, 0, 0, 1, kADD));
  unchecked.push_back(mov64i(0, 0));
  unchecked.push_back(exit());
  CHECK(refusal(unchecked, env) ==
        "bpf: insn 7 'lock *(u64 *)(r0 + 0) += r1': r0 may be null (compare it "
        "with 0 first)");
  std::vector<Insn> beyond = c;
  beyond.push_back(jmpi(kJEQ, 0, 0, 1));
  beyond.push_back(ldx(kDW, 0, 0, 8));
  beyond.push_back(exit());
  CHECK(refusal(beyond, env) ==
        "bpf: insn 7 'r0 = *(u64 *)(r0 + 8)': reading 8 bytes at offset 8 is "
        "outside a value of map 'counts' (8 bytes)");
  std::vector<Insn> ok = c;
  ok.push_back(jmpi(kJEQ, 0, 0, 3));
  ok.push_back(mov64i(1, 1));
  ok.push_back(atomic(kDW, 0, 0, 1, kADD));
  ok.push_back(mov64i(0, 0));
  ok.push_back(exit());
  auto p = load(ok, env);
  Runner r(env, 0);
  for (int k = 0; k < 5; k++)
    CHECK(r.run(*p, nullptr).fault == Fault::None);
  u32 key = 2;
  u64 v;
  std::memcpy(&v, (*m)->lookup(&key, 0), 8);
  CHECK(v == 5);
}

TEST_CASE("bpf: maps: hash and per-CPU hash") {
  auto h = Map::create({"h", MapType::Hash, 8, 16, 3}, 1);
  REQUIRE(static_cast<bool>(h));
  Map &m = **h;
  u64 k1 = 1, k2 = 2, k3 = 3, k4 = 4;
  u8 v[16] = {7};
  CHECK(m.lookup(&k1, 0) == nullptr);
  CHECK(m.update(&k1, v, kUpdateAny, 0) == 0);
  CHECK(m.update(&k1, v, kUpdateNoExist, 0) == -EEXIST);
  CHECK(m.update(&k2, v, kUpdateExist, 0) == -ENOENT);
  CHECK(m.update(&k2, v, kUpdateAny, 0) == 0);
  CHECK(m.update(&k3, v, kUpdateAny, 0) == 0);
  CHECK(m.update(&k4, v, kUpdateAny, 0) == -E2BIG);
  CHECK(m.count() == 3);
  CHECK(static_cast<u8 *>(m.lookup(&k2, 0))[0] == 7);
  CHECK(m.remove(&k2) == 0);
  CHECK(m.remove(&k2) == -ENOENT);
  CHECK(m.lookup(&k2, 0) == nullptr);
  CHECK(m.update(&k4, v, kUpdateAny, 0) == 0); // room again
  CHECK(m.lookup(&k3, 0) != nullptr);

  auto pc = Map::create({"pc", MapType::PerCpuHash, 4, 8, 8}, 3);
  REQUIRE(static_cast<bool>(pc));
  u32 key = 9;
  u64 one = 1, two = 2;
  CHECK((*pc)->update(&key, &one, kUpdateAny, 0) == 0);
  CHECK((*pc)->update(&key, &two, kUpdateAny, 2) == 0);
  u64 sum = 0;
  (*pc)->for_each([&](const void *, auto value_of) {
    for (unsigned c = 0; c < 3; c++)
      sum += *static_cast<const u64 *>(value_of(c));
  });
  CHECK(sum == 3);
  CHECK(Map::create({"bad", MapType::Array, 8, 8, 1}, 1).error().message ==
        "map 'bad': an array's key is 4 bytes, not 8");
}

TEST_CASE("bpf: an access with an unknown offset is checked at run time") {
  Env env;
  env.ctx_size = 16;
  env.scalar_args = 1;
  // r0 = *(u8 *)(r1 + r2): r2 comes from outside, so the offset is unknown.
  std::vector<Insn> c = {mov64(3, 1), alu64(kADD, 3, 2), ldx(kB, 0, 3, 0),
                         exit()};
  u8 ctx[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  auto p = load(c, env);
  CHECK(p->info()[2].check == Check::Region);
  RunResult in = run_both(c, env, ctx, 15);
  CHECK(in.fault == Fault::None);
  CHECK(in.r0 == 15);
  RunResult out = run_both(c, env, ctx, 16);
  CHECK(out.fault == Fault::OutOfBounds);
  CHECK(out.pc == 2);
  RunResult below = run_both(c, env, ctx, u64(-1));
  CHECK(below.fault == Fault::OutOfBounds);
  CHECK(out.describe().rfind("insn 2: out-of-bounds access at 0x", 0) == 0);
}

TEST_CASE("bpf: loops stop when the budget of backward jumps runs out") {
  Env env;
  env.loop_budget = 1000;
  // r0 = 0; loop: r0 += 1; if r0 < 500 goto loop  -> 499 backward jumps
  std::vector<Insn> c = {mov64i(0, 0), alu64i(kADD, 0, 1),
                         jmpi(kJLT, 0, 500, -2), exit()};
  RunResult r = run_both(c, env);
  CHECK(r.fault == Fault::None);
  CHECK(r.r0 == 500);
  // An endless loop: stopped, not hung.
  std::vector<Insn> forever = {mov64i(0, 0), ja(-1), exit()};
  RunResult f = run_both(forever, env);
  CHECK(f.fault == Fault::LoopBudget);
  CHECK(f.pc == 1);
}

TEST_CASE("bpf: the disassembler prints llvm-objdump's syntax") {
  CHECK(disasm(mov64i(0, 42)) == "r0 = 42");
  CHECK(disasm(alu32(kADD, 1, 2)) == "w1 += w2");
  CHECK(disasm(alu64ioff(kDIV, 3, 7, 1)) == "r3 s/= 7");
  CHECK(disasm(ldx(kW, 0, 1, 8)) == "r0 = *(u32 *)(r1 + 8)");
  CHECK(disasm(ldxsx(kB, 0, 1, -2)) == "r0 = *(s8 *)(r1 - 2)");
  CHECK(disasm(stx(kDW, 10, -8, 1)) == "*(u64 *)(r10 - 8) = r1");
  CHECK(disasm(st(kH, 10, -2, 5)) == "*(u16 *)(r10 - 2) = 5");
  CHECK(disasm(jmpi(kJSLT, 2, 1, 9)) == "if r2 s< 1 goto +9");
  CHECK(disasm(jmp32i(kJNE, 2, 1, -3)) == "if w2 != 1 goto -3");
  CHECK(disasm(atomic(kDW, 1, 0, 4, kADD)) == "lock *(u64 *)(r1 + 0) += r4");
  CHECK(disasm(atomic(kDW, 1, 8, 5, kADD | kFETCH)) ==
        "r5 = atomic_fetch_add((u64 *)(r1 + 8), r5)");
  CHECK(disasm(atomic(kDW, 1, 8, 2, kCMPXCHG)) == "r0 = cmpxchg_64(r1 + 8, r0, r2)");
  CHECK(disasm(make(kALU | kEND | kX, 5, 0, 0, 32)) == "r5 = be32 r5");
  CHECK(disasm(make(kALU64 | kEND, 5, 0, 0, 16)) == "r5 = bswap16 r5");
  CHECK(disasm(alu64off(kMOV, 1, 2, 16)) == "r1 = (s16)r2");
  CHECK(disasm(call(1)) == "call 1");
  CHECK(disasm(call_local(-1)) == "call -1");
  std::vector<Insn> c;
  ld64(c, 1, 20015998343868ull);
  CHECK(disasm(c[0], &c[1]) == "r1 = 20015998343868 ll");
}

TEST_CASE("bpf: the JIT agrees with the interpreter on random programs") {
  if (!jit_available()) {
    // The i386 kernel interprets: the JIT says so rather than pretending.
    Env env;
    LoadOptions o;
    o.engine = Engine::Jit;
    auto p = Program::load({mov64i(0, 0), exit()}, env, o);
    CHECK(p.error().message == "bpf: there is no JIT for this architecture");
    return;
  }
  std::mt19937_64 rng(12345);
  const u8 ops[] = {kADD, kSUB, kMUL, kDIV, kOR, kAND, kLSH, kRSH, kNEG,
                    kMOD, kXOR, kMOV, kARSH, kEND};
  const u8 jops[] = {kJEQ, kJGT, kJGE, kJSET, kJNE, kJSGT, kJSGE, kJLT,
                     kJLE, kJSLT, kJSLE};
  Env env;
  int mismatches = 0;
  for (int n = 0; n < 1500; n++) {
    std::vector<Insn> c;
    for (u8 r = 0; r <= 9; r++)
      ld64(c, r, rng());
    const int len = 40;
    for (int k = 0; k < len; k++) {
      const u8 dst = rng() % 10, src = rng() % 10;
      const bool is64 = rng() & 1;
      const u8 pick = rng() % 16;
      if (pick >= 14) { // a forward conditional jump
        const u8 op = jops[rng() % 11];
        const u8 cls = (rng() & 1) ? kJMP : kJMP32;
        const i16 off = (i16)(rng() % 3);
        if (rng() & 1)
          c.push_back(make(cls | op | kX, dst, src, off, 0));
        else
          c.push_back(make(cls | op | kK, dst, 0, off, (i32)rng()));
        continue;
      }
      const u8 op = ops[pick];
      const u8 cls = is64 ? kALU64 : kALU;
      if (op == kNEG) {
        c.push_back(make(cls | op, dst, 0, 0, 0));
      } else if (op == kEND) {
        const i32 widths[] = {16, 32, 64};
        c.push_back(make(cls | op | ((rng() & 1) && !is64 ? kX : kK), dst, 0, 0,
                         widths[rng() % 3]));
      } else {
        i16 off = 0;
        if ((op == kDIV || op == kMOD) && (rng() & 1))
          off = 1;
        if (op == kMOV && (rng() & 1)) {
          const i16 w[] = {8, 16, 32};
          off = w[rng() % (is64 ? 3 : 2)];
        }
        const bool x = (rng() & 1) || (op == kMOV && off);
        i32 imm = (i32)rng();
        if (rng() % 4 == 0)
          imm = (i32)(rng() % 5) - 2; // small, 0 and -1 often
        c.push_back(x ? make(cls | op | kX, dst, src, off, 0)
                      : make(cls | op | kK, dst, 0, off, imm));
      }
    }
    // Fold every register into r0, so any wrong one shows.
    for (u8 r = 1; r <= 9; r++) {
      c.push_back(alu64i(kMUL, 0, 31));
      c.push_back(alu64(kXOR, 0, r));
    }
    c.push_back(exit());
    auto pi = Program::load(c, env, {"i", Engine::Interpreter});
    auto pj = Program::load(c, env, {"j", Engine::Jit});
    REQUIRE(static_cast<bool>(pi));
    REQUIRE(static_cast<bool>(pj));
    Runner r(env, 0);
    const RunResult a = r.run(**pi, nullptr), b = r.run(**pj, nullptr);
    if (a.r0 != b.r0 || a.fault != b.fault) {
      if (mismatches++ < 3)
        MESSAGE("mismatch in program " << n << ":\n"
                                       << disasm_program(c));
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("bpf: inline array lookups answer as Map::lookup does") {
  auto m = Map::create({"pcpu", MapType::PerCpuArray, 4, 12, 5}, 2);
  REQUIRE(static_cast<bool>(m));
  Env env;
  env.ctx_size = 8;
  env.maps = {m->get()};
  env.helpers = map_helpers();
  // r0 = lookup(pcpu, &ctx->key); return r0 ? *(u32 *)(r0 + 8) + 1 : 0
  std::vector<Insn> c = {mov64(2, 1)};
  ld_map(c, 1, 0);
  c.push_back(call(kHelperMapLookup));
  c.push_back(jmpi(kJEQ, 0, 0, 2));
  c.push_back(ldx(kW, 0, 0, 8));
  c.push_back(alu64i(kADD, 0, 1));
  c.push_back(exit());
  auto pi = load(c, env, Engine::Interpreter);
  CHECK(pi->info()[3].map == 0);
  std::unique_ptr<Program> pj;
  if (jit_available())
    pj = load(c, env, Engine::Jit);
  for (u32 cpu : {0u, 1u, 2u}) {
    Runner r(env, cpu);
    for (u32 key : {0u, 4u, 5u, 0xffffffffu}) {
      u64 ctx = key;
      if (key < 5 && cpu < 2) {
        u32 v = 100 * cpu + key;
        std::memcpy(static_cast<u8 *>((*m)->lookup(&key, cpu)) + 8, &v, 4);
      }
      const RunResult a = r.run(*pi, &ctx);
      const u64 expect = key < 5 && cpu < 2 ? 100 * cpu + key + 1 : 0;
      CHECK(a.r0 == expect);
      if (pj)
        CHECK(r.run(*pj, &ctx).r0 == expect);
    }
  }
}

// A lookup whose key the verifier proved constant: the JIT computes the
// value's address without reading the key (and, out of range, answers null
// without a lookup).  Every key shape below answers as Map::lookup does, on
// both engines, on CPUs inside and outside the map's copies.
TEST_CASE("bpf: constant keys: the verifier knows them, the JIT's lookup agrees") {
  auto pc = Map::create({"pcpu", MapType::PerCpuArray, 4, 8, 5}, 2);
  auto ar = Map::create({"arr", MapType::Array, 4, 8, 5}, 1);
  REQUIRE(static_cast<bool>(pc));
  REQUIRE(static_cast<bool>(ar));
  Env env;
  env.ctx_size = 8;
  env.maps = {pc->get(), ar->get()};
  env.helpers = map_helpers();
  for (u32 key = 0; key < 5; key++) {
    for (u32 cpu = 0; cpu < 2; cpu++) {
      const u64 v = 1000 * (cpu + 1) + key;
      std::memcpy((*pc)->lookup(&key, cpu), &v, 8);
    }
    const u64 w = 7000 + key;
    std::memcpy((*ar)->lookup(&key, 0), &w, 8);
  }
  // Stores the key (`key` instructions, r10 - 8 .. r10 - 1), looks it up
  // in `map` and returns the value, or 1 when the lookup answers null.
  auto program = [](std::vector<Insn> key, u32 map) {
    std::vector<Insn> c = std::move(key);
    c.push_back(mov64(2, 10));
    c.push_back(alu64i(kADD, 2, -4));
    ld_map(c, 1, map);
    c.push_back(call(kHelperMapLookup));
    c.push_back(jmpi(kJEQ, 0, 0, 2));
    c.push_back(ldx(kDW, 0, 0, 0));
    c.push_back(exit());
    c.push_back(mov64i(0, 1));
    c.push_back(exit());
    return c;
  };
  const u32 call_at_from_end = 6; // the call, counted from the end
  struct Shape {
    const char *what;
    std::vector<Insn> key;
    InsnInfo::KeySeen seen;
    u64 key_value; // ConstKey: the key; otherwise the context's
  };
  const Shape shapes[] = {
      {"an immediate store", {st(kW, 10, -4, 3)}, InsnInfo::ConstKey, 3},
      {"key 0", {st(kW, 10, -4, 0)}, InsnInfo::ConstKey, 0},
      {"out of range", {st(kW, 10, -4, 5)}, InsnInfo::ConstKey, 5},
      {"far out of range", {st(kW, 10, -4, -1)}, InsnInfo::ConstKey, 0xffffffffu},
      {"a known register", {mov64i(3, 4), stx(kW, 10, -4, 3)}, InsnInfo::ConstKey, 4},
      {"byte by byte", {st(kB, 10, -4, 2), st(kB, 10, -3, 0), st(kH, 10, -2, 0)},
       InsnInfo::ConstKey, 2},
      {"an 8-byte store read as 4", {st(kDW, 10, -8, 0), st(kW, 10, -4, 1)},
       InsnInfo::ConstKey, 1},
      // Not constant: the engines read the key at run time.
      {"from the context", {ldx(kW, 3, 1, 0), stx(kW, 10, -4, 3)},
       InsnInfo::VaryingKey, 2},
      {"a byte overwritten by an unknown one",
       {st(kW, 10, -4, 1), ldx(kW, 3, 1, 0), stx(kB, 10, -4, 3)},
       InsnInfo::VaryingKey, 3},
      {"a different constant on each path",
       {ldx(kW, 3, 1, 0), st(kW, 10, -4, 1), jmpi(kJEQ, 3, 0, 1),
        st(kW, 10, -4, 2)},
       InsnInfo::VaryingKey, 0},
      {"the same constant on each path",
       {ldx(kW, 3, 1, 0), st(kW, 10, -4, 4), jmpi(kJEQ, 3, 0, 1),
        st(kW, 10, -4, 4)},
       InsnInfo::ConstKey, 4},
  };
  for (const Shape &sh : shapes) {
    for (u32 map : {0u, 1u}) {
      CAPTURE(sh.what);
      CAPTURE(map);
      const std::vector<Insn> c = program(sh.key, map);
      auto pi = load(c, env, Engine::Interpreter);
      const InsnInfo &in = pi->info()[c.size() - call_at_from_end];
      CHECK(in.key_seen == sh.seen);
      if (sh.seen == InsnInfo::ConstKey)
        CHECK(in.key == sh.key_value);
      std::unique_ptr<Program> pj;
      if (jit_available()) {
        pj = load(c, env, Engine::Jit);
        CHECK(pj->plain()); // no helper call left, no check
      }
      for (u32 cpu : {0u, 1u, 2u}) {
        Runner r(env, cpu);
        // The context's key, where the key comes from it.
        for (u64 ctx : {sh.key_value, (u64)0, (u64)7}) {
          // What Map::lookup answers for the key the program stores.
          u64 want = 1;
          {
            // The key's stores alone, reading the key back.
            std::vector<Insn> k = sh.key;
            k.push_back(ldx(kW, 0, 10, -4));
            k.push_back(exit());
            auto pk = load(k, env, Engine::Interpreter);
            const u32 key = (u32)r.run(*pk, &ctx).r0;
            if (void *v = env.maps[map]->lookup(&key, cpu))
              std::memcpy(&want, v, 8);
          }
          CHECK(r.run(*pi, &ctx).r0 == want);
          if (pj)
            CHECK(r.run(*pj, &ctx).r0 == want);
        }
      }
    }
  }
  // What the verifier refused it still refuses: a key with a byte never
  // written, and the value used before the null check, constant key or not.
  std::vector<Insn> partial = program({st(kH, 10, -4, 1)}, 0);
  CHECK(refusal(partial, env) ==
        "bpf: insn 5 'call 1': reading 1 bytes at -2 of the stack: byte -2 is "
        "not initialised");
  std::vector<Insn> unchecked = {st(kW, 10, -4, 0), mov64(2, 10),
                                 alu64i(kADD, 2, -4)};
  ld_map(unchecked, 1, 0);
  unchecked.push_back(call(kHelperMapLookup));
  unchecked.push_back(ldx(kDW, 0, 0, 0));
  unchecked.push_back(exit());
  CHECK(refusal(unchecked, env) ==
        "bpf: insn 6 'r0 = *(u64 *)(r0 + 0)': r0 may be null (compare it with "
        "0 first)");
}

// A plain program (no fault possible, no loop, no helper called) runs by a
// bare call; what is not plain keeps the Runner's resets, and a fault in it
// after a plain run is still reported.
TEST_CASE("bpf: plain programs skip the Runner's per-run state") {
  if (!jit_available())
    return;
  auto m = Map::create({"pcpu", MapType::PerCpuArray, 4, 8, 1}, 1);
  REQUIRE(static_cast<bool>(m));
  Env env;
  env.ctx_size = 16;
  env.maps = {m->get()};
  env.helpers = map_helpers();
  env.loop_budget = 10;
  std::vector<Insn> count = {st(kW, 10, -4, 0), mov64(2, 10), alu64i(kADD, 2, -4)};
  ld_map(count, 1, 0);
  count.push_back(call(kHelperMapLookup));
  count.push_back(jmpi(kJEQ, 0, 0, 3));
  count.push_back(ldx(kDW, 1, 0, 0));
  count.push_back(alu64i(kADD, 1, 1));
  count.push_back(stx(kDW, 0, 0, 1));
  count.push_back(mov64i(0, 0));
  count.push_back(exit());
  auto plain = load(count, env, Engine::Jit);
  CHECK(plain->plain());
  CHECK_FALSE(load(count, env, Engine::Interpreter)->plain());
  // Not plain: a loop (the budget), a checked access, a helper call.
  const std::vector<Insn> loop = {mov64i(0, 0), alu64i(kADD, 0, 1),
                                  jmpi(kJLT, 0, 100, -2), exit()};
  const std::vector<Insn> checked = {ldx(kDW, 2, 1, 0), alu64i(kAND, 2, 15),
                                     mov64(3, 1), alu64(kADD, 3, 2),
                                     ldx(kDW, 0, 3, 0), exit()};
  std::vector<Insn> helper = {st(kW, 10, -4, 0), mov64(2, 10), alu64i(kADD, 2, -4),
                              st(kDW, 10, -16, 9), mov64(3, 10), alu64i(kADD, 3, -16),
                              mov64i(4, 0)};
  ld_map(helper, 1, 0);
  helper.push_back(call(kHelperMapUpdate));
  helper.push_back(exit());
  auto ploop = load(loop, env, Engine::Jit);
  auto pchecked = load(checked, env, Engine::Jit);
  auto phelper = load(helper, env, Engine::Jit);
  CHECK_FALSE(ploop->plain());
  CHECK_FALSE(pchecked->plain());
  CHECK_FALSE(phelper->plain());
  Runner r(env, 0);
  u64 ctx[2] = {9, 0}; // offset 9: 8 bytes from there cross the context's end
  for (int k = 0; k < 3; k++) {
    CHECK(r.run(*plain, ctx).fault == Fault::None);
    const RunResult a = r.run(*ploop, ctx);
    CHECK(a.fault == Fault::LoopBudget);
    const RunResult b = r.run(*pchecked, ctx);
    CHECK(b.fault == Fault::OutOfBounds);
    CHECK(r.run(*plain, ctx).fault == Fault::None); // the fault is not left over
  }
  u32 key = 0;
  u64 v;
  std::memcpy(&v, (*m)->lookup(&key, 0), 8);
  CHECK(v == 6);
  CHECK(r.run(*phelper, ctx).r0 == 0);
  std::memcpy(&v, (*m)->lookup(&key, 0), 8);
  CHECK(v == 9);
}

// The JIT turns a load of the slot the previous instruction stored into a
// move, but never where a jump may arrive at the load, and never from r10
// (which may live in no register): each case below would answer wrongly.
TEST_CASE("bpf: a store then a load of the same slot, with a jump to the load") {
  Env env;
  env.scalar_args = 1; // r2
  const std::vector<Insn> c = {
      st(kDW, 10, -8, -5),       // 0
      ldx(kDW, 3, 10, -8),       // 1: r3 = -5 (sign-extended immediate)
      mov64i(4, 9),              // 2
      stx(kDW, 10, -16, 4),      // 3
      jmpi(kJEQ, 2, 0, 1),       // 4 -> 6
      stx(kDW, 10, -16, 3),      // 5
      ldx(kDW, 5, 10, -16),      // 6: a jump target: 9 when r2 == 0, else -5
      stx(kDW, 10, -24, 5),      // 7
      ldx(kDW, 5, 10, -24),      // 8: the same register
      mov64(0, 5),               // 9
      alu64(kADD, 0, 3),         // 10
      stx(kDW, 10, -32, 10),     // 11: r10 itself
      ldx(kDW, 6, 10, -32),      // 12
      ldx(kDW, 7, 6, -8),        // 13: through the copy: -5
      alu64(kADD, 0, 7),         // 14
      exit(),
  };
  CHECK((i64)run_both(c, env, nullptr, 0).r0 == 9 - 5 - 5);
  CHECK((i64)run_both(c, env, nullptr, 1).r0 == -5 - 5 - 5);
}

TEST_CASE("bpf: random programs the verifier accepts run without harm") {
  // Programs of random instructions over a context, the stack and a map:
  // most are refused; the ones accepted must run to an answer or a fault,
  // the same in both engines, and never touch memory outside the regions
  // (a stray access would crash this process).
  auto m = Map::create({"vals", MapType::Array, 4, 16, 2}, 1);
  REQUIRE(static_cast<bool>(m));
  Env env;
  env.ctx_size = 32;
  env.ctx_writable = true;
  env.scalar_args = 1;
  env.maps = {m->get()};
  env.helpers = map_helpers();
  env.loop_budget = 200;
  std::mt19937_64 rng(getenv("BPF_FUZZ_SEED") ? strtoull(getenv("BPF_FUZZ_SEED"), nullptr, 10) : 777);
  const u8 classes[] = {kALU, kALU64, kJMP, kJMP32, kLDX, kST, kSTX, kLD};
  const u8 sizes[] = {kB, kH, kW, kDW};
  int accepted = 0, faulted = 0;
  u8 ctx[32] = {};
  for (int n = 0; n < 20000; n++) {
    // Every register starts as something: numbers, and pointers into each
    // region with known and unknown offsets.
    std::vector<Insn> c = {st(kDW, 10, -8, 0), st(kDW, 10, -16, 1),
                           mov64i(0, 0), mov64(3, 10), alu64i(kADD, 3, -16)};
    ld_map_value(c, 4, 0, 0);
    c.push_back(mov64(5, 1));
    c.push_back(alu64i(kADD, 5, 8));
    c.push_back(mov64i(6, 7));
    c.push_back(mov64(7, 1));
    c.push_back(alu64(kADD, 7, 2)); // ctx + an unknown number
    c.push_back(mov64i(8, 1));
    c.push_back(mov64(9, 10));
    const int len = 4 + (int)(rng() % 12);
    // Memory operands: mostly a pointer register with an offset near its
    // region (so that many programs pass), sometimes anything.
    const u8 ptrs[] = {1, 3, 4, 5, 7, 9, 10};
    const i16 near[] = {8, 4, 4, 8, 0, -12, -12};
    for (int k = 0; k < len; k++) {
      const u8 cls = classes[rng() % 8];
      u8 dst = rng() % 10, src = rng() % 11;
      i16 off = (i16)((i64)(rng() % 48) - 24);
      if ((cls == kLDX || cls == kST || cls == kSTX) && rng() % 4) {
        const unsigned p = rng() % 7;
        off = (i16)(near[p] + (i16)(rng() % 9) - 4);
        (cls == kLDX ? src : dst) = ptrs[p];
      }
      const i32 imm = (rng() & 1) ? (i32)(rng() % 40) - 20 : (i32)rng();
      switch (cls) {
      case kLDX:
        c.push_back(make(kLDX | kMEM | sizes[rng() % 4], dst, src, off, 0));
        break;
      case kST:
        c.push_back(make(kST | kMEM | sizes[rng() % 4], dst, 0, off, imm));
        break;
      case kSTX:
        if (rng() % 4 == 0)
          c.push_back(make(kSTX | kATOMIC | ((rng() & 1) ? kDW : kW), dst, src,
                           (i16)(off & ~7), kADD | kFETCH));
        else
          c.push_back(make(kSTX | kMEM | sizes[rng() % 4], dst, src, off, 0));
        break;
      case kLD:
        if (rng() & 1)
          ld_map(c, dst % 10, 0);
        else
          ld_map_value(c, dst % 10, 0, (u32)(rng() % 16));
        break;
      case kJMP:
      case kJMP32:
        if (rng() % 5 == 0) {
          c.push_back(call(kHelperMapLookup));
        } else {
          const u8 op = u8((1 + rng() % 13) << 4);
          const bool x = rng() & 1;
          c.push_back(make(cls | (op == kCALL || op == kEXIT ? kJEQ : op) |
                               (x ? kX : kK),
                           dst, x ? src : 0, (i16)(rng() % 2), x ? 0 : imm));
        }
        break;
      default: {
        const u8 op = u8((rng() % 13) << 4);
        const bool x = (rng() & 1) && op != kNEG;
        c.push_back(make(cls | op | (x ? kX : kK), dst, x ? src : 0, 0,
                         x || op == kNEG ? 0 : imm));
      }
      }
    }
    c.push_back(mov64i(0, 0));
    c.push_back(exit());
    auto pi = Program::load(c, env, {"r", Engine::Interpreter});
    if (!pi) {
      if (getenv("BPF_FUZZ_WHY"))
        MESSAGE(pi.error().message);
      continue;
    }
    accepted++;
    Runner r(env, 0);
    const u64 arg = rng() % 64;
    std::memset(ctx, 0, sizeof ctx);
    std::memset((*m)->slab(), 0, (size_t)(*m)->slab_size());
    const RunResult a = r.run(**pi, ctx, arg);
    if (!a)
      faulted++;
    if (jit_available()) {
      auto pj = Program::load(c, env, {"r", Engine::Jit});
      REQUIRE(static_cast<bool>(pj));
      std::memset(ctx, 0, sizeof ctx);
      std::memset((*m)->slab(), 0, (size_t)(*m)->slab_size());
      const RunResult b = r.run(**pj, ctx, arg);
      if (a.r0 != b.r0 || a.fault != b.fault || a.pc != b.pc)
        FAIL_CHECK("engines disagree on\n" << disasm_program(c));
    }
  }
  MESSAGE(accepted << " of 20000 random programs accepted, " << faulted
                   << " stopped by a run-time check");
  CHECK(accepted > 100);
}

TEST_CASE("bpf: a pointer into one region or another is checked at run time") {
  // r0 = r2 ? the map's value : the stack; then *r0.  The verifier cannot
  // know the region, so the load searches the regions at run time.
  auto m = Map::create({"one", MapType::Array, 4, 8, 1}, 1);
  REQUIRE(static_cast<bool>(m));
  u64 seven = 7;
  std::memcpy((*m)->slab(), &seven, 8);
  Env env;
  env.ctx_size = 8;
  env.scalar_args = 1;
  env.maps = {m->get()};
  std::vector<Insn> c = {st(kDW, 10, -8, 5)};
  ld_map_value(c, 3, 0, 0);
  c.push_back(mov64(0, 10));
  c.push_back(alu64i(kADD, 0, -8));
  c.push_back(jmpi(kJEQ, 2, 0, 1));
  c.push_back(mov64(0, 3));
  c.push_back(ldx(kDW, 0, 0, 0));
  c.push_back(exit());
  auto p = load(c, env);
  CHECK(p->info()[7].check == Check::AnyRegion);
  u64 ctx = 0;
  CHECK(run_both(c, env, &ctx, 0).r0 == 5);
  CHECK(run_both(c, env, &ctx, 1).r0 == 7);
}
