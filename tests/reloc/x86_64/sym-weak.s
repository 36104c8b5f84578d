# Weak symbols: a weak definition binds to itself; an undefined weak symbol
# no one defines resolves to 0 (absolute, PC-relative and through the GOT);
# an undefined weak symbol that is defined outside (DEFSYM, as a kernel
# export would be) binds to that definition.
# DEFSYM: weak_present=0x405000
# EXPECT: agree
	.weak	weak_def, weak_absent, weak_present
	.text
	.globl	weak_fn
weak_fn:
	call	weak_def
	movq	weak_absent@GOTPCREL(%rip), %rax
	movq	weak_present@GOTPCREL(%rip), %rax
	movl	$weak_absent, %eax
	ret
weak_def:
	ret
	.data
	.quad	weak_def
	.quad	weak_absent
	.quad	weak_absent + 16
	.quad	weak_present
	.long	weak_absent - .
	.section .note.GNU-stack,"",@progbits
