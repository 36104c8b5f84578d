# Two .text sections (`unique`) joined by `ld -r`: the second part's
# fields move, and its REL addends against the section symbol are
# rewritten in the field by ld -r.
# BUILD: ld-r
# EXPECT: agree
	.section .text,"ax",@progbits,unique,1
	.globl	part1
part1:
	call	kprintf
	movl	$part1_data, %eax
	ret
	.section .text,"ax",@progbits,unique,2
	.globl	part2
part2:
	call	kmalloc
	movl	$part2_data, %eax
	call	part1
	ret
	.data
part1_data:	.long	part2
part2_data:	.long	part1
	.section .note.GNU-stack,"",@progbits
