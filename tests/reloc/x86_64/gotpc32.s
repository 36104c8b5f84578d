# R_X86_64_GOTPC32 (GOT + A - P): the GOT's address, PC-relative, as a
# -fpic prologue takes it; also with an addend, and in data.
# EXPECT: agree
	.text
	.globl	gotpc32_fn
gotpc32_fn:
	leaq	_GLOBAL_OFFSET_TABLE_(%rip), %rbx
	leaq	_GLOBAL_OFFSET_TABLE_+16(%rip), %rcx
	ret
	.data
	.long	_GLOBAL_OFFSET_TABLE_ - .
	.section .note.GNU-stack,"",@progbits
