// Kernel panics (see kern_panic.h): the handlers and the report.
//
// The report must not fail whatever broke, so it runs in steps, each
// guarded: a fault inside a step (the report read something the crash had
// broken) or a step that outlives its second (it waits for a lock the
// crashed code held: malloc's, the console's) abandons that step only,
// with a note, and the report goes on with the next.  Naming a C++
// function (demangling) allocates; after two steps that timed out, frames
// are named by image and offset only.  A deadline bounds the whole
// report.  Whatever happens, the process exits with kPanicStatus.
//
// The timers are the reporting thread's own (SIGALRM aimed at it), the
// fault signals are unblocked for the report (a nested fault must reach
// the guard, not kill the process), and the report's lines go out with
// write(2) from a fixed buffer as they are made.
#include "kern_panic.h"

#include "kernel.h"

#include "../sdt/codemap.h"
#include "../sdt/patch.h"
#include "../sdt/registry.h"
#include "../sdt/site.h"
#include "../sdt/unwind.h"
#include "../sdt/x86.h"

#include <atomic>
#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <exception>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>
#include <urcu/urcu-memb.h>

namespace mk {

namespace {

// Process-wide, as signal handlers need: the kernel to report when the
// faulting thread belongs to none, and who is panicking.
std::atomic<Kernel *> g_kernel{nullptr};
std::atomic<int> g_panicking{0}; // the tid reporting, 0: nobody
std::atomic<BugHook> g_bug_hook{nullptr};
std::atomic<FaultHook> g_fault_hook{nullptr};

thread_local char t_name[32] = "";

constexpr size_t kWord = sizeof(uintptr_t);

// The fault signals: each is a panic.  SIGTRAP is the patch engine's, which
// hands on a trap no probe site explains (install_handlers()).
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

// Each thread's alternate signal stack, with an inaccessible page below
// it; unmapped when the thread ends.  Large enough for the whole report
// (formatting, demangling, the C library's unwinder) and a nested fault.
constexpr size_t kAltStackSize = 256 * 1024;
struct AltStack {
  u8 *map = nullptr;
  size_t guard = 0;
  StackRange range() const {
    return map ? StackRange{(uintptr_t)(map + guard),
                            (uintptr_t)(map + guard + kAltStackSize)}
               : StackRange{};
  }
  ~AltStack() {
    if (!map)
      return;
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    munmap(map, guard + kAltStackSize);
  }
};
thread_local AltStack t_altstack;

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

void say(const char *m) {
  if (write(2, m, std::strlen(m)) < 0) {
  }
}

// ---- guarded steps -------------------------------------------------------------

// The reporting thread's current step: where a fault or the step timer
// inside it returns to.  Only the reporting thread touches these.
sigjmp_buf g_step_env;
volatile sig_atomic_t g_in_step = 0;
volatile sig_atomic_t g_step_sig = 0; // what ended the step early
int g_timeouts = 0;                   // steps that ran out of time

constexpr auto kStepTime = 1;       // seconds a step may take
constexpr auto kReportTime = 5;     // seconds the whole report may take
constexpr int kStepTimer = 1, kDeadlineTimer = 2;
int g_step_timer = -1, g_deadline_timer = -1; // kernel timer ids

// A timer that sends SIGALRM to this thread, tagged `tag`; -1 if none.
// (The raw system call: the C library's wrapper may allocate.)
int thread_timer(int tag) {
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGALRM;
  ev.sigev_value.sival_int = tag;
  ev._sigev_un._tid = (int)gettid(); // sigev_notify_thread_id
  int id = -1;
  if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) != 0)
    return -1;
  return id;
}

void set_timer(int id, long seconds) {
  if (id < 0)
    return;
  itimerspec t{};
  t.it_value.tv_sec = seconds;
  syscall(SYS_timer_settime, id, 0, &t, nullptr);
}

[[noreturn]] void give_up(const char *why) {
  say(why);
  say("panic: kernel stopped (exit status 3)\n");
  _exit(kPanicStatus);
}

void on_alarm(int, siginfo_t *si, void *) {
  if (si->si_code == SI_TIMER && si->si_value.sival_int == kStepTimer) {
    if (g_in_step && (int)gettid() == g_panicking.load()) {
      g_step_sig = SIGALRM;
      siglongjmp(g_step_env, 1);
    }
    return; // the step ended as the timer fired
  }
  give_up("panic: report timed out\n");
}

// A fault, abort or panic on the reporting thread itself: the step it is
// in ends here; outside a step, nothing of the report is left to save.
[[noreturn]] void nested(int sig) {
  if (g_in_step) {
    g_step_sig = sig;
    siglongjmp(g_step_env, 1);
  }
  give_up("panic: the panic report itself failed\n");
}

// Run one step of the report.  False if it faulted or timed out: the
// report says so, after whatever the step had printed, and goes on.
// (Not inlined: the step's sigsetjmp stays in a frame of its own, and
// what `f` writes lives in its caller's memory.)
template <class F>
__attribute__((noinline)) bool step(Out &o, const char *what, F &&f) {
  if (sigsetjmp(g_step_env, 1) == 0) {
    g_step_sig = 0;
    g_in_step = 1;
    set_timer(g_step_timer, kStepTime);
    f();
    g_in_step = 0; // first: a timer firing now is ignored
    set_timer(g_step_timer, 0);
    return true;
  }
  g_in_step = 0;
  set_timer(g_step_timer, 0);
  const int sig = g_step_sig;
  if (sig == SIGALRM)
    g_timeouts++;
  if (o.n && o.buf[o.n - 1] != '\n')
    o.add("\n");
  if (sig == SIGALRM)
    o.add("  (%s: timed out)\n", what);
  else
    o.add("  (%s: SIG%s inside the report)\n", what, sigabbrev_np(sig));
  o.flush();
  return false;
}

// Only the first panicking thread reports; any other waits for the exit.
// The reporting thread itself lands in nested().
void enter_panic(int sig) {
  const int me = (int)gettid();
  int expected = 0;
  if (g_panicking.compare_exchange_strong(expected, me))
    return;
  if (expected == me)
    nested(sig);
  for (;;)
    pause();
}

// Whatever stdout still holds goes first, so the report follows what was
// printed before it; not if another thread holds the stream.
void flush_stdout() {
  if (ftrylockfile(stdout) == 0) {
    fflush_unlocked(stdout);
    funlockfile(stdout);
  }
}

// The report's start: its timers, the signals a nested fault needs, and
// stdout flushed.
void begin_report(Out &o) {
  struct sigaction sa {};
  sa.sa_sigaction = on_alarm;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, nullptr);
  g_step_timer = thread_timer(kStepTimer);
  g_deadline_timer = thread_timer(kDeadlineTimer);
  if (g_deadline_timer >= 0)
    set_timer(g_deadline_timer, kReportTime);
  else
    alarm(kReportTime);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGALRM);
  for (int sig : kFatalSignals)
    sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  step(o, "stdout", flush_stdout);
}

} // namespace

// ---- naming --------------------------------------------------------------------

std::string brief_name(std::string_view name) {
  // The Linux API's i386 adapters (kernel/linuxkpi/lkpi_export.h) go by
  // the function each adapts: the one Linux code called.
  constexpr std::string_view kAdapter = "lkabi::Adapter<&";
  if (name.substr(0, kAdapter.size()) == kAdapter) {
    const size_t end = name.find_first_of(",>", kAdapter.size());
    if (end != std::string_view::npos)
      return brief_name(name.substr(kAdapter.size(), end - kAdapter.size()));
  }
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
// of a function that does not return (panic) may end its caller.  Once
// steps have timed out (the heap's lock is likely held), no name is
// looked up: "module+0xoff" from the image's start.
void name_pc(Out &o, const CodeMap *code, u64 pc, bool ret_addr = false) {
  const u64 at = ret_addr ? pc - 1 : pc;
  const CodeImage *img = code ? code->image_at(at) : nullptr;
  if (!img) {
    o.add("0x%llx", (unsigned long long)pc);
    return;
  }
  if (g_timeouts >= 2) {
    o.add("%s+0x%llx", img->name.c_str(), (unsigned long long)(pc - img->lo));
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

// The "called from:" line: where the code that failed was called.
void called_from(Out &o, const CodeMap *code, const ProbeFrame &f) {
  step(o, "called from", [&] {
    o.add("called from: 0x%llx ", (unsigned long long)f.pc);
    name_pc(o, code, f.pc, !f.exact);
    o.add("\n");
    o.flush();
  });
}

const CodeMap *code_of(Kernel *k) {
  return k && k->has_probes() ? &k->probes().code() : nullptr;
}

bool in_code(const CodeMap *code, u64 pc) {
  return code && code->image_at(pc) != nullptr;
}

// ---- leaving foreign code ------------------------------------------------------

// The frames of the C library and libstdc++ (an abort, a throw, a fault
// in memcpy) are not in the code map; the C library's unwinder reads
// theirs.  The first frame of the kernel or a module after one of theirs
// is where our walk takes over: the panic's own frames come before.
struct FirstKnown {
  const CodeMap *code;
  bool left = false; // passed a frame outside the code map
  ProbeFrame frame{};
  bool found = false;
};

_Unwind_Reason_Code first_known_frame(_Unwind_Context *ctx, void *arg) {
  auto &s = *(FirstKnown *)arg;
  int exact = 0;
  const uintptr_t ip = _Unwind_GetIPInfo(ctx, &exact);
  if (!ip)
    return _URC_END_OF_STACK;
  if (!in_code(s.code, exact ? ip : ip - 1)) {
    s.left = true;
    return _URC_NO_REASON;
  }
  if (!s.left)
    return _URC_NO_REASON;
  // The context is this frame as its callee returns to it: its stack
  // pointer is the callee's CFA, its return address just below.
  s.frame.pc = ip;
  s.frame.sp = _Unwind_GetCFA(ctx);
  s.frame.pc_loc = exact ? 0 : s.frame.sp - kWord;
#if defined(__x86_64__)
  s.frame.fp = _Unwind_GetGR(ctx, 6);
#else
  s.frame.fp = _Unwind_GetGR(ctx, 5);
#endif
  s.frame.exact = exact;
  s.found = true;
  return _URC_END_OF_STACK;
}

// The frame of the kernel or module code that called into foreign code
// now on the stack; false if there is none (or the unwinder failed).
bool frame_below_foreign(Out &o, const CodeMap *code, ProbeFrame &out) {
  FirstKnown s{code};
  if (!code)
    return false;
  step(o, "leaving the C library's frames",
       [&] { _Unwind_Backtrace(first_known_frame, &s); });
  if (s.found)
    out = s.frame;
  return s.found;
}

// ---- the report ----------------------------------------------------------------

// The rest of the report, after its first lines: thread, backtrace,
// message buffer; then exit.
[[noreturn]] void finish(Out &o, Kernel *k, const ProbeFrame &from) {
  const CodeMap *code = code_of(k);
  step(o, "thread", [&] {
    o.add("thread: %s (tid %d)\n", t_name[0] ? t_name : "?", (int)gettid());
    o.flush();
  });
  if (code) {
    static u64 pcs[48];
    std::memset(pcs, 0, sizeof pcs);
    volatile size_t n = 0;
    o.add("backtrace:\n");
    o.flush();
    // The walk reads the code map's snapshot as a probe does; keep it
    // alive if this thread may (the report ends the process anyway).
    const bool reader = probe_thread_registered();
    if (reader)
      urcu_memb_read_lock();
    if (!step(o, "backtrace cut short",
              [&] { n = unwind(*code, from, pcs, 48); }))
      while (n < 48 && pcs[n]) // what the walk had found
        n = n + 1;
    for (size_t i = 0; i < n; i++)
      step(o, "frame", [&] {
        o.add("  #%zu 0x%0*llx ", i, (int)(2 * sizeof(void *)),
              (unsigned long long)pcs[i]);
        name_pc(o, code, pcs[i], i > 0 || !from.exact);
        o.add("\n");
        o.flush();
      });
    if (reader)
      urcu_memb_read_unlock();
  }
  if (k) {
    o.add("dmesg (last lines):\n");
    o.flush();
    step(o, "dmesg", [&] {
      char tail[2048];
      const size_t n = k->console().tail(tail, sizeof tail, 10);
      if (!n) {
        o.add("  (unavailable)\n");
        o.flush();
      }
      // Indent each line.
      size_t start = 0;
      for (size_t i = 0; i < n; i++)
        if (tail[i] == '\n' || i + 1 == n) {
          o.add("  %.*s\n", (int)(i - start + (tail[i] != '\n')),
                tail + start);
          o.flush();
          start = i + 1;
        }
    });
  }
  o.add("panic: kernel stopped (exit status %d)\n", kPanicStatus);
  o.flush();
  _exit(kPanicStatus);
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
  case SIGABRT: return "abort";
  case SIGTRAP: return "breakpoint trap";
  }
  return "fault";
}

void on_fault(int sig, siginfo_t *si, void *uctx) {
  if (sig == SIGILL)
    if (BugHook h = g_bug_hook.load(); h && h(uctx) == 1)
      return; // a warning, reported: the code goes on
  if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE)
    if (FaultHook h = g_fault_hook.load(); h && h(sig, uctx))
      return; // an expected fault: the code goes on at its fixup
  enter_panic(sig);
  Out o;
  begin_report(o);
  Kernel *k = curkernel() ? curkernel() : g_kernel.load();
  const CodeMap *code = code_of(k);
  const ProbeFrame f = x86::signal_frame(uctx);
  const greg_t *g = ((ucontext_t *)uctx)->uc_mcontext.gregs;
  const u64 err = (u64)g[REG_ERR];
  step(o, "the fault", [&] {
    o.add("panic: %s (SIG%s)", fault_name(sig, si->si_code),
          sigabbrev_np(sig));
    if (sig == SIGABRT) {
      // glibc's heap checks and assert() print their reason first.
      if (si->si_pid == getpid())
        o.add(": the C library stopped the kernel (its message is above)");
      else
        o.add(" sent by process %d", (int)si->si_pid);
    } else if (sig == SIGTRAP) {
      // The int3 is the byte before where the thread stopped.
      o.add(" at 0x%llx: an int3 no probe site explains",
            (unsigned long long)f.pc - 1);
    } else {
      o.add(" at address 0x%llx", (unsigned long long)(uintptr_t)si->si_addr);
    }
    if (sig == SIGSEGV) {
      // The page-fault error code: bit 1 a write, bit 4 an instruction
      // fetch.
      o.add(": %s, %s", err & 16 ? "fetch" : err & 2 ? "write" : "read",
            si->si_code == SEGV_ACCERR ? "protection violation"
                                       : "page not present");
    }
    o.add("\n");
    o.flush();
  });
  // A guard page or quarantined block under --memguard: say whose.
  if (k && k->memguard() && (sig == SIGSEGV || sig == SIGBUS))
    step(o, "memguard", [&] {
      char why[512];
      if (k->memguard()->explain((u64)(uintptr_t)si->si_addr, why,
                                 sizeof why)) {
        o.add("%s\n", why);
        o.flush();
      }
    });
  // Not in the kernel or a module: a fetch from where no code is (a call
  // through a null or wild pointer) left the call's return address at the
  // stack pointer; other code (the C library, an abort) was called by
  // kernel or module code whose frame its unwinder finds.  The report
  // goes on from that caller.
  const char *where = nullptr;
  ProbeFrame caller;
  bool have_caller = false;
  if (code && !in_code(code, f.pc)) {
    const bool fetch = sig == SIGSEGV && ((uintptr_t)si->si_addr == f.pc ||
                                          (err & 16));
    if (fetch)
      step(o, "the caller", [&] {
        have_caller = caller_of_jump(f, caller) && in_code(code, caller.pc - 1);
      });
    if (have_caller)
      where = "not code: a call through a bad function pointer";
    else
      have_caller = frame_below_foreign(o, code, caller);
    if (!where)
      where = "outside the kernel and its modules";
  }
  if (sig != SIGABRT || !have_caller) // an abort's pc is the C library's
    step(o, "pc", [&] {
      o.add("pc: 0x%llx ", (unsigned long long)f.pc);
      if (where)
        o.add("(%s)", where);
      else
        name_pc(o, code, f.pc);
      o.add("\n");
      o.flush();
    });
  if (have_caller) {
    called_from(o, code, caller);
    finish(o, k, caller);
  }
  finish(o, k, f);
}

// An exception nothing caught, or a noexcept function that threw.
[[noreturn]] void on_terminate() {
  enter_panic(SIGABRT);
  Out o;
  begin_report(o);
  Kernel *k = curkernel() ? curkernel() : g_kernel.load();
  const CodeMap *code = code_of(k);
  step(o, "the exception", [&] {
    const std::type_info *t = abi::__cxa_current_exception_type();
    if (!t) {
      o.add("panic: std::terminate called without an exception\n");
      o.flush();
      return;
    }
    const char *what = nullptr;
    try {
      throw; // the exception being handled: what it says
    } catch (const std::exception &e) {
      what = e.what();
    } catch (...) {
    }
    int status = -1;
    char *type = abi::__cxa_demangle(t->name(), nullptr, nullptr, &status);
    o.add("panic: uncaught C++ exception %s%s%s\n",
          status == 0 && type ? type : t->name(), what ? ": " : "",
          what ? what : "");
    o.flush();
    std::free(type);
  });
  ProbeFrame caller;
  if (frame_below_foreign(o, code, caller)) {
    called_from(o, code, caller);
    finish(o, k, caller);
  }
  finish(o, k, current_frame());
}

} // namespace

std::string code_name(u64 pc) {
  Kernel *k = curkernel();
  return k && k->has_probes() ? k->probes().code().symbolize(pc)
                              : strf("0x%llx", (unsigned long long)pc);
}

void set_bug_hook(BugHook h) { g_bug_hook.store(h); }
void set_fault_hook(FaultHook h) { g_fault_hook.store(h); }

namespace {

void install_handlers() {
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : kFatalSignals)
    sigaction(sig, &sa, nullptr);
  // A breakpoint no probe site explains (an int3 in module code) is a
  // panic too: the patch engine, whose SIGTRAP handler sees every int3,
  // hands it here.
  set_unexplained_trap_hook(on_fault);
  std::set_terminate(on_terminate);
}

} // namespace

void panic_init(Kernel &k) {
  g_kernel.store(&k);
  // Each boot, not once: whatever took the signals since (a test
  // framework's handlers) gives them back.
  install_handlers();
}

void panic_forget(Kernel &k) {
  Kernel *expected = &k;
  g_kernel.compare_exchange_strong(expected, nullptr);
}

void panic_thread_init(const char *name) {
  std::snprintf(t_name, sizeof t_name, "%s", name);
  if (!t_altstack.map) {
    const size_t guard = (size_t)sysconf(_SC_PAGESIZE);
    void *m = mmap(nullptr, guard + kAltStackSize, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m != MAP_FAILED) {
      // An overflow of the report's stack faults rather than writing
      // over whatever lies below.
      mprotect(m, guard, PROT_NONE);
      stack_t ss{};
      ss.ss_sp = (u8 *)m + guard;
      ss.ss_size = kAltStackSize;
      if (sigaltstack(&ss, nullptr) == 0) {
        t_altstack.map = (u8 *)m;
        t_altstack.guard = guard;
      } else {
        munmap(m, guard + kAltStackSize);
      }
    }
  }
  unwind_set_thread_stacks(current_thread_stack(), t_altstack.range());
}

const char *panic_thread_name() { return t_name; }

namespace {

[[noreturn]] void report_panic(const ProbeFrame &from, const ProbeFrame &f,
                               const char *fmt, va_list ap) {
  enter_panic(SIGABRT);
  Out o;
  begin_report(o);
  Kernel *k = curkernel() ? curkernel() : g_kernel.load();
  step(o, "the message", [&] {
    o.add("panic: ");
    va_list aq;
    va_copy(aq, ap);
    int w = std::vsnprintf(o.buf + o.n, sizeof o.buf - o.n - 1, fmt, aq);
    va_end(aq);
    if (w > 0)
      o.n = std::min(sizeof o.buf - 2, o.n + (size_t)w);
    o.add("\n");
    o.flush();
  });
  called_from(o, code_of(k), from);
  finish(o, k, f);
}

} // namespace

void vpanic_at(u64 caller, const char *fmt, va_list ap) {
  report_panic(ProbeFrame{(uintptr_t)caller, 0, 0, 0, false}, current_frame(),
               fmt, ap);
}

void panic_from(const ProbeFrame &from, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report_panic(from, from, fmt, ap);
}

void panic(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vpanic_at((u64)(uintptr_t)__builtin_return_address(0), fmt, ap);
}

} // namespace mk
