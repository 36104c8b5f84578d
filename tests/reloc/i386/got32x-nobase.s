# R_386_GOT32X without a base register (-fno-pic -fno-plt): G + GOT + A,
# the slot's absolute address, as `call *f@GOT` and `movl v@GOT, %eax`
# use it.
# EXPECT: agree
	.text
	.globl	got32x_nobase_fn
got32x_nobase_fn:
	call	*kprintf@GOT
	movl	kdata@GOT, %eax
	movl	got32x_nobase_fn@GOT, %ecx
	jmp	*kmalloc@GOT
	.section .note.GNU-stack,"",@progbits
