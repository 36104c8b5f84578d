# Fields at unaligned offsets: 8-, 4- and 2-byte fields at odd addresses
# in data and in packed code.
# EXPECT: agree
	.data
	.byte	1
	.quad	kdata				# .data+0x1
	.byte	2, 3
	.long	kdata + 3			# .data+0xb, R_X86_64_32
	.byte	4
	.long	kdata - .			# PC32
	.byte	5
	.quad	unaligned_fn - .		# PC64
	.byte	6
	.word	unaligned_small			# R_X86_64_16 at an odd offset
	.text
	.globl	unaligned_fn
unaligned_fn:
	nop
	movabsq	$kdata, %rax			# field at .text+0x3
	ret
	.section .note.GNU-stack,"",@progbits
# DEFSYM: unaligned_small=0x7777
