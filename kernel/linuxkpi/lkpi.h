// What the Linux API's files share: Linux 6.1's layouts of the structures
// modules own (x86_64 and i386 under Debian's amd64 and 686 configs,
// measured with a probe module built by Debian's kbuild), the allocator,
// the per-CPU layout, the clock.
//
// Everything lives in namespace lkpi with Linux's names, so nothing here
// collides with the C library at link time (the export records carry the
// Linux name); functions whose Linux name is a C library name are lkpi_NAME
// and exported with LINUX_EXPORT_AS.
#pragma once

#include "../kernel.h"
#include "lkpi_export.h"

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace lkpi {

using mk::i64;
using mk::u16;
using mk::u32;
using mk::u64;
using mk::u8;

// The return address of the exported function that uses it: the module
// code that called, which pays for memory and names the culprit.  On i386
// the call came through an adapter (lkpi_export.h), which says where from.
#if defined(__i386__)
#define LKPI_CALLER()                                                          \
  ((lkpi::u64)(uintptr_t)(lkabi::t_caller ? lkabi::t_caller                    \
                                          : __builtin_return_address(0)))
#else
#define LKPI_CALLER() ((lkpi::u64)(uintptr_t)__builtin_return_address(0))
#endif

// ---- structures modules own ------------------------------------------------

struct list_head {
  list_head *next, *prev;
};
inline void list_init(list_head *l) { l->next = l->prev = l; }
inline bool list_empty(const list_head *l) { return l->next == l; }
inline void list_add_between(list_head *n, list_head *prev, list_head *next) {
  next->prev = n;
  n->next = next;
  n->prev = prev;
  prev->next = n;
}
inline void list_del_init(list_head *e) {
  e->next->prev = e->prev;
  e->prev->next = e->next;
  list_init(e);
}

struct hlist_node {
  hlist_node *next, **pprev;
};

struct callback_head {
  callback_head *next;
  void (LKAPI *func)(callback_head *);
};

struct timer_list {
  hlist_node entry; // pprev != null while pending (timer_pending())
  unsigned long expires;
  void (LKAPI *function)(timer_list *);
  u32 flags;
};

struct work_struct;
typedef void (LKAPI *work_func_t)(work_struct *);
struct work_struct {
  long data; // bit 0: pending (WORK_STRUCT_PENDING_BIT)
  list_head entry;
  work_func_t func;
};

struct workqueue_struct;
struct delayed_work {
  work_struct work;
  timer_list timer;
  workqueue_struct *wq;
  int cpu;
};

struct wait_queue_entry;
typedef int (LKAPI *wait_queue_func_t)(wait_queue_entry *, unsigned mode, int flags,
                                 void *key);
struct wait_queue_entry {
  unsigned flags;
  void *priv; // the task
  wait_queue_func_t func;
  list_head entry;
};
struct wait_queue_head {
  u32 lock; // spinlock_t
  list_head head;
};
struct swait_queue_head {
  u32 lock;
  list_head task_list;
};
struct completion {
  unsigned done;
  swait_queue_head wait;
};

// struct scatterlist: page_link is a struct page * with SG_CHAIN (the
// entry points at the next array) and SG_END in its low bits.
struct scatterlist {
  unsigned long page_link;
  u32 offset, length;
  u64 dma_address;
  u32 dma_length;
};
constexpr unsigned long kSgChain = 1, kSgEnd = 2, kSgFlags = 3;

// struct notifier_block, and a blocking notifier chain of them: by
// priority, highest first; called with no lock held (a block may well
// register another), until one answers with NOTIFY_STOP_MASK.
struct notifier_block {
  int (LKAPI *notifier_call)(notifier_block *, unsigned long, void *);
  notifier_block *next;
  int priority;
};
class NotifierChain {
public:
  int add(notifier_block *nb) {
    std::lock_guard g(mu_);
    notifier_block **at = &head_;
    while (*at && (*at)->priority >= nb->priority)
      at = &(*at)->next;
    nb->next = *at;
    *at = nb;
    return 0;
  }
  int remove(notifier_block *nb) { // -ENOENT when it is not there
    std::lock_guard g(mu_);
    for (notifier_block **at = &head_; *at; at = &(*at)->next)
      if (*at == nb) {
        *at = nb->next;
        return 0;
      }
    return -2;
  }
  void call(unsigned long msg, void *data) {
    std::vector<notifier_block *> nbs;
    {
      std::lock_guard g(mu_);
      for (notifier_block *nb = head_; nb; nb = nb->next)
        nbs.push_back(nb);
    }
    for (notifier_block *nb : nbs)
      if (nb->notifier_call(nb, msg, data) & 0x8000)
        break;
  }

private:
  std::mutex mu_;
  notifier_block *head_ = nullptr;
};

struct va_format {
  const char *fmt;
  va_list *va;
};

#if defined(__x86_64__)
static_assert(sizeof(timer_list) == 40);
static_assert(sizeof(work_struct) == 32);
static_assert(sizeof(delayed_work) == 88 && offsetof(delayed_work, cpu) == 80);
static_assert(sizeof(wait_queue_entry) == 40 && sizeof(wait_queue_head) == 24);
static_assert(sizeof(completion) == 32 && offsetof(completion, wait) == 8);
static_assert(sizeof(scatterlist) == 32);
#else // Debian's 686 config
static_assert(sizeof(timer_list) == 20);
static_assert(sizeof(work_struct) == 16);
static_assert(sizeof(delayed_work) == 44 && offsetof(delayed_work, cpu) == 40);
static_assert(sizeof(wait_queue_entry) == 20 && sizeof(wait_queue_head) == 12);
static_assert(sizeof(completion) == 16 && offsetof(completion, wait) == 4);
#endif

// gfp_t bits and task states the code reads.
constexpr unsigned kGfpZero = 0x100;
constexpr unsigned TASK_RUNNING = 0, TASK_INTERRUPTIBLE = 1,
                   TASK_UNINTERRUPTIBLE = 2, TASK_NORMAL = 3;
constexpr long MAX_SCHEDULE_TIMEOUT = __LONG_MAX__;
constexpr unsigned HZ = 250;

// ---- per-CPU areas ---------------------------------------------------------
// The first PerCpu::kStaticSize bytes of every area, as Linux code reaches
// them through %gs (%fs on i386).
constexpr u64 kPcpuFixed = 0; // fixed_percpu_data: canary at 40
constexpr u64 kPcpuCanary = 40; // i386: __stack_chk_guard
constexpr u64 kPcpuCurrentTask = 64;  // struct task_struct *
constexpr u64 kPcpuPreemptCount = 72; // int
constexpr u64 kPcpuCpuNumber = 76;    // int
constexpr u64 kPcpuThisCpuOff = 80;   // unsigned long: the area's address
constexpr u64 kPcpuTask = 4096;       // the CPU's fake task_struct
#if defined(__x86_64__)
constexpr u64 kTaskSize = 9792;       // sizeof(struct task_struct)
constexpr u64 kTaskState = 24;        // task_struct.__state (u32)
constexpr u64 kTaskPid = 0x970;
constexpr u64 kTaskComm = 0xba0; // char comm[16]
#else // Debian's 686 config
constexpr u64 kTaskSize = 6528;
constexpr u64 kTaskState = 16;
constexpr u64 kTaskPid = 0x454;
constexpr u64 kTaskComm = 0x584;
#endif

// Lay out the static part of per-CPU area `a` (a CPU's, the shell's or a
// kthread's): a fresh canary, its task as current_task, preemption
// enabled, `cpu` as cpu_number, its own address as this_cpu_off, and
// the task's pid and comm.
void init_area(u8 *a, int cpu, int pid, const char *comm);

// The calling thread's fake task (its per-CPU area's; a thread without
// an area has one of its own), and its __state word.
u8 *current_task();
inline std::atomic<u32> *task_state(u8 *task) {
  return reinterpret_cast<std::atomic<u32> *>(task + kTaskState);
}

// ---- memory ----------------------------------------------------------------

// A block of `size` bytes aligned to `align` (0: kmalloc's own rule),
// charged to the code at `caller`; zeroed under __GFP_ZERO.  kmalloc(0)
// is ZERO_SIZE_PTR, as in Linux.
void *alloc(size_t size, unsigned gfp, u64 caller, size_t align = 0);
void release(const void *p, u64 caller);
// The size `p` was allocated with.
size_t alloc_size(const void *p, u64 caller);
constexpr uintptr_t kZeroSizePtr = 16;

// struct page * of an address and back, as Linux code computes them
// inline (scatterlist.cpp), and what a scatterlist entry addresses.
u64 virt_to_page(const void *addr);
u8 *page_to_virt(u64 page);
u8 *sg_virt(const scatterlist *sg);
scatterlist *sg_next(scatterlist *sg);

// ---- time ------------------------------------------------------------------

// The jiffies count now, from the clock (what the jiffies variable holds,
// give or take one tick).
u64 jiffies_now();
inline u64 ms_to_jiffies(u64 ms) { return (ms * HZ + 999) / 1000; }
inline u64 jiffies_to_ms(u64 j) { return j * (1000 / HZ); }

// ---- futexes ---------------------------------------------------------------

// Block while *word == val, at most `ns` (-1: forever); false on timeout.
bool futex_wait(std::atomic<u32> *word, u32 val, i64 ns = -1);
void futex_wake(std::atomic<u32> *word, int n);

// ---- the kernel ------------------------------------------------------------

// "module`function+0x1a" of `pc` through the kernel's symbolizer, or
// "0x..." when there is none.
std::string symbolize(u64 pc);
// A message at console level `level` (0..7): levels below 7 to the
// console and dmesg, debug to dmesg only.
void console_line(int level, const std::string &line);
// Linux's vsnprintf into a std::string (printk.cpp).
std::string vformat(const char *fmt, va_list ap);
std::string lformat(const char *fmt, ...);
// What %pS ('S'), %ps ('s') or %pB ('B') prints for `pc`, appended to `o`.
void symbol(std::string &o, uintptr_t pc, char how);

// Pieces of lkpi_module_gone, in the files that own them.
void timers_module_gone(u64 lo, u64 hi);
void work_module_gone(u64 lo, u64 hi);
void rcu_module_gone(u64 lo, u64 hi);
void debugfs_module_gone(u64 lo, u64 hi);
void uaccess_module_gone(u64 lo, u64 hi);
void misc_module_gone(u64 lo, u64 hi);
void kthread_module_gone(u64 lo, u64 hi);

} // namespace lkpi
