# R_X86_64_GOT64 (G + A, 64 bits): a slot's offset from the GOT base, as
# -mcmodel=large -fpic loads a global's address; external, global and
# local symbols, one slot shared by two fields.
# EXPECT: agree
	.text
	.globl	got64_fn
got64_fn:
	movabsq	$kdata@GOT, %rax
	movq	(%rbx,%rax), %rax
	movabsq	$kdata@GOT, %rcx
	movabsq	$got64_fn@GOT, %rdx
	movabsq	$got64_var@GOT, %rsi
	ret
	.data
got64_var:
	.quad	0
	.section .note.GNU-stack,"",@progbits
