# R_X86_64_REX_GOTPCRELX (G + GOT + A - P; with a REX prefix): mov, add,
# test and cmp through the GOT, into low and high registers.
# EXPECT: agree
	.text
	.globl	rex_fn
rex_fn:
	movq	kdata@GOTPCREL(%rip), %rax
	movq	kdata@GOTPCREL(%rip), %r12
	addq	kprintf@GOTPCREL(%rip), %rbx
	testq	%rax, rex_var@GOTPCREL(%rip)
	cmpq	rex_var@GOTPCREL(%rip), %r9
	ret
	.data
rex_var:
	.quad	0
	.section .note.GNU-stack,"",@progbits
