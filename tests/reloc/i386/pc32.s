# R_386_PC32 (S + A - P; the addend -4 sits in the field): calls without
# @PLT and `.long sym - .` in data, both directions, large addends.
# DEFSYM: ext_pc=0x402000
# EXPECT: agree
	.text
	.globl	pc32_fn
pc32_fn:
	call	ext_pc
	call	pc32_fn
	jmp	ext_pc
	.data
pc32_var:
	.long	ext_pc - .
	.long	pc32_fn - .
	.long	ext_pc + 0x10000000 - .
	.long	ext_pc - 0x10000000 - .
	.long	pc32_fn + 0xc0000000 - .		# wraps
	.section .note.GNU-stack,"",@progbits
