// The kernel's CPUs (worker threads that run callouts) and the kernel
// threads modules start with kthread_add.
#pragma once

#include "../linker/base.h"
#include "../linker/sync.h"

#include <sys/callout.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace mk {

class Kernel;
struct CalloutState;

class Cpus {
public:
  explicit Cpus(Kernel &k) : k_(k) {}
  ~Cpus() { stop(); }
  void start(unsigned n) EXCLUDES(mu_);
  void stop() EXCLUDES(mu_);
  unsigned count() const EXCLUDES(mu_);
  // Each CPU's thread id (gettid; 0 while it starts): what a profile
  // timer interrupts.
  std::vector<std::pair<int, int>> threads() const EXCLUDES(mu_);
  void callout_init(struct callout *c);
  void callout_reset(struct callout *c, unsigned ms, void (*fn)(void *),
                     void *arg) EXCLUDES(mu_);
  int callout_stop(struct callout *c) EXCLUDES(mu_);
  int callout_drain(struct callout *c) EXCLUDES(mu_);
  int callout_pending(struct callout *c) EXCLUDES(mu_);
  // Drain callouts whose function or storage lies in [lo, hi); returns how
  // many were still armed or running.
  int drain_range(u64 lo, u64 hi) EXCLUDES(mu_);

private:
  struct Cpu {
    std::thread thread;
    int tid = 0;
    std::multimap<u64, CalloutState *> queue; // due time (ns) -> callout
  };
  void run(unsigned id) EXCLUDES(mu_);
  CalloutState *state(struct callout *c) REQUIRES(mu_);
  Kernel &k_;
  mutable Mutex mu_; // the queues, every CalloutState, the CPU list
  std::condition_variable_any cv_;   // wakes CPUs: new work or stop
  std::condition_variable_any done_; // wakes drainers: a call finished
  std::vector<std::unique_ptr<Cpu>> cpus_ GUARDED_BY(mu_);
  std::set<CalloutState *> all_ GUARDED_BY(mu_);
  unsigned next_cpu_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
};

// Threads started by modules with kthread_add.
class KThreads {
public:
  struct Thread {
    std::thread thread;
    std::string name;
    u64 fn = 0;
  };
  // Start `fn(arg)` on a new thread of kernel `k`.
  Result<Thread *> start(Kernel &k, void (*fn)(void *), void *arg,
                         const std::string &name) EXCLUDES(mu_);
  // Wait for `t` and forget it.  `t` comes from module code: false, and
  // nothing touched, unless it is one of this kernel's running threads
  // and not the calling one (a second join of a thread, a pointer the
  // module made up).
  bool join(Thread *t) EXCLUDES(mu_);
  // Wait for every thread whose function lies in [lo, hi) (its module is
  // unloading); `report` is told each one's name first.
  void join_range(u64 lo, u64 hi,
                  const std::function<void(const std::string &)> &report)
      EXCLUDES(mu_);
  void join_all() EXCLUDES(mu_);

private:
  Mutex mu_;
  std::vector<std::unique_ptr<Thread>> threads_ GUARDED_BY(mu_);
};

} // namespace mk
