# R_X86_64_GOTOFF64 (S + A - GOT): a symbol's distance from the GOT base,
# as -mcmodel=large -fpic addresses local data; local, global, section
# symbols, and an external far from the GOT.
# DEFSYM: far_gotoff=0x7f0000002000
# EXPECT: agree
	.text
	.globl	gotoff64_fn
gotoff64_fn:
	movabsq	$gotoff64_var@GOTOFF, %rax
	movabsq	$gotoff64_var@GOTOFF + 0x20, %rax
	movabsq	$gotoff64_fn@GOTOFF, %rax
	movabsq	$far_gotoff@GOTOFF, %rax
	ret
	.data
	.quad	0
gotoff64_var:
	.quad	0
	.section .note.GNU-stack,"",@progbits
