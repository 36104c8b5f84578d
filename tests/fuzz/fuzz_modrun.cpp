// Fuzz target: a mutated module loaded, its probes enabled, its stack
// walked, its code run, and a panic forced inside it.  What it tests is
// that nothing a module brought (its unwind data, its code, the stack its
// code leaves) can crash the kernel's stack walks or its panic path.
//
// Each input runs twice:
//
// - In this process, in a kernel booted once (1 CPU thread, module code
//   not called, as the kldload target): the input is loaded; if that
//   worked, a handler is attached to every probe of the module (fbt
//   entries and returns, its SDT sites: its code is patched), and the
//   stack walker (sdt/unwind.h, what stack() and a panic use) walks from
//   every function of the module over a stack made of the input's bytes
//   and of addresses inside the module; each frame is named as stack()
//   names it.  Then the handlers go and the module unloads, and the kernel
//   must be as it was (the kldload target's checks).
//
// - If it loaded, in a child process with a kernel of its own that runs
//   module code (forked by a fork server started before this process's
//   kernel, so the child has no other threads' RCU state): kldload
//   (MOD_LOAD runs), each of its shell commands as its usage line spells
//   it, under `dtrace -q -n '...{ stack(); }'` on the module's every
//   probe; then a handler that calls panic() at the Nth entry of one of
//   its functions (N from the input), and its commands and
//   kldunload again.  The child must end by exiting: 0, or 3 after a whole
//   panic report.  Death by a signal, a report cut short, another status,
//   or a sanitizer's report (written to a file of its own, not the
//   console, where module code prints what it likes) is a finding,
//   unless the report has module code on its stack: then the
//   kernel did what a module's bad pointer asked (a real kernel would
//   corrupt itself or fault; the sanitizer stops first), counted but not a
//   finding (module_asked() says which reports those are).  A child
//   still running after kChildSeconds (module code that spins) is killed
//   and counted.
//
// MK_FUZZ_VERBOSE=1 keeps the kernels' console and the child's stderr.
#include "fuzz_kernel.h"

#include "../../kernel/export.h"
#include "../../kernel/kern_panic.h"
#include "../../linker/object.h"
#include "../../sdt/unwind.h"

#include <capstone/capstone.h>
#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <set>
#include <signal.h>
#include <sstream>
#include <string>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include <vector>

using namespace mk;

// Where the sanitizers write their reports (sanitizer_common's interface;
// absent in a build without them).
extern "C" void __sanitizer_set_report_path(const char *path)
    __attribute__((weak));

namespace {

// How long a child may run (module code that spins is killed, not a
// finding).
constexpr int kChildSeconds = 5;

void count_probe(void *data, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                 uintptr_t, uintptr_t) {
  __atomic_fetch_add((unsigned long *)data, 1, __ATOMIC_RELAXED);
}

struct Fuzz {
  std::string dir, path, err_path, san_path;
  std::unique_ptr<Kernel> k;
  // The fork server's pipes: a byte asks it to run fuzz.ko in a child; it
  // answers with a Reply.
  int req = -1, resp = -1;
  bool verbose = std::getenv("MK_FUZZ_VERBOSE") != nullptr;
  // What the children came to, printed at the end of a run.
  unsigned long runs = 0, exits = 0, panics = 0, sanitizer_stops = 0,
                timeouts = 0;

  Fuzz() {
    dir = fuzz_module_dir("run");
    path = dir + "/fuzz.ko";
    err_path = dir + "/stderr";
    san_path = dir + "/sanitizer"; // a report goes to sanitizer.PID
    fuzz_console_to_null();
    start_server();
    k = fuzz_loader_kernel(dir);
    // The walks below run on this thread, over stacks made in its stack:
    // the unwinder reads within its bounds, as on the kernel's threads
    // (unknown, it would read up to 64 MiB above the stack pointer).
    unwind_set_thread_stacks(current_thread_stack(), {});
    // fbt's stubs likewise come from a chunk that stays, made on its first
    // enabling: enable libcounter's probes once now (the kernel's own
    // functions have none in the fuzzer's build).
    if (std::getenv("MK_FUZZ_LIBCOUNTER")) {
      auto lib = k->linker().load(dir + "/libcounter.ko");
      FUZZ_CHECK(lib, "libcounter.ko: %s", lib.error().message.c_str());
      unsigned long fired = 0;
      HandlerSpec h;
      h.fn = count_probe;
      h.data = &fired;
      h.key = "fbt:libcounter::";
      FUZZ_CHECK(k->probes().attach(ProbeDesc::parse(h.key), false, h) &&
                     k->probes().detach(count_probe, &fired, h.key),
                 "no fbt probes in libcounter.ko");
      FUZZ_CHECK(k->linker().unload(*lib), "libcounter.ko did not unload");
    }
  }
  void start_server();
};

Fuzz *g_fuzz;

Fuzz &fuzz() {
  if (!g_fuzz) {
    g_fuzz = new Fuzz; // lives as long as the process
    std::atexit([] {
      std::fprintf(stderr,
                   "modrun: %lu children: %lu exited, %lu panicked, %lu "
                   "stopped by a sanitizer at a module's bad pointer, %lu "
                   "killed after %d s\n",
                   g_fuzz->runs, g_fuzz->exits, g_fuzz->panics,
                   g_fuzz->sanitizer_stops, g_fuzz->timeouts, kChildSeconds);
      fuzz_remove_module_dir(g_fuzz->dir);
    });
  }
  return *g_fuzz;
}


// Walks from every function of the module at [lo, hi) over a stack of the
// input's words mixed with addresses inside the module, on this thread's
// own stack (where a walk may read), naming each frame.
void walk_module(CodeMap &code, u64 lo, u64 hi, const uint8_t *data,
                 size_t size) {
  constexpr size_t kWords = 96;
  uintptr_t stack[kWords];
  std::vector<CodeImage::Func> funcs;
  // A byte at a time through what no function covers, but not through
  // megabytes of an input's .bss: at most 16 384 lookups (a run took 8 s
  // on one such module and timed out under load).
  size_t lookups = 0;
  for (u64 pc = lo; pc < hi && funcs.size() < 64 && lookups++ < 16384;) {
    auto f = code.function_at(pc);
    if (!f) {
      pc++;
      continue;
    }
    funcs.push_back(*f);
    pc = f->addr + (f->size ? f->size : 1);
  }
  if (funcs.empty())
    return;
  size_t at = 0; // the next input byte to use
  auto next = [&]() -> uintptr_t {
    uintptr_t w = 0;
    for (size_t b = 0; b < sizeof w; b++)
      w |= (uintptr_t)data[(at++) % size] << (8 * b);
    return w;
  };
  u64 pcs[48];
  const bool reader = probe_thread_registered();
  for (size_t i = 0; i < funcs.size(); i++) {
    const CodeImage::Func &f = funcs[i];
    // Words: the input's, every third one an address inside the module
    // (a return address into its code, or into the middle of one).
    for (size_t w = 0; w < kWords; w++) {
      const uintptr_t v = next();
      stack[w] = w % 3 == 1 ? (uintptr_t)(lo + v % (hi - lo)) : v;
    }
    __asm__ volatile("" : : "r"(stack) : "memory");
    ProbeFrame pf;
    pf.pc = f.addr + (f.size ? next() % f.size : 0);
    pf.sp = (uintptr_t)&stack[next() % 8];
    pf.fp = (uintptr_t)&stack[next() % kWords];
    pf.pc_loc = 0;
    pf.exact = i % 2 == 0;
    if (reader)
      urcu_memb_read_lock();
    const size_t n = unwind(code, pf, pcs, 48);
    if (reader)
      urcu_memb_read_unlock();
    FUZZ_CHECK(n <= 48, "%zu frames", n);
    for (size_t j = 0; j < n; j++)
      (void)code.symbolize(pcs[j]);
  }
}

// ---- the child: the module's code runs ------------------------------------

// A panic from module context, at the module's Nth function entry (N
// from the input), so that the report's backtrace walks module frames
// (an entry probe's frame is the caller's).
void panic_probe(void *left, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                 uintptr_t, uintptr_t) {
  if ((*(int *)left)-- == 0)
    panic("fuzz: panic forced in a module function's entry probe");
}

// The lines that run a module's shell command as its usage line says
// ("memdev write TEXT | read | stat"): each alternative, a placeholder in
// capitals given "1"; at most 8, none with a character the shell or a
// quoted -c would take apart.
std::vector<std::string> invocations(const Shell::Command &c) {
  std::vector<std::string> out;
  std::stringstream alts(c.usage);
  std::string alt;
  while (out.size() < 8 && std::getline(alts, alt, '|')) {
    std::stringstream ws(alt);
    std::string w, line;
    bool first = true;
    while (ws >> w) {
      if (first && w != c.name)
        line = c.name;
      first = false;
      if (w[0] == '[' || w[0] == '<')
        break; // optional arguments: left out
      const bool placeholder =
          std::none_of(w.begin(), w.end(), ::islower) &&
          std::any_of(w.begin(), w.end(), ::isupper);
      line += (line.empty() ? "" : " ") + (placeholder ? std::string("1") : w);
    }
    if (line.empty())
      line = c.name;
    if (line.find_first_of("'\";\\`$") == std::string::npos)
      out.push_back(line);
  }
  if (out.empty())
    out.push_back(c.name);
  return out;
}

// Runs in a child of the fork server: a kernel of its own runs the
// module's code.
[[noreturn]] void child(Fuzz &f, int panic_at) {
  int err = open(f.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (err >= 0)
    dup2(err, 2);
  if (__sanitizer_set_report_path)
    __sanitizer_set_report_path(f.san_path.c_str());
  Options o;
  o.cpus = 1;
  o.quiet = true;
  o.arena_mib = 64;
  o.module_path = {f.dir};
  Kernel *k = new Kernel(o); // never torn down: the child exits
  if (!k->boot())
    _exit(0);
  auto r = k->linker().load(f.path);
  if (!r)
    _exit(0); // its MOD_LOAD refused it
  const std::string name = (*r)->module_name();
  std::string cmds;
  for (const Shell::Command *c : k->shell().list())
    if (c->owner == *r)
      for (const std::string &line : invocations(*c))
        cmds += (cmds.empty() ? "" : "; ") + line;
  if (cmds.empty())
    cmds = "sysctl " + name;
  k->shell().run_line("dtrace -q -n 'fbt:" + name + "::,:" + name +
                      ":: { stack(); }' -c '" + cmds + "'");
  HandlerSpec h;
  h.fn = panic_probe;
  h.data = &panic_at;
  h.key = "fbt:" + name + "::entry";
  (void)k->probes().attach(ProbeDesc::parse(h.key), false, h);
  k->shell().run_line(cmds);
  k->shell().run_line("kldunload " + name);
  _exit(0);
}

// Whether the report's stack shows a kernel function directly under the
// gate that called module code (mk_module_call) which module code may
// not call: neither an export nor the fbt entry and return code its
// patched sites lead to.  Module code got there by a wild jump or a
// return through a stack it moved (`mov %al, %spl` in an epilogue returns
// to whatever stale address lies below), not by a call; the sanitizer's
// unwinder, reading that function's call-frame information, goes from it
// straight to the gate.
bool entered_by_module(Kernel &k, const std::string &err) {
  static const std::set<u64> entries = [] {
    std::set<u64> out;
    const kernel_export *const *e;
    SET_FOREACH(e, kernel_export_set)
      out.insert((u64)(uintptr_t)(*e)->ke_addr);
    const linux_export *const *l;
    SET_FOREACH(l, linux_export_set)
      if (!((*l)->le_flags & LE_PERCPU))
        out.insert((u64)(uintptr_t)(*l)->le_addr);
    return out;
  }();
  // The frames: "    #N 0xPC in FUNCTION FILE:LINE", inlined ones
  // sharing their function's PC.
  std::vector<std::pair<u64, std::string>> frames;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos || line[at] != '#')
      continue;
    at = line.find(" 0x", at);
    if (at == std::string::npos)
      continue;
    frames.emplace_back(std::strtoull(line.c_str() + at + 3, nullptr, 16), line);
  }
  for (size_t g = 1; g < frames.size(); g++) {
    const std::string &text = frames[g].second;
    if (text.find(" in mk_module_call") == std::string::npos &&
        text.find(" mk::module_call<") == std::string::npos)
      continue;
    size_t j = g;
    while (j > 0 && frames[j - 1].first == frames[g].first)
      j--;
    if (j == 0)
      return false;
    const u64 pc = frames[j - 1].first;
    const auto f = k.probes().code().function_at(pc);
    if (!f || entries.count(f->addr))
      return false;
    const std::string name = k.probes().code().function_name(pc);
    return name.rfind("mk_fbt_", 0) != 0;
  }
  return false;
}

// Whether a sanitizer's report is about what a module did or asked of
// the kernel: module code on its stack (a frame in the arena, which the
// sanitizer names by its mapping, "/memfd:minikern-arena", or not at
// all); a stack access inside a live variable that the shadow calls a
// redzone (stale shadow: module code left kernel frames without their
// epilogues, as a corrupted return does, or wrote into the shadow); or a
// null or misaligned pointer used by the function of the module API it
// was passed to (kernel/libkern*.cpp, kernel/linuxkpi/: the stack often
// ends there, module code keeping no frame pointer).  Likewise a heap
// overflow at an address inside a live allocation: the shadow says
// redzone where the allocator says in use, and only code the sanitizer
// does not instrument writes the shadow (module code, or the runtime
// itself run with the direction flag a module's `std` left set).  And a
// report in a kernel function that module code entered other than by a
// call (entered_by_module()).
bool module_asked(Kernel &k, const std::string &err) {
  const bool asan = err.find("ERROR: AddressSanitizer") != std::string::npos;
  const size_t ub = err.find("runtime error:");
  if (!asan && ub == std::string::npos)
    return false;
  if (err.find("(/memfd:minikern-arena") != std::string::npos ||
      err.find("(<unknown module>)") != std::string::npos ||
      err.find("is inside this variable") != std::string::npos ||
      entered_by_module(k, err))
    return true;
  if (err.find("AddressSanitizer: heap-buffer-overflow") != std::string::npos &&
      err.find(" bytes inside of ") != std::string::npos)
    return true;
  if (ub == std::string::npos)
    return false;
  const std::string what = err.substr(ub, err.find('\n', ub) - ub);
  const bool bad_pointer = what.find("null pointer") != std::string::npos ||
                           what.find("misaligned address") != std::string::npos;
  // The report's "file:line:col:" before it.
  const size_t nl = err.rfind('\n', ub);
  const size_t at = nl == std::string::npos ? 0 : nl + 1;
  const std::string where = err.substr(at, ub - at);
  return bad_pointer && (where.find("/kernel/libkern") != std::string::npos ||
                         where.find("/kernel/linuxkpi/") != std::string::npos);
}

// Whether the input's code sets the direction flag (`std`).  The C ABI
// has it clear at every call; module code that calls the kernel with it
// set makes the C library's and the sanitizer runtime's string
// operations run backwards over memory no kernel code writes (the
// sanitizer's shadow among it), as a kernel trusts its modules with the
// ABI.  Such a mutant's code is not run in a child (a dtrace_probes
// mutant did that, tests/fuzz/regress/modrun/direction-flag-left-set).
bool sets_direction_flag(const uint8_t *data, size_t size) {
  auto obj = parse_object(std::vector<u8>(data, data + size), "fuzz.ko",
                          "fuzz.ko", RelocTypes::Any);
  if (!obj)
    return false;
  csh cs;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
    return false;
  bool found = false;
  cs_insn *insn = cs_malloc(cs);
  for (const Section &s : obj->sections) {
    if (!(s.flags & SHF_EXECINSTR) || !s.data)
      continue;
    const uint8_t *code = s.data;
    size_t left = s.size;
    uint64_t at = 0;
    while (left && !found) {
      if (!cs_disasm_iter(cs, &code, &left, &at, insn)) {
        code++, left--, at++; // not an instruction: the next byte
        continue;
      }
      found = insn->id == X86_INS_STD;
    }
  }
  cs_free(insn, 1);
  cs_close(&cs);
  return found;
}

// child() on a thread whose stack is page-aligned memory of its own: its
// stack pointer then has the same low bits in every run.  Module code
// that moves its stack pointer by those bits (`mov %al, %spl` in an
// epilogue) returns through whatever stale word lies there; with the
// bits left to where the address space's layout put the process's stack,
// one input went one of 16 ways from run to run, and an input found once
// could not be replayed.
[[noreturn]] void child_on_own_stack(Fuzz &f, int panic_at) {
  constexpr size_t kStack = 8u << 20;
  void *stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  pthread_attr_t attr;
  pthread_t t;
  struct Args {
    Fuzz *f;
    int panic_at;
  } args{&f, panic_at};
  if (stack == MAP_FAILED || pthread_attr_init(&attr) ||
      pthread_attr_setstack(&attr, stack, kStack) ||
      pthread_create(&t, &attr, [](void *a) -> void * {
        auto *p = static_cast<Args *>(a);
        child(*p->f, p->panic_at);
      }, &args))
    child(f, panic_at); // as it is, rather than not at all
  pthread_join(t, nullptr);
  _exit(0);
}

// read() or write() of all `n` bytes, again after a signal (libFuzzer's
// timer interrupts a wait).
bool io(bool reading, int fd, void *buf, size_t n) {
  ssize_t got;
  do
    got = reading ? read(fd, buf, n) : write(fd, buf, n);
  while (got < 0 && errno == EINTR);
  return got == (ssize_t)n;
}

// What a child came to.
struct Reply {
  int status = 0;
  bool killed = false; // still running after kChildSeconds
  pid_t pid = 0;
};

// The fork server: started before this process boots its kernel, so that
// it has one thread and no RCU reader (a child forked from a process whose
// other threads are registered readers could wait for them for ever).
// Each request runs fuzz.ko in a child of its own.
[[noreturn]] void serve(Fuzz &f, int req, int resp) {
  u8 panic_at;
  while (io(true, req, &panic_at, 1)) {
    Reply r;
    const pid_t pid = fork();
    r.pid = pid;
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); // no orphan if the server goes
      child_on_own_stack(f, panic_at);
    }
    bool done = pid < 0;
    for (int ms = 0; !done && ms < kChildSeconds * 1000; ms += 2) {
      if (waitpid(pid, &r.status, WNOHANG) == pid) {
        done = true;
        break;
      }
      timespec ts{0, 2000000};
      nanosleep(&ts, nullptr);
    }
    if (!done) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
      }
      r.killed = true;
    }
    if (!io(false, resp, &r, sizeof r))
      break;
  }
  _exit(0);
}

void Fuzz::start_server() {
  int to[2], from[2];
  if (pipe(to) != 0 || pipe(from) != 0)
    std::abort();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0)
    std::abort();
  if (pid == 0) {
    // An interrupted run leaves no server behind.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
      _exit(0);
    close(to[1]);
    close(from[0]);
    serve(*this, to[0], from[1]);
  }
  close(to[0]);
  close(from[1]);
  req = to[1];
  resp = from[0];
}

void run_child(Fuzz &f, u8 panic_at) {
  Reply r;
  if (!io(false, f.req, &panic_at, 1) || !io(true, f.resp, &r, sizeof r))
    FUZZ_CHECK(false, "the fork server is gone: %s", std::strerror(errno));
  f.runs++;
  if (r.killed) {
    f.timeouts++;
    return;
  }
  const int status = r.status;
  auto slurp = [](const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string err = slurp(f.err_path);
  const std::string san_file = f.san_path + "." + std::to_string(r.pid);
  std::string san = slurp(san_file);
  unlink(san_file.c_str());
  // gcc's UBSan runtime is a library of its own, which the report path
  // does not reach: its report stays on the console, from a line that
  // starts "FILE:LINE:COL: runtime error:" (a module's output would have
  // to forge that whole form).
  if (san.empty())
    for (size_t at = 0; at < err.size();) {
      const size_t nl = err.find('\n', at);
      const std::string line =
          err.substr(at, nl == std::string::npos ? nl : nl - at);
      const size_t re = line.find(": runtime error: ");
      size_t colons = 0;
      for (size_t i = 0; i < re && re != std::string::npos; i++)
        colons += line[i] == ':';
      if (re != std::string::npos && line[0] == '/' && colons >= 2) {
        san = err.substr(at);
        break;
      }
      if (nl == std::string::npos)
        break;
      at = nl + 1;
    }
  if (f.verbose)
    std::fprintf(stderr, "%s%s", err.c_str(), san.c_str());
  auto tail = [&] {
    const std::string all = err + san;
    return all.size() > 3000 ? all.substr(all.size() - 3000) : all;
  };
  if (module_asked(*f.k, san)) {
    f.sanitizer_stops++;
    return;
  }
  // A report, not a warning ("unexpected format specifier in printf
  // interceptor", of a module's format).
  FUZZ_CHECK(san.find("ERROR:") == std::string::npos &&
                 san.find("runtime error:") == std::string::npos,
             "a sanitizer's report in the child:\n%s", tail().c_str());
  FUZZ_CHECK(WIFEXITED(status), "the child died by signal %d:\n%s",
             WTERMSIG(status), tail().c_str());
  const int code = WEXITSTATUS(status);
  FUZZ_CHECK(code == 0 || code == kPanicStatus,
             "the child exited with status %d:\n%s", code, tail().c_str());
  if (code == kPanicStatus) {
    FUZZ_CHECK(err.find("panic: kernel stopped (exit status 3)") !=
                   std::string::npos,
               "a panic report without its end:\n%s", tail().c_str());
    f.panics++;
  } else {
    f.exits++;
  }
}

} // namespace

// Sanitizer reports with their stacks, for module_asked(), walked with
// the call-frame information rather than frame pointers: the kernel
// function a module called names its caller's address even if the
// module's code keeps no frame pointer.
extern "C" const char *__ubsan_default_options() {
  return "print_stacktrace=1:fast_unwind_on_fatal=0";
}
extern "C" const char *__asan_default_options() {
  return "fast_unwind_on_fatal=0";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Fuzz &f = fuzz();
  const KernelState before = KernelState::of(*f.k);
  LinkerFile *file = fuzz_load(*f.k, f.path, data, size);
  if (!file)
    return 0;
  const std::string name = file->module_name();
  unsigned long fired = 0;
  HandlerSpec h;
  h.fn = count_probe;
  h.data = &fired;
  h.key = ":" + name + "::";
  const bool attached =
      (bool)f.k->probes().attach(ProbeDesc::parse(h.key), false, h);
  if (size && file->size)
    walk_module(f.k->probes().code(), file->address,
                file->address + file->size, data, size);
  if (attached)
    FUZZ_CHECK(f.k->probes().detach(count_probe, &fired, h.key),
               "the handler on %s did not detach", h.key.c_str());
  fuzz_unload_since(*f.k, before);
  f.k->probes().synchronize();
  before.check_same(KernelState::of(*f.k));
  if (!sets_direction_flag(data, size))
    run_child(f, data[size / 2] % 16);
  return 0;
}
