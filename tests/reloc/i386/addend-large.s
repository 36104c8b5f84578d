# REL addends read from the field: large positive and negative ones, in
# 32-bit fields (which wrap) and 16-bit fields (sign-extended).
# DEFSYM: big_base=0x40000000 small16=0x100
# EXPECT: agree
	.data
	.globl	addend_table
addend_table:
	.long	big_base + 0x7fffffff
	.long	big_base - 0x40000000		# 0
	.long	big_base - 0x7fffffff		# wraps below zero
	.long	big_base + 0xc0000000		# wraps past 2^32: 0
	.word	small16 - 0x8100		# -0x8000
	.word	small16 + 0x7eff		# 0x7fff
	.text
	movl	$big_base - 0x50000000, %eax
	call	big_base + 0x30000000
	.section .note.GNU-stack,"",@progbits
