# R_X86_64_GOT32 (G + A, 32 bits): a slot's offset from the GOT base in a
# 32-bit field, in an instruction and in data.
# EXPECT: agree
	.text
	.globl	got32_fn
got32_fn:
	movl	kdata@GOT(%rbx), %eax
	movq	kprintf@GOT(%rbx), %rax
	ret
	.data
	.long	kdata@GOT
	.long	got32_fn@GOT + 4
	.section .note.GNU-stack,"",@progbits
