// The gate into module code (see kern_modcall.h).
#include "kern_modcall.h"

#include "kern_panic.h"

#include <string>

// Called by the gate, on the kernel's stack below the guard, when a word
// of the guard changed: `above` is its distance above the callee's return
// address.
extern "C" [[noreturn]] void mk_module_stack_smashed(const void *fn,
                                                     uintptr_t above) {
  const std::string name = mk::code_name((mk::u64)(uintptr_t)fn);
  mk::panic("stack smashed: %s wrote over its caller's frame (%lu bytes "
            "above its return address)",
            name.c_str(), (unsigned long)above);
}

// The guard: 256 bytes on x86_64, 268 on i386 (what keeps the callee's
// stack 16-byte aligned), filled with a word no pointer of the process is.
#if defined(__x86_64__)
asm(R"(
  .text
  .p2align 4
  .globl mk_module_call
  .type mk_module_call, @function
mk_module_call:
  .cfi_startproc
  push %rbp
  .cfi_adjust_cfa_offset 8
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  push %r12
  .cfi_offset %r12, -24
  push %r13
  .cfi_offset %r13, -32
  sub $256, %rsp
  mov %r8, %r12
  movabs $0x4452415547444b4d, %r13
  mov %rsp, %r10
  lea 256(%rsp), %r11
1:
  mov %r13, (%r10)
  add $8, %r10
  cmp %r11, %r10
  jb 1b
  call *%r12
  xor %ecx, %ecx
2:
  cmp %r13, (%rsp,%rcx,8)
  jne 3f
  inc %ecx
  cmp $32, %ecx
  jb 2b
  add $256, %rsp
  pop %r13
  pop %r12
  pop %rbp
  .cfi_remember_state
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_restore_state
3:
  mov %r12, %rdi
  lea 8(,%rcx,8), %rsi
  call mk_module_stack_smashed
  ud2
  .cfi_endproc
  .size mk_module_call, .-mk_module_call
)");
#elif defined(__i386__)
asm(R"(
  .text
  .p2align 4
  .globl mk_module_call
  .type mk_module_call, @function
mk_module_call:
  .cfi_startproc
  push %ebp
  .cfi_adjust_cfa_offset 4
  .cfi_offset %ebp, -8
  mov %esp, %ebp
  .cfi_def_cfa_register %ebp
  push %ebx
  .cfi_offset %ebx, -12
  push %esi
  .cfi_offset %esi, -16
  push %edi
  .cfi_offset %edi, -20
  sub $268, %esp
  mov %esp, %edi
  mov $67, %ecx
  mov $0x47444b4d, %eax
  cld
  rep stosl
  push 20(%ebp)
  push 16(%ebp)
  push 12(%ebp)
  push 8(%ebp)
  call *24(%ebp)
  add $16, %esp
  xor %ecx, %ecx
2:
  cmpl $0x47444b4d, (%esp,%ecx,4)
  jne 3f
  inc %ecx
  cmp $67, %ecx
  jb 2b
  add $268, %esp
  pop %edi
  pop %esi
  pop %ebx
  pop %ebp
  .cfi_remember_state
  .cfi_def_cfa %esp, 4
  ret
  .cfi_restore_state
3:
  lea 20(,%ecx,4), %ecx
  sub $8, %esp
  push %ecx
  push 24(%ebp)
  call mk_module_stack_smashed
  ud2
  .cfi_endproc
  .size mk_module_call, .-mk_module_call
)");
#else
#error "kern_modcall: no gate for this architecture"
#endif
