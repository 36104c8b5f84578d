// The profile provider: probes that fire on a timer, DTrace's
//
//   profile:::profile-N   N times a second on every CPU (N Hz, or an
//                         interval: profile-250us), arg0 the PC the CPU
//                         thread was interrupted at when it was running
//                         kernel or module code (else 0), arg1 the PC
//                         otherwise (libc, waiting for work; else 0)
//   profile:::tick-N      the same on one CPU only (the first)
//
// with DTrace's units: ns nsec us usec ms msec s sec m min h hour d day hz
// (none: hz), at most 5000 a second (an interval of at least 200 us, as
// DTrace's profile provider allows).  DTrace's usual set exists from boot
// (profile-97 ... profile-4999, tick-1 ... tick-5000); any other appears
// when a description names it (provide_matching), as in DTrace.
//
// A CPU is a thread here, so interrupting one is a per-thread timer: each
// enabled probe has a POSIX timer per CPU thread (timer_create with
// SIGEV_THREAD_ID) that sends SIGPROF to that thread; the signal handler
// fires the probe with the interrupted context's PC and frame (stack()
// walks the interrupted code).  The handler is async-signal-safe: it fires
// only on threads already registered as probe threads (the CPU threads
// are), takes no lock, and restores errno.
//
// The shell's thread is CPU 0 running a system call: it runs kernel and
// module code only while it runs a command (a module's command, kldload's
// MOD_LOAD, a sysctl handler), and is sampled only then, as the CPU that
// makes a system call is interrupted like any other.  profile-N has a
// timer on it too; the thread takes the signal only inside a
// SamplingScope the shell opens around a command (profile_sampling()).
// At the prompt, and while the D consumer's own code runs there (the
// dtrace command, which drains the buffers the samples fire into), the
// signal is blocked, and one that was pending when it is unblocked is
// dropped: it is from the time the thread was not sampled.
#pragma once

#include "provider.h"

#include <functional>
#include <optional>

namespace mk {

// A CPU: its number and its thread's id (gettid).  A CPU thread runs
// kernel code whenever it runs; the shell's thread (a system call on CPU
// 0, curcpu()'s answer there) only inside a SamplingScope.  tick-N fires
// on the first CPU thread only.
struct CpuThread {
  enum Kind { Cpu, Shell };
  int cpu = 0;
  int tid = 0;
  Kind kind = Cpu;
};
using CpuThreads = std::function<std::vector<CpuThread>()>;

class ProfileProvider final : public Provider {
public:
  // `cpus` lists the CPU threads when a probe is enabled.
  explicit ProfileProvider(CpuThreads cpus) : cpus_(std::move(cpus)) {}
  const char *name() const override { return "profile"; }
  Result<void> provide(ProbeRegistry &r) override;
  void provide_matching(ProbeRegistry &r, const ProbeDesc &d) override;
  Result<void> enable(const ProbeBatch &b, PatchMode mode) override;
  void disable(const ProbeBatch &b) override;
  std::vector<std::string> argtypes(const Probe &p) const override;
  void destroy(Probe &p) override;

private:
  CpuThreads cpus_;
  ProbeRegistry *reg_ = nullptr;
};

// What a profile probe's name asks for.
struct ProfileRate {
  bool tick = false;   // tick-N: one CPU; profile-N: every CPU
  u64 interval_ns = 0; // between firings
};
// "profile-997", "tick-1s", "profile-250us" ...; nullopt if the name is
// not one, or asks for more than 5000 firings a second.
std::optional<ProfileRate> parse_profile_name(const std::string &name);

// Whether the calling thread takes profile samples: On, the timers'
// signal reaches it and fires its probes; Off, the signal is blocked (a
// thread waiting for input is not interrupted) and nothing fires.  Threads
// start On, but a thread inherits its creator's blocked signals: a CPU
// thread says On when it starts.  On registers the thread as a probe
// thread (an RCU reader) first: the signal handler cannot.  Returns the
// state it replaces.  Not for probe context or a signal handler.
enum class Sampling { On, Off };
Sampling profile_sampling(Sampling s);

// Sampling `s` for a scope (the shell: On around a command), then the
// state before.
class SamplingScope {
public:
  explicit SamplingScope(Sampling s) : was_(profile_sampling(s)) {}
  ~SamplingScope() { profile_sampling(was_); }
  SamplingScope(const SamplingScope &) = delete;
  SamplingScope &operator=(const SamplingScope &) = delete;

private:
  Sampling was_;
};

} // namespace mk
