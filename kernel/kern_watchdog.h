// The soft-lockup watchdog: reports a CPU thread or the shell that has been
// stuck in module code for longer than kern.watchdog_thresh seconds (0
// turns it off), with its stack, as Linux's softlockup detector does.
//
// A watched thread marks itself busy while it runs work that should end
// soon (a callout, a shell command) and idle after.  The watchdog thread
// looks every quarter threshold; a thread busy for longer is interrupted
// with a signal whose handler walks its stack (sdt/unwind.h).  If a frame
// of that stack is a module's, the report goes to the console and dmesg,
// once per busy spell; a thread blocked in the kernel or the C library
// (sleep, a lock) is not stuck in module code and is looked at again next
// time.
#pragma once

#include "../linker/base.h"
#include "../linker/sync.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mk {

class Kernel;

class Watchdog {
public:
  struct Watched {
    std::string name;
    int tid = 0;
    std::atomic<u64> busy_since{0}; // now_ns() when busy, 0 when idle
    u64 reported = 0;               // the busy spell already reported
  };

  explicit Watchdog(Kernel &k) : k_(k) {}
  ~Watchdog() { stop(); }
  void start() EXCLUDES(mu_);
  void stop() EXCLUDES(mu_);

  // The calling thread, watched under `name` until unwatch().
  Watched *watch_self(const std::string &name) EXCLUDES(mu_);
  void unwatch(Watched *w) EXCLUDES(mu_);
  static void busy(Watched *w);
  static void idle(Watched *w) {
    if (w)
      w->busy_since.store(0, std::memory_order_relaxed);
  }

  // kern.watchdog_thresh, seconds.
  std::atomic<int> thresh_s{10};
  std::atomic<u64> lockups{0};

private:
  void run() EXCLUDES(mu_);
  void check(Watched &w, u64 now, u64 thresh_ns) REQUIRES(mu_);
  Kernel &k_;
  Mutex mu_;
  std::condition_variable_any cv_;
  std::vector<std::unique_ptr<Watched>> watched_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// A scope of busy work on a watched thread (w may be null).
class WatchdogBusy {
public:
  explicit WatchdogBusy(Watchdog::Watched *w) : w_(w) { Watchdog::busy(w_); }
  ~WatchdogBusy() { Watchdog::idle(w_); }
  WatchdogBusy(const WatchdogBusy &) = delete;
  WatchdogBusy &operator=(const WatchdogBusy &) = delete;

private:
  Watchdog::Watched *w_;
};

} // namespace mk
