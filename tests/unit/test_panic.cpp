// The panic path cannot fail: what the transcripts (panic-*.t) cannot
// reach from the shell, each run in a child process that boots a kernel
// and then stops it: an uncaught C++ exception and an abort() in kernel
// code become panics with the usual report, a fault inside the report
// costs only its own step, and a lock the crashed thread holds costs a
// step its second, not the report.  Every child must exit with status 3.
#include "kernel_support.h"

#include "../../kernel/console.h"
#include "../../kernel/kern_panic.h"

#include <doctest/doctest.h>

#include <cassert>
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <new>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mkt;

namespace {

struct Stopped {
  int status = -1;       // the exit status, -1 if it did not exit
  std::string err;       // what it wrote on stderr
};

// Run `body` in a child that has booted a kernel (its stdout to
// /dev/null, or to `out_fd` if given); its stderr and how it ended.
template <class F> Stopped stop_in_child(F body, int out_fd = -1) {
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  std::fflush(stdout);
  std::fflush(stderr);
  // Made here: the child ends in a panic, so only the parent's destructor
  // runs to remove it.
  ModuleDir dir;
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(pipefd[0]);
    dup2(pipefd[1], 2);
    const int out = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);
    dup2(out, 1);
    {
      mk::Kernel k(kernel_options(dir.path()));
      if (k.boot())
        body(k);
    }
    _exit(99); // the body was to stop the kernel
  }
  close(pipefd[1]);
  Stopped s;
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
    s.err.append(buf, (size_t)n);
  close(pipefd[0]);
  int st = 0;
  REQUIRE(waitpid(pid, &st, 0) == pid);
  if (WIFEXITED(st))
    s.status = WEXITSTATUS(st);
  return s;
}

bool has(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}

} // namespace

// Kernel functions that stop it; extern, so the report names them
// plainly.
__attribute__((noinline)) void mkt_throws_bad_alloc() {
  throw std::bad_alloc();
}
__attribute__((noinline)) void mkt_calls_abort() {
  std::abort();
  __asm__ volatile("");
}
__attribute__((noinline)) void mkt_fails_assert(int x) {
  assert(x == 42);
  __asm__ volatile("");
}

TEST_CASE("panic: an uncaught exception is a panic, reported where it was "
          "thrown") {
  // On a thread of its own: on this one, the test framework would catch
  // it.
  Stopped s = stop_in_child([](mk::Kernel &) {
    std::thread([] { mkt_throws_bad_alloc(); }).join();
  });
  CHECK(s.status == mk::kPanicStatus);
  INFO(s.err);
  CHECK(has(s.err, "panic: uncaught C++ exception std::bad_alloc: "
                   "std::bad_alloc\n"));
  CHECK(has(s.err, " kernel`mkt_throws_bad_alloc+0x"));
  CHECK(has(s.err, "backtrace:\n  #0 "));
  CHECK(has(s.err, "panic: kernel stopped (exit status 3)\n"));
}

TEST_CASE("panic: abort() and a failed assertion are panics") {
  Stopped s = stop_in_child([](mk::Kernel &) { mkt_calls_abort(); });
  CHECK(s.status == mk::kPanicStatus);
  INFO(s.err);
  CHECK(has(s.err, "panic: abort (SIGABRT): the C library stopped the kernel "
                   "(its message is above)\n"));
  CHECK(has(s.err, "called from: 0x"));
  CHECK(has(s.err, " kernel`mkt_calls_abort+0x"));
  CHECK(has(s.err, "panic: kernel stopped (exit status 3)\n"));
#ifndef NDEBUG
  s = stop_in_child([](mk::Kernel &) { mkt_fails_assert(7); });
  CHECK(s.status == mk::kPanicStatus);
  INFO(s.err);
  CHECK(has(s.err, "Assertion `x == 42' failed.\n"));
  CHECK(has(s.err, " kernel`mkt_fails_assert+0x"));
  CHECK(has(s.err, "panic: kernel stopped (exit status 3)\n"));
#endif
}

TEST_CASE("panic: a fault inside the report ends only its step") {
  // The message's %s is a wild pointer: formatting it faults.
  Stopped s = stop_in_child(
      [](mk::Kernel &) { mk::panic("wild %s", (const char *)16); });
  CHECK(s.status == mk::kPanicStatus);
  INFO(s.err);
  CHECK(has(s.err, "  (the message: SIGSEGV inside the report)\n"));
  CHECK(has(s.err, "called from: 0x"));
  CHECK(has(s.err, "backtrace:\n  #0 "));
  CHECK(has(s.err, "dmesg (last lines):\n"));
  CHECK(has(s.err, "panic: kernel stopped (exit status 3)\n"));
}

TEST_CASE("panic: a lock the crashed code holds costs a step, not the "
          "report") {
  // Stdout is a pipe nobody reads: a console write fills it and blocks,
  // holding the console's lock, which the report's dmesg step wants.
  int full[2];
  REQUIRE(pipe(full) == 0);
  Stopped s = stop_in_child(
      [](mk::Kernel &k) {
        std::thread([&k] {
          k.console().write(std::string(1 << 20, 'x'));
        }).detach();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        mk::panic("the console is stuck");
      },
      full[1]);
  close(full[0]);
  close(full[1]);
  CHECK(s.status == mk::kPanicStatus);
  INFO(s.err);
  CHECK(has(s.err, "panic: the console is stuck\n"));
  CHECK((has(s.err, "  (dmesg: timed out)\n") ||
         has(s.err, "  (unavailable)\n")));
  CHECK(has(s.err, "panic: kernel stopped (exit status 3)\n"));
  // The stuck step timed out and the report went on to its end, rather
  // than the whole report hitting its deadline (a wall-clock bound here
  // failed on a machine at load average 9).
  CHECK(!has(s.err, "panic: report timed out"));
}
