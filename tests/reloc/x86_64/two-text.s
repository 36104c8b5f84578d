# Two sections with the same name (.text, `unique`), each with its own
# .rela.text: the loader must keep them apart, by index, not by name.
# EXPECT: agree
	.section .text,"ax",@progbits,unique,1
	.globl	first
first:
	call	second
	leaq	first_data(%rip), %rax
	ret
	.section .text,"ax",@progbits,unique,2
	.globl	second
second:
	call	first
	movq	kdata@GOTPCREL(%rip), %rax
	ret
	.data
first_data:
	.quad	first, second
	.section .note.GNU-stack,"",@progbits
