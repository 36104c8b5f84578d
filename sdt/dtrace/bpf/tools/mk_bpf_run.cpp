// mk-bpf-run: the engine behind the BPF ISA conformance suites' plugin
// protocol.  The program comes as base-16 bytes on standard input, the
// initial memory as base-16 bytes in the first argument; the program runs
// with r1 pointing to that memory and r2 holding its length, and r0 is
// printed in hex at exit.  A program the verifier refuses, or a run that
// faults, prints one line on standard error and exits 1.
//
//   mk-bpf-run [--interp|--jit] [--verbose] [MEMORY-HEX] < PROGRAM-HEX
//   mk-bpf-run --disasm < PROGRAM-HEX
//
// Helper 5 is the suites' "unwind": it returns its argument and, if that
// is 0, stops the program with r0 = 0.
#include "../bpf.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>

using namespace mk;
using namespace mk::bpf;

namespace {

Result<std::vector<u8>> decode_hex(const std::string &text, const char *what) {
  std::vector<u8> out;
  int nibbles = 0;
  u8 cur = 0;
  for (char c : text) {
    if (std::isspace((unsigned char)c))
      continue;
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else
      return error(strf("mk-bpf-run: %s: '%c' is not a hex digit", what, c));
    cur = u8(cur << 4 | v);
    if (++nibbles % 2 == 0) {
      out.push_back(cur);
      cur = 0;
    }
  }
  if (nibbles % 2)
    return error(strf("mk-bpf-run: %s: odd number of hex digits", what));
  return out;
}

u64 unwind(u64 a, u64, u64, u64, u64, RunCtx *rc) {
  if (a == 0)
    rc->fault = Fault::Aborted;
  return a;
}

} // namespace

int main(int argc, char **argv) {
  Engine engine = Engine::Auto;
  bool verbose = false, listing = false;
  std::string memory_hex;
  for (int k = 1; k < argc; k++) {
    std::string a = argv[k];
    if (a == "--interp") engine = Engine::Interpreter;
    else if (a == "--jit") engine = Engine::Jit;
    else if (a == "--verbose") verbose = true;
    else if (a == "--disasm") listing = true;
    else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
      std::fprintf(stderr, "mk-bpf-run: unknown option '%s'\n", a.c_str());
      return 2;
    } else memory_hex = a;
  }
  std::string text((std::istreambuf_iterator<char>(std::cin)),
                   std::istreambuf_iterator<char>());
  auto bytes = decode_hex(text, "program");
  if (!bytes) {
    std::fprintf(stderr, "%s\n", bytes.error().message.c_str());
    return 1;
  }
  if (bytes->size() % 8) {
    std::fprintf(stderr, "mk-bpf-run: program: %zu bytes is not a whole "
                 "number of instructions\n", bytes->size());
    return 1;
  }
  std::vector<Insn> code(bytes->size() / 8);
  std::memcpy(code.data(), bytes->data(), bytes->size());
  if (listing) {
    std::fputs(disasm_program(code).c_str(), stdout);
    return 0;
  }
  auto mem = decode_hex(memory_hex, "memory");
  if (!mem) {
    std::fprintf(stderr, "%s\n", mem.error().message.c_str());
    return 1;
  }
  // The memory region is at least 8 bytes and 8-aligned; r2 says how much
  // of it the test gave.
  std::vector<u64> buf((mem->size() + 7) / 8 + 1, 0);
  if (!mem->empty())
    std::memcpy(buf.data(), mem->data(), mem->size());

  Env env;
  env.ctx_size = (u32)mem->size();
  env.ctx_writable = true;
  env.scalar_args = 1;
  Helper h;
  h.id = 5;
  h.name = "unwind";
  h.fn = unwind;
  h.args[0] = ArgType::Anything;
  h.may_abort = true;
  env.helpers.push_back(h);

  LoadOptions opts;
  opts.name = "mk-bpf-run";
  opts.engine = engine;
  auto prog = Program::load(std::move(code), env, opts);
  if (!prog) {
    std::fprintf(stderr, "%s\n", prog.error().message.c_str());
    return 1;
  }
  if (verbose)
    std::fputs(disasm_program((*prog)->insns()).c_str(), stderr);
  Runner runner(env, 0);
  RunResult r = runner.run(**prog, buf.data(), mem->size());
  if (r.fault == Fault::Aborted) {
    std::printf("0\n"); // unwind: the program stopped with r0 = 0
    return 0;
  }
  if (!r) {
    std::fprintf(stderr, "mk-bpf-run: %s\n", r.describe().c_str());
    return 1;
  }
  std::printf("%llx\n", (unsigned long long)r.r0);
  return 0;
}
