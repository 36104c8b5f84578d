// The fbt provider (see fbt.h): the trampolines, the shadow stack, the
// loader hooks and enabling.  Built without function-entry sites (the
// Makefile's notrace list), like everything a firing runs.
#include "fbt.h"

#include "../linker/code.h"
#include "registry.h"
#include "site_record.h"
#include "unwind.h"
#include "x86.h"

#include <algorithm>
#include <capstone/capstone.h>
#include <cstring>
#include <elf.h>
#include <optional>
#include <sys/mman.h>
#include <unistd.h>

extern "C" {
extern const struct fbt_site_record __start_set_fbt_sites_set[]
    __attribute__((weak));
extern const struct fbt_site_record __stop_set_fbt_sites_set[]
    __attribute__((weak));
}

namespace mk {

// One traced function: what its stub hands the entry trampoline.  What
// a call and an enable or disable batch read is in its first cache line
// (enabling every fbt probe walks 100 000s of them).
struct alignas(64) FbtFunc {
  // What mk_fbt_enter() reads on every call.
  const ProbeSlot *entry = nullptr, *ret = nullptr;
  std::atomic<bool> hijack{false}; // the return probe is enabled, call mode
  EntryStyle style = EntryStyle::AtEntry;

  // The provider's (changed with the registry's lock held).
  u8 len = 5;
  enum Mode : u8 { Off, Call, Trap };
  Mode entry_mode = Off, ret_mode = Off;
  bool kernel = false; // a site in the kernel image (shared by every
                       // kernel booted in the process)
  bool rets_found = false;
  bool rets_armed = false; // its `ret`s hold int3s (breakpoint mode)
  // What its returns leave on the x87 stack, as mk_fbt_exit() has seen: 0
  // not known yet, 1 nothing, 2 values.  The x86_64 return trampoline
  // reads it.
  mutable std::atomic<u8> ret_x87{0};
  u32 batch = 0; // the last enable/disable batch that took it (FbtProvider)
  u64 site = 0;  // its entry site
  // Itself, for the entry code to tell an FbtFunc from whatever a jump
  // into a patched entry (past its stub's load) left in the register; none
  // once freed.
  const FbtFunc *self = this;
  u8 disabled[8] = {};
  int refs = 0; // probes that include it (its entry's and return's)
  struct Block *block = nullptr;
  u64 stub = 0;
  // Whether a call's return is taken over: its return probe is enabled
  // in call mode.
  bool takes_returns() const { return ret_mode == Call; }

  u64 func = 0, size = 0; // the function
  struct Ret {
    u64 addr;
    u8 len;
    u8 bytes[3]; // as it was: c3, f3 c3, or c2 iw (i386's ret $N)
  };
  std::vector<Ret> rets; // its `ret`s, once breakpoint mode wanted them
  std::string function;

  FbtFunc() = default;
  FbtFunc(const FbtFunc &) = delete;
  FbtFunc &operator=(const FbtFunc &) = delete;
  // An atomic store: a plain one to an object about to die may be dropped.
  ~FbtFunc() { __atomic_store_n(&self, nullptr, __ATOMIC_RELAXED); }
};

// The functions one add_sites() made, allocated together (enabling every
// probe walks them all) and freed together when the last one goes.
struct Block {
  std::unique_ptr<FbtFunc[]> funcs;
  size_t live = 0;
};

namespace {

struct FbtProbe : ProbeData {
  bool is_return = false;
  // The functions of its name (several may share one): the first inline,
  // as nearly every probe has just it and enabling every probe walks them
  // all.
  FbtFunc *first = nullptr;
  std::vector<FbtFunc *> more;
  void add(FbtFunc *f) {
    if (!first)
      first = f;
    else
      more.push_back(f);
  }
  size_t count() const { return first ? 1 + more.size() : 0; }
  FbtFunc *at(size_t k) const { return k ? more[k - 1] : first; }
};

FbtProbe &data_of(const Probe &p) { return *static_cast<FbtProbe *>(p.data.get()); }

constexpr size_t kWord = sizeof(uintptr_t);
// Whether the entry code can take a return over by calling the function
// (x86_64, whose sites are jumps; see the trampolines).
#if defined(__x86_64__)
constexpr bool kCallThrough = true;
#else
constexpr bool kCallThrough = false;
#endif
// Whether a function's returns may pop arguments above the return
// address: on i386 (`ret $N`: a function returning a struct in memory
// pops the hidden pointer, stdcall and the like their arguments), not on
// x86_64, whose psABI has the caller pop them.
#if defined(__x86_64__)
constexpr bool kRetPops = false;
#else
constexpr bool kRetPops = true;
#endif

} // namespace

// ---- the trampolines ----------------------------------------------------------------
//
// A stub (per function, in the arena: within rel32 reach of its site) puts
// the function's FbtFunc where the common entry code finds it (%r11 on
// x86_64, pushed on i386) and jumps there.  The common code saves the
// argument registers and leaves this frame for mk_fbt_enter():
//
//   frame[0]  the site's frame pointer (%rbp/%ebp)
//   frame[1]  the FbtFunc; on x86_64 mk_fbt_enter() puts the address to
//             resume the function at there (its site + the site's length)
//   x86_64: the site is a jmp, so frame[2] on is the function's stack at
//           the site (at its first instruction, its return address)
//   i386:   the site is a call: frame[2] is the return address into the
//           function, frame[3] on its stack at the site
//
// Taking over a return, x86_64, a function whose site is its first
// instruction: the real return address goes to the shadow stack, its slot
// is cleared, and the common code *calls* the function's body with the
// stack as the function expects it, so the function returns into the
// code after that call (mk_fbt_return_call) with every return predicted:
// the return-stack buffer saw a call for each ret.  It fires the return
// and `ret`s to the real address, which the caller's own call predicted.
// Otherwise (i386; x86_64 functions whose site follows a frame-pointer
// prologue, -pg's mcount) the slot is overwritten with the address of
// mk_fbt_return, which the function's ret reaches mispredicted; that one
// leaves by an indirect jump, keeping the buffer in step for the callers.
// Both leave frame[0] = the caller's frame pointer, frame[1] = a slot for
// the real return address (the very slot the function returned from), and
// call mk_fbt_exit(), which writes the real return address there.
//
// On x86_64 the common entry code and the return trampolines first try a
// fast path of their own: on a thread that may take liburcu's read side
// inline they fire the probe, push and pop the shadow stack and leave the
// probe frame to be worked out only if a handler asks, as the SDT
// trampolines do; mk_fbt_enter() and mk_fbt_exit() do everything else.
// mk_fbt_exit() also learns, per function, whether its returns leave
// values on the x87 stack (FbtFunc::ret_x87), and the x86_64 return
// trampoline's fast path takes only the functions known to leave none:
// reading the x87 status word costs about 5 ns, a third of the whole
// return path.

extern "C" void mk_fbt_entry_common();
extern "C" void mk_fbt_return();
extern "C" void mk_fbt_return_call();
extern "C" void mk_fbt_mcount();

#if defined(__x86_64__)
// What the x86_64 trampolines' fast paths read, by offset (checked where
// the types are complete, below).
#define MK_FBT_F_ENTRY 0    // FbtFunc::entry
#define MK_FBT_F_RET 8      // FbtFunc::ret
#define MK_FBT_F_HIJACK 16  // FbtFunc::hijack
#define MK_FBT_F_STYLE 17   // FbtFunc::style (0: AtEntry)
#define MK_FBT_F_LEN 18     // FbtFunc::len
#define MK_FBT_F_RET_X87 24 // FbtFunc::ret_x87
#define MK_FBT_F_SITE 32    // FbtFunc::site
#define MK_FBT_F_SELF 40    // FbtFunc::self
#define MK_FBT_HL_N 16      // HandlerList::n
#define MK_FBT_HL_FN 24     // HandlerList::h[0].fn
#define MK_FBT_HL_MFN 32    // HandlerList::h[0].mfn
#define MK_FBT_HL_CTX 40    // HandlerList::h[0].ctx
#define MK_FBT_HL_KV 52     // HandlerList::h[0].keeps_vector
#define MK_FBT_SLOT_ID 8    // ProbeSlot::id
#define MK_FBT_STR(x) #x
#define MK_FBT_EQU(name) ".equ " #name ", " MK_FBT_STR(name) "\n"
asm(MK_FBT_EQU(MK_FBT_F_ENTRY) MK_FBT_EQU(MK_FBT_F_RET) MK_FBT_EQU(MK_FBT_F_HIJACK)
    MK_FBT_EQU(MK_FBT_F_STYLE) MK_FBT_EQU(MK_FBT_F_LEN) MK_FBT_EQU(MK_FBT_F_SITE)
    MK_FBT_EQU(MK_FBT_F_RET_X87) MK_FBT_EQU(MK_FBT_F_SELF)
    MK_FBT_EQU(MK_FBT_HL_N) MK_FBT_EQU(MK_FBT_HL_FN) MK_FBT_EQU(MK_FBT_HL_MFN)
    MK_FBT_EQU(MK_FBT_HL_CTX) MK_FBT_EQU(MK_FBT_HL_KV) MK_FBT_EQU(MK_FBT_SLOT_ID));

asm(R"(
  # The fast paths fire a probe the way ProbeRegistry::fire() does, inline:
  # only on a thread that is a registered RCU reader outside any read-side
  # section, with liburcu on sys_membarrier (its read side is then two
  # plain stores).  Such a thread is outside probe context too: handlers
  # run inside a section.  Anything else goes to the C++ code, which does
  # the whole job.  The executable's own thread-locals are reached at
  # their local-exec offsets (the kernel, and whatever links its objects,
  # is an executable); liburcu's through the GOT.
  #
  # fbt_fast_check SLOW: jumps to SLOW unless the fast path may run; leaves
  # %r8 = liburcu's reader counter (a thread-pointer offset).
  .macro fbt_fast_check slow
  cmpb $2, %fs:mk_tls_probe_reader@tpoff
  jne \slow
  mov urcu_memb_reader@gottpoff(%rip), %r8
  mov %fs:(%r8), %rax
  test %eax, %eax         # the nesting count: nested in a section
  jne \slow
  .endm

  # fbt_fast_fire: fires the probe whose slot is in %r10 with the argument
  # array at %rsp, inside a read-side section of its own.  The probe frame
  # is %rsp tagged with TAG: fbt_trampoline_frame() works it out from
  # there if a handler asks.  %r8: as fbt_fast_check leaves it.  Clobbers
  # what a call does, except the vector registers when the one handler
  # keeps them (Handler::keeps_vector); any other call is preceded by
  # VECSAVE, which saves them in the frame (once).
  .macro fbt_fast_fire tag, vecsave
  mov urcu_memb_gp(%rip), %rax  # _urcu_memb_read_lock: the grace period's
  mov %rax, %fs:(%r8)           # counter (nesting 1)
  mov (%r10), %rax              # the handlers, inside the section
  test %rax, %rax
  jz 3f
  lea \tag(%rsp), %rdx
  mov %rdx, %fs:mk_tls_probe_frame@tpoff
  movb $1, %fs:mk_tls_probe_context@tpoff
  mov %rsp, %rdx
  cmpl $1, MK_FBT_HL_N(%rax)
  jne 1f
  cmpq $0, MK_FBT_HL_MFN(%rax)
  jne 1f
  cmpb $0, MK_FBT_HL_KV(%rax)
  jne .Lkv\@
  \vecsave
.Lkv\@:
  mov MK_FBT_HL_CTX(%rax), %rdi # a lone callback: fn(ctx, id, args)
  mov MK_FBT_SLOT_ID(%r10), %esi
  call *MK_FBT_HL_FN(%rax)
  jmp 2f
1:
  \vecsave
  mov %rax, %rdi                # any other list: the registry's loop
  mov %r10, %rsi
  call mk_probe_fire_list
2:
  movq $0, %fs:mk_tls_probe_frame@tpoff
  movb $0, %fs:mk_tls_probe_context@tpoff
3:
  # _urcu_memb_read_unlock at nesting 1; a grace period waiting on this
  # thread is woken.
  mov urcu_memb_reader@gottpoff(%rip), %rax
  subq $1, %fs:(%rax)
  cmpl $-1, urcu_memb_gp+8(%rip)
  jne 4f
  \vecsave
  call __sdt_rcu_wake
4:
  .endm

  # The vector registers a call may clobber and the traced code may be
  # using, saved in the frame when first needed: the entry code's xmm0-7
  # (the argument registers; at 64-191, 208 set once saved), the return
  # trampolines' xmm0-1 (the return registers; at 48 and 64, 128 set).
  .macro fbt_entry_vec_save
  cmpb $0, 208(%rsp)
  jne .Lsv\@
  movaps %xmm0, 64(%rsp)
  movaps %xmm1, 80(%rsp)
  movaps %xmm2, 96(%rsp)
  movaps %xmm3, 112(%rsp)
  movaps %xmm4, 128(%rsp)
  movaps %xmm5, 144(%rsp)
  movaps %xmm6, 160(%rsp)
  movaps %xmm7, 176(%rsp)
  movb $1, 208(%rsp)
.Lsv\@:
  .endm
  .macro fbt_entry_vec_restore
  cmpb $0, 208(%rsp)
  je .Lvr\@
  movaps 64(%rsp), %xmm0
  movaps 80(%rsp), %xmm1
  movaps 96(%rsp), %xmm2
  movaps 112(%rsp), %xmm3
  movaps 128(%rsp), %xmm4
  movaps 144(%rsp), %xmm5
  movaps 160(%rsp), %xmm6
  movaps 176(%rsp), %xmm7
.Lvr\@:
  .endm
  .macro fbt_ret_vec_save
  cmpb $0, 128(%rsp)
  jne .Lsv\@
  movaps %xmm0, 48(%rsp)
  movaps %xmm1, 64(%rsp)
  movb $1, 128(%rsp)
.Lsv\@:
  .endm

  # The return trampolines' body: save the return registers, fire the
  # return and put the real return address in the slot above the saved
  # %rbp, restore.  %rsp: the caller's, after the function's ret.  Frame:
  #   0(%rsp)    the return probe's arguments: 0, rax, rdx, 0, 0, 0
  #              (mk_fbt_exit() gets 8(%rsp): rax, rdx)
  #   48, 64     xmm0, xmm1
  #   80, 96     the x87 stack's values; 112: how many
  #   120        %rbp (fbt_trampoline_frame())
  #   128        1 once xmm0-1 are saved (fbt_ret_vec_save)
  # The fast path takes a return whose entry is the innermost on this
  # thread's shadow stack, of a function known to return nothing on the
  # x87 stack (FbtFunc::ret_x87); everything else, mk_fbt_exit().
  .macro fbt_return_body
  sub $8, %rsp            # where the real return address goes
  push %rbp
  mov %rsp, %rbp
  sub $144, %rsp
  and $-16, %rsp
  mov %rax, 8(%rsp)
  mov %rdx, 16(%rsp)
  movb $0, 128(%rsp)
  mov %fs:mk_tls_fbt_shadow@tpoff, %rdi
  test %rdi, %rdi
  jz 7f
  mov (%rdi), %rdx        # depth
  test %rdx, %rdx
  jz 7f
  lea (%rdx,%rdx,2), %rax
  lea -8(%rdi,%rax,8), %r9 # the innermost entry, e[depth - 1]
  lea 8(%rbp), %rsi       # the slot
  cmp %rsi, 8(%r9)        # this return's?
  jne 7f
  mov 16(%r9), %r11       # the FbtFunc (none: its kernel is gone)
  test %r11, %r11
  jz 7f
  cmpb $1, MK_FBT_F_RET_X87(%r11)
  jne 7f
  # Pop, then fire: the slot holds the real address before the entry goes.
  mov (%r9), %rax
  mov %rax, 8(%rbp)
  sub $1, %rdx
  mov %rdx, (%rdi)
  mov MK_FBT_F_RET(%r11), %r10 # the return probe
  cmpq $0, (%r10)
  je 8f
  fbt_fast_check 6f
  mov %rbp, 120(%rsp)
  movq $0, 0(%rsp)        # arg0: no ret's offset (see mk_fbt_exit)
  movq $0, 24(%rsp)
  movq $0, 32(%rsp)
  movq $0, 40(%rsp)
  fbt_fast_fire 3, fbt_ret_vec_save
  jmp 8f
6:
  # Popped, but in probe context or not a plain reader: the registry's
  # firing path decides (mk_fbt_exit() without the pop).
  fbt_ret_vec_save
  mov %r10, %rdi
  mov %rbp, %rsi
  lea 8(%rsp), %rdx
  call mk_fbt_fire_return
  jmp 8f
7:
  fbt_ret_vec_save
  # A long double (or complex long double) comes back on the x87 stack;
  # keep what is there.  The stack holds (8 - TOP) mod 8 values (TOP:
  # status word bits 11-13), at most the two a return leaves; fxam would
  # tell too, but costs a microcode assist on an empty register.
  fnstsw %ax
  movzwl %ax, %ecx
  shr $11, %ecx
  neg %ecx
  and $7, %ecx
  cmp $2, %ecx
  jbe 0f
  mov $2, %ecx
0:
  jecxz 1f
  fstpt 80(%rsp)
  cmp $1, %ecx
  je 1f
  fstpt 96(%rsp)
1:
  mov %ecx, 112(%rsp)
  mov %rbp, %rdi
  lea 8(%rsp), %rsi
  mov %ecx, %edx
  call mk_fbt_exit
  mov 112(%rsp), %ecx
  jecxz 8f
  cmp $2, %ecx
  jb 2f
  fldt 96(%rsp)
2:
  fldt 80(%rsp)
8:
  cmpb $0, 128(%rsp)
  je 9f
  movaps 48(%rsp), %xmm0
  movaps 64(%rsp), %xmm1
9:
  mov 8(%rsp), %rax
  mov 16(%rsp), %rdx
  mov %rbp, %rsp
  pop %rbp
  .endm

  # The entry code's tail: the argument registers back, the frame gone,
  # %r11 = the address in 8(%rbp).  The vector registers first
  # (fbt_entry_vec_restore); this part keeps the flags.
  .macro fbt_entry_restore_gpr
  mov 0(%rsp), %rdi
  mov 8(%rsp), %rsi
  mov 16(%rsp), %rdx
  mov 24(%rsp), %rcx
  mov 32(%rsp), %r8
  mov 40(%rsp), %r9
  mov 48(%rsp), %rax
  mov 56(%rsp), %r10
  mov %rbp, %rsp
  pop %rbp
  .cfi_def_cfa %rsp, 16
  pop %r11
  .cfi_def_cfa_offset 8
  .endm
  .macro fbt_entry_restore
  fbt_entry_vec_restore
  fbt_entry_restore_gpr
  .endm

  # 8(%rbp) = where the function of the FbtFunc %r11 resumes: after its
  # site.
  .macro fbt_resume_at
  movzbl MK_FBT_F_LEN(%r11), %eax
  add MK_FBT_F_SITE(%r11), %rax
  mov %rax, 8(%rbp)
  .endm

  # fbt_shadow_push SLOW: as take_return() does, push the return address
  # at %rsi of a call of the FbtFunc %r11 on the thread's shadow stack; or
  # jump to SLOW when it has none yet, is full or holds entries a longjmp
  # left.  Clobbers %rax, %rcx, %rdx, %rdi.
  .macro fbt_shadow_push slow
  mov %fs:mk_tls_fbt_shadow@tpoff, %rdi
  test %rdi, %rdi
  jz \slow
  mov (%rdi), %rdx        # depth
  lea (%rdx,%rdx,2), %rax
  test %rdx, %rdx
  jz 1f
  cmp %rsi, (%rdi,%rax,8) # e[depth - 1].slot below this one's?
  jb \slow
1:
  cmp 8(%rdi), %rdx       # full?
  jae \slow
  lea 16(%rdi,%rax,8), %rax # e[depth]: the entry, then the depth
  mov (%rsi), %rcx
  mov %rcx, (%rax)
  mov %rsi, 8(%rax)
  mov %r11, 16(%rax)
  add $1, %rdx
  mov %rdx, (%rdi)
  .endm

  .text
  .p2align 4
  .globl mk_fbt_entry_common
  .type mk_fbt_entry_common, @function
mk_fbt_entry_common:
  .cfi_startproc
  push %r11
  .cfi_adjust_cfa_offset 8
  push %rbp
  .cfi_adjust_cfa_offset 8
  .cfi_offset %rbp, -24
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  # The argument registers (rax: vector registers used by varargs; r10:
  # static chain) and the SSE argument registers at 0-191, the SSE ones
  # only when a call may clobber them (fbt_entry_vec_save: 208 says
  # whether); at 192, set by the C++ code's slow paths, 1 to call the
  # function (its return taken over); at 200, %rbp
  # (fbt_trampoline_frame()).
  sub $224, %rsp
  and $-16, %rsp
  movb $0, 208(%rsp)
  mov %rdi, 0(%rsp)
  mov %rsi, 8(%rsp)
  mov %rdx, 16(%rsp)
  mov %rcx, 24(%rsp)
  mov %r8, 32(%rsp)
  mov %r9, 40(%rsp)
  mov %rax, 48(%rsp)
  mov %r10, 56(%rsp)
  test $63, %r11          # no FbtFunc (a jump into a patched entry):
  jnz 9f                  # mk_fbt_enter() reports it
  cmp %r11, MK_FBT_F_SELF(%r11)
  jne 9f
  fbt_fast_check 9f
  # The fast path; 8(%rbp) holds the FbtFunc until the end.
  mov %rbp, 200(%rsp)
  mov MK_FBT_F_ENTRY(%r11), %r10
  fbt_fast_fire 2, fbt_entry_vec_save
  mov 8(%rbp), %r11
  cmpb $0, MK_FBT_F_HIJACK(%r11)
  jne 6f
5:
  fbt_resume_at
  .cfi_remember_state
  fbt_entry_restore
  jmp *%r11
  .cfi_restore_state
7:
  # Taking the return over, AfterFrame: its slot is above the function's
  # saved %rbp; the function's ret comes to mk_fbt_return.
  mov 0(%rbp), %rsi
  add $8, %rsi
  fbt_shadow_push 8f
  lea mk_fbt_return(%rip), %rax
  mov %rax, (%rsi)
  jmp 5b
8:
  # No room on the shadow stack as it is: mk_fbt_take_return() decides.
  fbt_entry_vec_save
  movq $0, 192(%rsp)
  mov %r11, %rdi
  mov %rsp, %rsi
  mov %rbp, %rdx
  call mk_fbt_take_return
  mov 8(%rbp), %r11
  fbt_resume_at
  jmp 10f
9:
  # The slow path: mk_fbt_enter() does it all.
  fbt_entry_vec_save
  movq $0, 192(%rsp)
  mov %r11, %rdi
  mov %rsp, %rsi
  mov %rbp, %rdx
  call mk_fbt_enter
10:
  fbt_entry_vec_restore
  cmpq $0, 192(%rsp)      # (the movs and pops below keep the flags)
  .cfi_remember_state
  fbt_entry_restore_gpr
  jne 4f                  # the return taken over by calling the function?
  jmp *%r11
  .cfi_restore_state
6:
  # Taking the return over, AtEntry: the return address is above the
  # pushed FbtFunc; the function's body is called (see above).
  cmpb $0, MK_FBT_F_STYLE(%r11)
  jne 7b
  lea 16(%rbp), %rsi
  fbt_shadow_push 8b
  fbt_resume_at
  fbt_entry_restore
4:
  lea 8(%rsp), %rsp       # its return address is on the shadow stack
  call *%r11
  .cfi_endproc
  .size mk_fbt_entry_common, .-mk_fbt_entry_common

  .globl mk_fbt_return_call
  .type mk_fbt_return_call, @function
mk_fbt_return_call:
  .cfi_startproc
  .cfi_undefined %rip
  fbt_return_body
  ret                     # predicted: the caller's call pushed it
  .cfi_endproc
  .size mk_fbt_return_call, .-mk_fbt_return_call

  .p2align 4
  .globl mk_fbt_return
  .type mk_fbt_return, @function
mk_fbt_return:
  .cfi_startproc
  .cfi_undefined %rip
  fbt_return_body
  # An indirect jump, not a ret: the function's ret into this code
  # consumed its return-stack-buffer entry, so a ret here would be
  # mispredicted and leave every caller's ret above mispredicted too.
  pop %r11
  jmp *%r11
  .cfi_endproc
  .size mk_fbt_return, .-mk_fbt_return

  .globl mk_fbt_mcount
  .type mk_fbt_mcount, @function
mk_fbt_mcount:
  ret
  .size mk_fbt_mcount, .-mk_fbt_mcount
)");
#else
asm(R"(
  .text
  .p2align 4
  .globl mk_fbt_entry_common
  .type mk_fbt_entry_common, @function
mk_fbt_entry_common:
  .cfi_startproc
  .cfi_def_cfa %esp, 8
  .cfi_offset %eip, -4
  push %ebp
  .cfi_adjust_cfa_offset 4
  .cfi_offset %ebp, -12
  mov %esp, %ebp
  .cfi_def_cfa_register %ebp
  # eax, edx, ecx carry arguments of regparm functions (and the static
  # chain); xmm0-2 vector arguments.
  push %eax
  push %ecx
  push %edx
  sub $76, %esp
  and $-16, %esp
  movups %xmm0, 16(%esp)
  movups %xmm1, 32(%esp)
  movups %xmm2, 48(%esp)
  mov 4(%ebp), %eax
  mov %eax, 0(%esp)
  lea -12(%ebp), %eax
  mov %eax, 4(%esp)
  mov %ebp, 8(%esp)
  call mk_fbt_enter
  movups 16(%esp), %xmm0
  movups 32(%esp), %xmm1
  movups 48(%esp), %xmm2
  mov -4(%ebp), %eax
  mov -8(%ebp), %ecx
  mov -12(%ebp), %edx
  mov %ebp, %esp
  pop %ebp
  .cfi_def_cfa %esp, 8
  lea 4(%esp), %esp
  .cfi_def_cfa_offset 4
  ret
  .cfi_endproc
  .size mk_fbt_entry_common, .-mk_fbt_entry_common

  .p2align 4
  .globl mk_fbt_return
  .type mk_fbt_return, @function
mk_fbt_return:
  .cfi_startproc
  .cfi_undefined %eip
  # Where the real return address goes, just below where the ret left the
  # stack (above the slot it came from, if the ret popped arguments).
  push $mk_fbt_return
  push %ebp
  mov %esp, %ebp
  push %edx               # -4(%ebp): the value's high half
  push %eax               # -8(%ebp): its low half
  sub $88, %esp
  and $-16, %esp
  movups %xmm0, 16(%esp)
  # Floating-point values come back on the x87 stack (see x86_64's).
  fnstsw %ax
  movzwl %ax, %ecx
  shr $11, %ecx
  neg %ecx
  and $7, %ecx
  cmp $2, %ecx
  jbe 0f
  mov $2, %ecx
0:
  jecxz 1f
  fstpt 32(%esp)
  cmp $1, %ecx
  je 1f
  fstpt 48(%esp)
1:
  mov %ecx, 64(%esp)
  mov %ebp, 0(%esp)
  lea -8(%ebp), %eax
  mov %eax, 4(%esp)
  mov %ecx, 8(%esp)
  call mk_fbt_exit
  mov 64(%esp), %ecx
  cmp $2, %ecx
  jb 2f
  fldt 48(%esp)
2:
  cmp $1, %ecx
  jb 3f
  fldt 32(%esp)
3:
  movups 16(%esp), %xmm0
  mov -8(%ebp), %eax
  mov -4(%ebp), %edx
  mov %ebp, %esp
  pop %ebp
  # A jump, not a ret (see x86_64's).
  pop %ecx
  jmp *%ecx
  .cfi_endproc
  .size mk_fbt_return, .-mk_fbt_return

  # i386 takes every return over by overwriting it.
  .globl mk_fbt_return_call
  .set mk_fbt_return_call, mk_fbt_return

  .globl mk_fbt_mcount
  .type mk_fbt_mcount, @function
mk_fbt_mcount:
  ret
  .size mk_fbt_mcount, .-mk_fbt_mcount
)");
#endif

namespace {

// ---- the shadow stack ---------------------------------------------------------------
//
// Per thread: the real return addresses of the traced calls in flight,
// innermost last, each with the stack slot it was taken from (which
// identifies it: a call's slot lies below its caller's).  Mapped on the
// first taken-over return of a thread (address space only, touched as it
// deepens) and unmapped when the thread exits.
//
// A return is matched to its entry by where it leaves the stack pointer:
// above the entry's slot (on x86_64 just above it; on i386 a `ret $N`
// also pops N bytes of arguments), and at or below every shallower
// entry's slot, which lies above the arguments its call pushed.  So the
// call that returned is the outermost entry whose slot lies below the
// stack pointer, whatever its ret popped, and the entries deeper than it
// are frames a longjmp skipped.  (Entries that share a slot are traced
// functions that tail-called each other: the innermost returns first, to
// the trampoline again.)

struct ShadowEntry {
  uintptr_t ret;             // the real return address
  uintptr_t *slot;           // where it was on the stack
  const FbtFunc *func;       // the function (nullptr: its kernel is gone)
};

struct ShadowStack {
  size_t depth;
  size_t cap;
  ShadowEntry e[1];
};

#if defined(__x86_64__)
static_assert(offsetof(FbtFunc, entry) == MK_FBT_F_ENTRY &&
                  offsetof(FbtFunc, ret) == MK_FBT_F_RET &&
                  offsetof(FbtFunc, hijack) == MK_FBT_F_HIJACK &&
                  offsetof(FbtFunc, style) == MK_FBT_F_STYLE &&
                  offsetof(FbtFunc, len) == MK_FBT_F_LEN &&
                  offsetof(FbtFunc, site) == MK_FBT_F_SITE &&
                  offsetof(FbtFunc, ret_x87) == MK_FBT_F_RET_X87 &&
                  offsetof(FbtFunc, self) == MK_FBT_F_SELF &&
                  sizeof(std::atomic<u8>) == 1 &&
                  (int)EntryStyle::AtEntry == 0 && sizeof(std::atomic<bool>) == 1,
              "the trampolines' offsets into FbtFunc");
static_assert(offsetof(HandlerList, n) == MK_FBT_HL_N &&
                  offsetof(HandlerList, h) + offsetof(Handler, fn) == MK_FBT_HL_FN &&
                  offsetof(HandlerList, h) + offsetof(Handler, mfn) == MK_FBT_HL_MFN &&
                  offsetof(HandlerList, h) + offsetof(Handler, ctx) == MK_FBT_HL_CTX &&
                  offsetof(HandlerList, h) + offsetof(Handler, keeps_vector) ==
                      MK_FBT_HL_KV &&
                  offsetof(ProbeSlot, handlers) == 0 &&
                  offsetof(ProbeSlot, id) == MK_FBT_SLOT_ID,
              "the trampolines' offsets into the registry's firing data");
static_assert(offsetof(ShadowStack, depth) == 0 && offsetof(ShadowStack, e) == 16 &&
                  sizeof(ShadowEntry) == 24 && offsetof(ShadowEntry, ret) == 0 &&
                  offsetof(ShadowEntry, slot) == 8 &&
                  offsetof(ShadowEntry, func) == 16,
              "the return trampolines' offsets into the shadow stack");
#endif

constexpr size_t kShadowBytes = 1u << 20;

__thread ShadowStack *t_shadow __asm__("mk_tls_fbt_shadow") = nullptr;
std::atomic<u64> g_missed{0};

// Unmaps the thread's shadow stack when the thread exits (registered on
// its first use, never from a signal handler: mk_fbt_enter runs in
// threads' normal flow).
struct ShadowOwner {
  bool armed = false;
  ~ShadowOwner() {
    if (t_shadow) {
      munmap(t_shadow, kShadowBytes);
      t_shadow = nullptr;
    }
  }
};
thread_local ShadowOwner t_owner;

MK_NOTRACE ShadowStack *shadow() {
  if (__builtin_expect(t_shadow != nullptr, 1))
    return t_shadow;
  void *m = mmap(nullptr, kShadowBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return nullptr;
  auto *s = (ShadowStack *)m;
  s->depth = 0;
  s->cap = (kShadowBytes - offsetof(ShadowStack, e)) / sizeof(ShadowEntry);
  t_owner.armed = true;
  t_shadow = s;
  return s;
}

[[noreturn]] MK_NOTRACE void lost_return(uintptr_t *slot) {
  // Nothing to return to: a traced frame was left in a way the shadow
  // stack cannot follow.  Say so with write(2) only, then stop.
  char msg[128] = "fbt: return through the trampoline with no shadow-stack "
                  "entry for slot 0x";
  size_t n = std::strlen(msg);
  for (int sh = (int)kWord * 8 - 4; sh >= 0; sh -= 4)
    msg[n++] = "0123456789abcdef"[((uintptr_t)slot >> sh) & 15];
  msg[n++] = '\n';
  if (write(2, msg, n) < 0) {
  }
  abort();
}

// Whether `ra` is one of the return trampolines.
inline bool is_trampoline(uintptr_t ra) {
  return ra == (uintptr_t)&mk_fbt_return || ra == (uintptr_t)&mk_fbt_return_call;
}

// Take the return at `slot` over: by a call of the function's body
// (`call_through`: the entry code's call will write the slot), or by
// overwriting it.  False: not taken over (the shadow stack is full).
MK_NOTRACE bool take_return(const FbtFunc *f, uintptr_t *slot,
                            bool call_through) {
  ShadowStack *s = shadow();
  if (!s) {
    g_missed.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  // Entries of frames a longjmp left behind lie below this call's slot.
  size_t d = s->depth;
  while (d && s->e[d - 1].slot < slot)
    d--;
  if (d == s->cap) {
    s->depth = d;
    g_missed.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  s->e[d] = ShadowEntry{*slot, slot, f};
  // The entry is complete before the stack says so, and the stack before
  // the return address changes: a timer signal walking this stack between
  // two of these stores still finds what it needs.
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  s->depth = d + 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (!call_through)
    *slot = (uintptr_t)&mk_fbt_return;
  return true;
}

} // namespace

namespace {

// Where the return address of a call of `f` lies, from the entry
// trampoline's `frame` (frame[0]: the site's frame pointer).
MK_NOTRACE uintptr_t *entry_slot(const FbtFunc *f, uintptr_t *frame) {
#if defined(__x86_64__)
  uintptr_t *const at_site = frame + 2;
#else
  uintptr_t *const at_site = frame + 3;
#endif
  return f->style == EntryStyle::AtEntry ? at_site
                                         : (uintptr_t *)frame[0] + 1; // above the saved fp
}

// The entry probe's frame: the caller's, at the call's return address.
MK_NOTRACE MK_READS_RAW_STACK ProbeFrame entry_frame(const FbtFunc *f,
                                                  uintptr_t *frame) {
  const uintptr_t *slot = entry_slot(f, frame);
  ProbeFrame pf;
  pf.pc = *slot;
  pf.pc_loc = (uintptr_t)slot;
  pf.sp = (uintptr_t)(slot + 1);
  pf.fp = f->style == EntryStyle::AtEntry ? frame[0]
                                          : *(const uintptr_t *)frame[0];
  return pf;
}

// The return probe's frame, from the return trampoline's `frame` once the
// real return address is back in its slot (frame[1]).
MK_NOTRACE MK_READS_RAW_STACK ProbeFrame return_frame(const uintptr_t *frame) {
  ProbeFrame pf;
  pf.pc = frame[1];
  pf.pc_loc = (uintptr_t)(frame + 1);
  pf.sp = (uintptr_t)(frame + 2);
  pf.fp = frame[0];
  return pf;
}

} // namespace

// The entry code was reached with something other than an FbtFunc (an
// FbtFunc is 64-byte aligned and points at itself): module code jumped
// into a traced function's patched entry, not to its start.  Say so with
// write(2) only, then stop; the panic's backtrace goes on from the entry
// code to the module code that jumped.
[[noreturn]] static MK_NOTRACE void wild_entry(const void *f) {
  char msg[128] = "fbt: the entry trampoline was reached without a function "
                  "(0x";
  size_t n = std::strlen(msg);
  for (int sh = (int)kWord * 8 - 4; sh >= 0; sh -= 4)
    msg[n++] = "0123456789abcdef"[((uintptr_t)f >> sh) & 15];
  const char tail[] = "): a jump into a patched entry\n";
  std::memcpy(msg + n, tail, sizeof tail - 1);
  n += sizeof tail - 1;
  if (write(2, msg, n) < 0) {
  }
  abort();
}

// Whatever the value, only its own read: an address the sanitizers call
// a redzone (a stack's, say) is no report of the kernel's, and one not
// mapped is a fault in the entry code, which panics.
static inline MK_NOTRACE void check_func(const FbtFunc *f) {
  if (__builtin_expect((uintptr_t)f % alignof(FbtFunc) != 0, 0))
    wild_entry(f);
  const void *self;
  asm volatile("mov %1, %0" : "=r"(self) : "m"(f->self));
  if (__builtin_expect(self != f, 0))
    wild_entry(f);
}

// What the entry trampoline saved: the registers (x86_64: 26 words, the
// last two its own), the frame's two words.
static inline MK_NOTRACE void entry_saved(uintptr_t *regs, uintptr_t *frame) {
#if defined(__x86_64__)
  asm_wrote(regs, 26 * sizeof *regs);
#else
  asm_wrote(regs, 3 * sizeof *regs);
#endif
  asm_wrote(frame, 2 * sizeof *frame);
}

// Take the return of this call of `f` over (regs[24] = 1: the entry code
// calls the function).  mk_fbt_enter() does, and the entry trampoline's
// fast path when it cannot itself (no shadow stack yet, or a full one, or
// entries a longjmp left).
extern "C" MK_NOTRACE void mk_fbt_take_return(const FbtFunc *f, uintptr_t *regs,
                                               uintptr_t *frame) {
  check_func(f);
  entry_saved(regs, frame);
  const bool at_entry = f->style == EntryStyle::AtEntry;
  if (take_return(f, entry_slot(f, frame), kCallThrough && at_entry) &&
      kCallThrough && at_entry)
    regs[24] = 1;
}

// `regs`: the saved argument registers (x86_64; regs[24]: set to 1 to have
// the entry code call the function, its return taken over).
extern "C" MK_NOTRACE void mk_fbt_enter(const FbtFunc *f, uintptr_t *regs,
                                         uintptr_t *frame) {
  check_func(f);
  entry_saved(regs, frame);
#if defined(__x86_64__)
  // Where the entry code resumes the function (its site is a jmp).
  frame[1] = f->site + f->len;
#endif
  if (in_probe_context())
    return;
  if (f->entry->handlers.load(std::memory_order_relaxed)) {
    const ProbeFrame pf = entry_frame(f, frame);
#if defined(__x86_64__)
    ProbeRegistry::fire(f->entry, regs, &pf);
#else
    // The stack arguments, above the return address.
    ProbeRegistry::fire(f->entry, entry_slot(f, frame) + 1, &pf);
#endif
  }
  if (f->hijack.load(std::memory_order_relaxed) &&
      f->ret->handlers.load(std::memory_order_relaxed))
    mk_fbt_take_return(f, regs, frame);
}

// Fires the return probe `ret` of the call whose return trampoline has
// `frame` (the real return address back in its slot) and saved `regs`:
// rax, rdx.  mk_fbt_exit() does, and the x86_64 return trampoline's fast
// path when it has popped the shadow stack but may not fire inline.
extern "C" MK_NOTRACE void mk_fbt_fire_return(const ProbeSlot *ret,
                                               const uintptr_t *frame,
                                               const uintptr_t *regs) {
  if (in_probe_context() || !ret->handlers.load(std::memory_order_relaxed))
    return;
  asm_wrote(regs, 2 * sizeof *regs);
  // Which `ret` the function took is not known here: arg0 is 0, an
  // offset no ret can have (the entry site is there).
  // regs[0] and regs[1] were stored one word at a time: read them so
  // (one 16-byte load of two 8-byte stores cannot be forwarded, and
  // waits for them to reach the cache).
  const uintptr_t args[6] = {0, __atomic_load_n(&regs[0], __ATOMIC_RELAXED),
                             __atomic_load_n(&regs[1], __ATOMIC_RELAXED),
                             0, 0, 0};
  const ProbeFrame pf = return_frame(frame);
  ProbeRegistry::fire(ret, args, &pf);
}

// `x87`: how many values the function's return left on the x87 stack.
// frame + 2 is the stack pointer the function's ret left; frame[1], the
// word below it, is where the trampoline returns through.
extern "C" MK_NOTRACE void mk_fbt_exit(uintptr_t *frame, const uintptr_t *regs,
                                        unsigned x87) {
  asm_wrote(frame, 2 * sizeof *frame);
  uintptr_t *const sp = frame + 2;
  ShadowStack *s = t_shadow;
  const size_t depth = s ? s->depth : 0;
  size_t d = depth; // the outermost entry below sp: e[d]
  while (d && s->e[d - 1].slot < sp)
    d--;
  if (d == depth || (!kRetPops && s->e[d].slot + 1 != sp))
    lost_return(frame + 1);
  while (d + 1 < depth && s->e[d + 1].slot == s->e[d].slot)
    d++; // traced tail calls: the innermost first
  d++;
  const ShadowEntry e = s->e[d - 1];
  // The real address in place before the entry goes: a stack walk from a
  // signal handler in between still finds it.
  frame[1] = e.ret;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  s->depth = d - 1;
  if (!e.func)
    return;
  // What its returns leave on the x87 stack, learnt (the x86_64 return
  // trampoline skips reading it for a function that leaves nothing).
  if (e.func->ret_x87.load(std::memory_order_relaxed) == 0)
    e.func->ret_x87.store(x87 ? 2 : 1, std::memory_order_relaxed);
  mk_fbt_fire_return(e.func->ret, frame, regs);
}

MK_NOTRACE MK_READS_RAW_STACK ProbeFrame
fbt_trampoline_frame(uintptr_t tag, const uintptr_t *saved) {
#if defined(__x86_64__)
  // The entry trampoline's saved registers, its frame at [25] (the
  // FbtFunc still at frame[1]); the return trampoline's arguments, its
  // frame at [15].
  if (tag == 2) {
    auto *frame = (uintptr_t *)saved[25];
    return entry_frame((const FbtFunc *)frame[1], frame);
  }
  return return_frame((const uintptr_t *)saved[15]);
#else
  (void)tag, (void)saved;
  return ProbeFrame{}; // i386's trampolines fire through mk_fbt_enter/exit
#endif
}

MK_NOTRACE uintptr_t fbt_real_return(uintptr_t ra, uintptr_t loc) {
  if (!is_trampoline(ra))
    return ra;
  const ShadowStack *s = t_shadow;
  // Several entries share a slot when traced functions tail-called each
  // other: the innermost holds the trampoline again, the outermost the
  // real address.
  // In the return trampoline, before it has the real address, the
  // trampoline's own copy lies just below where the ret left the stack:
  // at the slot, or (i386) up to a `ret $N`'s 64 KiB above it.  The entry
  // is the outermost whose slot is at or below that (as mk_fbt_exit()
  // matches it).
  const size_t depth = s ? s->depth : 0;
  size_t d = depth;
  while (d && (uintptr_t)s->e[d - 1].slot <= loc)
    d--;
  if (d == depth || loc - (uintptr_t)s->e[d].slot > (kRetPops ? 0xffffu : 0u))
    return ra;
  for (const uintptr_t *slot = s->e[d].slot; d < depth && s->e[d].slot == slot; d++)
    if (!is_trampoline(s->e[d].ret))
      return s->e[d].ret;
  return ra;
}

u64 fbt_missed_returns() { return g_missed.load(std::memory_order_relaxed); }

// ---- probes -------------------------------------------------------------------------

FbtProvider::~FbtProvider() {
  // A traced frame of this thread may still return through the trampoline
  // after this kernel is gone (its main() was traced): it returns, but no
  // longer fires a probe of the freed registry.  The kernel's other
  // threads have ended by now.
  if (ShadowStack *s = t_shadow)
    for (size_t d = 0; d < s->depth; d++)
      s->e[d].func = nullptr;
  MutexLock g(mu_);
  if (reg_)
    for (const Chunk &c : chunks_)
      reg_->arena().release(ModuleArena::Block{c.addr, c.size});
}

void FbtProvider::add_sites(ProbeRegistry &r, const std::string &module,
                            const void *owner, const std::vector<Site> &sites) {
  if (sites.empty())
    return;
  auto *block = new Block;
  block->funcs = std::make_unique<FbtFunc[]>(sites.size());
  block->live = sites.size();
  size_t k = 0;
  for (const Site &s : sites) {
    FbtFunc *f = &block->funcs[k++];
    f->block = block;
    f->kernel = owner == nullptr;
    f->style = s.style;
    f->func = s.func, f->size = s.size;
    f->site = s.addr, f->len = s.len;
    x86::disabled_bytes(SiteKind::Entry, s.len, f->disabled);
    f->function = s.function;
    int i = 0;
    for (const char *name : {"entry", "return"}) {
      Probe *p = r.create(*this, "fbt", module, s.function, name, owner);
      if (!p->data) {
        auto d = std::make_unique<FbtProbe>();
        d->is_return = i == 1;
        p->data = std::move(d);
      }
      FbtProbe &d = data_of(*p);
      d.add(f);
      set_ref(p->id, d.count() == 1 ? (uintptr_t)f | (uintptr_t)d.is_return : 0);
      (i == 0 ? f->entry : f->ret) = p->slot;
      f->refs++;
      i++;
    }
  }
}

Result<void> FbtProvider::provide(ProbeRegistry &r) {
  reg_ = &r;
  auto kernel = r.code().kernel();
  std::vector<Site> sites;
  for (const fbt_site_record *rec = __start_set_fbt_sites_set;
       rec && rec < __stop_set_fbt_sites_set; rec++) {
    Site s;
    s.addr = rec->site;
    s.len = (u8)rec->len;
    s.style = (EntryStyle)rec->style;
    const CodeImage::Func *fn = kernel ? kernel->function_at(s.addr) : nullptr;
    if (fn) {
      s.func = fn->addr, s.size = fn->size;
      s.function = pretty_function(kernel->name_of(*fn));
    } else {
      s.function = strf("0x%llx", (unsigned long long)s.addr);
    }
    // The recorder wrote the NOP into the object; check it is there.
    u8 want[8], live[8];
    x86::disabled_bytes(SiteKind::Entry, s.len, want);
    if (s.len < 5 || s.len > 6 || !r.patcher().read(s.addr, live, s.len) ||
        std::memcmp(live, want, s.len) != 0)
      return error(strf("fbt: kernel entry site of %s at 0x%llx does not hold "
                        "its NOP",
                        s.function.c_str(), (unsigned long long)s.addr));
    sites.push_back(std::move(s));
  }
  add_sites(r, "kernel", nullptr, sites);
  return {};
}

// A module's table of entry sites waits for the first description that
// could name its probes.
void FbtProvider::defer(Pending p) {
  MutexLock g(pending_mu_);
  pending_.push_back(std::move(p));
}

void FbtProvider::provide_matching(ProbeRegistry &r, const ProbeDesc &d) {
  // Whether `d` could name a probe of the module: its provider and module
  // fields (a function or name field is matched once the probes exist).
  ProbeDesc scope = d;
  scope.function.clear(), scope.name.clear();
  const ProbeMatcher in_scope(scope);
  MutexLock g(pending_mu_);
  for (size_t i = 0; i < pending_.size();) {
    if (!in_scope("fbt", pending_[i].module, "", "")) {
      i++;
      continue;
    }
    Pending p = std::move(pending_[i]);
    pending_.erase(pending_.begin() + (std::ptrdiff_t)i);
    add_sites(r, p.module, p.owner, sites_of(r, p));
  }
}

// Each pending site with the function that holds it: its entry must be
// the function's first instruction or follow a frame-pointer prologue (a
// site that is neither gets no probes, and the console says why).
std::vector<FbtProvider::Site> FbtProvider::sites_of(ProbeRegistry &r,
                                                     const Pending &p) {
  const ObjectFile &obj = *p.obj;
  const bool is64 = obj.arch->elf_class() == ELFCLASS64;
  const HolderIndex holders(obj);
  size_t hint = 0;
  std::vector<Site> sites;
  sites.reserve(p.sites.size());
  for (const PendingSite &ps : p.sites) {
    const Section &sec = obj.sections[ps.section];
    const SiteHolder h = holders.find(ps.section, ps.off, &hint);
    const bool is_func = h.sym && obj.symbols[h.sym].type == STT_FUNC;
    const u64 fsize = is_func && obj.symbols[h.sym].size
                          ? obj.symbols[h.sym].size
                          : sec.size - h.value;
    const u64 base = p.sec_addr[ps.section];
    auto style = entry_style((const u8 *)(uintptr_t)(base + h.value), fsize,
                             ps.off - h.value, is64, [&] {
                               return site_where(obj, ps.section, ps.off) +
                                      ": " + std::string(h.function);
                             });
    if (!style) {
      r.report("fbt: " + style.error().message + "; no probes for it\n");
      continue;
    }
    Site s;
    s.addr = base + ps.off;
    s.len = ps.len;
    s.style = *style;
    s.func = base + h.value, s.size = fsize;
    s.function = pretty_function(h.function);
    sites.push_back(std::move(s));
  }
  return sites;
}

void FbtProvider::forget_module(const void *owner) {
  MutexLock g(pending_mu_);
  std::erase_if(pending_, [&](const Pending &p) { return p.owner == owner; });
}

void FbtProvider::forget_code(const void *owner, u64 lo, u64 hi) {
  MutexLock g(pending_mu_);
  for (Pending &p : pending_)
    if (p.owner == owner)
      std::erase_if(p.sites, [&](const PendingSite &s) {
        const u64 a = p.sec_addr[s.section] + s.off;
        return a >= lo && a < hi;
      });
}

// A function's probes share its FbtFunc (one reference each): the
// probe's functions in the range lose this probe's reference.
void FbtProvider::drop_sites(Probe &p, u64 lo, u64 hi) {
  FbtProbe &d = data_of(p);
  std::vector<FbtFunc *> keep;
  for (size_t k = 0, n = d.count(); k < n; k++) {
    FbtFunc *f = d.at(k);
    if (f->site < lo || f->site >= hi) {
      keep.push_back(f);
      continue;
    }
    if (--f->refs == 0) {
      if (f->stub) {
        MutexLock g(mu_);
        free_stubs_.push_back(f->stub);
      }
      if (--f->block->live == 0)
        delete f->block;
    }
  }
  d.first = nullptr;
  d.more.clear();
  for (FbtFunc *f : keep)
    d.add(f);
  set_ref(p.id, d.count() == 1 ? (uintptr_t)d.first | (uintptr_t)d.is_return
                               : 0);
}

// ---- modules ------------------------------------------------------------------------
//
// While a module is linked: the entry hooks bind to a `ret` of their own
// (code may take their address), and each relocation against one is an
// entry site, rewritten into its NOP in the module's writable image.  Once
// linked: the sites the compiler listed itself (__mcount_loc,
// __patchable_function_entries), each patch area made one 5-byte NOP
// before the module's code first runs; then the probes.

class FbtModuleProbes final : public ModuleProbes {
public:
  FbtModuleProbes(FbtProvider &prov, std::string module)
      : prov_(prov), module_(std::move(module)) {}

  std::optional<Result<u64>> bind(const std::string &n) override {
    if (!is_entry_symbol(n))
      return std::nullopt;
    return Result<u64>((u64)(uintptr_t)&mk_fbt_mcount);
  }

  bool claims(const Symbol &s) const override { return is_entry_symbol(s.name); }

  Result<bool> take(const SiteContext &c) override {
    auto f = find_entry_call(c.obj, c.section, c.rel, c.section_mem);
    if (!f)
      return f.take_error();
    // The site, one NOP instruction; then what else the compiler's call
    // sequence held (gcc's large model), NOPs the function runs after it.
    u8 nop[0x24];
    x86::disabled_bytes(SiteKind::Entry, f->len, nop);
    x86::nop_fill(nop + f->len, f->span - f->len);
    code::copy(c.section_mem + f->insn_off, nop, f->span);
    found_.push_back(Found{c.section, f->insn_off, f->len, (u8)f->span, false});
    return true;
  }

  Result<void> provide(ProbeRegistry &, const ModuleImage &m) override {
    const ObjectFile &obj = m.obj;
    const Placement &pl = m.pl;
    const bool is64 = obj.arch->elf_class() == ELFCLASS64;
    auto before = [](const Found &a, const Found &b) {
      return a.section != b.section ? a.section < b.section : a.off < b.off;
    };
    // The calls found while relocating, in order: a list that names them
    // again (Linux's modules have both their __fentry__ calls and the
    // __mcount_loc that lists them) adds nothing.
    if (!std::is_sorted(found_.begin(), found_.end(), before))
      std::sort(found_.begin(), found_.end(), before);
    const size_t calls = found_.size();
    // The compiler's own lists: pointers to patch areas.
    for (size_t i = 0; i < obj.sections.size(); i++) {
      const Section &sec = obj.sections[i];
      if ((sec.name != "__mcount_loc" &&
           sec.name != "__patchable_function_entries") ||
          !pl.sec_mem[i])
        continue;
      const unsigned psize = is64 ? 8 : 4;
      for (u64 k = 0; k + psize <= sec.size; k += psize) {
        const u64 addr = read_field(pl.sec_mem[i] + k, psize);
        // Mostly in the section of the entry before.
        u32 text = 0;
        if (const u32 j = found_.empty() ? 0 : found_.back().section;
            j && addr >= pl.sec_addr[j] &&
            addr + 5 <= pl.sec_addr[j] + obj.sections[j].size)
          text = j;
        for (size_t j = 1; j < obj.sections.size() && !text; j++)
          if ((obj.sections[j].flags & SHF_EXECINSTR) && pl.sec_addr[j] &&
              addr >= pl.sec_addr[j] &&
              addr + 5 <= pl.sec_addr[j] + obj.sections[j].size)
            text = (u32)j;
        if (!text)
          return error(strf("%s: %s entry %llu (0x%llx) is not an address in "
                            "the module's code",
                            obj.name.c_str(), sec.name.c_str(),
                            (unsigned long long)(k / psize),
                            (unsigned long long)addr));
        const Found listed{text, addr - pl.sec_addr[text], 5, 5, true};
        if (calls && std::binary_search(found_.begin(),
                                        found_.begin() + (ptrdiff_t)calls,
                                        listed, before))
          continue; // a call already found: one site
        found_.push_back(listed);
      }
    }
    if (found_.empty())
      return {}; // built without entry sites (FBT=none): nothing to index
    // Relocations and the compiler's lists come in address order, mostly.
    if (!std::is_sorted(found_.begin(), found_.end(), before))
      std::sort(found_.begin(), found_.end(), before);
    FbtProvider::Pending p{m.owner, m.name,
                           m.shared_obj ? m.shared_obj
                                        : std::make_shared<const ObjectFile>(obj),
                           pl.sec_addr, {}};
    p.sites.reserve(found_.size());
    for (size_t k = 0; k < found_.size(); k++) {
      const Found &fd = found_[k];
      if (k && fd.section == found_[k - 1].section && fd.off == found_[k - 1].off)
        continue; // listed and called: one site
      if (fd.area) {
        // One instruction, so that patching it is safe while threads run
        // it; nobody runs the module yet, so a plain write does.
        u8 *at = pl.sec_mem[fd.section] + fd.off;
        if (!is_nop_area(at, 5)) {
          std::string bytes;
          for (int b = 0; b < 5; b++)
            bytes += strf("%s%02x", b ? " " : "", at[b]);
          return error(strf("%s: the patch area is not 5 bytes of NOPs (%s); "
                            "build with -fpatchable-function-entry=5",
                            site_where(obj, fd.section, fd.off).c_str(),
                            bytes.c_str()));
        }
        u8 nop[8];
        x86::disabled_bytes(SiteKind::Entry, 5, nop);
        code::copy(at, nop, 5);
      } else if (fd.span > fd.len &&
                 !is_nop_area(pl.sec_mem[fd.section] + fd.off + fd.len,
                              fd.span - fd.len)) {
        // The padding after the site is written as the site is found: a
        // relocation applied later inside the call sequence would have
        // put a value into code the function runs.
        return error(site_where(obj, fd.section, fd.off) +
                     ": a relocation after the entry call's own wrote into "
                     "its sequence");
      }
      p.sites.push_back(FbtProvider::PendingSite{fd.off, fd.section, fd.len});
    }
    prov_.defer(std::move(p));
    return {};
  }

private:
  struct Found {
    u32 section;
    u64 off;
    u8 len;
    u8 span; // the compiler's call sequence, made NOPs after the site
    bool area; // a compiler-listed patch area (made one NOP here)
  };
  FbtProvider &prov_;
  std::string module_;
  std::vector<Found> found_;
};

std::unique_ptr<ModuleProbes>
FbtProvider::begin_module(const std::string &name) {
  return std::make_unique<FbtModuleProbes>(*this, name);
}

// ---- enabling -----------------------------------------------------------------------

Result<u64> FbtProvider::stub_for(FbtFunc &f) {
  if (f.stub)
    return f.stub;
  MutexLock g(mu_);
  constexpr u64 kStub = 16, kChunk = 64 * 1024;
  u64 at;
  if (!free_stubs_.empty()) {
    at = free_stubs_.back();
    free_stubs_.pop_back();
  } else {
    if (chunks_.empty() || used_ + kStub > chunks_.back().size) {
      auto b = reg_->arena().allocate(kChunk, 0);
      if (!b)
        return error("fbt: no memory for trampolines: " + b.error().message);
      reg_->arena().protect(b->addr, b->size, Protect::ReadExec);
      chunks_.push_back(Chunk{b->addr, b->size});
      used_ = 0;
    }
    at = chunks_.back().addr + used_;
    used_ += kStub;
  }
  u8 code[kStub];
  size_t n = 0;
  const u64 common = (u64)(uintptr_t)&mk_fbt_entry_common;
#if defined(__x86_64__)
  code[n++] = 0x49, code[n++] = 0xbb; // movabs $f, %r11
  const u64 rec = (u64)(uintptr_t)&f;
  std::memcpy(code + n, &rec, 8), n += 8;
#else
  code[n++] = 0x68; // push $f
  const u32 rec = (u32)(uintptr_t)&f;
  std::memcpy(code + n, &rec, 4), n += 4;
#endif
  code[n++] = 0xe9; // jmp mk_fbt_entry_common
  const u32 rel = (u32)(common - (at + n + 4));
  std::memcpy(code + n, &rel, 4), n += 4;
  while (n < kStub)
    code[n++] = 0xcc;
  auto w = reg_->arena().writing();
  code::copy(reg_->arena().alias(at), code, kStub);
  f.stub = at;
  return at;
}

namespace {

// The function's `ret` instructions (c3, f3 c3, and c2 iw: ret $N), for
// breakpoint mode.
std::vector<FbtFunc::Ret> find_rets(u64 func, u64 size) {
  std::vector<FbtFunc::Ret> out;
  csh cs;
  if (cs_open(CS_ARCH_X86, sizeof(void *) == 8 ? CS_MODE_64 : CS_MODE_32, &cs) !=
      CS_ERR_OK)
    return out;
  cs_insn *insn = nullptr;
  const size_t n =
      cs_disasm(cs, (const u8 *)(uintptr_t)func, size, func, 0, &insn);
  for (size_t i = 0; i < n; i++) {
    const cs_insn &in = insn[i];
    if (in.size == 1 && in.bytes[0] == 0xc3)
      out.push_back(FbtFunc::Ret{in.address, 1, {0xc3, 0}});
    else if (in.size == 2 && in.bytes[0] == 0xf3 && in.bytes[1] == 0xc3)
      out.push_back(FbtFunc::Ret{in.address, 2, {0xf3, 0xc3}});
    else if (in.size == 3 && in.bytes[0] == 0xc2)
      out.push_back(
          FbtFunc::Ret{in.address, 3, {0xc2, in.bytes[1], in.bytes[2]}});
  }
  if (n)
    cs_free(insn, n);
  cs_close(&cs);
  return out;
}

// The patches that bring `f`'s entry site and `ret`s to its modes.
void ops_for(FbtFunc &f, std::vector<PatchOp> &ops) {
  PatchOp op{f.site, f.len, {}};
  if (f.entry_mode == FbtFunc::Trap) {
    x86::breakpoint_bytes(f.disabled, f.len, op.bytes);
    op.fire = f.entry;
    op.then = x86::Emul::Skip;
    op.args = x86::TrapArgs::Entry;
  } else if (f.entry_mode == FbtFunc::Call || f.takes_returns()) {
    x86::enabled_bytes(SiteKind::Entry, f.len, f.site, f.stub, op.bytes);
  } else {
    std::memcpy(op.bytes, f.disabled, f.len);
  }
  ops.push_back(op);
  // The `ret`s only when they go to or from int3: breakpoint mode.
  const bool arm = f.ret_mode == FbtFunc::Trap;
  if (!f.rets_found || (!arm && !f.rets_armed))
    return;
  f.rets_armed = arm;
  for (const FbtFunc::Ret &r : f.rets) {
    PatchOp rop{r.addr, r.len, {r.bytes[0], r.bytes[1], r.bytes[2]}};
    if (f.ret_mode == FbtFunc::Trap) {
      rop.bytes[0] = 0xcc;
      rop.fire = f.ret;
      rop.then = x86::Emul::Ret;
      rop.args = x86::TrapArgs::Return;
      rop.func = f.func;
      if (r.bytes[0] == 0xc2)
        rop.pop = (u16)(r.bytes[1] | r.bytes[2] << 8);
    }
    ops.push_back(rop);
  }
}

} // namespace

void FbtProvider::set_ref(u32 id, uintptr_t ref) {
  MutexLock g(ids_mu_);
  if (by_id_.size() < id)
    by_id_.resize(id);
  by_id_[id - 1] = ref;
}

void FbtProvider::gather(const ProbeBatch &b) {
  // From the table by id where it names the one function a probe has
  // (nearly all), else from the probe's data.
  MutexLock g(ids_mu_);
  work_.clear();
  for (size_t i = 0; i < b.size(); i++) {
    const u32 id = b.ids[i];
    if (const uintptr_t ref = id <= by_id_.size() ? by_id_[id - 1] : 0) {
      work_.push_back({(FbtFunc *)(ref & ~(uintptr_t)1), (ref & 1) != 0, (u32)i});
      continue;
    }
    const FbtProbe &d = data_of(*b.probes[i]);
    for (size_t k = 0, n = d.count(); k < n; k++)
      work_.push_back({d.at(k), d.is_return, (u32)i});
  }
}

Result<void> FbtProvider::enable(const ProbeBatch &b, PatchMode mode) {
  const bool trap = mode == PatchMode::Breakpoint;
  const u32 batch = ++batch_;
  gather(b);
  // Everything that can refuse first: a refusal changes nothing.
  for (const FbtWork &w : work_) {
    FbtFunc *f = w.f;
    // The kernel image's text is one per process; another kernel booted
    // in the same process (the tests do that) may have patched a site.
    u8 now[8];
    if (f->kernel && f->entry_mode == FbtFunc::Off &&
        f->ret_mode == FbtFunc::Off &&
        reg_->patcher().read(f->site, now, f->len) &&
        !same_bytes(now, f->disabled, f->len))
      return error(strf("probe %s: its site at 0x%llx is enabled by another "
                        "kernel in this process",
                        b.probes[w.i]->full().c_str(),
                        (unsigned long long)f->site));
    if ((trap && !w.is_return && f->ret_mode == FbtFunc::Call) ||
        (!trap && w.is_return && f->entry_mode == FbtFunc::Trap))
      return error(strf("fbt: %s: entry and return share the entry site; "
                        "enable them in the same patch mode",
                        f->function.c_str()));
    if (!trap) {
      if (!f->stub) // made on the first enabling, then kept
        MK_TRY(stub_for(*f));
    } else if (w.is_return && !f->rets_found) {
      f->rets = find_rets(f->func, f->size);
      f->rets_found = true;
    }
  }
  std::vector<FbtFunc *> &touched = touched_;
  touched.clear();
  for (const FbtWork &w : work_) {
    FbtFunc *f = w.f;
    (w.is_return ? f->ret_mode : f->entry_mode) =
        trap ? FbtFunc::Trap : FbtFunc::Call;
    f->hijack.store(f->takes_returns(), std::memory_order_relaxed);
    if (f->batch != batch) // entry and return: one site, one patch
      f->batch = batch, touched.push_back(f);
  }
  apply(touched);
  return {};
}

void FbtProvider::apply(const std::vector<FbtFunc *> &touched) {
  std::vector<PatchOp> &ops = ops_;
  ops.clear();
  for (FbtFunc *f : touched)
    ops_for(*f, ops);
  reg_->patcher().apply(ops);
}

void FbtProvider::disable(const ProbeBatch &b) {
  const u32 batch = ++batch_;
  gather(b);
  std::vector<FbtFunc *> &touched = touched_;
  touched.clear();
  for (const FbtWork &w : work_) {
    FbtFunc *f = w.f;
    (w.is_return ? f->ret_mode : f->entry_mode) = FbtFunc::Off;
    f->hijack.store(f->takes_returns(), std::memory_order_relaxed);
    if (f->batch != batch)
      f->batch = batch, touched.push_back(f);
  }
  apply(touched);
}

std::vector<std::string> FbtProvider::argtypes(const Probe &p) const {
  (void)p;
  return {}; // no type information: arguments are plain integers
}

std::vector<SiteInfo> FbtProvider::sites(const Probe &p) const {
  std::vector<SiteInfo> out;
  const FbtProbe &d = data_of(p);
  for (size_t k = 0, n = d.count(); k < n; k++) {
    const FbtFunc *f = d.at(k);
    SiteInfo i;
    i.addr = f->site;
    i.len = f->len;
    i.kind = !d.is_return ? "entry" : "return via entry";
    i.function = f->function;
    i.func_addr = f->func;
    u8 now[8];
    i.enabled = reg_->patcher().read(f->site, now, f->len) &&
                std::memcmp(now, f->disabled, f->len) != 0;
    out.push_back(i);
    if (d.is_return && f->ret_mode == FbtFunc::Trap)
      for (const FbtFunc::Ret &r : f->rets) {
        SiteInfo ri = i;
        ri.addr = r.addr;
        ri.len = r.len;
        ri.kind = "ret";
        ri.enabled = true;
        out.push_back(ri);
      }
  }
  return out;
}

void FbtProvider::destroy(Probe &p) {
  if (!p.data)
    return;
  set_ref(p.id, 0);
  const FbtProbe &d = data_of(p);
  for (size_t k = 0, n = d.count(); k < n; k++)
    if (FbtFunc *f = d.at(k); --f->refs == 0) {
      if (f->stub) {
        MutexLock g(mu_);
        free_stubs_.push_back(f->stub);
      }
      if (--f->block->live == 0)
        delete f->block;
    }
}

// The probe core and the unwinder read fbt's trampoline frames and the
// return addresses its return trampoline stands in for through these.
namespace {
const bool g_hooks_installed = [] {
  set_trampoline_hooks({fbt_trampoline_frame, fbt_real_return});
  return true;
}();
} // namespace

} // namespace mk
