# R_386_PC16 (S + A - P, signed 16 bits): distances from data to code.
# SECTIONS: .text=0x10000000 .data=0x10004000
# DEFSYM: kdata16=0x10009000
# EXPECT: agree
	.text
	.globl	pc16_fn
pc16_fn:
	ret
	.data
	.globl	pc16_table
pc16_table:
	.word	pc16_fn - .			# -0x4000
	.word	pc16_fn + 0x7000 - .		# 0x2ffe
	.word	pc16_fn - 0x3ffc - .		# -0x8000, the bottom
	.word	kdata16 - .
	.section .note.GNU-stack,"",@progbits
