# Large addends: far beyond the symbol, both ways, where the sum still
# fits its field (64-bit fields wrap; 32S and PC32 sums stay in range).
# DEFSYM: big_base=0x40000000
# EXPECT: agree
	.data
	.globl	addend_table
addend_table:
	.quad	big_base + 0x7fffffffffff0000
	.quad	big_base - 0x40000000		# 0
	.quad	big_base - 0x7fffffffffffffff	# wraps below zero
	.long	big_base + 0x3fffffff		# R_X86_64_32: 0x7fffffff
	.long	big_base + 0xbfffffff		# R_X86_64_32: 0xffffffff
	.text
	movq	$big_base - 0x40000000 - 0x80000000, %rax	# 32S: -2^31
	movl	big_base - 0x30000000(%rip), %eax		# PC32, large negative
	.section .note.GNU-stack,"",@progbits
