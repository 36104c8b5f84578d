// The kernel's CPUs: worker threads, each with its own queue of callouts
// ordered by due time.  A callout is armed on one CPU (round robin) and runs
// there; callout_drain waits until it is neither armed nor running, which is
// what lets a module unload safely.
#include "kernel.h"

#include <sys/callout.h>

#include <chrono>
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
  std::lock_guard<std::mutex> g(mu_);
  stopping_ = false;
  for (unsigned i = 0; i < n; i++)
    cpus_.push_back(std::make_unique<Cpu>());
  for (unsigned i = 0; i < n; i++)
    cpus_[i]->thread = std::thread([this, i] { run(i); });
}

void Cpus::stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (cpus_.empty())
      return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto &c : cpus_)
    if (c->thread.joinable())
      c->thread.join();
  std::lock_guard<std::mutex> g(mu_);
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
  std::unique_lock<std::mutex> lk(mu_);
  Cpu &me = *cpus_[id];
  while (!stopping_) {
    if (me.queue.empty()) {
      cv_.wait(lk);
      continue;
    }
    auto first = me.queue.begin();
    u64 now = now_ns();
    if (first->first > now) {
      cv_.wait_for(lk, std::chrono::nanoseconds(first->first - now));
      continue;
    }
    CalloutState *s = first->second;
    me.queue.erase(first);
    s->pending = false;
    s->running = true;
    auto fn = s->fn;
    auto arg = s->arg;
    lk.unlock();
    SDT_PROBE3(kernel, kern, callout, callout__fire, fn, arg, id);
    fn(arg);
    lk.lock();
    s->running = false;
    done_.notify_all();
  }
}

CalloutState *Cpus::state(struct callout *c) {
  // Called with mu_ held.
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
    std::lock_guard<std::mutex> g(mu_);
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
  std::lock_guard<std::mutex> g(mu_);
  auto *s = (CalloutState *)c->c_impl;
  if (!s || !s->pending)
    return 0;
  cpus_[s->cpu]->queue.erase(s->it);
  s->pending = false;
  return 1;
}

int Cpus::callout_drain(struct callout *c) {
  std::unique_lock<std::mutex> lk(mu_);
  auto *s = (CalloutState *)c->c_impl;
  if (!s)
    return 0;
  int was = s->pending || s->running;
  s->draining = true; // a running call may not re-arm it any more
  if (s->pending) {
    cpus_[s->cpu]->queue.erase(s->it);
    s->pending = false;
  }
  done_.wait(lk, [s] { return !s->running; });
  all_.erase(s);
  c->c_impl = nullptr;
  delete s;
  return was;
}

int Cpus::callout_pending(struct callout *c) {
  std::lock_guard<std::mutex> g(mu_);
  auto *s = (CalloutState *)c->c_impl;
  return s && s->pending;
}

int Cpus::drain_range(u64 lo, u64 hi) {
  std::vector<struct callout *> hit;
  {
    std::lock_guard<std::mutex> g(mu_);
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

} // namespace mk
