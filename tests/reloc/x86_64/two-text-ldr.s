# Two .text sections in one assembly (`unique`), joined by `ld -r` into one
# .text whose relocations come from both: the second part's fields sit
# after the first part's, and its section-symbol addends are moved with it.
# BUILD: ld-r
# EXPECT: agree
	.section .text,"ax",@progbits,unique,1
	.globl	part1
part1:
	call	kprintf
	leaq	part1_data(%rip), %rax
	ret
	.section .text,"ax",@progbits,unique,2
	.globl	part2
part2:
	call	kmalloc
	leaq	part2_data(%rip), %rax
	call	part1
	ret
	.data
part1_data:	.quad	part2
part2_data:	.quad	part1
	.section .note.GNU-stack,"",@progbits
