// Live text patching (see patch.h) and the SIGTRAP handler.
#include "patch.h"

#include "../linker/code.h"
#include "registry.h"

#include <algorithm>
#include <capstone/capstone.h>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <link.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace mk {

// ---- moving instructions (alternatives) -------------------------------------

namespace x86 {

Result<void> move_code(const u8 *src, size_t n, u64 from, u64 to, u8 *out) {
  std::memcpy(out, src, n);
  if (n == 0 || from == to)
    return {};
  csh cs;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
    return error("the disassembler could not start");
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn *in = cs_malloc(cs);
  const u8 *code = src;
  size_t left = n;
  u64 at = from;
  Result<void> r;
  const i64 delta = (i64)(from - to);
  // A field holding a displacement to `target` (outside the bytes) now
  // holds it from `to`'s side.
  auto fix = [&](size_t field, u8 size, u64 target) -> Result<void> {
    if (target >= from && target < from + n)
      return {}; // inside the moved bytes: moves with them
    i64 disp = 0;
    std::memcpy(&disp, out + field, size);
    if (size == 1)
      disp = (i8)disp;
    else if (size == 4)
      disp = (i32)disp;
    const i64 moved = disp + delta;
    const i64 lim = size == 1 ? 0x7f : 0x7fffffff;
    if (moved > lim || moved < -lim - 1)
      return error(strf("the displacement to 0x%llx no longer fits in %u "
                        "byte%s",
                        (unsigned long long)target, size,
                        size == 1 ? "" : "s"));
    std::memcpy(out + field, &moved, size);
    return {};
  };
  while (r && left) {
    const u64 start = at;
    if (!cs_disasm_iter(cs, &code, &left, &at, in)) {
      r = error(strf("no instruction decodes at +0x%llx",
                     (unsigned long long)(start - from)));
      break;
    }
    const size_t off = start - from;
    const cs_x86 &x = in->detail->x86;
    for (u8 i = 0; i < x.op_count && r; i++) {
      const cs_x86_op &op = x.operands[i];
      if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP &&
          x.encoding.disp_size)
        r = fix(off + x.encoding.disp_offset, x.encoding.disp_size,
                start + in->size + (i64)op.mem.disp);
    }
    // Relative branches: their immediate is the target.
    bool rel = false;
    for (u8 g = 0; g < in->detail->groups_count; g++)
      rel |= in->detail->groups[g] == CS_GRP_BRANCH_RELATIVE;
    if (r && rel && x.op_count == 1 && x.operands[0].type == X86_OP_IMM &&
        x.encoding.imm_size)
      r = fix(off + x.encoding.imm_offset, x.encoding.imm_size,
              (u64)x.operands[0].imm);
  }
  cs_free(in, 1);
  cs_close(&cs);
  return r;
}

} // namespace x86

void TextAliases::add(u64 lo, u64 hi, WritableView *view) {
  ranges_.push_back({lo, hi, view});
}

u8 *TextAliases::alias(u64 addr) const {
  for (const Range &r : ranges_)
    if (addr >= r.lo && addr < r.hi)
      return r.view->at() + (addr - r.lo);
  return nullptr;
}

bool TextAliases::contains(u64 addr) const {
  for (const Range &r : ranges_)
    if (addr >= r.lo && addr < r.hi)
      return true;
  return false;
}

std::vector<WritableView::Scope> TextAliases::open_all() const {
  std::vector<WritableView::Scope> v;
  v.reserve(ranges_.size());
  for (const Range &r : ranges_)
    v.emplace_back(r.view);
  return v;
}

// What the SIGTRAP handler consults: every site of the batch in flight and
// every breakpoint-mode site of one engine, sorted by address.  Published
// whole through an atomic pointer; a retired table is freed once no
// handler reads it.
struct TrapEntry {
  u64 addr;
  x86::TrapAction action;
  const ProbeSlot *slot; // for Emul::Fire
};
struct TrapTable {
  std::vector<TrapEntry> entries;
};

namespace {

// What exists once per process rather than once per kernel: the kernel
// image's text (one executable, so one writable alias of it) and the
// SIGTRAP handler with the trap tables of every live patch engine (several
// kernels may run in one process).  This one object is minikern's only
// process-wide state; the signal handler reaches it through process().
struct ProcessState {
  static constexpr int kEngines = 64;
  std::atomic<TrapTable *> tables[kEngines] = {};
  std::atomic<int> readers{0}; // SIGTRAP handlers reading a table
  struct sigaction old_sigtrap {};
  std::atomic<UnexplainedTrap> unexplained{nullptr};
  Mutex mu; // engine registration, the one-time set-up below
  bool engine_used[kEngines] GUARDED_BY(mu) = {};
  bool handler_installed GUARDED_BY(mu) = false;
  u64 text_lo GUARDED_BY(mu) = 0, text_hi GUARDED_BY(mu) = 0;
  std::unique_ptr<WritableView> text_view GUARDED_BY(mu);
};

ProcessState &process() {
  static ProcessState state;
  return state;
}

const TrapEntry *find_trap(const TrapTable *t, u64 addr) {
  auto it = std::lower_bound(
      t->entries.begin(), t->entries.end(), addr,
      [](const TrapEntry &e, u64 a) { return e.addr < a; });
  return it != t->entries.end() && it->addr == addr ? &*it : nullptr;
}

// The entry for `pc` in any engine's table.
const TrapEntry *find_any(u64 pc) {
  ProcessState &ps = process();
  for (auto &t : ps.tables)
    if (const TrapTable *tt = t.load(std::memory_order_seq_cst))
      if (const TrapEntry *e = find_trap(tt, pc))
        return e;
  return nullptr;
}

void on_sigtrap(int sig, siginfo_t *info, void *uctx) {
  ProcessState &ps = process();
  ps.readers.fetch_add(1, std::memory_order_acq_rel);
  const u64 pc = x86::trap_pc(uctx);
  // The table first, then the byte: a batch publishes its table before it
  // writes its int3s, so an int3 seen after a miss means a batch began in
  // between, and one more look at the table finds its entry.
  const TrapEntry *e = nullptr;
  bool gone = false;
  for (int look = 0; look < 2 && !e && !gone; look++) {
    e = find_any(pc);
    if (!e)
      gone = *(volatile const u8 *)(uintptr_t)pc != 0xcc;
  }
  if (e) {
    if (e->action.emul == x86::Emul::Fire) {
      uintptr_t a[6];
      x86::trap_args(uctx, a, e->action.args, e->action.target);
      const ProbeFrame f = x86::trap_frame(uctx);
      ProbeRegistry::fire(e->slot, a, &f);
      x86::TrapAction then = e->action;
      then.emul = e->action.then;
      x86::emulate(uctx, pc, then);
    } else {
      x86::emulate(uctx, pc, e->action);
    }
  }
  ps.readers.fetch_sub(1, std::memory_order_acq_rel);
  if (e)
    return;
  // The int3 is already gone: the thread trapped on a transient int3 but
  // the batch finished (and retired its table) before this handler ran.
  // Then execute the site again, as it now is.
  if (gone) {
    x86::restart_at(uctx, pc);
    return;
  }
  // Not one of ours: say where (write(2) only: this is a signal handler),
  // then behave as if we were not here.
  {
    char msg[96] = "sdt: breakpoint trap at 0x";
    size_t n = std::strlen(msg);
    for (int sh = (int)sizeof(void *) * 8 - 4; sh >= 0; sh -= 4)
      msg[n++] = "0123456789abcdef"[(pc >> sh) & 15];
    const char *tail = " that no probe site explains\n";
    std::memcpy(msg + n, tail, std::strlen(tail));
    n += std::strlen(tail);
    if (write(2, msg, n) < 0) {
    }
  }
  if (UnexplainedTrap h = ps.unexplained.load(std::memory_order_acquire)) {
    h(sig, info, uctx);
    return;
  }
  const struct sigaction &old = ps.old_sigtrap;
  if (old.sa_flags & SA_SIGINFO) {
    if (old.sa_sigaction) {
      old.sa_sigaction(sig, info, uctx);
      return;
    }
  } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
    return;
  }
  signal(SIGTRAP, SIG_DFL);
  raise(SIGTRAP);
}

// Publish `t` in the process state's `slot`; the table it replaced, no
// longer read by any handler.
TrapTable *publish(int slot, TrapTable *t) {
  ProcessState &ps = process();
  TrapTable *old = ps.tables[slot].exchange(t, std::memory_order_acq_rel);
  // A handler that loaded `old` has incremented the reader count first.
  while (ps.readers.load(std::memory_order_acquire) != 0)
    std::this_thread::yield();
  return old;
}

struct PhdrSearch {
  u64 lo = 0, hi = 0;
};

int find_text(struct dl_phdr_info *info, size_t, void *data) {
  auto *s = (PhdrSearch *)data;
  // The first object is the executable itself.
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const auto &ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      s->lo = info->dlpi_addr + ph.p_vaddr;
      s->hi = s->lo + ph.p_memsz;
      break;
    }
  }
  return 1;
}

} // namespace

void set_unexplained_trap_hook(UnexplainedTrap h) {
  process().unexplained.store(h, std::memory_order_release);
}

PatchEngine::~PatchEngine() {
  if (table_slot_ < 0)
    return;
  delete publish(table_slot_, nullptr);
  delete spare_;
  ProcessState &ps = process();
  MutexLock g(ps.mu);
  ps.engine_used[table_slot_] = false;
}

Result<void> PatchEngine::init(u64 arena_lo, u64 arena_hi,
                               WritableView *arena_view) {
  if (syscall(SYS_membarrier,
              MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) != 0 ||
      syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
              0) != 0)
    return error(strf("sdt: membarrier(SYNC_CORE) is not available: %s",
                      std::strerror(errno)));
  text_.add(arena_lo, arena_hi, arena_view);

  ProcessState &ps = process();
  MutexLock g(ps.mu);
  for (int i = 0; i < ProcessState::kEngines && table_slot_ < 0; i++)
    if (!ps.engine_used[i]) {
      ps.engine_used[i] = true;
      table_slot_ = i;
    }
  if (table_slot_ < 0)
    return error(strf("sdt: more than %d kernels in one process",
                      ProcessState::kEngines));

  // One handler per process, however many kernels boot in it.
  if (!ps.handler_installed) {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigtrap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, &ps.old_sigtrap) != 0)
      return error(strf("sdt: sigaction(SIGTRAP): %s", std::strerror(errno)));
    ps.handler_installed = true;
  }

  // The kernel image's text: copy it into a memfd and map that over it, so
  // its pages get a writable alias like the module arena's.  The mapping is
  // replaced in one system call with identical contents, so the code doing
  // it (which lives there) runs on unaffected; no other thread exists yet.
  // Once per process: a second kernel in the same process shares the alias.
  if (ps.text_view) {
    text_.add(ps.text_lo, ps.text_hi, ps.text_view.get());
    return {};
  }
  PhdrSearch s;
  dl_iterate_phdr(find_text, &s);
  const u64 pgs = (u64)sysconf(_SC_PAGESIZE);
  u64 lo = s.lo / pgs * pgs, hi = align_up(s.hi, pgs);
  if (!lo)
    return error("sdt: cannot find the kernel's text segment");
  int fd = memfd_create("minikern-text", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)(hi - lo)) != 0)
    return error(strf("sdt: memfd for the kernel text: %s",
                      std::strerror(errno)));
  // Copied through a temporary mapping; afterwards the text's writable
  // view exists only while a batch writes.
  u8 *copy = (u8 *)mmap(nullptr, hi - lo, PROT_READ | PROT_WRITE, MAP_SHARED,
                        fd, 0);
  if (copy == MAP_FAILED) {
    close(fd);
    return error(strf("sdt: mmap of the text alias: %s", std::strerror(errno)));
  }
  code::copy(copy, (void *)(uintptr_t)lo, hi - lo);
  munmap(copy, hi - lo);
  void *m = mmap((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_EXEC,
                 MAP_SHARED | MAP_FIXED, fd, 0);
  if (m == MAP_FAILED) {
    close(fd);
    return error(strf("sdt: remapping the kernel text: %s",
                      std::strerror(errno)));
  }
  auto view = WritableView::create(fd, hi - lo);
  if (!view)
    return error("sdt: the kernel text's writable view: " +
                 view.error().message);
  ps.text_view = std::move(*view);
  text_.add(lo, hi, ps.text_view.get());
  ps.text_lo = lo, ps.text_hi = hi;
  return {};
}

bool PatchEngine::read(u64 addr, u8 *out, size_t n) const {
  // The executing view: code pages are readable, and the writable view
  // may be unmapped.
  if (!text_.contains(addr))
    return false;
  std::memcpy(out, (const void *)(uintptr_t)addr, n);
  return true;
}

void PatchEngine::serialise() {
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
  serialisations_++;
}

void PatchEngine::apply(const std::vector<PatchOp> &ops) {
  MutexLock g(mu_);
  const auto views = text_.open_all();
  for (const PatchOp &op : ops) {
    if (op.fire)
      breakpoints_[op.addr] =
          Breakpoint{op.len, op.fire, op.then, op.args, op.func, op.pop};
    else
      breakpoints_.erase(op.addr);
  }
  // Only the sites whose bytes change take part (each with its writable
  // alias, looked up once).
  std::vector<const PatchOp *> &live = live_;
  std::vector<u8 *> &at = at_;
  live.clear(), at.clear();
  for (const PatchOp &op : ops) {
    u8 *w = text_.alias(op.addr);
    if (w && !same_bytes(w, op.bytes, op.len))
      live.push_back(&op), at.push_back(w);
  }
  if (live.empty()) {
    publish_table(make_table({}));
    return;
  }
  publish_table(make_table(live));
  const size_t n = live.size();
  for (size_t i = 0; i < n; i++)
    code::byte(at[i], 0xcc);
  serialise();
  for (size_t i = 0; i < n; i++)
    code::copy(at[i] + 1, live[i]->bytes + 1, live[i]->len - 1);
  serialise();
  for (size_t i = 0; i < n; i++)
    code::byte(at[i], live[i]->bytes[0]);
  serialise();
  publish_table(make_table({}));
}

void PatchEngine::publish_table(TrapTable *t) {
  TrapTable *old = publish(table_slot_, t);
  delete spare_;
  spare_ = old;
}

TrapTable *PatchEngine::make_table(const std::vector<const PatchOp *> &live) {
  TrapTable *t = spare_ ? spare_ : new TrapTable;
  spare_ = nullptr;
  t->entries.clear();
  t->entries.reserve(breakpoints_.size() + live.size());
  for (const auto &[addr, b] : breakpoints_)
    t->entries.push_back(
        {addr,
         x86::TrapAction{x86::Emul::Fire, b.then, b.len, b.func, b.args, b.pop},
         b.fire});
  for (const PatchOp *op : live)
    if (op->bytes[0] != 0xcc) // breakpoint sites are already in
      t->entries.push_back(
          {op->addr, x86::decode_final(op->bytes, op->len, op->addr), nullptr});
  // Batches come mostly in address order (a module's sites, its probes'
  // ids): often there is nothing to sort, or a few ascending runs to
  // merge (every fbt probe: one run per module, in its load order).
  auto by_addr = [](const TrapEntry &a, const TrapEntry &b) {
    return a.addr < b.addr;
  };
  std::vector<TrapEntry> &e = t->entries;
  std::vector<size_t> &runs = runs_;
  runs.clear();
  runs.push_back(0);
  for (size_t i = 1; i < e.size(); i++)
    if (by_addr(e[i], e[i - 1]))
      runs.push_back(i);
  if (runs.size() > 64) {
    std::sort(e.begin(), e.end(), by_addr);
    return t;
  }
  runs.push_back(e.size());
  // Bottom-up: merge neighbouring runs until one is left.
  while (runs.size() > 2) {
    size_t out = 1;
    for (size_t r = 0; r + 2 < runs.size(); r += 2) {
      std::inplace_merge(e.begin() + runs[r], e.begin() + runs[r + 1],
                         e.begin() + runs[r + 2], by_addr);
      runs[out++] = runs[r + 2];
    }
    if ((runs.size() - 1) % 2) // an odd run out
      runs[out++] = runs.back();
    runs.resize(out);
  }
  assert(std::is_sorted(e.begin(), e.end(), by_addr));
  return t;
}

} // namespace mk
