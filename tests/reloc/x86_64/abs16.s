# R_X86_64_16 (S + A, 16 bits, signed or unsigned): small absolute
# values, including the two ends of the accepted range.
# DEFSYM: port=0x3f8 small=0x10
# EXPECT: agree
	.text
	.globl	abs16_fn
abs16_fn:
	movw	$port, %dx
	movw	$port + 5, %ax
	ret
	.data
	.word	port
	.word	small + 0xffef			# 0xffff, the top of the range
	.word	small - 0x8010			# -0x8000, the bottom
	.word	small - 1
	.section .note.GNU-stack,"",@progbits
