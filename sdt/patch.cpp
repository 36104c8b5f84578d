// Live text patching (see patch.h) and the SIGTRAP handler.
#include "patch.h"

#include "sdt.h"

#include <algorithm>
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

void TextAliases::add(u64 lo, u64 hi, u8 *alias) {
  ranges_.push_back({lo, hi, alias});
}

u8 *TextAliases::alias(u64 addr) const {
  for (const Range &r : ranges_)
    if (addr >= r.lo && addr < r.hi)
      return r.alias + (addr - r.lo);
  return nullptr;
}

namespace {

// What the SIGTRAP handler consults: every site of the batch in flight and
// every breakpoint-mode site, sorted by address.  Published whole through an
// atomic pointer; a retired table is freed once no handler reads it.
struct TrapEntry {
  u64 addr;
  x86::TrapAction action;
  u32 probe; // for Emul::Fire
};
struct TrapTable {
  std::vector<TrapEntry> entries;
};
std::atomic<TrapTable *> g_trap_table{nullptr};
std::atomic<int> g_trap_readers{0};
struct sigaction g_old_sigtrap;

const TrapEntry *find_trap(const TrapTable *t, u64 addr) {
  auto it = std::lower_bound(
      t->entries.begin(), t->entries.end(), addr,
      [](const TrapEntry &e, u64 a) { return e.addr < a; });
  return it != t->entries.end() && it->addr == addr ? &*it : nullptr;
}

void on_sigtrap(int sig, siginfo_t *info, void *uctx) {
  g_trap_readers.fetch_add(1, std::memory_order_acq_rel);
  const u64 pc = x86::trap_pc(uctx);
  // The table first, then the byte: a batch publishes its table before it
  // writes its int3s, so an int3 seen after a miss means a batch began in
  // between, and one more look at the table finds its entry.
  const TrapEntry *e = nullptr;
  bool gone = false;
  for (int look = 0; look < 2 && !e && !gone; look++) {
    const TrapTable *t = g_trap_table.load(std::memory_order_seq_cst);
    e = t ? find_trap(t, pc) : nullptr;
    if (!e)
      gone = *(volatile const u8 *)(uintptr_t)pc != 0xcc;
  }
  if (e) {
    if (e->action.emul == x86::Emul::Fire) {
      uintptr_t a[6];
      x86::trap_args(uctx, a);
      Sdt::dispatch(e->probe, a[0], a[1], a[2], a[3], a[4], a[5]);
      x86::TrapAction then = e->action;
      then.emul = e->action.then;
      x86::emulate(uctx, pc, then);
    } else {
      x86::emulate(uctx, pc, e->action);
    }
  }
  g_trap_readers.fetch_sub(1, std::memory_order_acq_rel);
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
  if (g_old_sigtrap.sa_flags & SA_SIGINFO) {
    if (g_old_sigtrap.sa_sigaction) {
      g_old_sigtrap.sa_sigaction(sig, info, uctx);
      return;
    }
  } else if (g_old_sigtrap.sa_handler != SIG_DFL &&
             g_old_sigtrap.sa_handler != SIG_IGN) {
    g_old_sigtrap.sa_handler(sig);
    return;
  }
  signal(SIGTRAP, SIG_DFL);
  raise(SIGTRAP);
}

void publish(TrapTable *t) {
  TrapTable *old = g_trap_table.exchange(t, std::memory_order_acq_rel);
  // A handler that loaded `old` has incremented the reader count first.
  while (g_trap_readers.load(std::memory_order_acquire) != 0)
    std::this_thread::yield();
  delete old;
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

PatchEngine::~PatchEngine() = default;

Result<void> PatchEngine::init() {
  membarrier_ok_ =
      syscall(SYS_membarrier,
              MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0 &&
      syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
              0) == 0;
  if (!membarrier_ok_)
    return error(strf("sdt: membarrier(SYNC_CORE) is not available: %s",
                      std::strerror(errno)));

  // One handler per process, however many kernels boot in it.
  static bool installed = false;
  if (!installed) {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigtrap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, &g_old_sigtrap) != 0)
      return error(strf("sdt: sigaction(SIGTRAP): %s", std::strerror(errno)));
    installed = true;
  }

  // The kernel image's text: copy it into a memfd and map that over it, so
  // its pages get a writable alias like the module arena's.  The mapping is
  // replaced in one system call with identical contents, so the code doing
  // it (which lives there) runs on unaffected; no other thread exists yet.
  // Once per process: a second kernel in the same process shares the alias.
  static u64 text_lo = 0, text_hi = 0;
  static u8 *text_alias = nullptr;
  if (text_alias) {
    text_.add(text_lo, text_hi, text_alias);
    return {};
  }
  PhdrSearch s;
  dl_iterate_phdr(find_text, &s);
  const u64 ps = (u64)sysconf(_SC_PAGESIZE);
  u64 lo = s.lo / ps * ps, hi = align_up(s.hi, ps);
  if (!lo)
    return error("sdt: cannot find the kernel's text segment");
  int fd = memfd_create("minikern-text", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)(hi - lo)) != 0)
    return error(strf("sdt: memfd for the kernel text: %s",
                      std::strerror(errno)));
  u8 *alias = (u8 *)mmap(nullptr, hi - lo, PROT_READ | PROT_WRITE, MAP_SHARED,
                         fd, 0);
  if (alias == MAP_FAILED) {
    close(fd);
    return error(strf("sdt: mmap of the text alias: %s", std::strerror(errno)));
  }
  std::memcpy(alias, (void *)(uintptr_t)lo, hi - lo);
  void *m = mmap((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_EXEC,
                 MAP_SHARED | MAP_FIXED, fd, 0);
  close(fd);
  if (m == MAP_FAILED)
    return error(strf("sdt: remapping the kernel text: %s",
                      std::strerror(errno)));
  text_.add(lo, hi, alias);
  text_lo = lo, text_hi = hi, text_alias = alias;
  return {};
}

void PatchEngine::serialise() {
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
  serialisations_++;
}

void PatchEngine::apply(const std::vector<PatchOp> &ops,
                        const std::vector<BreakpointSite> &breakpoints) {
  std::lock_guard<std::mutex> g(mu_);
  breakpoints_ = breakpoints;
  // Only the sites whose bytes change take part.
  std::vector<const PatchOp *> live;
  for (const PatchOp &op : ops) {
    u8 *w = text_.alias(op.addr);
    if (w && std::memcmp(w, op.bytes, op.len) != 0)
      live.push_back(&op);
  }
  auto make_table = [&](bool with_ops) {
    auto *t = new TrapTable;
    for (const BreakpointSite &b : breakpoints_)
      t->entries.push_back(
          {b.addr, x86::TrapAction{x86::Emul::Fire, b.then, b.len, 0},
           b.probe});
    if (with_ops)
      for (const PatchOp *op : live)
        if (op->bytes[0] != 0xcc) // breakpoint sites are already in
          t->entries.push_back(
              {op->addr, x86::decode_final(op->bytes, op->len, op->addr), 0});
    std::sort(t->entries.begin(), t->entries.end(),
              [](const TrapEntry &a, const TrapEntry &b) {
                return a.addr < b.addr;
              });
    return t;
  };
  if (live.empty()) {
    publish(make_table(false));
    return;
  }
  publish(make_table(true));
  for (const PatchOp *op : live)
    text_.alias(op->addr)[0] = 0xcc;
  serialise();
  for (const PatchOp *op : live)
    std::memcpy(text_.alias(op->addr) + 1, op->bytes + 1, op->len - 1);
  serialise();
  for (const PatchOp *op : live)
    text_.alias(op->addr)[0] = op->bytes[0];
  serialise();
  publish(make_table(false));
}

} // namespace mk
