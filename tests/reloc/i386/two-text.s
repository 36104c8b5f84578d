# Two sections named .text, each with its own .rel.text: kept apart by
# index, not by name.
# EXPECT: agree
	.section .text,"ax",@progbits,unique,1
	.globl	first
first:
	call	second
	movl	$first_data, %eax
	ret
	.section .text,"ax",@progbits,unique,2
	.globl	second
second:
	call	first
	movl	kdata@GOT(%ebx), %eax
	ret
	.data
first_data:
	.long	first, second
	.section .note.GNU-stack,"",@progbits
