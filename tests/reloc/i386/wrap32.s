# i386 32-bit fields wrap modulo 2^32 and never overflow: S + A and
# S + A - P far outside [0, 2^32) as integers are written as their low
# 32 bits, by every linker alike.
# DEFSYM: top=0xfffff000
# EXPECT: agree
	.data
	.long	top + 0x2000			# 0x100001000 -> 0x1000
	.long	top - .				# large
	.text
	call	top + 0x20000000
	.section .note.GNU-stack,"",@progbits
