# R_X86_64_32S (S + A, sign-extended): `movq $sym, %rax` and array
# indexing `sym(,%rax,8)`; a symbol in the top 2 GiB (a -mcmodel=kernel
# address) sign-extends and fits.
# DEFSYM: ext32s=0x404000 high=0xffffffff80001000
# EXPECT: agree
	.text
	.globl	abs32s_fn
abs32s_fn:
	movq	$ext32s, %rax
	movq	abs32s_table(,%rdi,8), %rax
	movq	$high, %rcx
	movq	$high - 0x1000, %rcx		# exactly -2^31
	movq	$abs32s_table - 16, %rdx
	ret
	.data
abs32s_table:
	.quad	1, 2, 3
	.section .note.GNU-stack,"",@progbits
