// Time, timers and workqueues on the kernel's CPU threads and callouts
// (kern_cpu.h).
//
// jiffies and jiffies_64 are one variable, advanced at HZ=250 by a ticker
// thread while a kernel runs (module code reads it directly, in loops
// too); the kernel's own waits compute it from the clock.  Each kernel
// has a timer list ordered by expiry and one callout armed for the
// earliest; each workqueue, per kernel, a list of pending work and up to
// one runner callout per CPU that takes work off it.  A timer or work
// item is pending exactly while it is on a list (timer_pending() reads
// entry.pprev, work_pending() bit 0 of data), so nothing outlives it.
#include "lkpi.h"

#include "../sysinit.h"

#include <sys/callout.h>

#include <condition_variable>
#include <ctime>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace lkpi {

// ---- jiffies ---------------------------------------------------------------

// Linux starts five minutes before the 32-bit wrap, so wrap bugs show.
constexpr u64 kInitialJiffies = (u64)(u32)(-300 * (int)HZ);
constexpr u64 kNsPerJiffy = 1000000000ull / HZ;

alignas(8) volatile u64 jiffies_64 = kInitialJiffies;

namespace {
const u64 g_epoch_ns = mk::now_ns();

u64 jiffy_ns(u64 j) { return g_epoch_ns + (j - kInitialJiffies) * kNsPerJiffy; }

// The ticker runs while any kernel does.  Its state is never destroyed:
// a process may exit with a kernel it never shut down (a fuzzer's), and a
// joinable std::thread destroyed at exit, or a condition variable with a
// waiter, would abort it.
std::mutex &g_tick_mu = *new std::mutex;
std::condition_variable &g_tick_cv = *new std::condition_variable;
int g_tick_users = 0;
std::thread &g_ticker = *new std::thread;

void tick_loop() {
  std::unique_lock g(g_tick_mu);
  while (g_tick_users > 0) {
    jiffies_64 = jiffies_now();
    g_tick_cv.wait_until(
        g, std::chrono::steady_clock::time_point(
               std::chrono::nanoseconds(jiffy_ns(jiffies_64 + 1))));
  }
}
} // namespace

u64 jiffies_now() {
  return kInitialJiffies + (mk::now_ns() - g_epoch_ns) / kNsPerJiffy;
}

unsigned long __msecs_to_jiffies(unsigned m) {
  constexpr unsigned long kMaxJiffyOffset = ((__LONG_MAX__ >> 1) - 1);
  if ((int)m < 0)
    return kMaxJiffyOffset;
  return (m + 1000 / HZ - 1) / (1000 / HZ);
}
unsigned long __usecs_to_jiffies(unsigned u) {
  return (u + 1000000 / HZ - 1) / (1000000 / HZ);
}
unsigned jiffies_to_msecs(unsigned long j) {
  return (unsigned)(j * (1000 / HZ));
}
unsigned jiffies_to_usecs(unsigned long j) {
  return (unsigned)(j * (1000000 / HZ));
}
unsigned long nsecs_to_jiffies(u64 n) {
  return (unsigned long)(n / kNsPerJiffy);
}
u64 nsecs_to_jiffies64(u64 n) { return n / kNsPerJiffy; }

// ---- ktime -----------------------------------------------------------------

struct timespec64 {
  i64 tv_sec;
  long tv_nsec;
};

namespace {
i64 clock_ns(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return (i64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
void to_ts64(clockid_t id, timespec64 *out) {
  timespec ts;
  clock_gettime(id, &ts);
  out->tv_sec = ts.tv_sec;
  out->tv_nsec = ts.tv_nsec;
}
} // namespace

i64 ktime_get() { return clock_ns(CLOCK_MONOTONIC); }
i64 ktime_get_raw() { return clock_ns(CLOCK_MONOTONIC_RAW); }
u64 ktime_get_mono_fast_ns() { return (u64)clock_ns(CLOCK_MONOTONIC); }
u64 ktime_get_raw_fast_ns() { return (u64)clock_ns(CLOCK_MONOTONIC_RAW); }
u64 ktime_get_boot_fast_ns() { return (u64)clock_ns(CLOCK_BOOTTIME); }
u64 ktime_get_real_fast_ns() { return (u64)clock_ns(CLOCK_REALTIME); }
// enum tk_offsets: TK_OFFS_REAL, TK_OFFS_BOOT, TK_OFFS_TAI.
i64 ktime_get_with_offset(int offs) {
  static const clockid_t ids[] = {CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_TAI};
  return clock_ns(offs >= 0 && offs < 3 ? ids[offs] : CLOCK_MONOTONIC);
}
void ktime_get_real_ts64(timespec64 *ts) { to_ts64(CLOCK_REALTIME, ts); }
void ktime_get_ts64(timespec64 *ts) { to_ts64(CLOCK_MONOTONIC, ts); }
void ktime_get_raw_ts64(timespec64 *ts) { to_ts64(CLOCK_MONOTONIC_RAW, ts); }
void ktime_get_coarse_real_ts64(timespec64 *ts) {
  to_ts64(CLOCK_REALTIME_COARSE, ts);
}
i64 ktime_get_real_seconds() { return clock_ns(CLOCK_REALTIME) / 1000000000; }
i64 ktime_get_seconds() { return clock_ns(CLOCK_MONOTONIC) / 1000000000; }

// ---- per-kernel state
// ----------------------------------------------------------

struct workqueue_struct {
  std::string name;
  unsigned flags = 0;
  int max_active = 0;
};

namespace {

constexpr unsigned kWqOrdered = 1u << 17; // __WQ_ORDERED

struct State;

// One callout that takes work off a workqueue's list.
struct Runner {
  State *st;
  workqueue_struct *wq;
  struct callout c {};
  bool active = false;
};

struct Pending {
  work_struct *work;
  u64 seq;
};

struct WqState {
  std::list<Pending> pending;
  std::vector<std::unique_ptr<Runner>> runners;
};

struct Running {
  workqueue_struct *wq;
  u64 seq;
  work_func_t fn;
};

struct State {
  mk::Kernel *k = nullptr;
  std::mutex mu;
  std::condition_variable cv; // a timer or work item finished
  // Timers: expiry -> timer, and each pending timer's expiry.
  std::multimap<u64, timer_list *> timers;
  std::map<timer_list *, u64> armed;
  timer_list *running_timer = nullptr;
  void (LKAPI *running_timer_fn)(timer_list *) = nullptr;
  struct callout tick {};
  u64 tick_due = UINT64_MAX;
  // Work.
  std::map<workqueue_struct *, WqState> wqs;
  std::multimap<work_struct *, Running> running;
  u64 seq = 0;
};

std::mutex g_states_mu;
std::map<mk::Kernel *, std::unique_ptr<State>> g_states;

State *state() {
  mk::Kernel *k = mk::curkernel();
  std::lock_guard g(g_states_mu);
  auto it = g_states.find(k);
  return it == g_states.end() ? nullptr : it->second.get();
}

// ---- timers ----------------------------------------------------------------

void tick_fn(void *arg);

// The tick callout is armed for `when` (jiffies), or earlier.
void arm_tick(State *st, u64 when) {
  if (when >= st->tick_due)
    return;
  st->tick_due = when;
  const u64 due = jiffy_ns(when), now = mk::now_ns();
  const u64 ms = due > now ? (due - now + 999999) / 1000000 : 0;
  st->k->cpus().callout_reset(&st->tick, (unsigned)ms, tick_fn, st);
}

bool timer_remove(State *st, timer_list *t) {
  auto it = st->armed.find(t);
  if (it == st->armed.end())
    return false;
  auto [lo, hi] = st->timers.equal_range(it->second);
  for (auto j = lo; j != hi; ++j)
    if (j->second == t) {
      st->timers.erase(j);
      break;
    }
  st->armed.erase(it);
  t->entry.pprev = nullptr;
  return true;
}

void timer_insert(State *st, timer_list *t, u64 expires) {
  // A 32-bit expiry (jiffies on i386) is taken against the 64-bit count.
  const u64 now = jiffies_now();
  const u64 at =
      now + (u64)(i64)(long)((unsigned long)expires - (unsigned long)now);
  t->expires = (unsigned long)expires;
  t->entry.pprev = &t->entry.next; // timer_pending()
  st->timers.emplace(at, t);
  st->armed[t] = at;
  arm_tick(st, at);
}

void tick_fn(void *arg) {
  auto *st = (State *)arg;
  std::unique_lock g(st->mu);
  st->tick_due = UINT64_MAX;
  for (;;) {
    auto it = st->timers.begin();
    if (it == st->timers.end() || it->first > jiffies_now())
      break;
    timer_list *t = it->second;
    timer_remove(st, t);
    auto fn = t->function;
    st->running_timer = t;
    st->running_timer_fn = fn;
    g.unlock();
    fn(t);
    g.lock();
    st->running_timer = nullptr;
    st->running_timer_fn = nullptr;
    st->cv.notify_all();
  }
  if (!st->timers.empty())
    arm_tick(st, st->timers.begin()->first);
}

// ---- work ------------------------------------------------------------------

bool test_and_set_pending(work_struct *w) {
  return __atomic_fetch_or(&w->data, 1L, __ATOMIC_ACQ_REL) & 1;
}
void clear_pending(work_struct *w) {
  __atomic_fetch_and(&w->data, ~1L, __ATOMIC_ACQ_REL);
}

void run_fn(void *arg);

WqState &wq_state(State *st, workqueue_struct *wq) {
  WqState &ws = st->wqs[wq];
  if (ws.runners.empty()) {
    unsigned n = (wq->flags & kWqOrdered) || wq->max_active == 1
                     ? 1
                     : st->k->cpus().count();
    for (unsigned i = 0; i < (n ? n : 1); i++)
      ws.runners.push_back(std::unique_ptr<Runner>(new Runner{st, wq}));
  }
  return ws;
}

// Wake runners for what is pending (work already marked pending).
void dispatch(State *st, workqueue_struct *wq, WqState &ws) {
  size_t active = 0;
  for (auto &r : ws.runners)
    active += r->active;
  for (auto &r : ws.runners) {
    if (active >= ws.pending.size())
      break;
    if (r->active)
      continue;
    r->active = true;
    active++;
    st->k->cpus().callout_reset(&r->c, 0, run_fn, r.get());
  }
}

void enqueue(State *st, workqueue_struct *wq, work_struct *w) {
  WqState &ws = wq_state(st, wq);
  ws.pending.push_back(Pending{w, ++st->seq});
  dispatch(st, wq, ws);
}

bool is_running(State *st, work_struct *w) { return st->running.count(w) != 0; }

void run_fn(void *arg) {
  auto *r = (Runner *)arg;
  State *st = r->st;
  std::unique_lock g(st->mu);
  auto wit = st->wqs.find(r->wq);
  if (wit == st->wqs.end()) { // destroyed meanwhile
    r->active = false;
    return;
  }
  WqState &ws = wit->second;
  for (;;) {
    // A work item never runs twice at once: one that is running waits.
    auto it = ws.pending.begin();
    while (it != ws.pending.end() && is_running(st, it->work))
      ++it;
    if (it == ws.pending.end())
      break;
    work_struct *w = it->work;
    const u64 seq = it->seq;
    ws.pending.erase(it);
    work_func_t fn = w->func;
    clear_pending(w);
    auto run = st->running.emplace(w, Running{r->wq, seq, fn});
    g.unlock();
    fn(w);
    g.lock();
    st->running.erase(run);
    st->cv.notify_all();
  }
  r->active = false;
}

// Take `w` off its workqueue's list: whether it was there.
bool unqueue(State *st, work_struct *w) {
  for (auto &[wq, ws] : st->wqs)
    for (auto it = ws.pending.begin(); it != ws.pending.end(); ++it)
      if (it->work == w) {
        ws.pending.erase(it);
        return true;
      }
  return false;
}

bool queued(State *st, work_struct *w) {
  for (auto &[wq, ws] : st->wqs)
    for (auto &p : ws.pending)
      if (p.work == w)
        return true;
  return false;
}

delayed_work *to_dwork(timer_list *t) {
  return (delayed_work *)((u8 *)t - offsetof(delayed_work, timer));
}

} // namespace

// ---- timer API -------------------------------------------------------------

void init_timer_key(timer_list *t, void (LKAPI *fn)(timer_list *), unsigned flags,
                    const char *, void *) {
  t->entry.next = nullptr;
  t->entry.pprev = nullptr;
  t->function = fn;
  t->flags = flags;
}

int mod_timer(timer_list *t, unsigned long expires) {
  State *st = state();
  if (!st)
    return 0;
  std::lock_guard g(st->mu);
  const bool was = timer_remove(st, t);
  timer_insert(st, t, expires);
  return was;
}
int timer_reduce(timer_list *t, unsigned long expires) {
  State *st = state();
  if (!st)
    return 0;
  std::lock_guard g(st->mu);
  const bool was = st->armed.count(t) != 0;
  if (was && (long)(expires - t->expires) >= 0)
    return 1;
  timer_remove(st, t);
  timer_insert(st, t, expires);
  return was;
}
void add_timer(timer_list *t) { mod_timer(t, t->expires); }
void add_timer_on(timer_list *t, int) { mod_timer(t, t->expires); }

int del_timer(timer_list *t) {
  State *st = state();
  if (!st)
    return 0;
  std::lock_guard g(st->mu);
  return timer_remove(st, t);
}
int try_to_del_timer_sync(timer_list *t) {
  State *st = state();
  if (!st)
    return 0;
  std::lock_guard g(st->mu);
  if (st->running_timer == t)
    return -1;
  return timer_remove(st, t);
}
// Deactivate, and wait while its function runs (it may re-arm itself:
// each pass takes it off again).
int del_timer_sync(timer_list *t) {
  State *st = state();
  if (!st)
    return 0;
  std::unique_lock g(st->mu);
  int was = timer_remove(st, t);
  while (st->running_timer == t) {
    st->cv.wait(g);
    was |= timer_remove(st, t);
  }
  return was;
}
int timer_delete_sync(timer_list *t) { return del_timer_sync(t); }
int timer_delete(timer_list *t) { return del_timer(t); }
int timer_shutdown_sync(timer_list *t) { return del_timer_sync(t); }

// ---- workqueue API
// -------------------------------------------------------------

namespace {
workqueue_struct g_system_wq{"events", 0, 256};
workqueue_struct g_system_highpri_wq{"events_highpri", 1u << 4, 256};
workqueue_struct g_system_long_wq{"events_long", 0, 256};
workqueue_struct g_system_unbound_wq{"events_unbound", 1u << 1, 512};
workqueue_struct g_system_freezable_wq{"events_freezable", 1u << 2, 256};
workqueue_struct g_system_power_efficient_wq{"events_power_efficient", 0, 256};
workqueue_struct g_system_freezable_power_efficient_wq{
    "events_freezable_power_efficient", 1u << 2, 256};
} // namespace

workqueue_struct *system_wq = &g_system_wq;
workqueue_struct *system_highpri_wq = &g_system_highpri_wq;
workqueue_struct *system_long_wq = &g_system_long_wq;
workqueue_struct *system_unbound_wq = &g_system_unbound_wq;
workqueue_struct *system_freezable_wq = &g_system_freezable_wq;
workqueue_struct *system_power_efficient_wq = &g_system_power_efficient_wq;
workqueue_struct *system_freezable_power_efficient_wq =
    &g_system_freezable_power_efficient_wq;

workqueue_struct *alloc_workqueue(const char *fmt, unsigned flags,
                                  int max_active, ...) {
  va_list ap;
  va_start(ap, max_active);
  auto *wq = new workqueue_struct{vformat(fmt, ap), flags, max_active};
  va_end(ap);
  return wq;
}

bool queue_work_on(int, workqueue_struct *wq, work_struct *w) {
  State *st = state();
  if (!st || test_and_set_pending(w))
    return false;
  std::lock_guard g(st->mu);
  enqueue(st, wq, w);
  return true;
}

namespace {
// `dw` is marked pending: queue it now or start its timer.
void queue_delayed(State *st, workqueue_struct *wq, delayed_work *dw,
                   unsigned long delay) {
  dw->wq = wq;
  if (delay == 0) {
    enqueue(st, wq, &dw->work);
    return;
  }
  timer_insert(st, &dw->timer, (unsigned long)jiffies_now() + delay);
}
} // namespace

bool queue_delayed_work_on(int cpu, workqueue_struct *wq, delayed_work *dw,
                           unsigned long delay) {
  State *st = state();
  if (!st || test_and_set_pending(&dw->work))
    return false;
  std::lock_guard g(st->mu);
  dw->cpu = cpu;
  queue_delayed(st, wq, dw, delay);
  return true;
}

bool mod_delayed_work_on(int cpu, workqueue_struct *wq, delayed_work *dw,
                         unsigned long delay) {
  State *st = state();
  if (!st)
    return false;
  std::lock_guard g(st->mu);
  const bool was = timer_remove(st, &dw->timer) || unqueue(st, &dw->work);
  __atomic_fetch_or(&dw->work.data, 1L, __ATOMIC_ACQ_REL);
  dw->cpu = cpu;
  queue_delayed(st, wq, dw, delay);
  return was;
}

// The timer of a delayed work item: its delay is over.
void delayed_work_timer_fn(timer_list *t) {
  State *st = state();
  if (!st)
    return;
  delayed_work *dw = to_dwork(t);
  std::lock_guard g(st->mu);
  enqueue(st, dw->wq, &dw->work);
}

namespace {
bool cancel(work_struct *w, timer_list *timer, bool sync) {
  State *st = state();
  if (!st)
    return false;
  std::unique_lock g(st->mu);
  bool was = (timer && timer_remove(st, timer)) || unqueue(st, w);
  if (was)
    clear_pending(w);
  while (sync && is_running(st, w)) {
    st->cv.wait(g);
    // It may have queued itself again meanwhile.
    if (unqueue(st, w) || (timer && timer_remove(st, timer))) {
      clear_pending(w);
      was = true;
    }
  }
  return was;
}

bool flush(State *st, work_struct *w) {
  std::unique_lock g(st->mu);
  bool waited = false;
  while (queued(st, w) || is_running(st, w)) {
    waited = true;
    st->cv.wait(g);
  }
  return waited;
}
} // namespace

bool cancel_work(work_struct *w) { return cancel(w, nullptr, false); }
bool cancel_work_sync(work_struct *w) { return cancel(w, nullptr, true); }
bool cancel_delayed_work(delayed_work *dw) {
  return cancel(&dw->work, &dw->timer, false);
}
bool cancel_delayed_work_sync(delayed_work *dw) {
  return cancel(&dw->work, &dw->timer, true);
}

bool flush_work(work_struct *w) {
  State *st = state();
  return st ? flush(st, w) : false;
}
bool flush_delayed_work(delayed_work *dw) {
  State *st = state();
  if (!st)
    return false;
  {
    std::lock_guard g(st->mu);
    if (timer_remove(st, &dw->timer))
      enqueue(st, dw->wq, &dw->work);
  }
  return flush(st, &dw->work);
}

// Wait for what was queued on `wq` before the call (work it queues meanwhile
// is not waited for).
void __flush_workqueue(workqueue_struct *wq) {
  State *st = state();
  if (!st)
    return;
  std::unique_lock g(st->mu);
  const u64 upto = st->seq;
  auto busy = [&] {
    for (auto &p : st->wqs[wq].pending)
      if (p.seq <= upto)
        return true;
    for (auto &[w, r] : st->running)
      if (r.wq == wq && r.seq <= upto)
        return true;
    return false;
  };
  while (busy())
    st->cv.wait(g);
}
void flush_workqueue(workqueue_struct *wq) { __flush_workqueue(wq); }

// Until nothing is queued or running on `wq`, chained work included.
void drain_workqueue(workqueue_struct *wq) {
  State *st = state();
  if (!st)
    return;
  std::unique_lock g(st->mu);
  auto busy = [&] {
    if (!st->wqs[wq].pending.empty())
      return true;
    for (auto &[w, r] : st->running)
      if (r.wq == wq)
        return true;
    return false;
  };
  while (busy())
    st->cv.wait(g);
}

void destroy_workqueue(workqueue_struct *wq) {
  if (!wq)
    return;
  drain_workqueue(wq);
  std::vector<std::pair<State *, std::unique_ptr<Runner>>> runners;
  {
    std::lock_guard sg(g_states_mu);
    for (auto &[k, st] : g_states) {
      std::lock_guard g(st->mu);
      auto it = st->wqs.find(wq);
      if (it == st->wqs.end())
        continue;
      for (auto &r : it->second.runners)
        runners.emplace_back(st.get(), std::move(r));
      st->wqs.erase(it);
    }
  }
  // Idle now: each callout's state goes with it.
  for (auto &[st, r] : runners)
    st->k->cpus().callout_drain(&r->c);
  delete wq;
}

bool work_busy(work_struct *w) {
  State *st = state();
  if (!st)
    return false;
  std::lock_guard g(st->mu);
  return queued(st, w) || is_running(st, w) ||
         (__atomic_load_n(&w->data, __ATOMIC_ACQUIRE) & 1);
}

// ---- a module goes
// ---------------------------------------------------------------

namespace {
bool in(const void *p, u64 lo, u64 hi) {
  return (u64)(uintptr_t)p >= lo && (u64)(uintptr_t)p < hi;
}
// A timer belongs to the module if it lives there or calls it (a
// delayed work's timer: if its work does).
bool timer_of(timer_list *t, void (LKAPI *fn)(timer_list *), u64 lo, u64 hi) {
  if (in(t, lo, hi) || in((const void *)fn, lo, hi))
    return true;
  // The module's INIT_DELAYED_WORK named the export (on i386 its adapter).
  return (const void *)fn ==
             (const void *)lkabi::entry<&delayed_work_timer_fn>() &&
         in((const void *)to_dwork(t)->work.func, lo, hi);
}
} // namespace

void timers_module_gone(u64 lo, u64 hi) {
  State *st = state();
  if (!st)
    return;
  std::unique_lock g(st->mu);
  for (auto it = st->timers.begin(); it != st->timers.end();) {
    timer_list *t = (it++)->second;
    if (timer_of(t, t->function, lo, hi))
      timer_remove(st, t);
  }
  while (st->running_timer &&
         timer_of(st->running_timer, st->running_timer_fn, lo, hi))
    st->cv.wait(g);
}

void work_module_gone(u64 lo, u64 hi) {
  State *st = state();
  if (!st)
    return;
  std::unique_lock g(st->mu);
  for (auto &[wq, ws] : st->wqs)
    for (auto it = ws.pending.begin(); it != ws.pending.end();)
      if (in(it->work, lo, hi) || in((const void *)it->work->func, lo, hi))
        it = ws.pending.erase(it);
      else
        ++it;
  auto busy = [&] {
    for (auto &[w, r] : st->running)
      if (in(w, lo, hi) || in((const void *)r.fn, lo, hi))
        return true;
    return false;
  };
  while (busy())
    st->cv.wait(g);
}

// ---- boot
// --------------------------------------------------------------------------

namespace {
bool init_time(mk::Kernel &k) {
  {
    std::lock_guard g(g_states_mu);
    auto st = std::make_unique<State>();
    st->k = &k;
    g_states[&k] = std::move(st);
  }
  {
    std::lock_guard g(g_tick_mu);
    if (g_tick_users++ == 0) {
      jiffies_64 = jiffies_now();
      g_ticker = mk::start_running(tick_loop);
    }
  }
  // The CPUs are stopped and every module gone: callouts ran or never will.
  k.on_stopped([&k] {
    {
      std::lock_guard g(g_states_mu);
      g_states.erase(&k);
    }
    std::thread t;
    {
      std::lock_guard g(g_tick_mu);
      if (--g_tick_users == 0)
        t = std::move(g_ticker);
    }
    g_tick_cv.notify_all();
    if (t.joinable())
      t.join();
  });
  return true;
}
SYSINIT(linuxkpi_time, SI_SUB_CPUS, 2, init_time);
} // namespace

// jiffies is jiffies_64 (its low half on i386), as Linux's linker script
// makes it.
LINUX_EXPORT_AS("jiffies", jiffies_64);
LINUX_EXPORT(jiffies_64);
LINUX_EXPORT(__msecs_to_jiffies);
LINUX_EXPORT(__usecs_to_jiffies);
LINUX_EXPORT(jiffies_to_msecs);
LINUX_EXPORT(jiffies_to_usecs);
LINUX_EXPORT_GPL(nsecs_to_jiffies);
LINUX_EXPORT(nsecs_to_jiffies64);
LINUX_EXPORT_GPL(ktime_get);
LINUX_EXPORT_GPL(ktime_get_raw);
LINUX_EXPORT_GPL(ktime_get_mono_fast_ns);
LINUX_EXPORT_GPL(ktime_get_raw_fast_ns);
LINUX_EXPORT_GPL(ktime_get_boot_fast_ns);
LINUX_EXPORT_GPL(ktime_get_real_fast_ns);
LINUX_EXPORT_GPL(ktime_get_with_offset);
LINUX_EXPORT(ktime_get_real_ts64);
LINUX_EXPORT_GPL(ktime_get_ts64);
LINUX_EXPORT(ktime_get_raw_ts64);
LINUX_EXPORT(ktime_get_coarse_real_ts64);
LINUX_EXPORT_GPL(ktime_get_real_seconds);
LINUX_EXPORT_GPL(ktime_get_seconds);
LINUX_EXPORT(init_timer_key);
LINUX_EXPORT(mod_timer);
LINUX_EXPORT(timer_reduce);
LINUX_EXPORT(add_timer);
LINUX_EXPORT_GPL(add_timer_on);
LINUX_EXPORT(try_to_del_timer_sync);
LINUX_EXPORT(timer_delete_sync);
LINUX_EXPORT(timer_delete);
LINUX_EXPORT_GPL(timer_shutdown_sync);
LINUX_EXPORT(system_wq);
LINUX_EXPORT_GPL(system_highpri_wq);
LINUX_EXPORT_GPL(system_long_wq);
LINUX_EXPORT_GPL(system_unbound_wq);
LINUX_EXPORT_GPL(system_freezable_wq);
LINUX_EXPORT_GPL(system_power_efficient_wq);
LINUX_EXPORT_GPL(system_freezable_power_efficient_wq);
LINUX_EXPORT_GPL(alloc_workqueue);
LINUX_EXPORT_GPL(destroy_workqueue);
LINUX_EXPORT(queue_work_on);
LINUX_EXPORT(queue_delayed_work_on);
LINUX_EXPORT_GPL(mod_delayed_work_on);
LINUX_EXPORT(delayed_work_timer_fn);
LINUX_EXPORT(cancel_work);
LINUX_EXPORT_GPL(cancel_work_sync);
LINUX_EXPORT(cancel_delayed_work);
LINUX_EXPORT(cancel_delayed_work_sync);
LINUX_EXPORT_GPL(flush_work);
LINUX_EXPORT(flush_delayed_work);
LINUX_EXPORT(__flush_workqueue);
LINUX_EXPORT_GPL(drain_workqueue);
LINUX_EXPORT_GPL(work_busy);

} // namespace lkpi
