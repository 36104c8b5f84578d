# Weak symbols: a weak definition binds to itself; an undefined weak symbol
# no one defines resolves to 0 (absolute, PC-relative and through the GOT);
# one defined outside (DEFSYM) binds to that definition.
# DEFSYM: weak_present=0x405000
# EXPECT: agree
	.weak	weak_def, weak_absent, weak_present
	.text
	.globl	weak_fn
weak_fn:
	call	weak_def
	movl	weak_absent@GOT(%ebx), %eax
	movl	weak_present@GOT(%ebx), %eax
	movl	$weak_absent, %eax
	ret
weak_def:
	ret
	.data
	.long	weak_def
	.long	weak_absent
	.long	weak_absent + 16
	.long	weak_present
	.long	weak_absent - .
	.section .note.GNU-stack,"",@progbits
