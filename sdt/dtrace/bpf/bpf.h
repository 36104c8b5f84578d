// minikern's eBPF engine: verifier, interpreter, x86_64 JIT, maps and
// disassembler for the RFC 9669 instruction set.  The D consumer compiles
// clauses to eBPF, links them with the precompiled D library and runs them
// here; the engine itself knows nothing of D or of the kernel.
//
// An embedder describes what programs may touch in an Env: the size of the
// probe context (r1 at entry), the maps (scratch space and constant strings
// are maps too: a per-CPU array and a read-only array), and the helper
// functions by id with their argument types.  Program::load() verifies the
// code against that Env and compiles it (x86_64) or prepares it for the
// interpreter; a Runner (one per CPU) runs it.
//
// What the verifier guarantees, whatever the program: it stops (every loop
// is bounded by a per-run budget of backward jumps the engine counts), it
// reads no register before writing it, it touches memory only inside the
// probe context, its own stack frames and the values of its maps (with
// bounds proved at load time, or checked at run time where the offset is
// not known), it calls helpers only by id with arguments of the declared
// types, and it nests calls at most kMaxCallDepth deep.  A program that
// breaks a rule is refused with one line naming the instruction (index and
// disassembly) and the rule; a run-time check that fails stops the program
// with a Fault, never the process.
#pragma once

#include "insn.h"

#include "../../../linker/sync.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mk::bpf {

// ---- maps -----------------------------------------------------------------

enum class MapType : u8 { Array, PerCpuArray, Hash, PerCpuHash };

struct MapSpec {
  std::string name;
  MapType type = MapType::Array;
  u32 key_size = 4;
  u32 value_size = 8;
  u32 max_entries = 1;
  bool read_only = false; // programs may read its values, never write them
};

// Flags of update(), as Linux's BPF_ANY / BPF_NOEXIST / BPF_EXIST.
enum : u64 { kUpdateAny = 0, kUpdateNoExist = 1, kUpdateExist = 2 };

// A map keeps every value in one slab (the region programs may address):
// values are never freed while the map lives, so a pointer a program got
// from lookup() stays inside memory it may touch even if the entry is
// deleted meanwhile.  Keys and the hash table live outside the slab.
class Map {
public:
  static Result<std::unique_ptr<Map>> create(const MapSpec &spec,
                                             unsigned ncpus);
  ~Map();
  Map(const Map &) = delete;
  Map &operator=(const Map &) = delete;

  const MapSpec &spec() const { return spec_; }
  unsigned ncpus() const { return ncpus_; }
  bool per_cpu() const {
    return spec_.type == MapType::PerCpuArray ||
           spec_.type == MapType::PerCpuHash;
  }
  u32 value_stride() const { return stride_; }

  // The value of `key` (this CPU's copy for per-CPU maps), or nullptr.
  void *lookup(const void *key, unsigned cpu);
  // 0, or a negative errno: -E2BIG (full), -EEXIST, -ENOENT, -EINVAL.
  int update(const void *key, const void *value, u64 flags, unsigned cpu);
  int remove(const void *key);
  // Consumers walk the entries: key, and for each CPU its value.
  template <class F> void for_each(F &&f) const;
  u32 count() const;

  // The value slab: the region programs address through this map.
  u8 *slab() const { return slab_; }
  u64 slab_size() const { return slab_size_; }

private:
  Map(const MapSpec &spec, unsigned ncpus);
  bool is_hash() const {
    return spec_.type == MapType::Hash || spec_.type == MapType::PerCpuHash;
  }
  u8 *value_at(u32 slot, unsigned cpu) const {
    return slab_ + ((u64)cpu * slots_ + slot) * stride_;
  }
  i64 find_slot(const void *key, u64 hash) const;
  u64 hash_key(const void *key) const;

  MapSpec spec_;
  unsigned ncpus_;
  u32 stride_ = 0;   // value_size rounded up to 8
  u32 slots_ = 0;    // array: max_entries; hash: the table's capacity
  u8 *slab_ = nullptr;
  u64 slab_size_ = 0;
  // Hash maps: per slot a state byte (0 empty, 1 used, 2 deleted) and key.
  // The states are plain zeroed bytes (lazily mapped for a big table)
  // accessed atomically through state().
  u8 *state_ = nullptr;
  std::atomic_ref<u8> state(u32 slot) const {
    return std::atomic_ref<u8>(state_[slot]);
  }
  u8 *keys_ = nullptr;
  std::atomic<u32> used_{0}; // written under mu_, read by count() anywhere
  // Serialises writers (update, remove).  Lookups read the slot states,
  // which writers publish with release stores, without it: nothing here is
  // GUARDED_BY it for that reason.
  Mutex mu_;
  friend class MapIterAccess;
};

template <class F> void Map::for_each(F &&f) const {
  const u32 n = is_hash() ? slots_ : spec_.max_entries;
  for (u32 s = 0; s < n; s++) {
    if (is_hash() && state(s).load(std::memory_order_acquire) != 1)
      continue;
    u32 idx = s;
    const void *key = is_hash() ? (const void *)(keys_ + (u64)s * spec_.key_size)
                                : (const void *)&idx;
    f(key, [this, s](unsigned cpu) -> const void * {
      return value_at(s, per_cpu() ? cpu : 0);
    });
  }
}

// ---- helpers --------------------------------------------------------------

struct RunCtx;
// Helpers get r1..r5 and the run's context (the CPU, the embedder's data).
using HelperFn = u64 (*)(u64, u64, u64, u64, u64, RunCtx *);

enum class ArgType : u8 {
  None,     // no more arguments
  Anything, // any initialised value
  Scalar,   // a number, not a pointer
  Map,      // a map handle (ld_imm64 with src 1)
  MapKey,   // readable memory of the preceding Map argument's key size
  MapValue, // readable memory of the preceding Map argument's value size
  Mem,      // readable memory; its size is the next argument (a Size)
  MemW,     // writable memory; its size is the next argument (a Size)
  Size,     // a scalar known at load time, the size of the previous Mem
};
enum class RetType : u8 {
  Scalar,         // r0 is a number
  MapValueOrNull, // r0 points to a value of the Map argument, or is 0
};

struct Helper {
  u32 id = 0;
  std::string name;
  HelperFn fn = nullptr;
  RetType ret = RetType::Scalar;
  ArgType args[5] = {};
  // The helper may stop the program (it sets RunCtx::fault): the engine
  // then checks for that after each call.
  bool may_abort = false;
};

// Linux's ids for the map helpers; map_helpers() implements them.
enum : u32 { kHelperMapLookup = 1, kHelperMapUpdate = 2, kHelperMapDelete = 3 };
std::vector<Helper> map_helpers();

// ---- the environment a program runs in -------------------------------------

struct Env {
  u32 ctx_size = 0;         // bytes at r1 on entry (r1 is 0 when this is 0)
  bool ctx_writable = false;
  u8 scalar_args = 0;       // r2.. r(1+scalar_args) are numbers at entry
  std::vector<Map *> maps;  // ld_imm64 src 1/2 name them by index
  std::vector<Helper> helpers;
  u32 max_insns = 65536;
  u64 loop_budget = 1u << 20; // backward jumps one run may take
  // Verification work (instructions analysed, all call contexts counted).
  u64 max_analysis_steps = 4'000'000;

  const Helper *helper(u32 id) const;
};

// ---- running ----------------------------------------------------------------

enum class Fault : u32 {
  None = 0,
  OutOfBounds, // a run-time bounds check failed
  LoopBudget,  // too many backward jumps
  Aborted,     // a helper stopped the program
  Unreachable, // code the verifier proved dead ran (an engine bug)
};
const char *fault_name(Fault f);

// A region a pointer may address: [base, base + size).  span[k] is the
// number of start addresses at which an access of 1 << k bytes fits
// (size - width + 1, or 0), so one unsigned compare checks an access.
struct Region {
  u64 base = 0;
  u64 span[4] = {};
  void set(u64 b, u64 size) {
    base = b;
    for (unsigned k = 0; k < 4; k++)
      span[k] = size >= (1u << k) ? size - (1u << k) + 1 : 0;
  }
};
// Region numbers: the probe context, the stack, then one per map.
enum : u32 { kRegionCtx = 0, kRegionStack = 1, kRegionMap0 = 2 };

// The state of one run, shared by the interpreter, the JIT's code and the
// helpers.  The JIT addresses its fields at fixed offsets.
struct RunCtx {
  u64 budget = 0;       // backward jumps left
  u64 native_sp = 0;    // JIT: the native stack pointer to unwind to
  u32 cpu = 0;
  Fault fault = Fault::None;
  u32 fault_pc = 0;
  u32 nregions = 0;
  u64 fault_addr = 0;
  void *user = nullptr; // the embedder's, for its helpers
  const Env *env = nullptr;
  u64 stack_top = 0;
  // Region regions[nregions] follow.
  Region *regions() { return reinterpret_cast<Region *>(this + 1); }
};
#if defined(__x86_64__)
static_assert(sizeof(RunCtx) == 64, "the JIT addresses RunCtx by offset");
#endif

struct RunResult {
  u64 r0 = 0;
  Fault fault = Fault::None;
  u32 pc = 0;     // the instruction that faulted
  u64 addr = 0;   // the address it touched (OutOfBounds)
  explicit operator bool() const { return fault == Fault::None; }
  std::string describe() const; // one line, for a fault
};

// What the verifier learnt about each instruction, for the engines.
enum class Check : u8 {
  None,      // nothing to do at run time
  Region,    // check the access against region `region`
  AnyRegion, // the pointer's region depends on the call path: search
};
struct InsnInfo {
  bool reached = false;   // the verifier saw it run on some path
  bool back_edge = false; // a jump whose taken edge goes backwards
  Check check = Check::None;
  u16 region = 0;
  bool write = false;     // the access writes (for AnyRegion)
  // Helper calls: the map argument, when it is the same on every path
  // (-1: none seen, -2: it varies).  Lets the JIT inline array lookups.
  i32 map = -1;
  // map_lookup_elem: the key, when it is a constant on the stack (key_size
  // at most 8 bytes, every byte stored as a known number) and the same on
  // every path: an array lookup then needs no load of the key and no
  // bounds check at run time.
  enum KeySeen : u8 { NoKey, ConstKey, VaryingKey };
  KeySeen key_seen = NoKey;
  u64 key = 0;
};

enum class Engine : u8 { Auto, Interpreter, Jit };

// ---- executable memory ----------------------------------------------------

// Code is written while its pages are read+write and then made read+exec;
// no page is writable and executable at once.
struct CodeAllocator {
  virtual ~CodeAllocator() = default;
  // Returns writable memory for `size` bytes of code.
  virtual void *allocate(size_t size) = 0;
  // Seals it: from now on read+exec.  Returns the address to run, or null.
  virtual void *seal(void *mem, size_t size) = 0;
  virtual void release(void *mem, size_t size) = 0;
};
CodeAllocator &default_code_allocator();

struct LoadOptions {
  std::string name = "bpf";     // prefixes every message
  Engine engine = Engine::Auto; // Auto: the JIT where there is one
  // Executable memory; the default maps pages read+write, then read+exec.
  struct CodeAllocator *allocator = nullptr;
};

// The native entry of a compiled program: r1..r5 and the run's context.
using JitEntry = u64 (*)(u64, u64, u64, u64, u64, RunCtx *);

// Native code of a program (jit_x86_64.cpp).
class JitCode {
public:
  JitCode(CodeAllocator *alloc, void *mem, size_t size, bool plain)
      : alloc_(alloc), mem_(mem), size_(size), plain_(plain) {}
  ~JitCode() { alloc_->release(mem_, size_); }
  JitCode(const JitCode &) = delete;
  JitCode &operator=(const JitCode &) = delete;
  const void *entry() const { return mem_; }
  JitEntry fn() const { return reinterpret_cast<JitEntry>(mem_); }
  size_t size() const { return size_; }
  // The code can neither fault nor take a backward jump nor call a helper
  // (an inlined array lookup is no call): it reads none of the RunCtx's
  // per-run state (budget, fault, the context's region).  Code the
  // verifier proved dead may be there: if it ever ran (an engine bug) it
  // would still return, its Fault::Unreachable left unreported.
  bool plain() const { return plain_; }

private:
  CodeAllocator *alloc_;
  void *mem_;
  size_t size_;
  bool plain_;
};

class Program {
public:
  static Result<std::unique_ptr<Program>> load(std::vector<Insn> code,
                                               const Env &env,
                                               const LoadOptions &opts = {});
  ~Program();
  const std::vector<Insn> &insns() const { return insns_; }
  const std::vector<InsnInfo> &info() const { return info_; }
  const Env &env() const { return *env_; }
  const std::string &name() const { return name_; }
  bool jitted() const { return jit_ != nullptr; }
  // Function entries (instruction indices), the first being 0.
  const std::vector<u32> &functions() const { return funcs_; }
  // Native code size (0 when interpreted).
  size_t code_size() const;
  // The native code (nullptr when interpreted), for listings.
  const void *native_code() const;
  // The native entry of a plain program (JitCode::plain), which may be
  // called directly with a Runner's RunCtx (Runner::ctx) and a non-null
  // context, without Runner::run's per-run resets; nullptr otherwise.
  JitEntry plain_entry() const { return plain_fn_; }
  bool plain() const { return plain_fn_ != nullptr; }

private:
  Program() = default;
  friend class Runner;
  friend class Verifier;
  std::vector<Insn> insns_;
  std::vector<InsnInfo> info_;
  std::vector<u32> funcs_;
  const Env *env_ = nullptr;
  std::string name_;
  std::vector<const Helper *> helper_at_; // per call instruction
  std::unique_ptr<JitCode> jit_;
  JitEntry jit_fn_ = nullptr;
  JitEntry plain_fn_ = nullptr; // jit_fn_ when the code is plain
  friend Result<void> verify_program(Program &, const Env &,
                                     const std::string &);
  friend u64 interpret(const Program &, RunCtx &, const u64 *);
  friend Result<std::unique_ptr<JitCode>> jit_compile(const Program &,
                                                      CodeAllocator *);
};

// A Runner's memory: its RunCtx, the regions, then the stack.  The stack's
// top is at this fixed offset from the RunCtx for every Runner of `env`, so
// compiled code can address the stack through the RunCtx.
u64 runner_stack_top(const Env &env);

// One per CPU: the run state and the stack.  Not thread-safe; a CPU runs
// one program at a time.
class Runner {
public:
  Runner(const Env &env, u32 cpu, void *user = nullptr);
  ~Runner();
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  // Runs `prog` with r1 = ctx (env.ctx_size bytes) and r2.. = args.
  // Inline: a probe hit that runs compiled code pays a call and no more.
  RunResult run(const Program &prog, void *ctx, u64 a2 = 0, u64 a3 = 0,
                u64 a4 = 0, u64 a5 = 0) {
    if (__builtin_expect(prog.jit_fn_ != nullptr && ctx != nullptr &&
                             &prog.env() == &env_, 1)) {
      if (prog.plain_fn_) // nothing to reset, nothing to look at after
        return RunResult{prog.plain_fn_((u64)(uintptr_t)ctx, a2, a3, a4, a5, rc_)};
      rc_->fault = Fault::None;
      rc_->budget = budget_;
      ctx_region_->base = (u64)(uintptr_t)ctx;
      const u64 r0 = prog.jit_fn_((u64)(uintptr_t)ctx, a2, a3, a4, a5, rc_);
      if (__builtin_expect(rc_->fault == Fault::None, 1))
        return RunResult{r0};
      return finish(r0);
    }
    return run_slow(prog, ctx, a2, a3, a4, a5);
  }
  // The same, always through the interpreter.
  RunResult interpret(const Program &prog, void *ctx, u64 a2 = 0, u64 a3 = 0,
                      u64 a4 = 0, u64 a5 = 0);
  RunCtx &ctx() { return *rc_; }

private:
  void begin(void *ctx);
  RunResult finish(u64 r0);
  RunResult run_slow(const Program &prog, void *ctx, u64 a2, u64 a3, u64 a4,
                     u64 a5);
  const Env &env_;
  RunCtx *rc_ = nullptr;
  Region *ctx_region_ = nullptr;
  u64 budget_ = 0;
  u8 *mem_ = nullptr; // RunCtx + regions, then the stack
};

// The verifier (verifier.cpp): fills the program's InsnInfo.
Result<void> verify_program(Program &prog, const Env &env,
                            const std::string &name);
// The interpreter and the JIT (interp.cpp, jit_x86_64.cpp).
u64 interpret(const Program &prog, RunCtx &rc, const u64 args[5]);
bool jit_available();
Result<std::unique_ptr<JitCode>> jit_compile(const Program &prog,
                                             CodeAllocator *alloc);
u64 jit_run(const JitCode &code, RunCtx &rc, const u64 args[5]);

// Whether [addr, addr + width) is inside a region a program may touch
// (write: a writable one).  The slow path of run-time checks.
bool any_region_allows(RunCtx &rc, u64 addr, unsigned width, bool write);


// ---- disassembly --------------------------------------------------------------

// One instruction in the syntax llvm-objdump prints ("r0 = *(u64 *)(r1 +
// 8)", "if r1 > 5 goto +3", "call 1").  `next` is the second slot of an
// ld_imm64 (ignored otherwise).
std::string disasm(const Insn &insn, const Insn *next = nullptr);
// A listing: "   12: 79 10 08 00 00 00 00 00  r0 = *(u64 *)(r1 + 8)".
std::string disasm_program(const std::vector<Insn> &insns);

} // namespace mk::bpf
