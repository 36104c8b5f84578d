# COMMON symbols: allocated by the loader (st_value is the alignment), and
# referenced in every common way: absolute, 32-bit, PC-relative, through
# the GOT, and by size.
# EXPECT: agree
	.comm	common_a, 4, 4
	.comm	common_b, 64, 32
	.comm	common_c, 1, 1
	.text
	.globl	sym_common_fn
sym_common_fn:
	movl	common_a(%rip), %eax
	movl	$common_b + 8, %ecx
	movq	common_c@GOTPCREL(%rip), %rdx
	ret
	.data
	.quad	common_a
	.quad	common_b + 63
	.quad	common_c
	.long	common_b@SIZE
	.section .note.GNU-stack,"",@progbits
