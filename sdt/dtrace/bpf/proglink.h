// Linking a compiled BPF program with a library of precompiled functions
// (the D library, build/ARCH/dtrace/bpf_dlib.o), as DTrace on BPF does it
// (seed 003): exactly the functions the program reaches are copied in, each
// once, dependencies of dependencies included, in three phases:
//
//   layout     walk the calls from the program, depth first, giving each
//              function reached its place after what is already placed;
//   construct  copy each function's instructions to its place and its
//              relocations with them, their offsets moved along;
//   resolve    patch every call with the distance to its callee (in
//              instructions) and every ld_imm64 of a symbol with what the
//              embedder binds it to (a map handle, a constant).
//
// The library is read with the loader's own ELF reader and BPF backend
// (linker/), so its relocations are normalised the same way.
#pragma once

#include "bpf.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mk::bpf {

// A reference from an instruction to a symbol: a call, or an ld_imm64.
struct SymbolRef {
  enum Kind : u8 { Call, Imm64 } kind = Call;
  u32 insn = 0;       // the instruction's index
  std::string symbol; // a function (Call) or anything the binder knows
  i64 addend = 0;     // Imm64: bytes added to the symbol's value
};

struct LibFunction {
  std::string name;
  std::vector<Insn> code;
  std::vector<SymbolRef> refs; // its calls and ld_imm64s, by index in `code`
};

class BpfLibrary {
public:
  // Reads every function (STT_FUNC with a size) of the object's text.
  static Result<BpfLibrary> read(const std::string &path);
  static Result<BpfLibrary> parse(std::vector<u8> bytes, std::string name);
  const LibFunction *find(const std::string &name) const;
  const std::string &name() const { return name_; }
  size_t size() const { return funcs_.size(); }
  std::vector<std::string> function_names() const;
  // The bytes of a data section the functions refer to (".rodata"), or null.
  const std::vector<u8> *data(const std::string &section) const;

private:
  std::string name_;
  std::map<std::string, LibFunction> funcs_;
  std::map<std::string, std::vector<u8>> data_;
};

// What an ld_imm64 of a symbol becomes: its src (0 a constant, 1 a map
// handle, 2 a map value) and the two imm halves.
struct Imm64Binding {
  u8 src = 0;
  i32 imm = 0, next_imm = 0;
};
using Imm64Binder =
    std::function<Result<Imm64Binding>(const std::string &symbol, i64 addend)>;

struct LinkedProgram {
  std::vector<Insn> code;
  // Where each function starts ("" for the program's own code at 0).
  std::vector<std::pair<u32, std::string>> functions;
  // The function an instruction came from.
  const std::string &origin(u32 insn) const;
};

// The linked program as `dtrace -S` shows it: each function's name as a
// label before its first instruction, then the disassembly.
std::string listing(const LinkedProgram &p);

Result<LinkedProgram> link_program(std::vector<Insn> code,
                                   std::vector<SymbolRef> refs,
                                   const BpfLibrary &lib,
                                   const Imm64Binder &bind,
                                   const std::string &name = "program");

} // namespace mk::bpf
