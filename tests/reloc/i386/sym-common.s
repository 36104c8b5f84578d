# COMMON symbols, allocated by the loader, referenced absolutely, through
# the GOT, GOT-relative and by size.
# EXPECT: agree
	.comm	common_a, 4, 4
	.comm	common_b, 64, 32
	.comm	common_c, 1, 1
	.text
	.globl	sym_common_fn
sym_common_fn:
	movl	common_a, %eax
	movl	$common_b + 8, %ecx
	movl	common_c@GOT(%ebx), %edx
	leal	common_b@GOTOFF(%ebx), %esi
	ret
	.data
	.long	common_a
	.long	common_b + 63
	.long	common_c
	.long	common_b - .
	.section .note.GNU-stack,"",@progbits
