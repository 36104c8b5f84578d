// Linux's per-CPU variables in the kernel's per-CPU areas (kern_percpu.h),
// set up in every area at boot: the stack canary module code reads at
// %gs:40 (i386: %fs:__stack_chk_guard), current_task (a zeroed fake task_struct per area, so inline
// code may write current->__state), __preempt_count, cpu_number,
// this_cpu_off; and the globals that index them (__per_cpu_offset[],
// nr_cpu_ids, the CPU masks).  Also the hook the loader calls as a Linux
// module goes.
#include "lkpi.h"

#include "../kern_linuxkpi_hook.h"
#include "../sysinit.h"

#include <cstring>
#include <memory>
#include <sys/random.h>

namespace lkpi {

constexpr unsigned kNrCpus = 8192; // CONFIG_NR_CPUS
struct cpumask {
  unsigned long bits[kNrCpus / (8 * sizeof(long))];
};

unsigned int nr_cpu_ids = 1;
unsigned long __per_cpu_offset[kNrCpus];
cpumask __cpu_possible_mask, __cpu_online_mask, __cpu_present_mask,
    __cpu_active_mask;

static_assert(kPcpuTask + kTaskSize <= mk::PerCpu::kStaticSize);

namespace {
// A thread without an area (one a test or a library started) still has a
// task to sleep and be woken as.
thread_local std::unique_ptr<u8[]> t_task;
} // namespace

u8 *current_task() {
  if (u8 *a = mk::PerCpu::current())
    return a + kPcpuTask;
  if (!t_task)
    t_task.reset(new u8[kTaskSize]());
  return t_task.get();
}

namespace {

template <class T> void put(u8 *area, u64 off, T v) {
  std::memcpy(area + off, &v, sizeof v);
}

// Linux's get_random_canary(): random, with a zero low byte so a string
// overflow cannot reproduce it.
unsigned long random_canary() {
  unsigned long c = 0;
  while ((c & ~0xfful) == 0)
    if (getrandom(&c, sizeof c, 0) != (ssize_t)sizeof c)
      c = (unsigned long)mk::now_ns() * 0x9e3779b97f4a7c15ull;
  return c & ~0xfful;
}

} // namespace

void init_area(u8 *a, int cpu, int pid, const char *comm) {
  put<unsigned long>(a, kPcpuCanary, random_canary());
  put<u8 *>(a, kPcpuCurrentTask, a + kPcpuTask);
  put<u32>(a, kPcpuPreemptCount, 0x80000000u); // PREEMPT_ENABLED
  put<int>(a, kPcpuCpuNumber, cpu);
  put<unsigned long>(a, kPcpuThisCpuOff, (unsigned long)(uintptr_t)a);
  u8 *task = a + kPcpuTask;
  put<int>(task, kTaskPid, pid);
  std::strncpy((char *)task + kTaskComm, comm, 15);
}

namespace {

void module_gone(u64 lo, u64 hi) {
  timers_module_gone(lo, hi);
  work_module_gone(lo, hi);
  rcu_module_gone(lo, hi);
#if defined(__x86_64__)
  kthread_module_gone(lo, hi);
  debugfs_module_gone(lo, hi);
  misc_module_gone(lo, hi);
  uaccess_module_gone(lo, hi);
#endif
}

// After init_cpus made the areas (the CPU threads run no module code yet,
// so their areas may still be written).
bool init_percpu(mk::Kernel &k) {
  mk::PerCpu &pc = k.percpu();
  const unsigned n = pc.count();
  for (unsigned i = 0; i < n; i++) {
    u8 *a = pc.area(i);
    init_area(a, (int)i, (int)i + 1,
              i + 1 == n ? "shell" : mk::strf("cpu%u", i).c_str());
    if (i < kNrCpus) {
      __per_cpu_offset[i] = (unsigned long)(uintptr_t)a;
      const unsigned long bit = 1ul << (i % (8 * sizeof(long)));
      for (cpumask *m : {&__cpu_possible_mask, &__cpu_online_mask,
                         &__cpu_present_mask, &__cpu_active_mask})
        m->bits[i / (8 * sizeof(long))] |= bit;
    }
  }
  nr_cpu_ids = n;
  mk::linux_module_gone = module_gone;
  return true;
}
SYSINIT(linuxkpi_percpu, SI_SUB_CPUS, 1, init_percpu);

} // namespace

#if defined(__x86_64__)
LINUX_EXPORT_PERCPU_GPL("fixed_percpu_data", kPcpuFixed);
#else
// i386 reads its canary from the per-CPU variable at %fs:__stack_chk_guard.
LINUX_EXPORT_PERCPU("__stack_chk_guard", kPcpuCanary);
#endif
LINUX_EXPORT_PERCPU("current_task", kPcpuCurrentTask);
LINUX_EXPORT_PERCPU("__preempt_count", kPcpuPreemptCount);
LINUX_EXPORT_PERCPU("cpu_number", kPcpuCpuNumber);
LINUX_EXPORT_PERCPU("this_cpu_off", kPcpuThisCpuOff);
LINUX_EXPORT(nr_cpu_ids);
LINUX_EXPORT(__per_cpu_offset);
LINUX_EXPORT(__cpu_possible_mask);
LINUX_EXPORT(__cpu_online_mask);
LINUX_EXPORT(__cpu_present_mask);
LINUX_EXPORT(__cpu_active_mask);

} // namespace lkpi
