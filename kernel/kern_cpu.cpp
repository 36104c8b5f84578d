// The kernel's CPUs: worker threads, each with its own queue of callouts
// ordered by due time.  A callout is armed on one CPU (round robin) and runs
// there; callout_drain waits until it is neither armed nor running, which is
// what lets a module unload safely.
#include "kernel.h"

#include "../sdt/profile.h"
#include "../sdt/registry.h"
#include "kern_panic.h"

#include <sys/callout.h>

#include <chrono>
#include <unistd.h>
#include <sys/sdt.h>

SDT_PROBE_DEFINE3(kernel, kern, callout, callout__fire, "void *", "void *",
                  "int");

namespace mk {

struct CalloutState {
  struct callout *owner = nullptr;
  void (*fn)(void *) = nullptr;
  void *arg = nullptr;
  u64 due = 0;
  int cpu = -1;
  bool pending = false;
  bool running = false;
  bool draining = false;
  std::multimap<u64, CalloutState *>::iterator it;
};

void Cpus::start(unsigned n) {
  MutexLock g(mu_);
  stopping_ = false;
  for (unsigned i = 0; i < n; i++)
    cpus_.push_back(std::make_unique<Cpu>());
  for (unsigned i = 0; i < n; i++)
    cpus_[i]->thread = std::thread([this, i] { run(i); });
  // Each CPU is up, its thread id known (what profile timers target),
  // before boot goes on.
  for (unsigned i = 0; i < n; i++)
    while (!cpus_[i]->tid)
      done_.wait(mu_);
}

unsigned Cpus::count() const {
  MutexLock g(mu_);
  return (unsigned)cpus_.size();
}

std::vector<std::pair<int, int>> Cpus::threads() const {
  MutexLock g(mu_);
  std::vector<std::pair<int, int>> v;
  for (size_t i = 0; i < cpus_.size(); i++)
    v.emplace_back((int)i, cpus_[i]->tid);
  return v;
}

void Cpus::stop() {
  std::vector<std::thread *> threads;
  {
    MutexLock g(mu_);
    if (cpus_.empty())
      return;
    stopping_ = true;
    for (auto &c : cpus_)
      threads.push_back(&c->thread);
  }
  cv_.notify_all();
  for (std::thread *t : threads)
    if (t->joinable())
      t->join();
  MutexLock g(mu_);
  cpus_.clear();
  for (CalloutState *s : all_) {
    s->owner->c_impl = nullptr;
    delete s;
  }
  all_.clear();
}

void Cpus::run(unsigned id) {
  set_curkernel(&k_);
  set_current_cpu((int)id);
  if (id < k_.percpu().count())
    k_.percpu().enter(id);
  panic_thread_init(strf("cpu%u", id).c_str());
  probe_thread_register();
  // Sampled always, whatever signals the thread that started it blocked
  // (the shell's, at its prompt).
  profile_sampling(Sampling::On);
  Watchdog::Watched *wd = k_.watchdog().watch_self(strf("cpu%u", id));
  MutexLock g(mu_);
  Cpu &me = *cpus_[id];
  me.tid = (int)gettid();
  done_.notify_all();
  while (!stopping_) {
    if (me.queue.empty()) {
      cv_.wait(mu_);
      continue;
    }
    auto first = me.queue.begin();
    u64 now = now_ns();
    if (first->first > now) {
      cv_.wait_for(mu_, std::chrono::nanoseconds(first->first - now));
      continue;
    }
    CalloutState *s = first->second;
    me.queue.erase(first);
    s->pending = false;
    s->running = true;
    auto fn = s->fn;
    auto arg = s->arg;
    mu_.unlock();
    SDT_PROBE3(kernel, kern, callout, callout__fire, fn, arg, id);
    {
      WatchdogBusy busy(wd);
      fn(arg);
    }
    mu_.lock();
    s->running = false;
    done_.notify_all();
  }
  mu_.unlock();
  k_.watchdog().unwatch(wd);
  mu_.lock();
}

CalloutState *Cpus::state(struct callout *c) {
  if (!c->c_impl) {
    auto *s = new CalloutState;
    s->owner = c;
    c->c_impl = s;
    all_.insert(s);
  }
  return (CalloutState *)c->c_impl;
}

void Cpus::callout_init(struct callout *c) {
  // A fresh callout has no state yet; it is made on first use, so a callout
  // in zeroed memory works without callout_init as well.
  c->c_impl = nullptr;
}

void Cpus::callout_reset(struct callout *c, unsigned ms, void (*fn)(void *),
                         void *arg) {
  {
    MutexLock g(mu_);
    if (cpus_.empty())
      return;
    CalloutState *s = state(c);
    if (s->draining)
      return;
    if (s->pending)
      cpus_[s->cpu]->queue.erase(s->it);
    s->fn = fn;
    s->arg = arg;
    s->due = now_ns() + (u64)ms * 1000000ull;
    if (s->cpu < 0)
      s->cpu = (int)(next_cpu_++ % cpus_.size());
    s->it = cpus_[s->cpu]->queue.emplace(s->due, s);
    s->pending = true;
  }
  cv_.notify_all();
}

int Cpus::callout_stop(struct callout *c) {
  MutexLock g(mu_);
  auto *s = (CalloutState *)c->c_impl;
  if (!s || !s->pending)
    return 0;
  cpus_[s->cpu]->queue.erase(s->it);
  s->pending = false;
  return 1;
}

int Cpus::callout_drain(struct callout *c) {
  MutexLock g(mu_);
  auto *s = (CalloutState *)c->c_impl;
  if (!s)
    return 0;
  int was = s->pending || s->running;
  s->draining = true; // a running call may not re-arm it any more
  if (s->pending) {
    cpus_[s->cpu]->queue.erase(s->it);
    s->pending = false;
  }
  while (s->running)
    done_.wait(mu_);
  all_.erase(s);
  c->c_impl = nullptr;
  delete s;
  return was;
}

int Cpus::callout_pending(struct callout *c) {
  MutexLock g(mu_);
  auto *s = (CalloutState *)c->c_impl;
  return s && s->pending;
}

int Cpus::drain_range(u64 lo, u64 hi) {
  std::vector<struct callout *> hit;
  {
    MutexLock g(mu_);
    for (CalloutState *s : all_) {
      u64 fn = (u64)(uintptr_t)s->fn, own = (u64)(uintptr_t)s->owner;
      if ((fn >= lo && fn < hi) || (own >= lo && own < hi))
        hit.push_back(s->owner);
    }
  }
  int active = 0;
  for (struct callout *c : hit)
    active += callout_drain(c);
  return active;
}

// ---- kernel threads ---------------------------------------------------------

Result<KThreads::Thread *> KThreads::start(Kernel &k, void (*fn)(void *),
                                           void *arg,
                                           const std::string &name) {
  auto t = std::make_unique<Thread>();
  t->name = name;
  t->fn = (u64)(uintptr_t)fn;
  Thread *raw = t.get();
  try {
    raw->thread = start_running([&k, fn, arg, name] {
      set_curkernel(&k);
      set_current_cpu(-1);
      panic_thread_init(("kthread:" + name).c_str());
      probe_thread_register();
      fn(arg);
    });
  } catch (const std::system_error &e) {
    return error(strf("kthread %s: cannot start a thread: %s", name.c_str(),
                      e.what()));
  }
  MutexLock g(mu_);
  threads_.push_back(std::move(t));
  return raw;
}

bool KThreads::join(Thread *t) {
  std::unique_ptr<Thread> mine;
  {
    MutexLock g(mu_);
    for (auto it = threads_.begin(); it != threads_.end(); ++it)
      if (it->get() == t) {
        if ((*it)->thread.get_id() == std::this_thread::get_id())
          return false; // a thread cannot wait for itself
        mine = std::move(*it);
        threads_.erase(it);
        break;
      }
  }
  if (!mine)
    return false;
  if (mine->thread.joinable())
    mine->thread.join();
  return true;
}

void KThreads::join_range(
    u64 lo, u64 hi, const std::function<void(const std::string &)> &report) {
  std::vector<Thread *> mine;
  {
    MutexLock g(mu_);
    for (auto &t : threads_)
      if (t->fn >= lo && t->fn < hi)
        mine.push_back(t.get());
  }
  for (Thread *t : mine) {
    report(t->name);
    join(t);
  }
}

void KThreads::join_all() {
  std::vector<Thread *> all;
  {
    MutexLock g(mu_);
    for (auto &t : threads_)
      all.push_back(t.get());
  }
  for (Thread *t : all)
    join(t);
}

} // namespace mk
