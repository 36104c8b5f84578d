// Kernel threads (kernel/kthread.c): kthread_create_on_node() makes a
// task that sleeps until wake_up_process() wakes it, then runs the
// module's function once on a host thread of its own (the kernel's
// KThreads, so a fault there is reported as in "kthread:NAME"); the
// thread ends when the function returns.
//
// Per-CPU data.  Linux code on any thread reads %gs: the canary at
// %gs:40, current_task, __preempt_count, this_cpu_*.  A kthread cannot
// borrow a CPU thread's area: the two host threads would run at once,
// and a this_cpu_inc() is a read-modify-write with no lock (one
// instruction in Linux, safe there only because one CPU runs one task at
// a time), so counts would be lost, and both would be `current` at once.
// So each kthread gets a per-CPU area of its own (PerCpu's thread areas),
// made at its creation and given back when it is reaped: its own canary
// and task (the one kthread_create returns: PF_KTHREAD, its pid and
// comm), and each module's .data..percpu as the module's file had it.
// The price: what a kthread adds to a per-CPU variable stays in its area,
// which for_each_possible_cpu() does not visit (the possible CPUs stay
// the CPU threads and the shell, as at boot: Linux code never expects
// nr_cpu_ids to grow).  Its cpu_number is the CPU it was created from,
// so smp_processor_id() indexes per-CPU arrays safely.
//
// A thread ends, and its area goes, when its function returns; it is
// reaped (joined, area freed) at the next kthread_create or when its
// module goes, which also waits for any of its threads still running
// (one never woken is told to stop and never runs, as with kthread_stop()
// before the first wake-up).
#include "lkpi.h"

#if defined(__x86_64__)

#include "../kern_cpu.h"
#include "../kernel.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

namespace lkpi {

namespace {

constexpr u64 kTaskFlags = 44;
constexpr u32 kPfKthread = 0x00200000;
constexpr long kEnomem = 12, kEintr = 4;
} // namespace

int wake_task(u8 *task, unsigned mode); // sched.cpp

namespace {

struct KThread {
  mk::Kernel *kernel = nullptr;
  mk::KThreads::Thread *host = nullptr;
  u8 *area = nullptr;
  int (LKAPI *fn)(void *) = nullptr;
  void *data = nullptr;
  std::string name;
  std::atomic<bool> stop{false};
  std::atomic<bool> exited{false};
  int result = 0;
};

std::mutex g_mu;
std::vector<std::unique_ptr<KThread>> g_threads;
std::atomic<int> g_next_pid{1000};

u8 *task_of(KThread &t) { return t.area + kPcpuTask; }

thread_local KThread *t_self; // the kthread the calling thread runs

void run(void *arg) {
  auto *t = (KThread *)arg;
  t_self = t;
  mk::PerCpu::enter_thread_area(t->area);
  std::atomic<u32> *state = task_state(task_of(*t));
  for (u32 v; (v = state->load(std::memory_order_acquire)) != TASK_RUNNING &&
              !t->stop.load();)
    futex_wait(state, v);
  t->result = t->stop.load() ? -(int)kEintr : t->fn(t->data);
  mk::PerCpu::enter_thread_area(nullptr);
  t->exited.store(true, std::memory_order_release);
}

// Join and free the threads `pick` chooses; the rest stay.
template <class Pick> void reap(Pick pick) {
  std::vector<std::unique_ptr<KThread>> mine;
  {
    std::lock_guard g(g_mu);
    for (auto it = g_threads.begin(); it != g_threads.end();)
      if ((*it)->host && pick(**it)) {
        mine.push_back(std::move(*it));
        it = g_threads.erase(it);
      } else {
        ++it;
      }
  }
  for (auto &t : mine) {
    if (!t->exited.load()) {
      t->stop.store(true);
      futex_wake(task_state(task_of(*t)), INT_MAX);
    }
    t->kernel->kthreads().join(t->host);
    t->kernel->percpu().free_thread_area(t->area);
  }
}

} // namespace

void kthread_module_gone(u64 lo, u64 hi) {
  reap([&](const KThread &t) {
    const u64 fn = (u64)(uintptr_t)t.fn;
    return t.exited.load() || (fn >= lo && fn < hi);
  });
}

__attribute__((noinline)) u8 *
kthread_create_on_node(int (LKAPI *fn)(void *), void *data, int node,
                       const char *namefmt, ...) {
  reap([](const KThread &t) { return t.exited.load(); });
  mk::Kernel *k = mk::curkernel();
  if (!k || !fn || !namefmt)
    return (u8 *)(intptr_t)-kEnomem;
  va_list ap;
  va_start(ap, namefmt);
  std::string name = vformat(namefmt, ap);
  va_end(ap);
  auto area = k->percpu().alloc_thread_area();
  if (!area) {
    console_line(3, "kthread " + name + ": " + area.error().message + "\n");
    return (u8 *)(intptr_t)-kEnomem;
  }
  auto t = std::make_unique<KThread>();
  t->kernel = k;
  t->area = *area;
  t->fn = fn;
  t->data = data;
  t->name = name;
  const u8 *creator = mk::PerCpu::current();
  int cpu = 0;
  if (creator)
    std::memcpy(&cpu, creator + kPcpuCpuNumber, sizeof cpu);
  init_area(t->area, cpu, g_next_pid++, name.c_str());
  u8 *task = task_of(*t);
  std::memcpy(task + kTaskFlags, &kPfKthread, sizeof kPfKthread);
  task_state(task)->store(TASK_UNINTERRUPTIBLE);
  KThread *raw = t.get();
  std::lock_guard g(g_mu);
  auto host = k->kthreads().start(*k, run, raw, name);
  if (!host) {
    console_line(3, host.error().message + "\n");
    k->percpu().free_thread_area(raw->area);
    return (u8 *)(intptr_t)-kEnomem;
  }
  raw->host = *host;
  g_threads.push_back(std::move(t));
  return task;
}

// The thread asks whether kthread_stop() was called for it (false on a
// thread that is no kthread).
bool kthread_should_stop() { return t_self && t_self->stop.load(); }

// Tell the thread to stop, wake it, wait for it to end and reap it: its
// function's result, or -EINTR when it was never woken (it never ran).
int kthread_stop(u8 *task) {
  std::unique_ptr<KThread> t;
  {
    std::lock_guard g(g_mu);
    for (auto it = g_threads.begin(); it != g_threads.end(); ++it)
      if (task_of(**it) == task && (*it)->host) {
        t = std::move(*it);
        g_threads.erase(it);
        break;
      }
  }
  if (!t) {
    console_line(4, lformat("kthread_stop: %px is no kthread (or it ended and "
                            "was reaped)\n", task));
    return -(int)kEintr;
  }
  t->stop.store(true);
  wake_task(task, TASK_NORMAL);
  futex_wake(task_state(task), INT_MAX);
  t->kernel->kthreads().join(t->host);
  const int result = t->result;
  t->kernel->percpu().free_thread_area(t->area);
  return result;
}

LINUX_EXPORT(kthread_create_on_node);
LINUX_EXPORT(kthread_should_stop);
LINUX_EXPORT(kthread_stop);

} // namespace lkpi

#endif // __x86_64__
