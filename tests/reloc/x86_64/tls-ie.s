# TLS, initial exec (R_X86_64_GOTTPOFF) against an external TLS symbol.
# EXPECT-ERROR: tls-ie.o:(.text+0x3): relocation R_X86_64_GOTTPOFF against ext_tls: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	movq	ext_tls@gottpoff(%rip), %rax
	movl	%fs:(%rax), %eax
	ret
	.section .note.GNU-stack,"",@progbits
