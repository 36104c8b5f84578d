// Loading and running: Program::load() verifies and compiles, a Runner
// (one per CPU) holds the run state, the region table and the stack.
#include "bpf.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace mk::bpf {

namespace {

// Pages are mapped read+write while the JIT writes them, then sealed
// read+exec: never both at once.
//
// They are placed near the engine's own code when the address space there
// is free (a hint, never MAP_FIXED): an indirect call whose target lies
// gigabytes away from the caller, as mmap's default placement puts it from
// a non-PIE executable's text, cost 0.6-0.7 ns more per call on the
// development machine (a bare `ret` through a function pointer: 2.0 ns at
// 0x7f..., 1.4 ns at 0x10000000, the caller at 0x400000).  Where the hint
// is taken the kernel places the pages elsewhere: slower, as correct.
class PageAllocator final : public CodeAllocator {
public:
  void *allocate(size_t size) override {
    const size_t n = round(size);
    void *hint = nullptr;
    if (sizeof(void *) == 8) {
      // A window of 256 MiB, reused from its start once passed (released
      // programs leave holes there).
      const uintptr_t at = next_.fetch_add(n) % kWindow;
      hint = reinterpret_cast<void *>(first_hint() + at);
    }
    void *p = mmap(hint, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  void *seal(void *mem, size_t size) override {
    if (mprotect(mem, round(size), PROT_READ | PROT_EXEC) != 0)
      return nullptr;
    return mem;
  }
  void release(void *mem, size_t size) override {
    if (mem)
      munmap(mem, round(size));
  }

private:
  // 256 MiB above the engine's text (clear of a non-PIE program's heap
  // start and of the module arena, which takes the highest gap below 2 GiB).
  static uintptr_t first_hint() {
    const uintptr_t text = reinterpret_cast<uintptr_t>(&default_code_allocator);
    return (text & ~((uintptr_t(1) << 21) - 1)) + (uintptr_t(256) << 20);
  }
  static constexpr uintptr_t kWindow = uintptr_t(256) << 20;
  std::atomic<uintptr_t> next_{0};
  static size_t round(size_t n) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
  }
};

} // namespace

CodeAllocator &default_code_allocator() {
  static PageAllocator a;
  return a;
}

const char *fault_name(Fault f) {
  switch (f) {
  case Fault::None: return "none";
  case Fault::OutOfBounds: return "out-of-bounds access";
  case Fault::LoopBudget: return "loop budget exhausted";
  case Fault::Aborted: return "aborted by a helper";
  case Fault::Unreachable: return "unreachable code ran";
  }
  return "?";
}

std::string RunResult::describe() const {
  if (fault == Fault::OutOfBounds)
    return strf("insn %u: %s at 0x%llx", pc, fault_name(fault),
                (unsigned long long)addr);
  return strf("insn %u: %s", pc, fault_name(fault));
}

Program::~Program() = default;

size_t Program::code_size() const { return jit_ ? jit_->size() : 0; }
const void *Program::native_code() const {
  return jit_ ? jit_->entry() : nullptr;
}

Result<std::unique_ptr<Program>> Program::load(std::vector<Insn> code,
                                               const Env &env,
                                               const LoadOptions &opts) {
  std::unique_ptr<Program> p(new Program);
  p->insns_ = std::move(code);
  p->env_ = &env;
  p->name_ = opts.name;
  if (env.maps.size() > 0xfff0)
    return error(strf("%s: %zu maps, more than the limit of %u",
                      p->name_.c_str(), env.maps.size(), 0xfff0u));
  MK_TRY(verify_program(*p, env, p->name_));
  p->helper_at_.assign(p->insns_.size(), nullptr);
  for (size_t pc = 0; pc < p->insns_.size(); pc++) {
    const Insn &i = p->insns_[pc];
    if (i.code == (kJMP | kCALL) && i.src == 0 && p->info_[pc].reached)
      p->helper_at_[pc] = env.helper((u32)i.imm);
  }
  if (opts.engine == Engine::Interpreter)
    return p;
  if (!jit_available()) {
    if (opts.engine == Engine::Jit)
      return error(strf("%s: there is no JIT for this architecture",
                        p->name_.c_str()));
    return p;
  }
  auto j = jit_compile(*p, opts.allocator ? opts.allocator
                                          : &default_code_allocator());
  if (!j)
    return j.take_error();
  p->jit_ = std::move(*j);
  p->jit_fn_ = p->jit_->fn();
  if (p->jit_->plain())
    p->plain_fn_ = p->jit_fn_;
  return p;
}

u64 runner_stack_top(const Env &env) {
  const u64 nregions = kRegionMap0 + (u64)env.maps.size();
  return align_up(sizeof(RunCtx) + nregions * sizeof(Region), 64) + kStackSize;
}

Runner::Runner(const Env &env, u32 cpu, void *user) : env_(env) {
  const u32 nregions = kRegionMap0 + (u32)env.maps.size();
  const size_t head = runner_stack_top(env) - kStackSize;
  mem_ = static_cast<u8 *>(std::aligned_alloc(64, head + kStackSize));
  if (!mem_)
    throw std::bad_alloc();
  std::memset(mem_, 0, head + kStackSize);
  rc_ = new (mem_) RunCtx;
  rc_->cpu = cpu;
  rc_->user = user;
  rc_->env = &env;
  rc_->nregions = nregions;
  const u64 stack = (u64)(uintptr_t)(mem_ + head);
  rc_->stack_top = stack + kStackSize;
  Region *g = rc_->regions();
  for (u32 n = 0; n < nregions; n++)
    new (&g[n]) Region;
  g[kRegionStack].set(stack, kStackSize);
  ctx_region_ = &g[kRegionCtx];
  ctx_region_->set(0, env.ctx_size); // the base is set per run
  budget_ = env.loop_budget;
  for (size_t m = 0; m < env.maps.size(); m++)
    g[kRegionMap0 + m].set((u64)(uintptr_t)env.maps[m]->slab(),
                           env.maps[m]->slab_size());
}

Runner::~Runner() {
  rc_->~RunCtx();
  std::free(mem_);
}

void Runner::begin(void *ctx) {
  rc_->fault = Fault::None;
  rc_->budget = budget_;
  // Without a context no address may pass as one.
  ctx_region_->set((u64)(uintptr_t)ctx, ctx ? env_.ctx_size : 0);
}

RunResult Runner::finish(u64 r0) {
  RunResult res;
  res.r0 = r0;
  res.fault = rc_->fault;
  if (res.fault != Fault::None) {
    res.r0 = 0;
    res.pc = rc_->fault_pc;
    res.addr = rc_->fault_addr;
  }
  return res;
}

RunResult Runner::run_slow(const Program &prog, void *ctx, u64 a2, u64 a3,
                           u64 a4, u64 a5) {
  if (&prog.env() != &env_)
    std::abort(); // a Runner serves the programs of its own Env only
  begin(ctx);
  const u64 args[5] = {(u64)(uintptr_t)ctx, a2, a3, a4, a5};
  const u64 r0 = prog.jit_ ? jit_run(*prog.jit_, *rc_, args)
                           : bpf::interpret(prog, *rc_, args);
  RunResult res = finish(r0);
  if (!ctx) // leave no zero-based context region behind
    ctx_region_->set(0, env_.ctx_size);
  return res;
}

RunResult Runner::interpret(const Program &prog, void *ctx, u64 a2, u64 a3,
                            u64 a4, u64 a5) {
  if (&prog.env() != &env_)
    std::abort();
  begin(ctx);
  const u64 args[5] = {(u64)(uintptr_t)ctx, a2, a3, a4, a5};
  return finish(bpf::interpret(prog, *rc_, args));
}

} // namespace mk::bpf
