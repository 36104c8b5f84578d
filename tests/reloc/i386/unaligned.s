# Fields at unaligned offsets, in data and in packed code.
# DEFSYM: unaligned_small=0x7777
# EXPECT: agree
	.data
	.byte	1
	.long	kdata				# .data+0x1
	.byte	2, 3
	.long	kdata + 3
	.byte	4
	.long	kdata - .
	.byte	5
	.word	unaligned_small
	.text
	.globl	unaligned_fn
unaligned_fn:
	nop
	movl	$kdata, %eax			# field at .text+0x2
	ret
	.section .note.GNU-stack,"",@progbits
