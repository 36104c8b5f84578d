// Kernel panics (see kern_panic.h): the fault handlers and the report.
//
// The report is written with write(2) from a fixed buffer.  Naming a C++
// function (demangling) allocates, and the heap may be what broke; so an
// alarm bounds the whole report, and if it hangs the process still exits
// with the panic status.
#include "kern_panic.h"

#include "kernel.h"

#include "../sdt/codemap.h"
#include "../sdt/registry.h"
#include "../sdt/site.h"
#include "../sdt/unwind.h"
#include "../sdt/x86.h"

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

namespace mk {

namespace {

// Process-wide, as signal handlers need: the kernel to report when the
// faulting thread belongs to none, and who is panicking.
std::atomic<Kernel *> g_kernel{nullptr};
std::atomic<int> g_panicking{0}; // the tid reporting, 0: nobody
std::atomic<bool> g_installed{false};

thread_local char t_name[32] = "";

// Each thread's alternate signal stack; freed when the thread ends.
struct AltStack {
  void *mem = nullptr;
  ~AltStack() {
    if (!mem)
      return;
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    std::free(mem);
  }
};
thread_local AltStack t_altstack;
constexpr size_t kAltStackSize = 64 * 1024;

// A line buffer written out with write(2).
struct Out {
  char buf[1024];
  size_t n = 0;
  void add(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
    va_list ap;
    va_start(ap, fmt);
    int w = std::vsnprintf(buf + n, sizeof buf - n, fmt, ap);
    va_end(ap);
    if (w > 0)
      n = std::min(sizeof buf - 1, n + (size_t)w);
  }
  void flush() {
    const char *p = buf;
    while (n > 0) {
      ssize_t w = write(2, p, n);
      if (w <= 0)
        break;
      p += w;
      n -= (size_t)w;
    }
    n = 0;
  }
};

} // namespace

std::string brief_name(std::string_view name) {
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); i++) {
    // "operator<" and "operator<<" are names, not argument lists.
    if (name.compare(i, 8, "operator") == 0 && depth == 0) {
      size_t j = i + 8;
      while (j < name.size() && std::strchr("<>=", name[j]))
        j++;
      out.append(name.substr(i, j - i));
      i = j - 1;
      continue;
    }
    if (name[i] == '<' && depth++ == 0)
      out += "<...>";
    else if (name[i] == '>' && depth > 0)
      depth--;
    else if (depth == 0)
      out += name[i];
  }
  return out;
}

namespace {

std::string short_name(std::string_view sym) {
  return brief_name(pretty_function(sym));
}

// "module`function+0xoff" for `pc` (the forms of CodeMap::symbolize,
// without its lock).  A return address is looked up one byte back: a call
// of a function that does not return (panic) may end its caller.
void name_pc(Out &o, const CodeMap *code, u64 pc, bool ret_addr = false) {
  const u64 at = ret_addr ? pc - 1 : pc;
  const CodeImage *img = code ? code->image_at(at) : nullptr;
  if (!img) {
    o.add("0x%llx", (unsigned long long)pc);
    return;
  }
  const CodeImage::Func *f = img->function_at(at);
  if (!f) {
    o.add("%s`0x%llx", img->name.c_str(), (unsigned long long)pc);
    return;
  }
  const std::string fn = short_name(img->name_of(*f));
  if (pc == f->addr)
    o.add("%s`%s", img->name.c_str(), fn.c_str());
  else
    o.add("%s`%s+0x%llx", img->name.c_str(), fn.c_str(),
          (unsigned long long)(pc - f->addr));
}

const CodeMap *code_of(Kernel *k) {
  return k && k->has_probes() ? &k->probes().code() : nullptr;
}

// The rest of the report, after its first line: backtrace, thread,
// message buffer; then exit.
[[noreturn]] void finish(Out &o, Kernel *k, const ProbeFrame &from) {
  const CodeMap *code = code_of(k);
  o.add("thread: %s (tid %d)\n", t_name[0] ? t_name : "?", (int)gettid());
  o.flush();
  if (code) {
    // The walk reads the code map's snapshot as a probe does; keep it
    // alive if this thread may (the report ends the process anyway).
    const bool reader = probe_thread_registered();
    if (reader)
      urcu_memb_read_lock();
    u64 pcs[48];
    const size_t n = unwind(*code, from, pcs, 48);
    o.add("backtrace:\n");
    o.flush();
    for (size_t i = 0; i < n; i++) {
      o.add("  #%zu 0x%0*llx ", i, (int)(2 * sizeof(void *)),
            (unsigned long long)pcs[i]);
      name_pc(o, code, pcs[i], i > 0 || !from.exact);
      o.add("\n");
      o.flush();
    }
    if (reader)
      urcu_memb_read_unlock();
  }
  if (k) {
    char tail[2048];
    const size_t n = k->console().tail(tail, sizeof tail, 10);
    o.add("dmesg (last lines):\n");
    o.flush();
    if (n) {
      // Indent each line.
      size_t start = 0;
      for (size_t i = 0; i < n; i++)
        if (tail[i] == '\n' || i + 1 == n) {
          o.add("  %.*s\n", (int)(i - start + (tail[i] != '\n')),
                tail + start);
          o.flush();
          start = i + 1;
        }
    } else {
      o.add("  (unavailable)\n");
    }
  }
  o.add("panic: kernel stopped (exit status %d)\n", kPanicStatus);
  o.flush();
  _exit(kPanicStatus);
}

// Only the first panicking thread reports; a second fault on the same
// thread (the report itself broke) exits at once; any other thread waits
// for the exit.
void enter_panic() {
  const int me = (int)gettid();
  int expected = 0;
  if (g_panicking.compare_exchange_strong(expected, me))
    return;
  if (expected == me)
    _exit(kPanicStatus);
  for (;;)
    pause();
}

void on_alarm(int) {
  static const char m[] = "panic: report timed out\n";
  if (write(2, m, sizeof m - 1) < 0) {
  }
  _exit(kPanicStatus);
}

// Whatever stdout still holds goes first, so the report follows what was
// printed before it; not if another thread holds the stream.
void flush_stdout() {
  if (ftrylockfile(stdout) == 0) {
    fflush_unlocked(stdout);
    funlockfile(stdout);
  }
}

void arm_alarm() {
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, nullptr);
  alarm(5);
}

const char *fault_name(int sig, int code) {
  switch (sig) {
  case SIGSEGV: return "page fault";
  case SIGBUS: return "bus error";
  case SIGILL:
    return code == ILL_PRVOPC ? "privileged instruction"
                              : "illegal instruction";
  case SIGFPE:
    switch (code) {
    case FPE_INTDIV: return "integer divide fault";
    case FPE_INTOVF: return "integer overflow";
    default: return "floating-point fault";
    }
  }
  return "fault";
}

void on_fault(int sig, siginfo_t *si, void *uctx) {
  enter_panic();
  arm_alarm();
  flush_stdout();
  Kernel *k = curkernel() ? curkernel() : g_kernel.load();
  const ProbeFrame f = x86::signal_frame(uctx);
  const greg_t *g = ((ucontext_t *)uctx)->uc_mcontext.gregs;
  Out o;
  o.add("panic: %s (SIG%s) at address 0x%llx", fault_name(sig, si->si_code),
        sigabbrev_np(sig), (unsigned long long)(uintptr_t)si->si_addr);
  if (sig == SIGSEGV) {
    // The page-fault error code: bit 1 a write, bit 4 an instruction fetch.
    const u64 err = (u64)g[REG_ERR];
    o.add(": %s, %s", err & 16 ? "fetch" : err & 2 ? "write" : "read",
          si->si_code == SEGV_ACCERR ? "protection violation"
                                     : "page not present");
  }
  o.add("\n");
  o.flush();
  // A guard page or quarantined block under --memguard: say whose.
  if (k && k->memguard() && (sig == SIGSEGV || sig == SIGBUS)) {
    char why[512];
    if (k->memguard()->explain((u64)(uintptr_t)si->si_addr, why, sizeof why)) {
      o.add("%s\n", why);
      o.flush();
    }
  }
  o.add("pc: 0x%llx ", (unsigned long long)f.pc);
  name_pc(o, code_of(k), f.pc);
  o.add("\n");
  finish(o, k, f);
}

void install_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE})
    sigaction(sig, &sa, nullptr);
}

} // namespace

void panic_init(Kernel &k) {
  g_kernel.store(&k);
  if (!g_installed.exchange(true))
    install_handlers();
}

void panic_forget(Kernel &k) {
  Kernel *expected = &k;
  g_kernel.compare_exchange_strong(expected, nullptr);
}

void panic_thread_init(const char *name) {
  std::snprintf(t_name, sizeof t_name, "%s", name);
  if (t_altstack.mem)
    return;
  t_altstack.mem = std::malloc(kAltStackSize);
  if (!t_altstack.mem)
    return;
  stack_t ss{};
  ss.ss_sp = t_altstack.mem;
  ss.ss_size = kAltStackSize;
  if (sigaltstack(&ss, nullptr) != 0) {
    std::free(t_altstack.mem);
    t_altstack.mem = nullptr;
  }
}

const char *panic_thread_name() { return t_name; }

void vpanic_at(u64 caller, const char *fmt, va_list ap) {
  const ProbeFrame f = current_frame();
  enter_panic();
  arm_alarm();
  flush_stdout();
  Kernel *k = curkernel() ? curkernel() : g_kernel.load();
  Out o;
  o.add("panic: ");
  va_list aq;
  va_copy(aq, ap);
  int w = std::vsnprintf(o.buf + o.n, sizeof o.buf - o.n - 1, fmt, aq);
  va_end(aq);
  if (w > 0)
    o.n = std::min(sizeof o.buf - 2, o.n + (size_t)w);
  o.add("\n");
  o.flush();
  o.add("called from: 0x%llx ", (unsigned long long)caller);
  name_pc(o, code_of(k), caller, true);
  o.add("\n");
  finish(o, k, f);
}

void panic(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vpanic_at((u64)(uintptr_t)__builtin_return_address(0), fmt, ap);
}

} // namespace mk
