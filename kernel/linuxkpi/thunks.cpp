// The x86 thunks Linux 6.1 modules are built to call: every return is
// `jmp __x86_return_thunk` (the loader rewrites the ones .return_sites
// lists back into `ret`), and with retpolines every indirect call or jump
// goes through __x86_indirect_thunk_<reg>.  minikern runs in user space,
// where the speculation these defend against is the host kernel's
// business: each thunk is the plain instruction.  i386 Linux (no return
// thunk in Debian's 686 config) has the indirect ones, by its registers.
#include "lkpi_export.h"

#define MK_THUNK(name, insn)                                                   \
  asm(".pushsection .text." #name ",\"ax\",@progbits\n"                        \
      ".globl " #name "\n.type " #name ",@function\n" #name ":\n" insn         \
      "\nint3\n.size " #name ", . - " #name "\n.popsection\n");
#define LINUX_EXPORT_CODE_(sym) LINUX_EXPORT_CODE(#sym, sym)

#if defined(__x86_64__)
MK_THUNK(__x86_return_thunk, "ret")
#define MK_INDIRECT(reg) MK_THUNK(__x86_indirect_thunk_##reg, "jmp *%" #reg)
MK_INDIRECT(rax)
MK_INDIRECT(rbx)
MK_INDIRECT(rcx)
MK_INDIRECT(rdx)
MK_INDIRECT(rsi)
MK_INDIRECT(rdi)
MK_INDIRECT(rbp)
MK_INDIRECT(r8)
MK_INDIRECT(r9)
MK_INDIRECT(r10)
MK_INDIRECT(r11)
MK_INDIRECT(r12)
MK_INDIRECT(r13)
MK_INDIRECT(r14)
MK_INDIRECT(r15)

extern "C" {
void __x86_return_thunk();
#define MK_DECL(reg) void __x86_indirect_thunk_##reg();
MK_DECL(rax) MK_DECL(rbx) MK_DECL(rcx) MK_DECL(rdx) MK_DECL(rsi)
MK_DECL(rdi) MK_DECL(rbp) MK_DECL(r8) MK_DECL(r9) MK_DECL(r10)
MK_DECL(r11) MK_DECL(r12) MK_DECL(r13) MK_DECL(r14) MK_DECL(r15)
}

LINUX_EXPORT_CODE_(__x86_return_thunk);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_rax);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_rbx);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_rcx);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_rdx);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_rsi);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_rdi);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_rbp);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r8);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r9);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r10);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r11);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r12);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r13);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r14);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_r15);

#endif

#if defined(__i386__)
#define MK_INDIRECT(reg) MK_THUNK(__x86_indirect_thunk_##reg, "jmp *%" #reg)
MK_INDIRECT(eax)
MK_INDIRECT(ebx)
MK_INDIRECT(ecx)
MK_INDIRECT(edx)
MK_INDIRECT(esi)
MK_INDIRECT(edi)
MK_INDIRECT(ebp)
extern "C" {
#define MK_DECL(reg) void __x86_indirect_thunk_##reg();
MK_DECL(eax) MK_DECL(ebx) MK_DECL(ecx) MK_DECL(edx) MK_DECL(esi)
MK_DECL(edi) MK_DECL(ebp)
}
LINUX_EXPORT_CODE_(__x86_indirect_thunk_eax);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_ebx);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_ecx);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_edx);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_esi);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_edi);
LINUX_EXPORT_CODE_(__x86_indirect_thunk_ebp);
#endif
