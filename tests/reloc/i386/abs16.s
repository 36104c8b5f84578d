# R_386_16 (S + A, 16 bits, signed or unsigned; REL addend sign-extended
# from the field).
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
	.word	small + 0x7fef			# 0x7fff
	.word	small - 1
	.word	small - 0x10			# 0
	.section .note.GNU-stack,"",@progbits
