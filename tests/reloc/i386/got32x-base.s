# R_386_GOT32X with a base register (-fpic, -fpie): G + A, the slot's
# offset from the GOT base held in %ebx; mov, call, jmp, and arithmetic
# through the GOT, to external, global and local symbols.  GNU ld relaxes
# these even with --no-relax (to mov $imm, lea @GOTOFF, direct call/jmp);
# the harness decodes the rewritten instruction and checks its target.
# EXPECT: agree
	.text
	.globl	got32x_fn
got32x_fn:
	movl	kdata@GOT(%ebx), %eax
	movl	got32x_fn@GOT(%ebx), %ecx
	movl	got32x_local@GOT(%esi), %edx
	call	*kprintf@GOT(%ebx)
	addl	kdata@GOT(%ebx), %eax
	testl	%eax, kdata@GOT(%ebx)
	jmp	*kmalloc@GOT(%ebx)
	.data
got32x_local:
	.long	0
	.section .note.GNU-stack,"",@progbits
