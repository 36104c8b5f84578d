// The soft-lockup watchdog (see kern_watchdog.h).
#include "kern_watchdog.h"

#include "kern_panic.h"
#include "kernel.h"

#include "../sdt/codemap.h"
#include "../sdt/registry.h"
#include "../sdt/unwind.h"
#include "../sdt/x86.h"

#include <cerrno>
#include <csignal>
#include <sys/syscall.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

namespace mk {

namespace {

// One stack sample at a time, process-wide (a signal handler reaches
// nothing else): the thread asked, the code map to walk with, the result.
struct SampleRequest {
  Mutex mu; // one sampler at a time
  std::atomic<int> tid{0};
  std::atomic<const CodeMap *> code{nullptr};
  u64 pcs[32];
  std::atomic<size_t> n{0};
  std::atomic<bool> done{false};
};
SampleRequest &request() {
  static SampleRequest r;
  return r;
}

int sample_signal() { return SIGRTMIN + 5; }

void on_sample(int, siginfo_t *, void *uctx) {
  const int saved = errno;
  SampleRequest &r = request();
  const CodeMap *code = r.code.load(std::memory_order_acquire);
  if (r.tid.load(std::memory_order_acquire) == (int)gettid() && code &&
      !r.done.load(std::memory_order_acquire)) {
    const bool reader = probe_thread_registered();
    if (reader)
      urcu_memb_read_lock();
    const ProbeFrame f = x86::signal_frame(uctx);
    r.n.store(unwind(*code, f, r.pcs, 32), std::memory_order_relaxed);
    if (reader)
      urcu_memb_read_unlock();
    r.done.store(true, std::memory_order_release);
  }
  errno = saved;
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sample_signal(), &sa, nullptr);
  });
}

// The stack of thread `tid`, or empty if it did not answer within a
// second (it exited, or has the signal blocked).
std::vector<u64> sample(int tid, const CodeMap &code) {
  SampleRequest &r = request();
  MutexLock g(r.mu);
  r.done.store(false);
  r.n.store(0);
  r.code.store(&code, std::memory_order_release);
  r.tid.store(tid, std::memory_order_release);
  std::vector<u64> v;
  if (syscall(SYS_tgkill, getpid(), tid, sample_signal()) == 0)
    for (int i = 0; i < 1000 && !r.done.load(std::memory_order_acquire); i++)
      usleep(1000);
  if (r.done.load(std::memory_order_acquire))
    v.assign(r.pcs, r.pcs + r.n.load(std::memory_order_relaxed));
  r.tid.store(0, std::memory_order_release);
  r.code.store(nullptr, std::memory_order_release);
  return v;
}

} // namespace

void Watchdog::busy(Watched *w) {
  if (w)
    w->busy_since.store(now_ns(), std::memory_order_relaxed);
}

void Watchdog::start() {
  install_handler();
  MutexLock g(mu_);
  stopping_ = false;
  thread_ = start_running([this] { run(); });
}

void Watchdog::stop() {
  {
    MutexLock g(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

Watchdog::Watched *Watchdog::watch_self(const std::string &name) {
  auto w = std::make_unique<Watched>();
  w->name = name;
  w->tid = (int)gettid();
  MutexLock g(mu_);
  watched_.push_back(std::move(w));
  return watched_.back().get();
}

void Watchdog::unwatch(Watched *w) {
  MutexLock g(mu_);
  for (auto it = watched_.begin(); it != watched_.end(); ++it)
    if (it->get() == w) {
      watched_.erase(it);
      return;
    }
}

void Watchdog::run() {
  set_curkernel(&k_);
  probe_thread_register();
  MutexLock g(mu_);
  while (!stopping_) {
    const int t = thresh_s.load(std::memory_order_relaxed);
    // A quarter of the threshold between looks (a second when off).
    const u64 period_ms = t > 0 ? std::max<u64>(50, (u64)t * 250) : 1000;
    cv_.wait_for(mu_, std::chrono::milliseconds(period_ms));
    if (stopping_ || t <= 0 || !k_.has_probes())
      continue;
    const u64 now = now_ns();
    for (auto &w : watched_)
      check(*w, now, (u64)t * 1000000000ull);
  }
}

void Watchdog::check(Watched &w, u64 now, u64 thresh_ns) {
  const u64 since = w.busy_since.load(std::memory_order_relaxed);
  if (!since || since == w.reported || now < since || now - since <= thresh_ns)
    return;
  const CodeMap &code = k_.probes().code();
  std::vector<u64> pcs = sample(w.tid, code);
  // Stuck in module code: some frame of its stack is a module's.  The
  // code map's images are read inside an RCU read-side section, as the
  // stack walker reads them.
  size_t first_module = pcs.size();
  urcu_memb_read_lock();
  for (size_t i = 0; i < pcs.size() && first_module == pcs.size(); i++) {
    const CodeImage *img = code.image_at(i == 0 ? pcs[i] : pcs[i] - 1);
    if (img && img->owner)
      first_module = i;
  }
  urcu_memb_read_unlock();
  if (first_module == pcs.size() ||
      w.busy_since.load(std::memory_order_relaxed) != since)
    return;
  w.reported = since;
  lockups++;
  std::string msg = strf(
      "watchdog: soft lockup: %s (tid %d) stuck for %llu s in module code, "
      "at %s\n",
      w.name.c_str(), w.tid, (unsigned long long)((now - since) / 1000000000ull),
      brief_name(code.symbolize(pcs[first_module])).c_str());
  for (size_t i = 0; i < pcs.size(); i++)
    msg += strf("  #%zu 0x%0*llx %s\n", i, (int)(2 * sizeof(void *)),
                (unsigned long long)pcs[i],
                brief_name(code.symbolize(pcs[i])).c_str());
  k_.console().write(msg);
}

} // namespace mk
