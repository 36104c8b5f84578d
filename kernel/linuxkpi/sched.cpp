// Locks, completions, wait queues and sleeping, inside the structures the
// module owns (Linux 6.1 sizes: struct mutex 32 bytes, spinlock_t 4,
// rwlock_t 8, struct completion 32) and blocking on futexes, so there is
// no side table and nothing to free.  A statically initialised lock (all
// zero but its list heads) works as it is.
//
// Sleeping is Linux's protocol: a waiter sets current->__state and sleeps
// in schedule() until a waker sets it back to TASK_RUNNING; the futex is
// the fake task's __state word (percpu.cpp gives every CPU thread and the
// shell one).
#include "lkpi.h"

#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace lkpi {

bool futex_wait(std::atomic<u32> *word, u32 val, i64 ns) {
  timespec ts{}, *tp = nullptr;
  if (ns >= 0) {
    ts.tv_sec = (time_t)(ns / 1000000000);
    ts.tv_nsec = (long)(ns % 1000000000);
    tp = &ts;
  }
  long r =
      syscall(SYS_futex, (u32 *)word, FUTEX_WAIT_PRIVATE, val, tp, nullptr, 0);
  return !(r < 0 && errno == ETIMEDOUT);
}

void futex_wake(std::atomic<u32> *word, int n) {
  syscall(SYS_futex, (u32 *)word, FUTEX_WAKE_PRIVATE, n, nullptr, nullptr, 0);
}

namespace {

// The word a lock blocks on: the first 32 bits of the structure.
std::atomic<u32> *word(void *lock) {
  return reinterpret_cast<std::atomic<u32> *>(lock);
}

// Drepper's mutex ("Futexes are tricky"): 0 free, 1 locked, 2 locked with
// waiters.
void futex_lock(std::atomic<u32> *w) {
  u32 c = 0;
  if (w->compare_exchange_strong(c, 1, std::memory_order_acquire))
    return;
  if (c != 2)
    c = w->exchange(2, std::memory_order_acquire);
  while (c != 0) {
    futex_wait(w, 2);
    c = w->exchange(2, std::memory_order_acquire);
  }
}
bool futex_trylock(std::atomic<u32> *w) {
  u32 c = 0;
  return w->compare_exchange_strong(c, 1, std::memory_order_acquire);
}
void futex_unlock(std::atomic<u32> *w) {
  if (w->exchange(0, std::memory_order_release) == 2)
    futex_wake(w, 1);
}

// A spinlock's holder may be descheduled (these are threads): spin a
// little, then yield.
void spin_lock(std::atomic<u32> *w) {
  for (int spins = 0;; spins++) {
    u32 c = 0;
    if (w->load(std::memory_order_relaxed) == 0 &&
        w->compare_exchange_weak(c, 1, std::memory_order_acquire))
      return;
    if (spins < 64)
      __builtin_ia32_pause();
    else
      sched_yield();
  }
}

} // namespace

// ---- mutexes ---------------------------------------------------------------

struct mutex {
  unsigned long owner; // low 32 bits: the futex word
  u32 wait_lock;
  u32 osq;
  list_head wait_list;
};
static_assert(sizeof(mutex) == (sizeof(long) == 8 ? 32 : 20));

void __mutex_init(mutex *m, const char *, void *) {
  m->owner = 0;
  m->wait_lock = 0;
  m->osq = 0;
  list_init(&m->wait_list);
}
void mutex_lock(mutex *m) { futex_lock(word(m)); }
// No signals reach a kernel thread here: the wait is never interrupted.
int mutex_lock_interruptible(mutex *m) {
  futex_lock(word(m));
  return 0;
}
int mutex_lock_killable(mutex *m) {
  futex_lock(word(m));
  return 0;
}
void mutex_lock_io(mutex *m) { futex_lock(word(m)); }
int mutex_trylock(mutex *m) { return futex_trylock(word(m)) ? 1 : 0; }
void mutex_unlock(mutex *m) { futex_unlock(word(m)); }
bool mutex_is_locked(mutex *m) { return word(m)->load() != 0; }
// Whether the decrement took *cnt to 0; if so, with the mutex held.
int atomic_dec_and_mutex_lock(std::atomic<int> *cnt, mutex *m) {
  for (int c = cnt->load(); c != 1;)
    if (cnt->compare_exchange_weak(c, c - 1))
      return 0;
  futex_lock(word(m));
  if (--*cnt == 0)
    return 1;
  futex_unlock(word(m));
  return 0;
}

// ---- spinlocks and rwlocks -------------------------------------------------
// As Linux's out-of-line forms do, a held lock counts in the CPU's
// __preempt_count (so in_atomic() is true under it); the _bh forms also
// count SOFTIRQ_DISABLE_OFFSET.  There are no interrupts to disable.

namespace {
constexpr u32 kLockOffset = 1, kBhLockOffset = 0x200 + 1;

void preempt_add(u32 n) {
  if (u8 *a = mk::PerCpu::current())
    *reinterpret_cast<u32 *>(a + kPcpuPreemptCount) += n;
}
void preempt_sub(u32 n) {
  if (u8 *a = mk::PerCpu::current())
    *reinterpret_cast<u32 *>(a + kPcpuPreemptCount) -= n;
}

void spin_acquire(u32 *l, u32 count) {
  preempt_add(count);
  spin_lock(word(l));
}
void spin_release(u32 *l, u32 count) {
  word(l)->store(0, std::memory_order_release);
  preempt_sub(count);
}

// qrwlock's cnts word: readers count up in steps of 2; bit 0 is a writer.
void read_acquire(u32 *l, u32 count) {
  preempt_add(count);
  std::atomic<u32> *w = word(l);
  for (int spins = 0;; spins++) {
    u32 c = w->load(std::memory_order_relaxed);
    if (!(c & 1) &&
        w->compare_exchange_weak(c, c + 2, std::memory_order_acquire))
      return;
    if (spins < 64)
      __builtin_ia32_pause();
    else
      sched_yield();
  }
}
void read_release(u32 *l, u32 count) {
  word(l)->fetch_sub(2, std::memory_order_release);
  preempt_sub(count);
}
} // namespace

void _raw_spin_lock(u32 *l) { spin_acquire(l, kLockOffset); }
void _raw_spin_unlock(u32 *l) { spin_release(l, kLockOffset); }
unsigned long _raw_spin_lock_irqsave(u32 *l) {
  spin_acquire(l, kLockOffset);
  return 0;
}
void _raw_spin_unlock_irqrestore(u32 *l, unsigned long) {
  spin_release(l, kLockOffset);
}
void _raw_spin_lock_irq(u32 *l) { spin_acquire(l, kLockOffset); }
void _raw_spin_unlock_irq(u32 *l) { spin_release(l, kLockOffset); }
void _raw_spin_lock_bh(u32 *l) { spin_acquire(l, kBhLockOffset); }
void _raw_spin_unlock_bh(u32 *l) { spin_release(l, kBhLockOffset); }
int _raw_spin_trylock(u32 *l) {
  preempt_add(kLockOffset);
  if (futex_trylock(word(l)))
    return 1;
  preempt_sub(kLockOffset);
  return 0;
}

void _raw_read_lock(u32 *l) { read_acquire(l, kLockOffset); }
void _raw_read_unlock(u32 *l) { read_release(l, kLockOffset); }
void _raw_write_lock(u32 *l) { spin_acquire(l, kLockOffset); }
void _raw_write_unlock(u32 *l) { spin_release(l, kLockOffset); }
unsigned long _raw_read_lock_irqsave(u32 *l) {
  read_acquire(l, kLockOffset);
  return 0;
}
void _raw_read_unlock_irqrestore(u32 *l, unsigned long) {
  read_release(l, kLockOffset);
}
unsigned long _raw_write_lock_irqsave(u32 *l) {
  spin_acquire(l, kLockOffset);
  return 0;
}
void _raw_write_unlock_irqrestore(u32 *l, unsigned long) {
  spin_release(l, kLockOffset);
}
void _raw_read_lock_bh(u32 *l) { read_acquire(l, kBhLockOffset); }
void _raw_read_unlock_bh(u32 *l) { read_release(l, kBhLockOffset); }
void _raw_write_lock_bh(u32 *l) { spin_acquire(l, kBhLockOffset); }
void _raw_write_unlock_bh(u32 *l) { spin_release(l, kBhLockOffset); }
void _raw_read_lock_irq(u32 *l) { read_acquire(l, kLockOffset); }
void _raw_read_unlock_irq(u32 *l) { read_release(l, kLockOffset); }
void _raw_write_lock_irq(u32 *l) { spin_acquire(l, kLockOffset); }
void _raw_write_unlock_irq(u32 *l) { spin_release(l, kLockOffset); }

// local_bh_enable(): local_bh_disable() added `cnt` inline.
void __local_bh_enable_ip(unsigned long, unsigned cnt) { preempt_sub(cnt); }
void _local_bh_enable() { preempt_sub(0x200); }

// ---- sleeping --------------------------------------------------------------

namespace {

std::atomic<u32> *my_state() { return task_state(current_task()); }

// Sleep while the state is not TASK_RUNNING, at most `ns` (-1: no
// limit); the state is TASK_RUNNING afterwards.
void sleep_until_woken(i64 ns) {
  std::atomic<u32> *s = my_state();
  const u64 deadline = ns < 0 ? 0 : mk::now_ns() + (u64)ns;
  for (;;) {
    u32 v = s->load(std::memory_order_acquire);
    if (v == TASK_RUNNING)
      return;
    i64 left = -1;
    if (ns >= 0) {
      const u64 now = mk::now_ns();
      if (now >= deadline)
        break;
      left = (i64)(deadline - now);
    }
    futex_wait(s, v, left);
  }
  s->store(TASK_RUNNING, std::memory_order_release);
}

constexpr u64 kNsPerJiffy = 1000000000ull / HZ;

} // namespace

// Linux's try_to_wake_up: 1 if the task slept in a state `mode` wakes.
int wake_task(u8 *task, unsigned mode) {
  std::atomic<u32> *s = task ? task_state(task) : nullptr;
  if (!s)
    return 0;
  u32 v = s->load(std::memory_order_acquire);
  while (v != TASK_RUNNING && (v & mode))
    if (s->compare_exchange_weak(v, TASK_RUNNING, std::memory_order_acq_rel)) {
      futex_wake(s, INT_MAX);
      return 1;
    }
  return 0;
}

int wake_up_process(u8 *task) { return wake_task(task, TASK_NORMAL); }
int wake_up_state(u8 *task, unsigned state) { return wake_task(task, state); }

void schedule() { sleep_until_woken(-1); }

long schedule_timeout(long timeout) {
  if (timeout == MAX_SCHEDULE_TIMEOUT) {
    sleep_until_woken(-1);
    return timeout;
  }
  if (timeout < 0)
    timeout = 0;
  const u64 end = jiffies_now() + (u64)timeout;
  sleep_until_woken((i64)((u64)timeout * kNsPerJiffy));
  const u64 now = jiffies_now();
  return now >= end ? 0 : (long)(end - now);
}
long schedule_timeout_interruptible(long timeout) {
  my_state()->store(TASK_INTERRUPTIBLE);
  return schedule_timeout(timeout);
}
long schedule_timeout_uninterruptible(long timeout) {
  my_state()->store(TASK_UNINTERRUPTIBLE);
  return schedule_timeout(timeout);
}
long schedule_timeout_killable(long timeout) {
  my_state()->store(TASK_UNINTERRUPTIBLE);
  return schedule_timeout(timeout);
}
long schedule_timeout_idle(long timeout) {
  my_state()->store(TASK_UNINTERRUPTIBLE);
  return schedule_timeout(timeout);
}

// Sleeps measured in real time (no one wakes these early).
void msleep(unsigned ms) { mk::sleep_ms(ms); }
unsigned long msleep_interruptible(unsigned ms) {
  mk::sleep_ms(ms);
  return 0;
}
void usleep_range_state(unsigned long min, unsigned long, unsigned) {
  timespec ts{(time_t)(min / 1000000), (long)(min % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}
// Busy waits: __const_udelay's argument is usecs * 0x10c7 (2**32/10**6
// rounded up), __udelay's the microseconds.
namespace {
void spin_ns(u64 ns) {
  const u64 end = mk::now_ns() + ns;
  while (mk::now_ns() < end)
    __builtin_ia32_pause();
}
} // namespace
void __const_udelay(unsigned long xloops) {
  spin_ns(((u64)xloops * 1000000ull >> 32) * 1000);
}
void __udelay(unsigned long usecs) { spin_ns((u64)usecs * 1000); }
void __ndelay(unsigned long nsecs) { spin_ns(nsecs); }

int __cond_resched() {
  sched_yield();
  return 0;
}
// Static-call trampolines (CONFIG_PREEMPT_DYNAMIC) called as functions.
// A module's .static_call_sites entry for a static call whose key is not
// exported names the trampoline instead, with flags in the address's low
// two bits: like Linux's, they are aligned (gcc aligns functions only
// when it optimises for speed, and not at -O1).
#define SCT_ALIGNED __attribute__((aligned(16)))
SCT_ALIGNED int __SCT__cond_resched() { return 0; }
SCT_ALIGNED void __SCT__might_resched() {}
SCT_ALIGNED void __SCT__preempt_schedule() {}
SCT_ALIGNED void __SCT__preempt_schedule_notrace() {}
#undef SCT_ALIGNED
void preempt_schedule() {}
void __might_sleep(const char *, int) {}
void __might_resched(const char *, int, unsigned) {}
void yield() { sched_yield(); }

// ---- wait queues
// -------------------------------------------------------------

constexpr unsigned WQ_FLAG_EXCLUSIVE = 1;

void __init_waitqueue_head(wait_queue_head *wq, const char *, void *) {
  wq->lock = 0;
  list_init(&wq->head);
}

// Wake functions are called through wait_queue_entry.func (LKAPI).
LKAPI int default_wake_function(wait_queue_entry *e, unsigned mode, int,
                                void *) {
  return wake_task((u8 *)e->priv, mode);
}
LKAPI int autoremove_wake_function(wait_queue_entry *e, unsigned mode,
                                   int sync, void *key) {
  int r = default_wake_function(e, mode, sync, key);
  if (r)
    list_del_init(&e->entry);
  return r;
}
LKAPI int woken_wake_function(wait_queue_entry *e, unsigned mode, int sync,
                              void *key) {
  return default_wake_function(e, mode, sync, key);
}

void init_wait_entry(wait_queue_entry *e, int flags) {
  e->flags = (unsigned)flags;
  e->priv = current_task();
  e->func = autoremove_wake_function;
  list_init(&e->entry);
}

// Queue `e` (unless it is queued) and set the state: the condition is
// tested after, so a wake-up between the two is never lost.
long prepare_to_wait_event(wait_queue_head *wq, wait_queue_entry *e,
                           int state) {
  spin_lock(word(&wq->lock));
  if (list_empty(&e->entry)) {
    if (e->flags & WQ_FLAG_EXCLUSIVE)
      list_add_between(&e->entry, wq->head.prev, &wq->head);
    else
      list_add_between(&e->entry, &wq->head, wq->head.next);
  }
  my_state()->store((u32)state, std::memory_order_release);
  word(&wq->lock)->store(0, std::memory_order_release);
  return 0;
}
void prepare_to_wait(wait_queue_head *wq, wait_queue_entry *e, int state) {
  e->flags &= ~WQ_FLAG_EXCLUSIVE;
  prepare_to_wait_event(wq, e, state);
}
bool prepare_to_wait_exclusive(wait_queue_head *wq, wait_queue_entry *e,
                               int state) {
  e->flags |= WQ_FLAG_EXCLUSIVE;
  bool was_empty = list_empty(&wq->head);
  prepare_to_wait_event(wq, e, state);
  return was_empty;
}
void finish_wait(wait_queue_head *wq, wait_queue_entry *e) {
  my_state()->store(TASK_RUNNING, std::memory_order_release);
  if (!list_empty(&e->entry)) {
    spin_lock(word(&wq->lock));
    list_del_init(&e->entry);
    word(&wq->lock)->store(0, std::memory_order_release);
  }
}
void add_wait_queue(wait_queue_head *wq, wait_queue_entry *e) {
  spin_lock(word(&wq->lock));
  e->flags &= ~WQ_FLAG_EXCLUSIVE;
  list_add_between(&e->entry, &wq->head, wq->head.next);
  word(&wq->lock)->store(0, std::memory_order_release);
}
void remove_wait_queue(wait_queue_head *wq, wait_queue_entry *e) {
  spin_lock(word(&wq->lock));
  list_del_init(&e->entry);
  word(&wq->lock)->store(0, std::memory_order_release);
}

// Call each entry's function; stop after `nr_exclusive` exclusive waiters
// woke (0: wake all).  An entry may take itself off the list.
void __wake_up(wait_queue_head *wq, unsigned mode, int nr_exclusive,
               void *key) {
  spin_lock(word(&wq->lock));
  for (list_head *p = wq->head.next, *next; p != &wq->head; p = next) {
    next = p->next;
    auto *e = (wait_queue_entry *)((u8 *)p - offsetof(wait_queue_entry, entry));
    const unsigned flags = e->flags;
    int r = e->func(e, mode, 0, key);
    if (r < 0)
      break;
    if (r && (flags & WQ_FLAG_EXCLUSIVE) && !--nr_exclusive)
      break;
  }
  word(&wq->lock)->store(0, std::memory_order_release);
}
void __wake_up_locked(wait_queue_head *wq, unsigned mode, int nr) {
  for (list_head *p = wq->head.next, *next; p != &wq->head; p = next) {
    next = p->next;
    auto *e = (wait_queue_entry *)((u8 *)p - offsetof(wait_queue_entry, entry));
    const unsigned flags = e->flags;
    int r = e->func(e, mode, 0, nullptr);
    if (r && (flags & WQ_FLAG_EXCLUSIVE) && !--nr)
      break;
  }
}
void __wake_up_sync_key(wait_queue_head *wq, unsigned mode, void *key) {
  __wake_up(wq, mode, 1, key);
}

// ---- completions
// ------------------------------------------------------------- `done` counts
// completions (UINT_MAX: complete_all); waiters sleep on it.

void __init_swait_queue_head(swait_queue_head *q, const char *, void *) {
  q->lock = 0;
  list_init(&q->task_list);
}

namespace {
std::atomic<u32> *done_of(completion *x) {
  return reinterpret_cast<std::atomic<u32> *>(&x->done);
}

// Take one completion, waiting at most `ns` (-1: no limit).
bool take(completion *x, i64 ns) {
  std::atomic<u32> *d = done_of(x);
  const u64 deadline = ns < 0 ? 0 : mk::now_ns() + (u64)ns;
  for (;;) {
    u32 v = d->load(std::memory_order_acquire);
    while (v != 0) {
      if (v == UINT_MAX)
        return true;
      if (d->compare_exchange_weak(v, v - 1, std::memory_order_acq_rel))
        return true;
    }
    i64 left = -1;
    if (ns >= 0) {
      const u64 now = mk::now_ns();
      if (now >= deadline)
        return false;
      left = (i64)(deadline - now);
    }
    futex_wait(d, 0, left);
  }
}

unsigned long take_timeout(completion *x, unsigned long timeout) {
  const u64 end = jiffies_now() + timeout;
  if (!take(x, (i64)((u64)timeout * kNsPerJiffy)))
    return 0;
  const u64 now = jiffies_now();
  return now >= end ? 1 : (unsigned long)(end - now);
}
} // namespace

void complete(completion *x) {
  std::atomic<u32> *d = done_of(x);
  u32 v = d->load();
  while (v != UINT_MAX && !d->compare_exchange_weak(v, v + 1)) {
  }
  futex_wake(d, 1);
}
void complete_all(completion *x) {
  done_of(x)->store(UINT_MAX, std::memory_order_release);
  futex_wake(done_of(x), INT_MAX);
}
void wait_for_completion(completion *x) { take(x, -1); }
void wait_for_completion_io(completion *x) { take(x, -1); }
int wait_for_completion_interruptible(completion *x) {
  take(x, -1);
  return 0;
}
int wait_for_completion_killable(completion *x) {
  take(x, -1);
  return 0;
}
unsigned long wait_for_completion_timeout(completion *x,
                                          unsigned long timeout) {
  return take_timeout(x, timeout);
}
unsigned long wait_for_completion_io_timeout(completion *x,
                                             unsigned long timeout) {
  return take_timeout(x, timeout);
}
long wait_for_completion_interruptible_timeout(completion *x,
                                               unsigned long timeout) {
  return (long)take_timeout(x, timeout);
}
long wait_for_completion_killable_timeout(completion *x,
                                          unsigned long timeout) {
  return (long)take_timeout(x, timeout);
}
bool try_wait_for_completion(completion *x) { return take(x, 0); }
bool completion_done(completion *x) {
  return done_of(x)->load(std::memory_order_acquire) != 0;
}

LINUX_EXPORT(__mutex_init);
LINUX_EXPORT(mutex_lock);
LINUX_EXPORT(mutex_lock_interruptible);
LINUX_EXPORT(mutex_lock_killable);
LINUX_EXPORT_GPL(mutex_lock_io);
LINUX_EXPORT(mutex_trylock);
LINUX_EXPORT(mutex_unlock);
LINUX_EXPORT(mutex_is_locked);
LINUX_EXPORT(atomic_dec_and_mutex_lock);
LINUX_EXPORT(_raw_spin_lock);
LINUX_EXPORT(_raw_spin_unlock);
LINUX_EXPORT(_raw_spin_lock_irqsave);
LINUX_EXPORT(_raw_spin_unlock_irqrestore);
LINUX_EXPORT(_raw_spin_lock_irq);
LINUX_EXPORT(_raw_spin_unlock_irq);
LINUX_EXPORT(_raw_spin_lock_bh);
LINUX_EXPORT(_raw_spin_unlock_bh);
LINUX_EXPORT(_raw_spin_trylock);
LINUX_EXPORT(_raw_read_lock);
LINUX_EXPORT(_raw_read_unlock);
LINUX_EXPORT(_raw_write_lock);
LINUX_EXPORT(_raw_write_unlock);
LINUX_EXPORT(_raw_read_lock_irqsave);
LINUX_EXPORT(_raw_read_unlock_irqrestore);
LINUX_EXPORT(_raw_write_lock_irqsave);
LINUX_EXPORT(_raw_write_unlock_irqrestore);
LINUX_EXPORT(_raw_read_lock_bh);
LINUX_EXPORT(_raw_read_unlock_bh);
LINUX_EXPORT(_raw_write_lock_bh);
LINUX_EXPORT(_raw_write_unlock_bh);
LINUX_EXPORT(_raw_read_lock_irq);
LINUX_EXPORT(_raw_read_unlock_irq);
LINUX_EXPORT(_raw_write_lock_irq);
LINUX_EXPORT(_raw_write_unlock_irq);
LINUX_EXPORT(__local_bh_enable_ip);
LINUX_EXPORT(_local_bh_enable);
LINUX_EXPORT(wake_up_process);
LINUX_EXPORT(schedule);
LINUX_EXPORT(schedule_timeout);
LINUX_EXPORT(schedule_timeout_interruptible);
LINUX_EXPORT(schedule_timeout_uninterruptible);
LINUX_EXPORT(schedule_timeout_killable);
LINUX_EXPORT(schedule_timeout_idle);
LINUX_EXPORT(msleep);
LINUX_EXPORT(msleep_interruptible);
LINUX_EXPORT(usleep_range_state);
LINUX_EXPORT(__const_udelay);
LINUX_EXPORT(__udelay);
LINUX_EXPORT(__ndelay);
LINUX_EXPORT(__cond_resched);
LINUX_EXPORT(__SCT__cond_resched);
LINUX_EXPORT(__SCT__might_resched);
LINUX_EXPORT(__SCT__preempt_schedule);
LINUX_EXPORT(__SCT__preempt_schedule_notrace);
LINUX_EXPORT(preempt_schedule);
LINUX_EXPORT(yield);
LINUX_EXPORT(__init_waitqueue_head);
LINUX_EXPORT_LKAPI(default_wake_function);
LINUX_EXPORT_LKAPI(autoremove_wake_function);
LINUX_EXPORT_LKAPI(woken_wake_function);
LINUX_EXPORT(init_wait_entry);
LINUX_EXPORT(prepare_to_wait_event);
LINUX_EXPORT(prepare_to_wait);
LINUX_EXPORT(prepare_to_wait_exclusive);
LINUX_EXPORT(finish_wait);
LINUX_EXPORT(add_wait_queue);
LINUX_EXPORT(remove_wait_queue);
LINUX_EXPORT(__wake_up);
LINUX_EXPORT_GPL(__wake_up_locked);
LINUX_EXPORT_GPL(__wake_up_sync_key);
LINUX_EXPORT(__init_swait_queue_head);
LINUX_EXPORT(complete);
LINUX_EXPORT(complete_all);
LINUX_EXPORT(wait_for_completion);
LINUX_EXPORT(wait_for_completion_io);
LINUX_EXPORT(wait_for_completion_interruptible);
LINUX_EXPORT(wait_for_completion_killable);
LINUX_EXPORT(wait_for_completion_timeout);
LINUX_EXPORT(wait_for_completion_io_timeout);
LINUX_EXPORT(wait_for_completion_interruptible_timeout);
LINUX_EXPORT(wait_for_completion_killable_timeout);
LINUX_EXPORT(try_wait_for_completion);
LINUX_EXPORT(completion_done);

} // namespace lkpi
