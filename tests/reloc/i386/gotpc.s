# R_386_GOTPC (GOT + A - P): the -fpic prologue adding the GOT's distance
# to the address popped by the thunk call; A (in the field) is the offset
# of the field from the popped address.
# EXPECT: agree
	.text
	.globl	gotpc_fn
gotpc_fn:
	call	1f
1:	popl	%ebx
	addl	$_GLOBAL_OFFSET_TABLE_+[.-1b], %ebx
	call	__x86.get_pc_thunk.cx
	addl	$_GLOBAL_OFFSET_TABLE_, %ecx
	ret
	.globl	__x86.get_pc_thunk.cx
__x86.get_pc_thunk.cx:
	movl	(%esp), %ecx
	ret
	.data
	.long	_GLOBAL_OFFSET_TABLE_ - .
	.section .note.GNU-stack,"",@progbits
