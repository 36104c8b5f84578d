// The Linux kernel API (kernel/linuxkpi/), called from C++ the way a
// Linux module's code calls it: each function is found by its Linux name
// in linux_export_set, so the export table is tested with it.
#include "kernel_support.h"

#include "../../kernel/export.h"
#include "../../kernel/kern_linux.h"
#include "../../kernel/kern_linuxkpi_hook.h"

#include <lz4.h>

#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using namespace mkt;
using mk::u32;
using mk::u64;
using mk::u8;

namespace {

const linux_export *find_export(const char *name) {
  const linux_export *const *it;
  SET_FOREACH(it, linux_export_set) {
    if (!std::strcmp((*it)->le_name, name))
      return *it;
  }
  return nullptr;
}

// A pointer to T as Linux code holds one: a function's with Linux's
// calling convention (LKAPI: regparm(3) on i386), unless it is variadic.
template <class T> struct LinuxPtr {
  using type = T *;
};
template <class R, class... A> struct LinuxPtr<R(A...)> {
  using type = R(LKAPI *)(A...);
};
template <class R, class... A> struct LinuxPtr<R(A..., ...)> {
  using type = R (*)(A..., ...);
};

// The export `name`, as a `T *` (a function pointer or a variable).
template <class T> typename LinuxPtr<T>::type lx(const char *name) {
  const linux_export *e = find_export(name);
  REQUIRE_MESSAGE(e != nullptr, name);
  return (typename LinuxPtr<T>::type)(uintptr_t)e->le_addr;
}

// A booted one-CPU kernel: the Linux API's per-kernel state (timers,
// workqueues, per-CPU areas) lives with it.
struct Booted {
  ModuleDir dir;
  mk::Kernel k{kernel_options(dir.path())};
  Booted() { REQUIRE(k.boot()); }
};

std::string fmt(const char *f, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, f);
  lx<int(char *, size_t, const char *, va_list)>("vsnprintf")(buf, sizeof buf,
                                                              f, ap);
  va_end(ap);
  return buf;
}

// Linux's list_head, work_struct, timer_list ... as a module lays them out.
struct list_head {
  list_head *next, *prev;
};
struct timer_list {
  void *next, **pprev;
  unsigned long expires;
  void (LKAPI *function)(timer_list *);
  u32 flags;
};
struct work_struct {
  long data;
  list_head entry;
  void (LKAPI *func)(work_struct *);
};
struct delayed_work {
  work_struct work;
  timer_list timer;
  void *wq;
  int cpu;
};
// Linux 6.1's: the wait queue head (a lock, then a list) is 8-aligned,
// at offset 8.
struct completion {
  unsigned done;
  struct {
    u32 lock;
    list_head task_list;
  } wait;
};
#if defined(__x86_64__)
static_assert(sizeof(completion) == 32 && offsetof(completion, wait) == 8);
#endif

void init_completion(completion *c) {
  c->done = 0;
  lx<void(void *, const char *, void *)>("__init_swait_queue_head")(
      &c->wait, "c", nullptr);
}
void INIT_WORK(work_struct *w, void (LKAPI *fn)(work_struct *)) {
  w->data = (long)(~0ul << 5); // WORK_DATA_INIT(): no pool, not pending
  w->entry.next = w->entry.prev = &w->entry;
  w->func = fn;
}
void INIT_DELAYED_WORK(delayed_work *d, void (LKAPI *fn)(work_struct *)) {
  INIT_WORK(&d->work, fn);
  lx<void(timer_list *, void *, unsigned, const char *, void *)>(
      "init_timer_key")(&d->timer, lx<void>("delayed_work_timer_fn"), 0x200000,
                        nullptr, nullptr);
}
bool work_pending(work_struct *w) { return w->data & 1; }
unsigned long jiffies() { return *lx<volatile unsigned long>("jiffies"); }

} // namespace

// ---- printing
// ----------------------------------------------------------------

TEST_CASE("linuxkpi: vsnprintf's integer and string conversions") {
  CHECK(fmt("%d|%5s|%-4d|%04x|%#x|%llu|%zu|%c|%%", -3, "ab", 7, 0xbe, 255,
            18446744073709551615ull, (size_t)42,
            'z') == "-3|   ab|7   |00be|0xff|18446744073709551615|42|z|%");
  CHECK(fmt("%hhd %hu %ld %.3s %s", 0x1ff, 0x12345, -5L, "abcdef",
            (char *)nullptr) == "-1 9029 -5 abc (null)");
  char small[5];
  CHECK(lx<int(char *, size_t, const char *, ...)>("snprintf")(
            small, sizeof small, "%s", "overflow") == 8);
  CHECK(std::string(small) == "over");
  CHECK(lx<int(char *, size_t, const char *, ...)>("scnprintf")(
            small, sizeof small, "%s", "overflow") == 4);
}

TEST_CASE("linuxkpi: %p prints a hash; %px the address; NULL and errors as "
          "they are") {
  int x;
  const std::string h = fmt("%p", (void *)&x);
  CHECK(h.size() == 2 * sizeof(void *));
  CHECK(h == fmt("%p", (void *)&x));  // stable
  CHECK(h != fmt("%px", (void *)&x)); // but not the address
  CHECK(fmt("%pK", (void *)&x) == h); // kptr_restrict 0: %pK is %p
  CHECK(fmt("%px", (void *)0x1234) ==
        (sizeof(void *) == 8 ? "0000000000001234" : "00001234"));
  CHECK(fmt("%p", (void *)nullptr) == std::string(2 * sizeof(void *), '0'));
  CHECK(fmt("%pe", (void *)(intptr_t)-12) == "-ENOMEM");
  CHECK(fmt("%pe", (void *)(intptr_t)-517) == "-EPROBE_DEFER");
}

TEST_CASE("linuxkpi: %p extensions for buffers, addresses and nesting") {
  const u8 b[] = {0xde, 0xad, 0xbe, 0xef, 0x00, 0x01};
  CHECK(fmt("%*ph", 4, b) == "de ad be ef");
  CHECK(fmt("%*phN", 4, b) == "deadbeef");
  CHECK(fmt("%*phC", 3, b) == "de:ad:be");
  CHECK(fmt("%pM", b) == "de:ad:be:ef:00:01");
  CHECK(fmt("%pMR", b) == "01:00:ef:be:ad:de");
  const u8 ip[] = {192, 168, 0, 1};
  CHECK(fmt("%pI4", ip) == "192.168.0.1");
  CHECK(fmt("%pi4", ip) == "192.168.000.001");
  const u8 uuid[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                       0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  CHECK(fmt("%pU", uuid) == "12345678-9abc-def0-0123-456789abcdef");
  CHECK(fmt("%pUl", uuid) == "78563412-bc9a-f0de-0123-456789abcdef");
  unsigned long bits[1] = {0x2f}; // 0-3,5
  CHECK(fmt("%*pbl", 8, bits) == "0-3,5");
  CHECK(fmt("%*pb", 8, bits) == "2f");
  // %pV: a format and its arguments, printed in place.
  struct {
    const char *fmt;
    va_list *va;
  } vf;
  auto nested = [&](const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    vf = {f, &ap};
    std::string s = fmt("<%pV>", &vf);
    va_end(ap);
    return s;
  };
  CHECK(nested("%s=%d", "x", 3) == "<x=3>");
}

TEST_CASE(
    "linuxkpi: %pS and %ps name the function through the kernel's symbolizer") {
  Booted b;
  void *fn = lx<void>("kmalloc_trace");
  const std::string s = fmt("%pS", fn), n = fmt("%ps", fn);
  CHECK(n.find("kmalloc_trace") != std::string::npos);
  CHECK(s.find("kmalloc_trace+0x0") != std::string::npos);
  CHECK(s.find('[') == std::string::npos); // the kernel's own: no [module]
  CHECK(fmt("%pS", (void *)0x10) == "0x10");
}

TEST_CASE(
    "linuxkpi: _printk's messages go to dmesg one line each, pr_cont joins") {
  Booted b;
  auto printk = lx<int(const char *, ...)>("_printk");
  printk("\0016hello %d\n", 5);
  printk("\0013part one");
  printk("\001c and two\n");
  printk("\0017debug only\n");
  const std::string d = b.k.console().dmesg();
  CHECK(d.find("hello 5\n") != std::string::npos);
  CHECK(d.find("part one and two\n") != std::string::npos);
  CHECK(d.find("debug only\n") != std::string::npos);
  CHECK(d.find("\001") == std::string::npos);
}

// ---- memory
// ------------------------------------------------------------------

TEST_CASE("linuxkpi: kmalloc and kfree are charged to the caller and honour "
          "__GFP_ZERO") {
  Booted b;
  mk::MallocStats *ks = b.k.kernel_mstats();
  const long before = ks->inuse;
  auto kmalloc_trace = lx<void *(void *, unsigned, size_t)>("kmalloc_trace");
  auto kfree = lx<void(const void *)>("kfree");
  void **caches = lx<void *>("kmalloc_caches");
  CHECK(caches[6] != nullptr); // kmalloc_caches[KMALLOC_NORMAL][6]: 64 bytes
  auto *p = (u8 *)kmalloc_trace(caches[6], 0xcc0 | 0x100, 64);
  REQUIRE(p);
  CHECK(ks->inuse == before + 1);
  CHECK((uintptr_t)p % 64 == 0); // a power-of-two size is aligned to it
  CHECK(memchr(p, 1, 64) == nullptr);
  CHECK(lx<size_t(const void *)>("ksize")(p) >= 64);
  kfree(p);
  CHECK(ks->inuse == before);
  // kmalloc(0) is ZERO_SIZE_PTR, which kfree takes, as it takes NULL.
  void *z = lx<void *(size_t, unsigned)>("__kmalloc")(0, 0xcc0);
  CHECK((uintptr_t)z == 16);
  kfree(z);
  kfree(nullptr);
  CHECK(ks->inuse == before);
}

TEST_CASE("linuxkpi: krealloc, kstrdup, kmemdup, vmalloc and pages") {
  Booted b;
  auto kfree = lx<void(const void *)>("kfree");
  auto *s = lx<char *(const char *, unsigned)>("kstrdup")("hello", 0xcc0);
  REQUIRE(s);
  s = (char *)lx<void *(const void *, size_t, unsigned)>("krealloc")(s, 4096,
                                                                     0xcc0);
  CHECK(std::string(s) == "hello");
  kfree(s);
  auto *d = (char *)lx<void *(const void *, size_t, unsigned)>("kmemdup")(
      "abc", 4, 0xcc0);
  CHECK(std::string(d) == "abc");
  kfree(d);
  auto *n = lx<char *(const char *, size_t, unsigned)>("kstrndup")("abcdef", 3,
                                                                   0xcc0);
  CHECK(std::string(n) == "abc");
  lx<void(const void *)>("kfree_const")(n);
  auto *v = (u8 *)lx<void *(unsigned long)>("vzalloc")(100000);
  CHECK(v[99999] == 0);
  lx<void(const void *)>("vfree")(v);
  unsigned long pg =
      lx<unsigned long(unsigned, unsigned)>("__get_free_pages")(0xcc0, 1);
  CHECK(pg % 4096 == 0);
  lx<void(unsigned long, unsigned)>("free_pages")(pg, 1);
  CHECK(b.k.kernel_mstats()->inuse >= 0);
}

namespace {
int g_ctor_calls;
LKAPI void count_ctor(void *p) {
  g_ctor_calls++;
  std::memset(p, 0x5a, 8);
}
} // namespace

TEST_CASE("linuxkpi: kmem caches align, construct, and refuse to die with live "
          "objects") {
  Booted b;
  auto create =
      lx<void *(const char *, unsigned, unsigned, unsigned, void (LKAPI *)(void *))>(
          "kmem_cache_create");
  auto alloc = lx<void *(void *, unsigned)>("kmem_cache_alloc");
  auto cfree = lx<void(void *, void *)>("kmem_cache_free");
  auto destroy = lx<void(void *)>("kmem_cache_destroy");
  g_ctor_calls = 0;
  void *c = create("lkpi_test", 40, 128, 0, count_ctor);
  REQUIRE(c);
  CHECK(lx<unsigned(void *)>("kmem_cache_size")(c) == 40);
  auto *o = (u8 *)alloc(c, 0xcc0);
  CHECK((uintptr_t)o % 128 == 0);
  CHECK(g_ctor_calls == 1);
  CHECK(o[0] == 0x5a);
  destroy(c); // still has an object: a warning, and the cache stays
  CHECK(b.k.console().dmesg().find(
            "kmem_cache_destroy lkpi_test: Slab cache still has objects") !=
        std::string::npos);
  cfree(c, o);
  destroy(c);
}

// ---- strings
// -----------------------------------------------------------------

TEST_CASE("linuxkpi: strings with Linux's semantics") {
  char buf[8];
  auto strscpy = lx<long(char *, const char *, size_t)>("strscpy");
  CHECK(strscpy(buf, "abc", sizeof buf) == 3);
  CHECK(strscpy(buf, "abcdefghij", sizeof buf) == -7); // -E2BIG
  CHECK(std::string(buf) == "abcdefg");
  char t[] = "  padded \n";
  CHECK(std::string(lx<char *(char *)>("strim")(t)) == "padded");
  auto streq = lx<bool(const char *, const char *)>("sysfs_streq");
  CHECK(streq("on\n", "on"));
  CHECK(!streq("on\n\n", "on"));
  const u8 z[4] = {0, 0, 0, 7};
  CHECK(lx<void *(const void *, int, size_t)>("memchr_inv")(z, 0, 4) == z + 3);
  u8 bin[2];
  CHECK(lx<int(u8 *, const char *, size_t)>("hex2bin")(bin, "a5F0", 2) == 0);
  CHECK((bin[0] == 0xa5 && bin[1] == 0xf0));
  CHECK(lx<int(u8 *, const char *, size_t)>("hex2bin")(bin, "zz", 1) == -22);
  const unsigned char *ctype = lx<const unsigned char>("_ctype");
  CHECK((ctype[(u8)'7'] & 0x04));         // _D
  CHECK((ctype[(u8)'f'] & 0x42) == 0x42); // _L | _X
  CHECK((ctype[(u8)' '] & 0xa0) == 0xa0); // _S | _SP
}

TEST_CASE("linuxkpi: kstrto* parse as Linux does") {
  int i;
  auto kstrtoint = lx<int(const char *, unsigned, int *)>("kstrtoint");
  CHECK(kstrtoint("-42\n", 10, &i) == 0);
  CHECK(i == -42);
  CHECK(kstrtoint("0x1f", 0, &i) == 0);
  CHECK(i == 31);
  CHECK(kstrtoint("010", 0, &i) == 0);
  CHECK(i == 8);
  CHECK(kstrtoint("12abc", 10, &i) == -22);
  CHECK(kstrtoint("", 10, &i) == -22);
  CHECK(kstrtoint("4294967296", 10, &i) == -34);
  u8 u;
  CHECK(lx<int(const char *, unsigned, u8 *)>("kstrtou8")("256", 10, &u) ==
        -34);
  unsigned long long ull;
  CHECK(lx<int(const char *, unsigned, unsigned long long *)>("kstrtoull")(
            "18446744073709551615", 10, &ull) == 0);
  CHECK(ull == ~0ull);
  bool v;
  auto kstrtobool = lx<int(const char *, bool *)>("kstrtobool");
  CHECK((kstrtobool("Y", &v) == 0 && v));
  CHECK((kstrtobool("0", &v) == 0 && !v));
  CHECK((kstrtobool("on", &v) == 0 && v));
  CHECK(kstrtobool("x", &v) == -22);
  char *end;
  CHECK(lx<unsigned long(const char *, char **, unsigned)>("simple_strtoul")(
            "0x10zz", &end, 0) == 16);
  CHECK(std::string(end) == "zz");
}

TEST_CASE("linuxkpi: list debugging reports corruption with Linux's message") {
  Booted b;
  list_head a{&a, &a}, n{};
  list_head bogus{};
  auto add_valid =
      lx<bool(list_head *, list_head *, list_head *)>("__list_add_valid");
  CHECK(add_valid(&n, &a, &a));
  CHECK(!add_valid(&n, &a, &bogus)); // bogus.prev is not &a
  CHECK(b.k.console().dmesg().find("list_add corruption. next->prev should be "
                                   "prev") != std::string::npos);
  list_head x{&x, &x};
  CHECK(lx<bool(list_head *)>("__list_del_entry_valid")(&x));
  list_head poisoned{
      (list_head *)(uintptr_t)(0xdead000000000100ull & UINTPTR_MAX), &x};
  CHECK(!lx<bool(list_head *)>("__list_del_entry_valid")(&poisoned));
  CHECK(b.k.console().dmesg().find("is LIST_POISON1") != std::string::npos);
}

// ---- locks, completions, wait queues
// -------------------------------------------

TEST_CASE("linuxkpi: a mutex and a spinlock in the module's own 32 and 4 bytes "
          "exclude each other") {
  alignas(8) u8 mutex[32] = {};
  lx<void(void *, const char *, void *)>("__mutex_init")(mutex, "m", nullptr);
  auto lock = lx<void(void *)>("mutex_lock");
  auto unlock = lx<void(void *)>("mutex_unlock");
  auto trylock = lx<int(void *)>("mutex_trylock");
  auto is_locked = lx<bool(void *)>("mutex_is_locked");
  alignas(4) u32 spin = 0;
  auto slock = lx<void(u32 *)>("_raw_spin_lock");
  auto sunlock = lx<void(u32 *)>("_raw_spin_unlock");
  long counter = 0, scounter = 0;
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; t++)
    ts.emplace_back([&] {
      for (int i = 0; i < 20000; i++) {
        lock(mutex);
        counter++;
        unlock(mutex);
        slock(&spin);
        scounter++;
        sunlock(&spin);
      }
    });
  for (auto &t : ts)
    t.join();
  CHECK(counter == 80000);
  CHECK(scounter == 80000);
  lock(mutex);
  CHECK(is_locked(mutex));
  std::thread([&] { CHECK(trylock(mutex) == 0); }).join();
  unlock(mutex);
  CHECK(!is_locked(mutex));
  CHECK(trylock(mutex) == 1);
  unlock(mutex);
}

namespace {
completion g_done;
void complete_from_callout(void *) {
  lx<void(completion *)>("complete")(&g_done);
}
} // namespace

TEST_CASE(
    "linuxkpi: a completion signalled from a CPU callout wakes its waiter") {
  Booted b;
  init_completion(&g_done);
  auto timeout = lx<unsigned long(completion *, unsigned long)>(
      "wait_for_completion_timeout");
  CHECK(timeout(&g_done, 1) == 0); // nobody completes it
  struct callout c;
  b.k.cpus().callout_init(&c);
  b.k.cpus().callout_reset(&c, 0, complete_from_callout, nullptr);
  lx<void(completion *)>("wait_for_completion")(&g_done);
  b.k.cpus().callout_drain(&c);
  CHECK(g_done.done == 0); // the one completion was taken
  lx<void(completion *)>("complete_all")(&g_done);
  CHECK(timeout(&g_done, 1) >= 1);
  CHECK(lx<bool(completion *)>("try_wait_for_completion")(&g_done));
  CHECK(lx<bool(completion *)>("completion_done")(&g_done));
}

TEST_CASE("linuxkpi: wait_event's protocol: prepare, test, schedule, woken by "
          "__wake_up") {
  struct {
    u32 lock;
    list_head head;
  } wq;
  lx<void(void *, const char *, void *)>("__init_waitqueue_head")(&wq, "wq",
                                                                  nullptr);
  std::atomic<bool> cond{false};
  std::atomic<int> woke{0};
  std::thread waiter([&] {
    struct {
      unsigned flags;
      void *priv;
      void *func;
      list_head entry;
    } e;
    lx<void(void *, int)>("init_wait_entry")(&e, 0);
    auto prepare = lx<long(void *, void *, int)>("prepare_to_wait_event");
    for (;;) {
      prepare(&wq, &e, 2 /* TASK_UNINTERRUPTIBLE */);
      if (cond)
        break;
      lx<void()>("schedule")();
    }
    lx<void(void *, void *)>("finish_wait")(&wq, &e);
    woke = 1;
  });
  cond = true;
  lx<void(void *, unsigned, int, void *)>("__wake_up")(&wq, 3, 1, nullptr);
  waiter.join();
  CHECK(woke == 1);
  CHECK(wq.head.next == &wq.head); // the entry took itself off
}

// ---- workqueues, timers, jiffies
// ---------------------------------------------------

namespace {
std::atomic<int> g_work_runs;
std::atomic<int> g_work_area;
completion g_work_done;
LKAPI void count_work(work_struct *) {
  g_work_area = mk::PerCpu::current_index();
  g_work_runs++;
  lx<void(completion *)>("complete")(&g_work_done);
}
} // namespace

TEST_CASE("linuxkpi: work runs on a CPU thread; cancel_work_sync takes back a "
          "pending one") {
  Booted b;
  init_completion(&g_work_done);
  g_work_runs = 0;
  g_work_area = -1;
  auto queue = lx<bool(int, void *, work_struct *)>("queue_work_on");
  void *system_wq = *lx<void *>("system_wq");
  work_struct w;
  INIT_WORK(&w, count_work);
  CHECK(queue(8192, system_wq, &w));
  lx<void(completion *)>("wait_for_completion")(&g_work_done);
  lx<bool(work_struct *)>("flush_work")(&w);
  CHECK(g_work_runs == 1);
  CHECK(g_work_area == 0); // CPU 0's area, not the shell's (1)
  CHECK(!work_pending(&w));

  // A delayed work far in the future is pending until cancelled.
  delayed_work d;
  INIT_DELAYED_WORK(&d, count_work);
  CHECK(lx<bool(int, void *, delayed_work *, unsigned long)>(
      "queue_delayed_work_on")(8192, system_wq, &d, 100000));
  CHECK(work_pending(&d.work));
  CHECK(d.timer.pprev != nullptr); // timer_pending()
  CHECK(lx<bool(delayed_work *)>("cancel_delayed_work_sync")(&d));
  CHECK(!work_pending(&d.work));
  CHECK(d.timer.pprev == nullptr);
  CHECK(!lx<bool(work_struct *)>("cancel_work_sync")(&d.work));
  CHECK(g_work_runs == 1);
}

TEST_CASE("linuxkpi: alloc_workqueue, a delayed work through its timer, "
          "destroy_workqueue") {
  Booted b;
  init_completion(&g_work_done);
  g_work_runs = 0;
  void *wq = lx<void *(const char *, unsigned, int, ...)>("alloc_workqueue")(
      "lkpi_%d", 0, 0, 7);
  REQUIRE(wq);
  delayed_work d;
  INIT_DELAYED_WORK(&d, count_work);
  CHECK(lx<bool(int, void *, delayed_work *, unsigned long)>(
      "queue_delayed_work_on")(8192, wq, &d, 1));
  lx<void(completion *)>("wait_for_completion")(&g_work_done);
  lx<void(void *)>("__flush_workqueue")(wq);
  CHECK(g_work_runs == 1);
  lx<void(void *)>("destroy_workqueue")(wq);
}

namespace {
completion g_timer_done;
std::atomic<int> g_timer_area;
LKAPI void timer_fn(timer_list *) {
  g_timer_area = mk::PerCpu::current_index();
  lx<void(completion *)>("complete")(&g_timer_done);
}
LKAPI void never_fn(timer_list *) {}
} // namespace

TEST_CASE("linuxkpi: timers fire on a CPU thread; timer_delete_sync disarms") {
  Booted b;
  init_completion(&g_timer_done);
  auto init = lx<void(timer_list *, void (LKAPI *)(timer_list *), unsigned,
                      const char *, void *)>("init_timer_key");
  auto mod = lx<int(timer_list *, unsigned long)>("mod_timer");
  timer_list t;
  init(&t, timer_fn, 0, nullptr, nullptr);
  CHECK(t.pprev == nullptr);
  CHECK(mod(&t, jiffies() + 1) == 0);
  lx<void(completion *)>("wait_for_completion")(&g_timer_done);
  CHECK(g_timer_area == 0);
  CHECK(t.pprev == nullptr); // ran: no longer pending

  timer_list late;
  init(&late, never_fn, 0, nullptr, nullptr);
  mod(&late, jiffies() + 100000);
  CHECK(late.pprev != nullptr);
  CHECK(mod(&late, jiffies() + 200000) == 1); // it was pending
  CHECK(lx<int(timer_list *)>("timer_delete_sync")(&late) == 1);
  CHECK(late.pprev == nullptr);
  CHECK(lx<int(timer_list *)>("timer_delete")(&late) == 0);
}

TEST_CASE(
    "linuxkpi: jiffies advances while the kernel runs; conversions at HZ=250") {
  Booted b;
  const unsigned long j0 = jiffies();
  for (int i = 0; i < 10000 && jiffies() == j0; i++)
    lx<void(unsigned)>("msleep")(1);
  CHECK(jiffies() != j0);
  CHECK(lx<unsigned long(unsigned)>("__msecs_to_jiffies")(10) == 3);
  CHECK(lx<unsigned(unsigned long)>("jiffies_to_msecs")(250) == 1000);
  CHECK(lx<unsigned(unsigned long)>("jiffies_to_usecs")(1) == 4000);
  CHECK(lx<long long()>("ktime_get")() > 0);
}

TEST_CASE("linuxkpi: a module going takes its timers and work with it") {
  Booted b;
  REQUIRE(mk::linux_module_gone);
  auto init = lx<void(timer_list *, void (LKAPI *)(timer_list *), unsigned,
                      const char *, void *)>("init_timer_key");
  timer_list t;
  init(&t, never_fn, 0, nullptr, nullptr);
  lx<int(timer_list *, unsigned long)>("mod_timer")(&t, jiffies() + 100000);
  delayed_work d;
  INIT_DELAYED_WORK(&d, count_work);
  lx<bool(int, void *, delayed_work *, unsigned long)>("queue_delayed_work_on")(
      8192, *lx<void *>("system_wq"), &d, 100000);
  // "The module" is never_fn's and count_work's code.
  mk::linux_module_gone((u64)(uintptr_t)&never_fn,
                        (u64)(uintptr_t)&never_fn + 1);
  CHECK(t.pprev == nullptr);
  CHECK(d.timer.pprev != nullptr);
  mk::linux_module_gone((u64)(uintptr_t)&count_work,
                        (u64)(uintptr_t)&count_work + 1);
  CHECK(d.timer.pprev == nullptr);
}

// ---- RCU
// ---------------------------------------------------------------------------

namespace {
std::atomic<int> g_rcu_calls;
LKAPI void rcu_cb(void *) { g_rcu_calls++; }
} // namespace

TEST_CASE("linuxkpi: call_rcu's callback has run after rcu_barrier") {
  g_rcu_calls = 0;
  struct {
    void *next, *func;
  } head;
  lx<void()>("__rcu_read_lock")();
  lx<void()>("__rcu_read_unlock")();
  lx<void(void *, void (LKAPI *)(void *))>("call_rcu")(&head, rcu_cb);
  lx<void()>("rcu_barrier")();
  CHECK(g_rcu_calls == 1);
  lx<void()>("synchronize_rcu")();
}

// ---- library functions
// ------------------------------------------------------------

TEST_CASE(
    "linuxkpi: xxh32/xxh64 one-shot and streaming agree with the reference") {
  auto xxh64 = lx<u64(const void *, size_t, u64)>("xxh64");
  auto xxh32 = lx<u32(const void *, size_t, u32)>("xxh32");
  CHECK(xxh64("", 0, 0) == 0xEF46DB3751D8E999ull);
  CHECK(xxh32("", 0, 0) == 0x02CC5D05u);
  u8 data[1000];
  for (int i = 0; i < 1000; i++)
    data[i] = (u8)(i * 131 + 7);
  alignas(8) u8 st64[80], st32[44];
  for (size_t len : {0, 3, 31, 32, 33, 100, 1000}) {
    lx<void(void *, u64)>("xxh64_reset")(st64, 42);
    lx<void(void *, u32)>("xxh32_reset")(st32, 42);
    for (size_t at = 0, step = 1; at < len; at += step, step = step * 2 + 1) {
      const size_t n = std::min(step, len - at);
      lx<int(void *, const void *, size_t)>("xxh64_update")(st64, data + at, n);
      lx<int(void *, const void *, size_t)>("xxh32_update")(st32, data + at, n);
    }
    CHECK(lx<u64(const void *)>("xxh64_digest")(st64) == xxh64(data, len, 42));
    CHECK(lx<u32(const void *)>("xxh32_digest")(st32) == xxh32(data, len, 42));
  }
}

TEST_CASE("linuxkpi: the CRC32 family's check values") {
  const u8 *s = (const u8 *)"123456789";
  CHECK((lx<u32(u32, const u8 *, size_t)>("crc32_le")(~0u, s, 9) ^ ~0u) ==
        0xCBF43926u);
  CHECK((lx<u32(u32, const u8 *, size_t)>("__crc32c_le")(~0u, s, 9) ^ ~0u) ==
        0xE3069283u);
  CHECK((lx<u32(u32, const u8 *, size_t)>("crc32_be")(~0u, s, 9) ^ ~0u) ==
        0xFC891918u);
}

TEST_CASE(
    "linuxkpi: chacha_block_generic matches RFC 7539's block test vector") {
  // Section 2.3.2: key 00..1f, counter 1, nonce 00:00:00:09:00:00:00:4a:00..
  u32 state[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (int i = 0; i < 8; i++)
    state[4 + i] = (u32)(4 * i) | (u32)(4 * i + 1) << 8 |
                   (u32)(4 * i + 2) << 16 | (u32)(4 * i + 3) << 24;
  state[12] = 1;
  state[13] = 0x09000000;
  state[14] = 0x4a000000;
  state[15] = 0;
  u8 out[64];
  lx<void(u32 *, u8 *, int)>("chacha_block_generic")(state, out, 20);
  const u8 want[16] = {0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15,
                       0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20, 0x71, 0xc4};
  CHECK(std::memcmp(out, want, 16) == 0);
  CHECK(out[63] == 0x4e); // the block's last byte
  CHECK(state[12] == 2);
}

TEST_CASE("linuxkpi: LZ4_decompress_safe undoes liblz4's compression") {
  std::string in;
  for (int i = 0; i < 200; i++)
    in += "minikern loads Linux modules " + std::to_string(i % 7);
  std::vector<char> c(LZ4_compressBound((int)in.size()));
  const int cn =
      LZ4_compress_default(in.data(), c.data(), (int)in.size(), (int)c.size());
  REQUIRE(cn > 0);
  std::vector<char> out(in.size());
  auto safe = lx<int(const char *, char *, int, int)>("LZ4_decompress_safe");
  CHECK(safe(c.data(), out.data(), cn, (int)out.size()) == (int)in.size());
  CHECK(std::string(out.data(), out.size()) == in);
  CHECK(safe(c.data(), out.data(), cn, 10) < 0); // does not fit
  std::fill(out.begin(), out.end(), 0);
  CHECK(lx<int(const char *, char *, int)>("LZ4_decompress_fast")(
            c.data(), out.data(), (int)in.size()) == cn);
  CHECK(std::string(out.data(), out.size()) == in);
}

#if defined(__x86_64__)
namespace {
int g_zstd_allocs;
LKAPI void *zstd_alloc(void *opaque, size_t size) {
  g_zstd_allocs++;
  return static_cast<u8 *>(opaque);
}
} // namespace

TEST_CASE(
    "linuxkpi: zstd's common part: entropy readers, errors, custom memory") {
  short norm[256];
  unsigned max_symbol = 255, table_log;
  const u8 garbage[1] = {0xff};
  const size_t r =
      lx<size_t(short *, unsigned *, unsigned *, const void *, size_t)>(
          "FSE_readNCount")(norm, &max_symbol, &table_log, garbage,
                            sizeof garbage);
  CHECK(lx<unsigned(size_t)>("ZSTD_isError")(r));
  CHECK(std::string(lx<const char *(size_t)>("ZSTD_getErrorName")(r)) !=
        "No error detected");
  CHECK(!lx<unsigned(size_t)>("ZSTD_isError")(0));
  struct {
    void *(LKAPI *alloc)(void *, size_t);
    void (LKAPI *free)(void *, void *);
    void *opaque;
  } mem{zstd_alloc, nullptr, nullptr};
  alignas(8) u8 arena[16];
  std::memset(arena, 0xee, sizeof arena);
  mem.opaque = arena;
  g_zstd_allocs = 0;
  auto *p =
      (u8 *)lx<void *(size_t, decltype(mem))>("ZSTD_customCalloc")(16, mem);
  CHECK(p == arena);
  CHECK(g_zstd_allocs == 1);
  CHECK(p[15] == 0);
  mem.alloc = nullptr; // Linux has no default allocator here
  CHECK(lx<void *(size_t, decltype(mem))>("ZSTD_customMalloc")(16, mem) ==
        nullptr);
}
#endif

namespace {
LKAPI int int_cmp(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}
} // namespace

TEST_CASE("linuxkpi: sort, bsearch and hex dumps") {
  int v[] = {5, 3, 9, 1, 7, 3};
  int (LKAPI *cmp)(const void *, const void *) = int_cmp;
  lx<void(void *, size_t, size_t, int (LKAPI *)(const void *, const void *), void *)>(
      "sort")(v, 6, sizeof(int), cmp, nullptr);
  CHECK((v[0] == 1 && v[1] == 3 && v[2] == 3 && v[3] == 5 && v[4] == 7 &&
         v[5] == 9));
  int key = 7;
  CHECK(lx<void *(const void *, const void *, size_t, size_t,
                  int (LKAPI *)(const void *, const void *))>("bsearch")(
            &key, v, 6, sizeof(int), cmp) == &v[4]);
  char line[200];
  const u8 b[] = {'A', 'B', 0, 0xff};
  CHECK(lx<int(const void *, size_t, int, int, char *, size_t, bool)>(
            "hex_dump_to_buffer")(b, 4, 16, 1, line, sizeof line, true) > 0);
  CHECK(std::string(line) == "41 42 00 ff" + std::string(38, ' ') + "AB..");
  lx<int(const void *, size_t, int, int, char *, size_t, bool)>(
      "hex_dump_to_buffer")(b, 4, 16, 4, line, sizeof line, false);
  CHECK(std::string(line) == "ff004241");
  CHECK(lx<unsigned long(const void *, const void *, size_t)>(
            "__crypto_memneq")("abc", "abd", 3) != 0);
  u8 r[8] = {};
  lx<void(void *, size_t)>("get_random_bytes")(r, sizeof r);
  CHECK(lx<void *(const void *, int, size_t)>("memchr_inv")(r, 0, 8) !=
        nullptr);
}

// ---- module parameters
// ------------------------------------------------------------

namespace {
struct kernel_param_ops {
  unsigned flags;
  int (LKAPI *set)(const char *, const void *);
  int (LKAPI *get)(char *, const void *);
  void (LKAPI *free)(void *);
};
struct kernel_param {
  const char *name;
  void *mod;
  const kernel_param_ops *ops;
  unsigned short perm;
  signed char level;
  u8 flags;
  void *arg;
};
std::string get(const kernel_param &kp) {
  char buf[4096];
  int n = kp.ops->get(buf, &kp);
  return std::string(buf, n > 0 ? (size_t)n : 0);
}
} // namespace

TEST_CASE("linuxkpi: param_ops set and get as kernel/params.c does") {
  Booted b;
  int i = 0;
  kernel_param kp{"n", nullptr, lx<kernel_param_ops>("param_ops_int"), 0644, -1,
                  0,   &i};
  CHECK(kp.ops->set("0x10", &kp) == 0);
  CHECK(i == 16);
  CHECK(get(kp) == "16\n");
  CHECK(kp.ops->set("nope", &kp) == -22);

  bool flag = false;
  kernel_param kb{
      "f", nullptr, lx<kernel_param_ops>("param_ops_bool"), 0644, -1, 0, &flag};
  CHECK(kb.ops->set("Y", &kb) == 0);
  CHECK(flag);
  CHECK(get(kb) == "Y\n");
  CHECK(kb.ops->set(nullptr, &kb) == 0); // a bare "f": true
  CHECK(kb.ops->set("n", &kb) == 0);
  CHECK(!flag);
  kernel_param ki{"g",  nullptr, lx<kernel_param_ops>("param_ops_invbool"),
                  0644, -1,      0,
                  &flag};
  CHECK(ki.ops->set("1", &ki) == 0);
  CHECK(!flag);
  CHECK(get(ki) == "Y\n");

  // charp: copied, so the caller's string may go; freed by ops->free.
  const long before = b.k.kernel_mstats()->inuse;
  const char *initial = "default";
  char *s = (char *)initial;
  kernel_param kc{
      "s", nullptr, lx<kernel_param_ops>("param_ops_charp"), 0644, -1, 0, &s};
  std::string value = "from insmod";
  CHECK(kc.ops->set(value.c_str(), &kc) == 0);
  value = "changed";
  CHECK(std::string(s) == "from insmod");
  CHECK(get(kc) == "from insmod\n");
  CHECK(kc.ops->set("again", &kc) == 0); // the first copy is freed
  kc.ops->free(&s);
  CHECK(b.k.kernel_mstats()->inuse == before);

  // An array of ints: *num counts what was given.
  int arr[4] = {};
  unsigned num = 0;
  struct {
    unsigned max, elemsize;
    unsigned *num;
    const kernel_param_ops *ops;
    void *elem;
  } ka{4, sizeof(int), &num, lx<kernel_param_ops>("param_ops_int"), arr};
  kernel_param kr{
      "a", nullptr, lx<kernel_param_ops>("param_array_ops"), 0644, -1, 0, &ka};
  CHECK(kr.ops->set("1,2,3", &kr) == 0);
  CHECK(num == 3);
  CHECK(arr[2] == 3);
  CHECK(get(kr) == "1,2,3\n");
  CHECK(kr.ops->set("1,2,3,4,5", &kr) == -22);

  // string: into the module's buffer, refused when too long.
  char sbuf[4];
  struct {
    unsigned maxlen;
    char *string;
  } ks{sizeof sbuf, sbuf};
  kernel_param kstr{
      "b", nullptr, lx<kernel_param_ops>("param_ops_string"), 0644, -1, 0, &ks};
  CHECK(kstr.ops->set("abc", &kstr) == 0);
  CHECK(get(kstr) == "abc\n");
  CHECK(kstr.ops->set("abcd", &kstr) == -28);
}

// ---- per-CPU areas
// ----------------------------------------------------------------

// Linux's per-CPU segment: %gs on x86_64, %fs on i386.
#if defined(__x86_64__)
#define PCPU_SEG "%%gs:"
#else
#define PCPU_SEG "%%fs:"
#endif
namespace {
struct GsView {
  unsigned long canary;
  void *current;
  int cpu;
  unsigned long this_cpu_off;
};
GsView read_gs() {
  GsView v;
  asm volatile("mov " PCPU_SEG "40, %0" : "=r"(v.canary));
  asm volatile("mov " PCPU_SEG "64, %0" : "=r"(v.current));
  asm volatile("movl " PCPU_SEG "76, %0" : "=r"(v.cpu));
  asm volatile("mov " PCPU_SEG "80, %0" : "=r"(v.this_cpu_off));
  return v;
}
GsView g_cpu_view;
completion g_gs_done;
void read_gs_on_cpu(void *) {
  g_cpu_view = read_gs();
  lx<void(completion *)>("complete")(&g_gs_done);
}
} // namespace

TEST_CASE("linuxkpi: %gs (i386: %fs) holds the canary, current_task and "
          "cpu_number on the shell and a CPU") {
  Booted b;
  const GsView shell = read_gs();
  CHECK(shell.canary != 0);
  CHECK((shell.canary & 0xff) == 0);
  CHECK(shell.cpu == 1); // one CPU: the shell's area is the second
  CHECK(shell.this_cpu_off == (unsigned long)(uintptr_t)b.k.percpu().area(1));
  CHECK((u8 *)shell.current == b.k.percpu().area(1) + 4096);
  // task_struct.comm: at 0xba0 on x86_64, 0x584 under the 686 config.
  CHECK(std::string((char *)shell.current +
                    (sizeof(void *) == 8 ? 0xba0 : 0x584)) == "shell");

  init_completion(&g_gs_done);
  struct callout c;
  b.k.cpus().callout_init(&c);
  b.k.cpus().callout_reset(&c, 0, read_gs_on_cpu, nullptr);
  lx<void(completion *)>("wait_for_completion")(&g_gs_done);
  b.k.cpus().callout_drain(&c);
  CHECK(g_cpu_view.cpu == 0);
  CHECK(g_cpu_view.canary != 0);
  CHECK(g_cpu_view.canary != shell.canary);
  CHECK((u8 *)g_cpu_view.current == b.k.percpu().area(0) + 4096);

  // A held spinlock counts in __preempt_count, as in_atomic() reads it.
  auto preempt = [] {
    u32 v;
    asm volatile("movl " PCPU_SEG "72, %0" : "=r"(v));
    return v;
  };
  CHECK(preempt() == 0x80000000u); // PREEMPT_ENABLED
  u32 lock = 0;
  lx<void(u32 *)>("_raw_spin_lock_bh")(&lock);
  CHECK(preempt() == 0x80000201u);
  lx<void(u32 *)>("_raw_spin_unlock_bh")(&lock);
  CHECK(preempt() == 0x80000000u);

  CHECK(*lx<unsigned>("nr_cpu_ids") == 2);
  auto *offs = lx<unsigned long>("__per_cpu_offset");
  CHECK(offs[0] == (unsigned long)(uintptr_t)b.k.percpu().area(0));
  const linux_export *e = find_export("current_task");
  CHECK((e->le_flags & LE_PERCPU));
  CHECK((uintptr_t)e->le_addr == 64);
#if defined(__i386__)
  e = find_export("__stack_chk_guard"); // %fs:__stack_chk_guard
  CHECK((e->le_flags & LE_PERCPU));
  CHECK((uintptr_t)e->le_addr == 40);
#endif
}

TEST_CASE("linuxkpi: functions take Linux's calling convention (i386: "
          "regparm(3), through adapters), variadic ones and data as they "
          "are") {
  const bool i386 = sizeof(void *) == 4;
  for (const char *fn : {"memcpy", "kmalloc_trace", "queue_work_on",
                         "static_key_enable", "param_set_int"})
    CHECK_MESSAGE(((find_export(fn)->le_flags & LE_REGPARM) != 0) == i386, fn);
  for (const char *other : {"_printk", "snprintf", "jiffies", "param_ops_int"})
    CHECK_MESSAGE((find_export(other)->le_flags & LE_REGPARM) == 0, other);
  // Called as Linux's code calls them (lx: through regparm(3) pointers
  // on i386): the three arguments arrive.
  char buf[16];
  auto cpy = lx<size_t(char *, const char *, size_t)>("strlcpy");
  CHECK(cpy(buf, "regparm", sizeof buf) == 7);
  CHECK(std::string(buf) == "regparm");
  auto hex = lx<char *(char *, const void *, size_t)>("bin2hex");
  const u8 in[] = {0xde, 0xad};
  *hex(buf, in, 2) = 0;
  CHECK(std::string(buf) == "dead");
}

// ---- the export table
// -------------------------------------------------------------

TEST_CASE("linuxkpi: every export is GPL-only exactly when Linux 6.1's is") {
  std::ifstream in(mk::linux_symvers_path());
  if (!in) {
    MESSAGE("no Module.symvers: skipped");
    return;
  }
  std::map<std::string, bool> gpl; // vmlinux's exports
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string crc, name, where, kind;
    std::getline(f, crc, '\t');
    std::getline(f, name, '\t');
    std::getline(f, where, '\t');
    std::getline(f, kind, '\t');
    if (where == "vmlinux")
      gpl[name] = kind == "EXPORT_SYMBOL_GPL";
  }
  int n = 0;
  const linux_export *const *it;
  SET_FOREACH(it, linux_export_set) {
    auto g = gpl.find((*it)->le_name);
    CHECK_MESSAGE(g != gpl.end(),
                  (std::string((*it)->le_name) + " is not a vmlinux export"));
    if (g != gpl.end())
      CHECK_MESSAGE(g->second == (((*it)->le_flags & LE_GPL) != 0),
                    (*it)->le_name);
    n++;
  }
  CHECK(n > 300);
}

TEST_CASE("linuxkpi: seq_file output fills the reader's buffer, then marks "
          "it full") {
  struct {
    char *buf;
    size_t size, from, count;
    u8 rest[128];
  } m{};
  char buf[16];
  m.buf = buf, m.size = sizeof buf;
  lx<void(void *, const char *, ...)>("seq_printf")(&m, "%s=%d", "hits", 42);
  lx<void(void *, char)>("seq_putc")(&m, ',');
  lx<void(void *, const char *)>("seq_puts")(&m, "ok");
  CHECK(m.count == 10);
  CHECK(std::string(buf, m.count) == "hits=42,ok");
  CHECK(lx<int(void *, const void *, size_t)>("seq_write")(&m, "abcde", 5) == 0);
  CHECK(m.count == 15);
  // 15 of 16 bytes: one more character fits; anything longer overflows.
  lx<void(void *, const char *, ...)>("seq_printf")(&m, "%d", 12);
  CHECK(m.count == m.size);
  m.count = 15;
  CHECK(lx<int(void *, const void *, size_t)>("seq_write")(&m, "x", 1) == -1);
  CHECK(m.count == m.size);
  m.count = 15;
  lx<void(void *, char)>("seq_putc")(&m, '!');
  CHECK(m.count == 16);
  CHECK(buf[15] == '!');
}

// ---- registration tables
// -------------------------------------------------------------

#if defined(__x86_64__)
TEST_CASE(
    "linuxkpi: crypto algorithms and text search ops register once by name") {
  alignas(8) u8 alg[384] = {}, twin[384] = {};
  std::strcpy((char *)alg + 56, "crc32");   // cra_name
  std::strcpy((char *)twin + 184, "crc32"); // cra_driver_name
  auto reg = lx<int(void *)>("crypto_register_alg");
  auto unreg = lx<void(void *)>("crypto_unregister_alg");
  CHECK(reg(alg) == 0);
  CHECK(std::string((char *)alg + 184) == "crc32"); // named after cra_name
  CHECK(reg(twin) == -17);                          // -EEXIST
  unreg(alg);
  CHECK(reg(twin) == 0);
  unreg(twin);
  alignas(8) u8 shashes[2][480] = {};
  std::strcpy((char *)shashes[0] + 96 + 56, "sha384");
  std::strcpy((char *)shashes[1] + 96 + 56, "sha384"); // a duplicate
  for (auto &sh : shashes) { // init, update, final: any function will do
    void *fn = (void *)&std::abort;
    for (int i = 0; i < 3; i++)
      std::memcpy(sh + 8 * i, &fn, 8);
  }
  CHECK(lx<int(void *)>("crypto_register_shash")(shashes[1]) == 0);
  lx<void(void *)>("crypto_unregister_shash")(shashes[1]);
  u8 none[480] = {}; // no update function: refused
  std::strcpy((char *)none + 96 + 56, "none");
  CHECK(lx<int(void *)>("crypto_register_shash")(none) == -22);
  CHECK(lx<int(void *, int)>("crypto_register_shashes")(shashes, 2) == -17);
  CHECK(lx<int(void *, int)>("crypto_register_shashes")(shashes, 1) == 0);
  lx<void(void *, int)>("crypto_unregister_shashes")(shashes, 1);

  struct {
    const char *name;
    void *rest[8];
  } ops{"kmp", {}};
  CHECK(lx<int(void *)>("textsearch_register")(&ops) == 0);
  CHECK(lx<int(void *)>("textsearch_register")(&ops) == -17);
  CHECK(lx<int(void *)>("textsearch_unregister")(&ops) == 0);
  CHECK(lx<int(void *)>("textsearch_unregister")(&ops) == -2);
}

namespace {
// A provider of "sum8" (the sum of the bytes, in a u64 in its desc),
// with Linux 6.1's struct shash_alg layout: the crypto API's front end
// must call it as Linux's does.
struct FakeShash {
  int (LKAPI *init)(void *), (LKAPI *update)(void *, const u8 *, unsigned),
      (LKAPI *final)(void *, u8 *);
  void *finup = nullptr, *digest = nullptr, *export_ = nullptr,
       *import_ = nullptr;
  int (LKAPI *setkey)(void *, const u8 *, unsigned) = nullptr;
  int (LKAPI *init_tfm)(void *) = nullptr;
  void (LKAPI *exit_tfm)(void *) = nullptr;
  unsigned descsize = 8;
  unsigned digestsize alignas(8) = 8;
  unsigned statesize = 0;
  u8 base[384] = {};
};
static_assert(offsetof(FakeShash, base) == 96 && sizeof(FakeShash) == 480);
int g_misaligned = 0, g_exits = 0, g_notified = 0;
u64 &sum_of(void *desc) { return *(u64 *)((u8 *)desc + 8); }
LKAPI int sum_init(void *desc) { return sum_of(desc) = 0; }
LKAPI int sum_update(void *desc, const u8 *p, unsigned n) {
  g_misaligned += (uintptr_t)p % 4 != 0; // its alignmask is 3
  while (n--)
    sum_of(desc) += *p++;
  return 0;
}
LKAPI int sum_final(void *desc, u8 *out) {
  g_misaligned += (uintptr_t)out % 4 != 0;
  std::memcpy(out, &sum_of(desc), 8);
  return 0;
}
LKAPI int sum_setkey(void *, const u8 *, unsigned len) { return len == 4 ? 0 : -22; }
LKAPI void sum_exit(void *) { g_exits++; }
struct Notifier {
  int (LKAPI *call)(Notifier *, unsigned long, void *);
  Notifier *next;
  int priority;
};
LKAPI int on_crypto(Notifier *, unsigned long msg, void *alg) {
  if (msg == 2 && std::string((char *)alg + 56) == "sum8") // ALG_LOADED
    g_notified++;
  return 0;
}
} // namespace

TEST_CASE("linuxkpi: the crypto API's shash front end runs the provider "
          "a tfm names, aligned as it asks") {
  Booted b;
  FakeShash lo, hi;
  for (FakeShash *a : {&lo, &hi}) {
    a->init = sum_init, a->update = sum_update, a->final = sum_final;
    a->exit_tfm = sum_exit;
    std::strcpy((char *)a->base + 56, "sum8");
    *(u32 *)(a->base + 44) = 3; // cra_alignmask
  }
  std::strcpy((char *)lo.base + 184, "sum8-generic");
  std::strcpy((char *)hi.base + 184, "sum8-fast");
  *(int *)(lo.base + 48) = 100, *(int *)(hi.base + 48) = 200; // priority
  hi.setkey = sum_setkey;
  Notifier nb{on_crypto, nullptr, 0};
  CHECK(lx<int(void *)>("crypto_register_notifier")(&nb) == 0);
  auto reg = lx<int(void *)>("crypto_register_shash");
  auto unreg = lx<void(void *)>("crypto_unregister_shash");
  REQUIRE(reg(&lo) == 0);
  REQUIRE(reg(&hi) == 0);
  CHECK(g_notified == 2);
  CHECK(lx<int(void *)>("crypto_unregister_notifier")(&nb) == 0);
  CHECK(lx<int(void *)>("crypto_unregister_notifier")(&nb) == -2);
  CHECK((lo.finup && lo.digest && lo.export_ && lo.import_ && lo.setkey));
  CHECK(lo.statesize == 8);

  auto alloc = lx<void *(const char *, u32, u32)>("crypto_alloc_shash");
  auto destroy = lx<void(void *, void *)>("crypto_destroy_tfm");
  auto tfm_digest = lx<int(void *, const u8 *, unsigned, u8 *)>(
      "crypto_shash_tfm_digest");
  auto setkey = lx<int(void *, const u8 *, unsigned)>("crypto_shash_setkey");
  CHECK((intptr_t)alloc("sum9", 0, 0) == -2);
  CHECK(lx<int(const char *, u32, u32)>("crypto_has_shash")("sum8", 0, 0) == 1);

  // By algorithm name: the highest priority, which needs a key first.
  void *fast = alloc("sum8", 0, 0);
  REQUIRE((uintptr_t)fast < (uintptr_t)-4095);
  CHECK(*(u8 **)((u8 *)fast + 8 + 24) == hi.base); // tfm->__crt_alg
  alignas(8) u8 data[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  alignas(8) u8 out[16] = {};
  CHECK(tfm_digest(fast, data, 10, out) == -126); // -ENOKEY
  CHECK(setkey(fast, data + 1, 3) == -22);
  CHECK(setkey(fast, data + 1, 4) == 0);
  g_misaligned = 0;
  CHECK(tfm_digest(fast, data + 1, 9, out + 1) == 0); // both misaligned
  CHECK(g_misaligned == 0);
  u64 sum;
  std::memcpy(&sum, out + 1, 8);
  CHECK(sum == 54);

  // By driver name: that one; in pieces through a desc of its own.
  void *slow = alloc("sum8-generic", 0, 0);
  REQUIRE((uintptr_t)slow < (uintptr_t)-4095);
  CHECK(*(u8 **)((u8 *)slow + 8 + 24) == lo.base);
  alignas(8) u8 desc[16] = {};
  std::memcpy(desc, &slow, 8);
  CHECK(sum_init(desc) == 0);
  auto update = lx<int(void *, const u8 *, unsigned)>("crypto_shash_update");
  auto finup = lx<int(void *, const u8 *, unsigned, u8 *)>("crypto_shash_finup");
  CHECK(update(desc, data + 3, 2) == 0); // 4 + 5
  CHECK(finup(desc, data, 1, out) == 0); // + 1
  std::memcpy(&sum, out, 8);
  CHECK(sum == 10);
  CHECK(g_misaligned == 0);
  destroy(slow, (u8 *)slow + 8);
  destroy(fast, (u8 *)fast + 8);
  CHECK(g_exits == 2);
  unreg(&hi);
  unreg(&lo);
  CHECK((intptr_t)alloc("sum8", 0, 0) == -2);
}

namespace {
// A provider of "xor8" (each 8-byte block XORed with its key byte and
// the IV's first byte, which counts the blocks done), with Linux 6.1's
// struct skcipher_alg layout, walking requests as Linux's providers do.
struct FakeSkcipher {
  int (LKAPI *setkey)(u8 *, const u8 *, unsigned);
  int (LKAPI *encrypt)(u8 *), (LKAPI *decrypt)(u8 *);
  void *init = nullptr, *exit = nullptr;
  unsigned min_keysize = 1, max_keysize = 1, ivsize = 8, chunksize = 0,
           walksize = 0;
  u8 base[384] alignas(8) = {};
};
static_assert(offsetof(FakeSkcipher, base) == 64 && sizeof(FakeSkcipher) == 448);
int g_xor_steps = 0, g_xor_unaligned = 0, g_xor_leave = -1;
u8 &xor_key(u8 *tfm) { return tfm[8 + 32]; } // the context after crypto_tfm
LKAPI int xor_setkey(u8 *tfm, const u8 *key, unsigned) {
  xor_key(tfm) = key[0];
  return 0;
}
LKAPI int xor_crypt(u8 *req) {
  u8 *tfm = *(u8 **)(req + 32 + 32) - 8; // req->base.tfm
  alignas(8) u8 walk[152];
  auto walk_virt = lx<int(u8 *, u8 *, bool)>("skcipher_walk_virt");
  auto walk_done = lx<int(u8 *, int)>("skcipher_walk_done");
  int err = walk_virt(walk, req, false);
  unsigned n;
  while ((n = *(unsigned *)(walk + 48))) { // walk.nbytes
    u8 *src = *(u8 **)(walk + 8), *dst = *(u8 **)(walk + 24);
    u8 *iv = *(u8 **)(walk + 120);
    g_xor_steps++;
    g_xor_unaligned += ((uintptr_t)src | (uintptr_t)dst | (uintptr_t)iv) % 8 != 0;
    const unsigned whole = n / 8 * 8;
    for (unsigned i = 0; i < whole; i++)
      dst[i] = src[i] ^ xor_key(tfm) ^ iv[0];
    iv[0]++;
    err = walk_done(walk, g_xor_leave >= 0 ? g_xor_leave : (int)(n - whole));
  }
  return err;
}
// scatterlist entries as sg_set_buf() makes them: vmemmap_base's struct
// page of the address.
void set_buf(u8 *sg, const void *buf, unsigned len) {
  const u64 page = *lx<u64>("vmemmap_base") + ((uintptr_t)buf >> 12) * 64;
  *(u64 *)sg = page | (*(u64 *)sg & 3);
  *(u32 *)(sg + 8) = (u32)((uintptr_t)buf & 4095);
  *(u32 *)(sg + 12) = len;
}
} // namespace

namespace {
u64 g_attr = 7;
LKAPI int attr_get(void *data, u64 *v) { return *v = *(u64 *)data, 0; }
LKAPI int attr_set(void *data, u64 v) { return v > 100 ? -34 : (*(u64 *)data = v, 0); }
LKAPI int attr_open(u8 *inode, u8 *file) { // DEFINE_DEBUGFS_ATTRIBUTE's open
  return lx<int(u8 *, u8 *, void *, void *, const char *)>("simple_attr_open")(
      inode, file, (void *)attr_get, (void *)attr_set, "%llu\n");
}
} // namespace

TEST_CASE("linuxkpi: a debugfs file is a sysctl that runs the module's "
          "file operations") {
  Booted b;
  void *fops[18] = {}; // struct file_operations: read 2, write 3, open 14, release 16
  fops[2] = lx<void>("simple_attr_read");
  fops[3] = lx<void>("simple_attr_write");
  fops[14] = (void *)attr_open;
  fops[16] = lx<void>("simple_attr_release");
  auto mkdir = lx<void *(const char *, void *)>("debugfs_create_dir");
  auto mkfile = lx<void *(const char *, unsigned, void *, void *, void *)>(
      "debugfs_create_file");
  void *dir = mkdir("unit", nullptr);
  REQUIRE((uintptr_t)dir < (uintptr_t)-4095);
  void *file = mkfile("value", 0644, dir, &g_attr, fops);
  REQUIRE((uintptr_t)file < (uintptr_t)-4095);
  CHECK((intptr_t)mkfile("value", 0644, dir, &g_attr, fops) == -17); // -EEXIST
  CHECK((intptr_t)mkfile("x", 0644, file, &g_attr, fops) == -20);    // -ENOTDIR
  auto node = b.k.sysctl().find("debug.unit.value");
  REQUIRE(node);
  CHECK(node->get() == "7");
  CHECK(b.k.sysctl().write("debug.unit.value", "42"));
  CHECK(g_attr == 42);
  auto r = b.k.sysctl().write("debug.unit.value", "1000"); // the module says -ERANGE
  CHECK_FALSE(r);
  CHECK(g_attr == 42);
  // A read-only file takes no writes.
  mkfile("ro", 0444, dir, &g_attr, fops);
  CHECK_FALSE(b.k.sysctl().write("debug.unit.ro", "1"));
  // debugfs_remove() takes the directory and what is in it.
  lx<void(void *)>("debugfs_remove")(dir);
  CHECK_FALSE(b.k.sysctl().find("debug.unit.value"));
  CHECK_FALSE(b.k.sysctl().find("debug.unit.ro"));
  // What a module leaves goes with it (its fops in its image).
  dir = mkdir("left", nullptr);
  mkfile("value", 0644, dir, &g_attr, fops);
  REQUIRE(b.k.sysctl().find("debug.left.value"));
  mk::linux_module_gone((u64)(uintptr_t)fops, (u64)(uintptr_t)(fops + 18));
  CHECK_FALSE(b.k.sysctl().find("debug.left.value"));
  lx<void(void *)>("debugfs_remove")(dir); // made by other code: it stays
}

TEST_CASE("linuxkpi: the user-access helpers reach only vm_mmap'd memory "
          "and keep every register Linux's keep") {
  Booted b;
  auto mmap_ = lx<unsigned long(void *, unsigned long, unsigned long,
                                unsigned long, unsigned long, unsigned long)>("vm_mmap");
  const unsigned long user = mmap_(nullptr, 0, 4096, 3, 0x22, 0); // RW, private|anon
  REQUIRE(user < (unsigned long)-4095);
  CHECK((long)mmap_((void *)1, 0, 4096, 3, 0x22, 0) == -22); // a file: refused
  alignas(8) u8 kernel_buf[16] = {1, 2, 3, 4, 5, 6, 7, 8};
  *(u64 *)user = 0x1122334455667788;
  // __get_user_8: address in %rax; error in %rax, value in %rdx; the rest kept.
  auto get8 = lx<void>("__get_user_8");
  for (u64 addr : {(u64)user, (u64)(uintptr_t)kernel_buf}) {
    register u64 rax asm("rax") = addr;
    register u64 rdx asm("rdx") = 0xdd;
    register u64 rcx asm("rcx") = 0xc1, rsi asm("rsi") = 0x51, rdi asm("rdi") = 0xd1;
    register u64 r8 asm("r8") = 8, r9 asm("r9") = 9, r10 asm("r10") = 10, r11 asm("r11") = 11;
    asm volatile("sub $128, %%rsp\ncall *%[fn]\nadd $128, %%rsp"
                 : "+r"(rax), "+r"(rdx), "+r"(rcx), "+r"(rsi), "+r"(rdi), "+r"(r8),
                   "+r"(r9), "+r"(r10), "+r"(r11)
                 : [fn] "m"(get8)
                 : "memory", "cc");
    // (Register variables are read here only, before any call.)
    const u64 o[9] = {rax, rdx, rcx, rsi, rdi, r8, r9, r10, r11};
    const bool is_user = addr == user;
    CHECK(o[0] == (is_user ? 0 : (u64)-14));
    CHECK(o[1] == (is_user ? 0x1122334455667788ull : 0));
    CHECK((o[2] == 0xc1 && o[3] == 0x51 && o[4] == 0xd1 && o[5] == 8 && o[6] == 9 &&
           o[7] == 10 && o[8] == 11));
  }
  // __put_user_4: the value in %rax, the address in %rcx; error in %ecx.
  auto put4 = lx<void>("__put_user_4");
  for (u64 addr : {(u64)user + 8, (u64)(uintptr_t)kernel_buf}) {
    register u64 rax asm("rax") = 0xabcdef01;
    register u64 rcx asm("rcx") = addr;
    register u64 rdx asm("rdx") = 0xdd, rsi asm("rsi") = 0x51, rdi asm("rdi") = 0xd1;
    register u64 r8 asm("r8") = 8, r11 asm("r11") = 11;
    asm volatile("sub $128, %%rsp\ncall *%[fn]\nadd $128, %%rsp"
                 : "+r"(rax), "+r"(rcx), "+r"(rdx), "+r"(rsi), "+r"(rdi), "+r"(r8), "+r"(r11)
                 : [fn] "m"(put4)
                 : "memory", "cc", "rbx", "r9", "r10");
    const u64 o[7] = {rax, rcx, rdx, rsi, rdi, r8, r11};
    CHECK((u32)o[1] == (addr == user + 8 ? 0u : (u32)-14));
    CHECK((o[0] == 0xabcdef01 && o[2] == 0xdd && o[3] == 0x51 && o[4] == 0xd1 &&
           o[5] == 8 && o[6] == 11));
  }
  CHECK(*(u32 *)(user + 8) == 0xabcdef01);
  CHECK(kernel_buf[0] == 1); // not written
  // clear_user_rep_good: %rdi and %rcx in, the bytes left in %rcx.
  auto clear = lx<void>("clear_user_rep_good");
  {
    register u64 rdi asm("rdi") = user + 4090; // 6 bytes of user memory left
    register u64 rcx asm("rcx") = 16;
    register u64 rax asm("rax") = 0, rdx asm("rdx") = 0xdd, rsi asm("rsi") = 0x51;
    *(u8 *)(user + 4095) = 0xff;
    asm volatile("sub $128, %%rsp\ncall *%[fn]\nadd $128, %%rsp"
                 : "+r"(rdi), "+r"(rcx), "+r"(rax), "+r"(rdx), "+r"(rsi)
                 : [fn] "m"(clear)
                 : "memory", "cc", "r8", "r9", "r10", "r11");
    const u64 o[5] = {rdi, rcx, rax, rdx, rsi};
    CHECK(o[1] == 10);
    CHECK(o[0] == user + 4096);
    CHECK((o[2] == 0 && o[3] == 0xdd && o[4] == 0x51));
    CHECK(*(u8 *)(user + 4095) == 0);
  }
  // copy_from_user: the bytes not copied, the destination's tail zeroed.
  u8 dst[32];
  std::memset(dst, 0xee, sizeof dst);
  CHECK(lx<unsigned long(void *, const void *, unsigned long)>("_copy_from_user")(
            dst, (void *)(user + 4096 - 8), 32) == 24);
  CHECK(dst[8] == 0);
  CHECK(dst[31] == 0);
  CHECK(lx<int(unsigned long, size_t)>("vm_munmap")((unsigned long)(uintptr_t)kernel_buf, 16) == -22);
  CHECK(lx<int(unsigned long, size_t)>("vm_munmap")(user, 4096) == 0);
  CHECK(lx<unsigned long(void *, const void *, unsigned long)>("_copy_to_user")(
            (void *)user, dst, 8) == 8); // no longer user memory
}

TEST_CASE("linuxkpi: ___ratelimit lets `burst` messages through per "
          "interval") {
  Booted b;
  struct {
    u32 lock;
    int interval, burst, printed, missed;
    unsigned long begin, flags;
  } rs{0, 250 * 60, 2, 0, 0, 0, 0}; // DEFINE_RATELIMIT_STATE(rs, 60 * HZ, 2)
  auto ratelimit = lx<int(void *, const char *)>("___ratelimit");
  CHECK(ratelimit(&rs, "f") == 1);
  CHECK(ratelimit(&rs, "f") == 1);
  CHECK(ratelimit(&rs, "f") == 0);
  CHECK(rs.missed == 1);
  rs.lock = 1; // contended: suppressed, as Linux's trylock
  CHECK(ratelimit(&rs, "f") == 0);
  rs.lock = 0;
  rs.interval = 0; // no limit
  CHECK(ratelimit(&rs, "f") == 1);
}

TEST_CASE("linuxkpi: akcipher and kpp providers register with Linux's "
          "defaults; the default rng is the host's, made at first use") {
  Booted b;
  // struct akcipher_alg: sign, verify, encrypt, decrypt, set_pub_key,
  // set_priv_key, max_size, init, exit, reqsize, then the crypto_alg at 80.
  alignas(8) u8 ak[464] = {};
  void *fn = (void *)&std::abort;
  std::memcpy(ak + 32, &fn, 8); // set_pub_key
  std::strcpy((char *)ak + 80 + 56, "sig8");
  auto reg_ak = lx<int(void *)>("crypto_register_akcipher");
  CHECK(reg_ak(ak) == -22); // no max_size
  std::memcpy(ak + 48, &fn, 8);
  REQUIRE(reg_ak(ak) == 0);
  for (int op = 0; op < 4; op++) { // what it left out says -ENOSYS
    int (LKAPI *f)(void *);
    std::memcpy(&f, ak + 8 * op, 8);
    REQUIRE((void *)f != nullptr);
    CHECK(f(nullptr) == -38);
  }
  u8 *tfm = lx<u8 *(const char *, u32, u32)>("crypto_alloc_akcipher")("sig8", 0, 0);
  REQUIRE((uintptr_t)tfm < (uintptr_t)-4095);
  CHECK(*(u8 **)(tfm + 24) == ak + 80); // the bare crypto_tfm's __crt_alg
  CHECK((intptr_t)lx<void *(const char *, u32, u32)>("crypto_alloc_kpp")(
            "sig8", 0, 0) == -2); // another type
  lx<void(void *, void *)>("crypto_destroy_tfm")(tfm, tfm);
  lx<void(void *)>("crypto_unregister_akcipher")(ak);
  alignas(8) u8 kpp[440] = {};
  std::strcpy((char *)kpp + 56 + 56, "dh8");
  CHECK(lx<int(void *)>("crypto_register_kpp")(kpp) == -22); // no functions

  u8 **def = lx<u8 *>("crypto_default_rng");
  CHECK(*def == nullptr);
  REQUIRE(lx<int()>("crypto_get_default_rng")() == 0);
  REQUIRE(*def != nullptr);
  CHECK(std::string((char *)*(u8 **)(*def + 24) + 184) == "getrandom");
  // crypto_rng_get_bytes(): the alg's generate, as the inline one calls it.
  u8 *alg = *(u8 **)(*def + 24) - 32;
  int (LKAPI *generate)(u8 *, const u8 *, unsigned, u8 *, unsigned);
  std::memcpy(&generate, alg, 8);
  u8 r1[32] = {}, r2[32] = {};
  CHECK(generate(*def, nullptr, 0, r1, 32) == 0);
  CHECK(generate(*def, nullptr, 0, r2, 32) == 0);
  CHECK(std::memcmp(r1, r2, 32) != 0);
  lx<void()>("crypto_put_default_rng")();
  CHECK(*def == nullptr); // the last user gave it back
}

TEST_CASE("linuxkpi: scatterlists chain, copy from an offset and map a "
          "page at a time") {
  Booted b;
  auto init_table = lx<void(u8 *, unsigned)>("sg_init_table");
  auto next = lx<u8 *(u8 *)>("sg_next");
  // Two arrays: [A, chain] -> [B, C]; a 6000-byte run in B crosses a page.
  alignas(4096) static u8 mem[3 * 4096];
  alignas(8) u8 first[2][32], second[2][32];
  init_table(first[0], 2);
  init_table(second[0], 2);
  set_buf(first[0], mem, 10);
  *(u64 *)first[1] = (u64)(uintptr_t)second[0] | 1; // sg_chain()
  set_buf(second[0], mem + 100, 6000);
  set_buf(second[1], mem + 8000, 30);
  CHECK(next(first[0]) == second[0]);
  CHECK(next(second[1]) == nullptr);
  CHECK(lx<int(u8 *)>("sg_nents")(first[0]) == 3);
  CHECK(lx<int(u8 *, u64)>("sg_nents_for_len")(first[0], 11) == 2);
  CHECK(lx<int(u8 *, u64)>("sg_nents_for_len")(first[0], 6041) == -22);

  for (int i = 0; i < (int)sizeof mem; i++)
    mem[i] = (u8)(i * 7);
  u8 out[20] = {};
  // 20 bytes from 6005 in: the last 5 of B, then 15 of C.
  CHECK(lx<size_t(u8 *, unsigned, void *, size_t, u64)>("sg_pcopy_to_buffer")(
            first[0], ~0u, out, 20, 6005) == 20);
  CHECK(out[0] == mem[100 + 5995]);
  CHECK(out[5] == mem[8000]);
  CHECK(out[19] == mem[8014]);

  // The mapping iterator: B comes in two steps, split at its page end;
  // a step consumed in part resumes where it stopped.
  alignas(8) u8 miter[64] = {};
  auto start = lx<void(u8 *, u8 *, unsigned, unsigned)>("sg_miter_start");
  auto mnext = lx<bool(u8 *)>("sg_miter_next");
  start(miter, first[0], 3, 0);
  std::vector<std::pair<u8 *, size_t>> steps;
  while (mnext(miter)) {
    steps.emplace_back(*(u8 **)(miter + 8), *(size_t *)(miter + 16));
    if (steps.size() == 2)
      *(size_t *)(miter + 24) = 96; // consumed
  }
  lx<void(u8 *)>("sg_miter_stop")(miter);
  REQUIRE(steps.size() == 5);
  CHECK(steps[0] == std::make_pair(mem, (size_t)10));
  CHECK(steps[1] == std::make_pair(mem + 100, (size_t)3996));
  CHECK(steps[2] == std::make_pair(mem + 196, (size_t)3900));
  CHECK(steps[3] == std::make_pair(mem + 4096, (size_t)2004));
  CHECK(steps[4] == std::make_pair(mem + 8000, (size_t)30));
}

TEST_CASE("linuxkpi: the skcipher walk hands a provider whole, aligned "
          "blocks of scattered, misaligned data") {
  Booted b;
  FakeSkcipher alg;
  alg.setkey = xor_setkey, alg.encrypt = alg.decrypt = xor_crypt;
  std::strcpy((char *)alg.base + 56, "xor8");
  *(u32 *)(alg.base + 36) = 8; // cra_blocksize
  *(u32 *)(alg.base + 40) = 8; // cra_ctxsize
  *(u32 *)(alg.base + 44) = 7; // cra_alignmask
  REQUIRE(lx<int(void *)>("crypto_register_skcipher")(&alg) == 0);
  CHECK(alg.walksize == 8); // from the block size
  u8 *tfm = lx<u8 *(const char *, u32, u32)>("crypto_alloc_skcipher")("xor8", 0, 0);
  REQUIRE((uintptr_t)tfm < (uintptr_t)-4095);
  auto setkey = lx<int(u8 *, const u8 *, unsigned)>("crypto_skcipher_setkey");
  auto encrypt = lx<int(u8 *)>("crypto_skcipher_encrypt");
  auto init_table = lx<void(u8 *, unsigned)>("sg_init_table");

  alignas(8) u8 src[64], dst[64], ivbuf[9] = {};
  for (int i = 0; i < 40; i++)
    src[i] = (u8)i;
  alignas(8) u8 sin[3][32], sout[2][32];
  init_table(sin[0], 3); // 5 + 20 + 15 bytes: blocks 0 and 3 span entries
  set_buf(sin[0], src, 5);
  set_buf(sin[1], src + 5, 20);
  set_buf(sin[2], src + 25, 15);
  init_table(sout[0], 2); // misaligned, 33 + 7
  set_buf(sout[0], dst + 1, 33);
  set_buf(sout[1], dst + 34, 7);
  alignas(8) u8 req[80 + 8] = {};
  *(u32 *)req = 40;                          // cryptlen
  *(u8 **)(req + 8) = ivbuf + 1;             // a misaligned IV
  *(u8 **)(req + 16) = sin[0];               // src
  *(u8 **)(req + 24) = sout[0];              // dst
  *(u8 **)(req + 32 + 32) = tfm + 8;         // base.tfm
  CHECK(encrypt(req) == -126);               // -ENOKEY
  const u8 key = 0x5a;
  CHECK(setkey(tfm, &key, 2) == -22);        // longer than max_keysize
  REQUIRE(setkey(tfm, &key, 1) == 0);
  REQUIRE(encrypt(req) == 0);
  CHECK(g_xor_unaligned == 0);
  CHECK(ivbuf[1] == g_xor_steps); // the IV came back to the request
  // Each block XORed with the key and the IV byte of its step: one value
  // per block, from 0 up by one a step to the last step.
  int last = -1, bad = 0;
  for (int i = 0; i < 40; i++) {
    const int v = dst[1 + i] ^ src[i] ^ key;
    if (i % 8 == 0)
      bad += v != last + 1 && v != last, last = v;
    else
      bad += v != last;
  }
  CHECK(dst[1] == (src[0] ^ key));
  CHECK(bad == 0);
  CHECK(last + 1 == g_xor_steps);

  // Not whole blocks: the walk refuses the last, partial one.
  *(u32 *)req = 13;
  CHECK(encrypt(req) == -22);
  // A provider that leaves more than it was given.
  *(u32 *)req = 16;
  g_xor_leave = 100;
  CHECK(encrypt(req) == -22);
  g_xor_leave = -1;
  // The list is shorter than cryptlen says: refused, nothing past it.
  *(u32 *)req = 48;
  dst[41] = 0xee;
  CHECK(encrypt(req) == -22);
  CHECK(dst[41] == 0xee);

  lx<void(void *, void *)>("crypto_destroy_tfm")(tfm, tfm + 8);
  lx<void(void *)>("crypto_unregister_skcipher")(&alg);
  CHECK((intptr_t)lx<void *(const char *, u32, u32)>("crypto_alloc_skcipher")(
            "xor8", 0, 0) == -2);
}
#endif

TEST_CASE("linuxkpi: the memory functions take a null pointer with a zero "
          "length, as Linux's do") {
  u8 buf[4] = {1, 2, 3, 4};
  CHECK(lx<void *(void *, const void *, size_t)>("memcpy")(buf, nullptr, 0) == buf);
  CHECK(lx<void *(void *, const void *, size_t)>("memmove")(buf, nullptr, 0) == buf);
  CHECK(lx<void *(void *, int, size_t)>("memset")(nullptr, 0, 0) == nullptr);
  CHECK(lx<int(const void *, const void *, size_t)>("memcmp")(nullptr, buf, 0) == 0);
  CHECK(buf[0] == 1);
}

namespace {
// What the test grammar's actions saw.
struct Asn1Seen {
  std::vector<std::string> values; // "TAG:hex"
  int fail_at = -1;                // the action that returns -EINVAL
};
int asn1_record(void *ctx, size_t, unsigned char tag, const void *value,
                size_t len, int which) {
  auto *s = (Asn1Seen *)ctx;
  std::string v = std::to_string(which) + ":" + std::to_string(tag) + ":";
  for (size_t i = 0; i < len; i++)
    v += fmt("%02x", ((const u8 *)value)[i]);
  s->values.push_back(v);
  return which == s->fail_at ? -22 : 0;
}
int LKAPI asn1_act0(void *c, size_t h, unsigned char t, const void *v, size_t l) {
  return asn1_record(c, h, t, v, l, 0);
}
int LKAPI asn1_act1(void *c, size_t h, unsigned char t, const void *v, size_t l) {
  return asn1_record(c, h, t, v, l, 1);
}
struct Asn1Decoder {
  const u8 *machine;
  size_t machlen;
  const void *const *actions;
};
} // namespace

TEST_CASE("linuxkpi: the ASN.1 decoder runs asn1_compiler's machine and "
          "refuses data that overruns its elements") {
  // Seq ::= SEQUENCE { id OBJECT IDENTIFIER ({ act0 }),
  //                    n INTEGER OPTIONAL ({ act1 }) }
  // as asn1_compiler lays it out: match the SEQUENCE (constructed), match
  // and act on each element (the optional one "or skip"), end, complete.
  static const u8 machine[] = {0x00, 0x30,       // MATCH SEQUENCE
                               0x02, 0x06, 0,    // MATCH_ACT OID, act0
                               0x03, 0x02, 1,    // MATCH_ACT_OR_SKIP INTEGER, act1
                               0x20,             // END_SEQ
                               0x1d};            // COMPLETE
  static const void *const actions[] = {(void *)&asn1_act0, (void *)&asn1_act1};
  const Asn1Decoder dec{machine, sizeof machine, actions};
  auto decode = lx<int(const void *, void *, const unsigned char *, size_t)>(
      "asn1_ber_decoder");
  auto run = [&](std::vector<u8> data, Asn1Seen &seen) {
    return decode(&dec, &seen, data.data(), data.size());
  };
  {
    Asn1Seen s;
    CHECK(run({0x30, 0x06, 0x06, 0x01, 0x2a, 0x02, 0x01, 0x05}, s) == 0);
    CHECK(s.values == std::vector<std::string>{"0:6:2a", "1:2:05"});
  }
  {
    Asn1Seen s; // the optional INTEGER left out; a long-form length
    CHECK(run({0x30, 0x81, 0x03, 0x06, 0x01, 0x2a}, s) == 0);
    CHECK(s.values == std::vector<std::string>{"0:6:2a"});
  }
  {
    Asn1Seen s; // an action's error ends the decode with it
    s.fail_at = 0;
    CHECK(run({0x30, 0x03, 0x06, 0x01, 0x2a}, s) == -22);
  }
  for (std::vector<u8> bad : {
           std::vector<u8>{0x30, 0x40, 0x06, 0x01, 0x2a}, // SEQUENCE past the end
           {0x30, 0x03, 0x06, 0x05, 0x2a},                // OID past the SEQUENCE
           {0x30, 0x05, 0x06, 0x01, 0x2a, 0x04, 0x00},    // something else in it
           {0x31, 0x03, 0x06, 0x01, 0x2a},                // a SET
           {0x30, 0x84, 0, 0, 0, 3, 0x06, 0x01, 0x2a},    // a 4-byte length
           {0x30, 0x80, 0x06, 0x01, 0x2a, 0x00},          // no end-of-contents
           {0x3f, 0x03, 0x06, 0x01, 0x2a},                // a long tag
           {0x30}}) {
    Asn1Seen s;
    CHECK(run(bad, s) == -74);
    for (const std::string &v : s.values) // nothing read past the data
      CHECK(v.size() <= 8);
  }
  {
    // ANY with an action on an indefinite-length element: the action gets
    // its contents, not the 0x80 of its length octet.
    static const u8 any[] = {0x0a, 0, 0x1d}; // MATCH_ANY_ACT act0, COMPLETE
    const Asn1Decoder d{any, sizeof any, actions};
    const u8 data[] = {0x30, 0x80, 0x06, 0x01, 0x2a, 0x00, 0x00};
    Asn1Seen s;
    CHECK(decode(&d, &s, data, sizeof data) == 0);
    CHECK(s.values == std::vector<std::string>{"0:48:06012a"});
  }
  {
    Asn1Seen s; // an indefinite-length SEQUENCE and its end-of-contents
    CHECK(run({0x30, 0x80, 0x06, 0x01, 0x2a, 0x00, 0x00}, s) == 0);
    CHECK(s.values == std::vector<std::string>{"0:6:2a"});
  }
  // A machine that runs off its end, holds an opcode the compiler never
  // emits or loops without reading is refused.
  static const u8 no_complete[] = {0x00, 0x30, 0x02, 0x06, 0, 0x20};
  static const u8 reserved[] = {0x1f};
  // A SEQUENCE OF whose end jumps to itself: it would loop without reading.
  static const u8 loops[] = {0x00, 0x30, 0x22, 0x02, 0x1d};
  for (const Asn1Decoder &d : {Asn1Decoder{no_complete, sizeof no_complete, actions},
                               Asn1Decoder{reserved, sizeof reserved, actions},
                               Asn1Decoder{loops, sizeof loops, actions},
                               Asn1Decoder{machine, 4, actions}}) {
    Asn1Seen s;
    const u8 data[] = {0x30, 0x03, 0x06, 0x01, 0x2a};
    CHECK(decode(&d, &s, data, sizeof data) == -74);
  }
  std::vector<u8> huge(70000, 0);
  Asn1Seen s;
  CHECK(decode(&dec, &s, huge.data(), huge.size()) == -90); // EMSGSIZE
}

TEST_CASE("linuxkpi: the OID registry numbers OIDs as the installed headers "
          "do, and prints them") {
  auto look_up = lx<int(const void *, size_t)>("look_up_OID");
  auto sprint_OID = lx<int(int, char *, size_t)>("sprint_OID");
  auto sprint_oid = lx<int(const void *, size_t, char *, size_t)>("sprint_oid");
  auto parse = lx<int(const void *, size_t, int *)>("parse_OID");
  // The registry's first enumerator is 0; every one prints as its dotted
  // form and looks up as itself.
  const u8 dsa_sha1[] = {0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x03}; // 1.2.840.10040.4.3
  const u8 rsa[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01};
  const int n_rsa = look_up(rsa, sizeof rsa);
  char buf[64];
  REQUIRE(sprint_OID(n_rsa, buf, sizeof buf) == 20);
  CHECK(std::string(buf) == "1.2.840.113549.1.1.1");
  const int unknown = look_up(dsa_sha1, sizeof dsa_sha1); // not in 6.1's list
  CHECK(unknown > n_rsa);
  CHECK(sprint_OID(unknown, buf, sizeof buf) == -74); // OID__NR
  for (int i = 0; i < unknown; i++) {
    REQUIRE(sprint_OID(i, buf, sizeof buf) > 0);
    // Back to DER by the rules, and looked up again.
    std::vector<u64> arcs;
    for (char *p = buf; *p;) {
      arcs.push_back(std::strtoull(p, &p, 10));
      if (*p == '.')
        p++;
    }
    std::vector<u8> der;
    auto put = [&](u64 v) {
      std::vector<u8> b;
      do
        b.insert(b.begin(), (u8)((v & 0x7f) | (b.empty() ? 0 : 0x80)));
      while (v >>= 7);
      der.insert(der.end(), b.begin(), b.end());
    };
    put(arcs[0] * 40 + arcs[1]);
    for (size_t a = 2; a < arcs.size(); a++)
      put(arcs[a]);
    CHECK(look_up(der.data(), der.size()) == i);
  }
  // parse_OID takes the whole element; sprint_oid any contents.
  const u8 whole[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01};
  int oid = -1;
  CHECK(parse(whole, sizeof whole, &oid) == 0);
  CHECK(oid == n_rsa);
  CHECK(parse(whole, sizeof whole - 1, &oid) == -74);
  CHECK(sprint_oid(dsa_sha1, sizeof dsa_sha1, buf, sizeof buf) == 17);
  CHECK(std::string(buf) == "1.2.840.10040.4.3");
  const u8 truncated[] = {0x2a, 0x86};
  CHECK(sprint_oid(truncated, sizeof truncated, buf, sizeof buf) == -74);
  CHECK(std::string(buf) == "(bad)");
  CHECK(sprint_oid(rsa, sizeof rsa, buf, 8) == -105); // ENOBUFS
}

// ---- what lib/test_firmware binds: parsers, misc devices, firmware,
// kthreads -------------------------------------------------------------------

TEST_CASE("linuxkpi: kstrtoll, kstrtobool, kstrndup, kfree_const, "
          "scnprintf and simple_read_from_buffer as Linux's") {
  auto kstrtoll = lx<int(const char *, unsigned, long long *)>("kstrtoll");
  long long v = 0;
  CHECK((kstrtoll("-9223372036854775808", 10, &v) == 0 && v == LLONG_MIN));
  CHECK(kstrtoll("9223372036854775808", 10, &v) == -34); // -ERANGE
  CHECK((kstrtoll("+0x10\n", 0, &v) == 0 && v == 16));
  CHECK(kstrtoll("12\n\n", 10, &v) == -22); // one newline only
  CHECK(kstrtoll("-", 10, &v) == -22);
  auto kstrtobool = lx<int(const char *, bool *)>("kstrtobool");
  bool b = false;
  CHECK((kstrtobool("true", &b) == 0 && b));
  CHECK((kstrtobool("OFF", &b) == 0 && !b));
  CHECK(kstrtobool("o", &b) == -22);
  CHECK(kstrtobool("", &b) == -22);
  CHECK(kstrtobool("maybe", &b) == -22);

  auto kstrndup = lx<char *(const char *, size_t, unsigned)>("kstrndup");
  auto kfree_const = lx<void(const void *)>("kfree_const");
  char *s = kstrndup("abcdef", 3, 0);
  REQUIRE(s);
  CHECK(std::string(s) == "abc");
  kfree_const(s);
  // A string constant is never freed (it is no heap block: freeing it
  // would corrupt the allocator).
  static const char kConst[] = "in .rodata";
  kfree_const(kConst);
  CHECK(std::string(kConst) == "in .rodata");

  char buf[4];
  CHECK(lx<int(char *, size_t, const char *, ...)>("scnprintf")(
            buf, sizeof buf, "%s", "abcdef") == 3);
  CHECK(std::string(buf) == "abc");

#if defined(__x86_64__) // misc.cpp is x86_64 only
  auto read = lx<long(void *, size_t, long long *, const void *, size_t)>(
      "simple_read_from_buffer");
  char out[16] = {};
  long long pos = 0;
  CHECK(read(out, 3, &pos, "hello", 5) == 3);
  CHECK(pos == 3);
  CHECK(read(out + 3, 10, &pos, "hello", 5) == 2);
  CHECK(std::string(out) == "hello");
  CHECK(read(out, 10, &pos, "hello", 5) == 0);
  pos = -1;
  CHECK(read(out, 10, &pos, "hello", 5) == -22);
#endif
}

#if defined(__x86_64__)
namespace {
// struct device_attribute: attribute {name, mode}, show, store.
struct dev_attr {
  const char *name;
  unsigned short mode;
  long (*show)(void *dev, dev_attr *a, char *buf);
  long (*store)(void *dev, dev_attr *a, const char *buf, size_t n);
};
struct attr_group {
  const char *name;
  void *is_visible, *is_bin_visible;
  dev_attr **attrs;
  void *bin_attrs;
};
static_assert(sizeof(dev_attr) == 32 && sizeof(attr_group) == 40);
// struct miscdevice.
struct miscdevice {
  int minor;
  const char *name;
  const void *fops;
  list_head list;
  void *parent, *this_device;
  attr_group **groups;
  const char *nodename;
  unsigned short mode;
};
static_assert(sizeof(miscdevice) == 80 && offsetof(miscdevice, groups) == 56);

std::string g_stored;
long unit_show(void *, dev_attr *, char *buf) {
  return std::snprintf(buf, 4096, "stored:%s\n", g_stored.c_str());
}
long unit_store(void *, dev_attr *, const char *buf, size_t n) {
  if (std::string(buf, n) == "bad")
    return -22;
  g_stored.assign(buf, n);
  return (long)n;
}
dev_attr g_value{"value", 0644, unit_show, unit_store};
dev_attr g_trigger{"trigger", 0200, nullptr, unit_store};
dev_attr *g_attrs[] = {&g_value, &g_trigger, nullptr};
attr_group g_group{nullptr, nullptr, nullptr, g_attrs, nullptr};
attr_group *g_groups[] = {&g_group, nullptr};
} // namespace

TEST_CASE("linuxkpi: misc_register takes 6.1's dynamic minors, shows the "
          "attributes as sysctls and leaves nothing after a refusal") {
  Booted b;
  auto reg = lx<int(miscdevice *)>("misc_register");
  auto dereg = lx<void(miscdevice *)>("misc_deregister");
  miscdevice a{255, "unita", nullptr, {}, nullptr, nullptr, g_groups, nullptr, 0};
  miscdevice a2{255, "unita", nullptr, {}, nullptr, nullptr, nullptr, nullptr, 0};
  miscdevice c{255, "unitc", nullptr, {}, nullptr, nullptr, nullptr, nullptr, 0};
  miscdevice fixed{126, "unitf", nullptr, {}, nullptr, nullptr, nullptr, nullptr, 0};
  REQUIRE(reg(&a) == 0);
  CHECK(a.minor == 127);
  REQUIRE(a.this_device);
  CHECK(std::string(*(const char **)a.this_device) == "unita"); // kobj.name
  CHECK(*(u32 *)((u8 *)a.this_device + 660) == ((10u << 20) | 127)); // devt
  // The same name again: -EEXIST, and its minor is not taken.
  CHECK(reg(&a2) == -17);
  CHECK(a2.minor == 255);
  REQUIRE(reg(&c) == 0);
  CHECK(c.minor == 126);
  CHECK(reg(&fixed) == -16); // 126 is taken: -EBUSY
  // Attributes: readable and writable, or write-only.
  auto node = b.k.sysctl().find("dev.misc.unita.value");
  REQUIRE(node);
  CHECK(b.k.sysctl().write("dev.misc.unita.value", "x"));
  CHECK(node->get() == "stored:x");
  CHECK_FALSE(b.k.sysctl().write("dev.misc.unita.value", "bad"));
  auto trig = b.k.sysctl().find("dev.misc.unita.trigger");
  REQUIRE(trig);
  CHECK(!(trig->flags & CTLFLAG_RD));
  CHECK(b.k.sysctl().write("dev.misc.unita.trigger", "y"));
  CHECK(g_stored == "y");
  dereg(&a);
  CHECK_FALSE(b.k.sysctl().find("dev.misc.unita.value"));
  miscdevice again{255, "unita", nullptr, {}, nullptr, nullptr, nullptr, nullptr, 0};
  REQUIRE(reg(&again) == 0);
  CHECK(again.minor == 127); // given back
  dereg(&again);
  dereg(&c);
}

namespace {
struct firmware {
  size_t size;
  const u8 *data;
  void *priv;
};
completion g_fw_done;
const firmware *g_fw_async;
void fw_cont(const firmware *fw, void *) {
  g_fw_async = fw;
  lx<void(completion *)>("complete")(&g_fw_done);
}
} // namespace

TEST_CASE("linuxkpi: request_firmware reads the firmware path; into_buf and "
          "partial reads keep Linux's size rules; nowait calls back") {
  Booted b;
  const std::string path = b.dir.path() + "/unit.bin";
  std::ofstream(path) << "0123456789";
  struct Gone {
    std::string p;
    ~Gone() { std::remove(p.c_str()); }
  } gone{path};
  REQUIRE(b.k.sysctl().write("module.firmware_class.path", b.dir.path()));
  using Req = int(const firmware **, const char *, void *);
  auto request = lx<Req>("request_firmware");
  auto direct = lx<Req>("request_firmware_direct");
  auto release = lx<void(const firmware *)>("release_firmware");
  const firmware *fw = nullptr;
  REQUIRE(request(&fw, "unit.bin", nullptr) == 0);
  CHECK(std::string((const char *)fw->data, fw->size) == "0123456789");
  release(fw);
  fw = (const firmware *)1;
  CHECK(direct(&fw, "absent.bin", nullptr) == -2);
  CHECK(fw == nullptr);
  CHECK(request(&fw, "", nullptr) == -22);
  CHECK(request(&fw, "../unit.bin", nullptr) == -22); // no path traversal
  CHECK(request(&fw, "a/../unit.bin", nullptr) == -22);
  CHECK(request(nullptr, "unit.bin", nullptr) == -22);

  char buf[16] = {};
  auto into = lx<int(const firmware **, const char *, void *, void *, size_t)>(
      "request_firmware_into_buf");
  REQUIRE(into(&fw, "unit.bin", nullptr, buf, sizeof buf) == 0);
  CHECK((const void *)fw->data == buf); // the caller's buffer, not freed
  CHECK(fw->size == 10);
  release(fw);
  auto partial = lx<int(const firmware **, const char *, void *, void *, size_t,
                        size_t)>("request_partial_firmware_into_buf");
  REQUIRE(partial(&fw, "unit.bin", nullptr, buf, 4, 8) == 0);
  CHECK(std::string((const char *)fw->data, fw->size) == "89"); // what is left
  release(fw);
  CHECK(partial(&fw, "unit.bin", nullptr, nullptr, 4, 0) == -22); // no buffer

  // The platform fallback: what the EFI embedded-firmware list holds,
  // only once the search is said to have run.
  struct {
    list_head list;
    const char *name;
    const u8 *data;
    size_t length;
  } efw{{}, "plat.bin", (const u8 *)"PLAT", 4};
  auto *head = lx<list_head>("efi_embedded_fw_list");
  auto *checked = lx<bool>("efi_embedded_fw_checked");
  efw.list.next = head->next;
  efw.list.prev = head;
  head->next->prev = &efw.list;
  head->next = &efw.list;
  auto platform = lx<Req>("firmware_request_platform");
  CHECK(platform(&fw, "plat.bin", nullptr) == -2);
  *checked = true;
  REQUIRE(platform(&fw, "plat.bin", nullptr) == 0);
  CHECK(std::string((const char *)fw->data, fw->size) == "PLAT");
  release(fw);
  *checked = false;
  head->next = efw.list.next;
  efw.list.next->prev = head;

  init_completion(&g_fw_done);
  auto nowait = lx<int(void *, bool, const char *, void *, unsigned, void *,
                       void (*)(const firmware *, void *))>(
      "request_firmware_nowait");
  REQUIRE(nowait(nullptr, true, "unit.bin", nullptr, 0, nullptr, fw_cont) == 0);
  lx<void(completion *)>("wait_for_completion")(&g_fw_done);
  REQUIRE(g_fw_async);
  CHECK(g_fw_async->size == 10);
  release(g_fw_async);
}

namespace {
completion g_kt_done;
u8 *g_kt_area, *g_kt_task;
char g_kt_comm[16];
int kt_fn(void *arg) {
  g_kt_area = mk::PerCpu::current();
  u8 *task;
  asm volatile("mov %%gs:64, %0" : "=r"(task)); // current_task
  g_kt_task = task;
  std::memcpy(g_kt_comm, task + 0xba0, 15);
  *(int *)arg = 1;
  lx<void(completion *)>("complete")(&g_kt_done);
  return 0;
}
std::atomic<bool> g_kt_looping{false};
int kt_loop(void *) {
  g_kt_looping = true;
  auto should_stop = lx<bool()>("kthread_should_stop");
  while (!should_stop())
    lx<long(long)>("schedule_timeout_interruptible")(1);
  return 42;
}
} // namespace

TEST_CASE("linuxkpi: a kthread waits for wake_up_process, then runs on a "
          "per-CPU area of its own as its task") {
  Booted b;
  init_completion(&g_kt_done);
  int ran = 0;
  auto create = lx<u8 *(int (*)(void *), void *, int, const char *, ...)>(
      "kthread_create_on_node");
  u8 *task = create(kt_fn, &ran, -1, "%s-%u", "unit", 7u);
  REQUIRE((uintptr_t)task < (uintptr_t)-4095);
  CHECK(std::string((const char *)task + 0xba0) == "unit-7");
  CHECK((*(u32 *)(task + 44) & 0x00200000u) != 0); // PF_KTHREAD
  mk::sleep_ms(20);
  CHECK(ran == 0); // not before it is woken
  CHECK(lx<int(u8 *)>("wake_up_process")(task) == 1);
  lx<void(completion *)>("wait_for_completion")(&g_kt_done);
  CHECK(ran == 1);
  CHECK(g_kt_task == task);
  CHECK(g_kt_area != nullptr);
  CHECK(g_kt_area != mk::PerCpu::current());
  CHECK(std::string(g_kt_comm) == "unit-7");
  // Reaped when its "module" (here: the test's code) goes.
  mk::linux_module_gone((u64)(uintptr_t)kt_fn, (u64)(uintptr_t)kt_fn + 1);

  // kthread_stop: a thread never woken never runs (-EINTR); a running
  // one sees kthread_should_stop() and its result comes back.
  auto stop = lx<int(u8 *)>("kthread_stop");
  ran = 0;
  task = create(kt_fn, &ran, -1, "never");
  REQUIRE((uintptr_t)task < (uintptr_t)-4095);
  CHECK(stop(task) == -4);
  CHECK(ran == 0);
  task = create(kt_loop, nullptr, -1, "loop");
  REQUIRE((uintptr_t)task < (uintptr_t)-4095);
  lx<int(u8 *)>("wake_up_process")(task);
  // (Stopped before it first runs, it would not run at all, as in Linux.)
  while (!g_kt_looping)
    mk::sleep_ms(1);
  CHECK(stop(task) == 42);
}
#endif
