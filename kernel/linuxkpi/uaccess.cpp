// User memory and the user-copy calls (lib/usercopy.c,
// arch/x86/lib/getuser.S, putuser.S, clear_page_64.S, mm/util.c's
// vm_mmap) as a Linux module that works on a process's memory uses them.
//
// The kernel and its "user space" share one address space here, so an
// address cannot say which it is, as TASK_SIZE_MAX does in Linux.  The
// process's user memory is what vm_mmap() mapped: a user copy, get_user()
// or put_user() reaches only into those mappings and faults (-EFAULT, or
// the bytes not copied, the destination's tail zeroed) anywhere else,
// kernel memory above all, as Linux's do past access_ok() or on a fault.
// Debian's test_user_copy, Linux's own test of these, passes.
#include "lkpi.h"

#if defined(__x86_64__)

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

namespace lkpi {

namespace {
constexpr long EFAULT_ = 14, EINVAL_ = 22;

struct Region {
  u64 lo, hi;
  u64 creator; // the module code that mapped it
};
std::mutex g_mu;
std::vector<Region> g_user; // the process's user memory

// How many of the `n` bytes at `p` are user memory, from `p` on.
size_t user_bytes(u64 p, size_t n) {
  std::lock_guard g(g_mu);
  for (const Region &r : g_user)
    if (p >= r.lo && p < r.hi)
      return (size_t)std::min<u64>(n, r.hi - p);
  return 0;
}
} // namespace

// vm_mmap(): an anonymous mapping of the calling "process"; a file
// mapping is refused (no files here).
__attribute__((noinline)) unsigned long vm_mmap(void *file, unsigned long addr,
                                                unsigned long len,
                                                unsigned long prot,
                                                unsigned long flags,
                                                unsigned long offset) {
  const u64 caller = LKPI_CALLER();
  if (file || offset || !(flags & MAP_ANONYMOUS) || !len)
    return (unsigned long)-EINVAL_;
  void *p = ::mmap((void *)addr, len, (int)(prot & (PROT_READ | PROT_WRITE)),
                   (int)(flags & (MAP_PRIVATE | MAP_SHARED | MAP_ANONYMOUS)), -1, 0);
  if (p == MAP_FAILED)
    return (unsigned long)-12; // -ENOMEM
  const u64 lo = (u64)(uintptr_t)p, hi = lo + ((len + 4095) & ~4095ul);
  std::lock_guard g(g_mu);
  g_user.push_back({lo, hi, caller});
  return lo;
}

int vm_munmap(unsigned long start, size_t len) {
  const u64 lo = start, hi = start + ((len + 4095) & ~4095ul);
  {
    std::lock_guard g(g_mu);
    // Only user memory: anything else is not this call's to unmap.
    auto it = std::find_if(g_user.begin(), g_user.end(),
                           [&](const Region &r) { return r.lo == lo && r.hi == hi; });
    if (it == g_user.end())
      return -(int)EINVAL_;
    g_user.erase(it);
  }
  ::munmap((void *)start, hi - lo);
  return 0;
}

void uaccess_module_gone(u64 lo, u64 hi) {
  std::vector<Region> gone;
  {
    std::lock_guard g(g_mu);
    for (auto it = g_user.begin(); it != g_user.end();)
      if (it->creator >= lo && it->creator < hi)
        gone.push_back(*it), it = g_user.erase(it);
      else
        ++it;
  }
  for (const Region &r : gone)
    ::munmap((void *)r.lo, r.hi - r.lo);
}

unsigned long _copy_from_user(void *to, const void *from, unsigned long n) {
  const size_t ok = user_bytes((u64)(uintptr_t)from, n);
  std::memcpy(to, from, ok);
  std::memset((u8 *)to + ok, 0, n - ok);
  return n - ok;
}
unsigned long _copy_to_user(void *to, const void *from, unsigned long n) {
  const size_t ok = user_bytes((u64)(uintptr_t)to, n);
  std::memcpy(to, from, ok);
  return n - ok;
}

// check_zeroed_user(): 1 if the `size` user bytes at `from` are all zero,
// 0 if one is not, -EFAULT if they are not all user memory.
int check_zeroed_user(const void *from, size_t size) {
  if (user_bytes((u64)(uintptr_t)from, size) < size)
    return -(int)EFAULT_;
  const u8 *p = (const u8 *)from;
  for (size_t i = 0; i < size; i++)
    if (p[i])
      return 0;
  return 1;
}

// ---- the register-convention helpers inline assembly calls -------------------

extern "C" {
// The C halves.  get: {error, value}, returned in %rax:%rdx.
struct GetResult {
  long err;
  u64 value;
};
GetResult lkpi_get_user(u64 addr, unsigned size) {
  if (user_bytes(addr, size) < size)
    return {-EFAULT_, 0};
  u64 v = 0;
  std::memcpy(&v, (const void *)(uintptr_t)addr, size);
  return {0, v};
}
long lkpi_put_user(u64 addr, u64 value, unsigned size) {
  if (user_bytes(addr, size) < size)
    return -EFAULT_;
  std::memcpy((void *)(uintptr_t)addr, &value, size);
  return 0;
}
// clear_user: the bytes left (not user memory).
u64 lkpi_clear_user(u64 addr, u64 n) {
  const size_t ok = user_bytes(addr, n);
  std::memset((void *)(uintptr_t)addr, 0, ok);
  return n - ok;
}
}

// Each saves every register its Linux original does not change, calls the
// C half (which realigns the stack it is given: Linux code keeps 8 bytes),
// and puts the results where the original does.
#define MK_SAVE "push %rcx\npush %rsi\npush %rdi\npush %r8\npush %r9\npush %r10\npush %r11\n"
#define MK_RESTORE "pop %r11\npop %r10\npop %r9\npop %r8\npop %rdi\npop %rsi\npop %rcx\n"
#define MK_ASM_FN(name, body)                                                  \
  asm(".pushsection .text." #name ",\"ax\",@progbits\n"                        \
      ".globl " #name "\n.type " #name ",@function\n" #name ":\n" body         \
      "ret\nint3\n.size " #name ", . - " #name "\n.popsection\n");

// __get_user_N: address in %rax; error in %rax, the value zero-extended in
// %rdx (0 on a fault).
#define MK_GET_USER(n)                                                         \
  MK_ASM_FN(__get_user_##n, MK_SAVE "mov %rax, %rdi\nmov $" #n ", %esi\n"      \
                                    "call lkpi_get_user\n" MK_RESTORE)
MK_GET_USER(1)
MK_GET_USER(2)
MK_GET_USER(4)
MK_GET_USER(8)
// __put_user_N: the value in %rax, the address in %rcx; error in %ecx
// (%rbx may be clobbered; %rax is kept).
#define MK_PUT_USER(n)                                                         \
  MK_ASM_FN(__put_user_##n,                                                    \
            "push %rax\npush %rdx\npush %rsi\npush %rdi\npush %r8\npush %r9\n"  \
            "push %r10\npush %r11\nmov %rcx, %rdi\nmov %rax, %rsi\n"           \
            "mov $" #n ", %edx\ncall lkpi_put_user\nmov %rax, %rcx\n"          \
            "pop %r11\npop %r10\npop %r9\npop %r8\npop %rdi\npop %rsi\n"       \
            "pop %rdx\npop %rax\n")
MK_PUT_USER(1)
MK_PUT_USER(2)
MK_PUT_USER(4)
MK_PUT_USER(8)
// clear_user_*: the address in %rdi, the count in %rcx; the bytes not
// cleared in %rcx, %rdi past them; the rest kept.
#define MK_CLEAR_USER(name)                                                    \
  MK_ASM_FN(name, "push %rax\npush %rdx\npush %rsi\npush %r8\npush %r9\n"      \
                  "push %r10\npush %r11\npush %rdi\npush %rcx\n"               \
                  "mov %rcx, %rsi\ncall lkpi_clear_user\npop %rdx\n"           \
                  "pop %rdi\nadd %rdx, %rdi\nsub %rax, %rdi\nmov %rax, %rcx\n" \
                  "pop %r11\npop %r10\npop %r9\npop %r8\npop %rsi\n"           \
                  "pop %rdx\npop %rax\n")
MK_CLEAR_USER(clear_user_original)
MK_CLEAR_USER(clear_user_rep_good)
MK_CLEAR_USER(clear_user_erms)

extern "C" {
void __get_user_1(), __get_user_2(), __get_user_4(), __get_user_8();
void __put_user_1(), __put_user_2(), __put_user_4(), __put_user_8();
void clear_user_original(), clear_user_rep_good(), clear_user_erms();
}

LINUX_EXPORT(vm_mmap);
LINUX_EXPORT(vm_munmap);
LINUX_EXPORT(_copy_from_user);
LINUX_EXPORT(_copy_to_user);
LINUX_EXPORT(check_zeroed_user);
LINUX_EXPORT(__get_user_1);
LINUX_EXPORT(__get_user_2);
LINUX_EXPORT(__get_user_4);
LINUX_EXPORT(__get_user_8);
LINUX_EXPORT(__put_user_1);
LINUX_EXPORT(__put_user_2);
LINUX_EXPORT(__put_user_4);
LINUX_EXPORT(__put_user_8);
LINUX_EXPORT(clear_user_original);
LINUX_EXPORT(clear_user_rep_good);
LINUX_EXPORT(clear_user_erms);

} // namespace lkpi

#endif // __x86_64__
