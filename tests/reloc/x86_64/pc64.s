# R_X86_64_PC64 (S + A - P, 64 bits): data words holding distances, to a
# far external (beyond 32 bits) and to the module itself.
# DEFSYM: far_pc64=0x7f0000001000
# EXPECT: agree
	.data
	.globl	pc64_table
pc64_table:
	.quad	far_pc64 - .
	.quad	far_pc64 + 0x100 - .
	.quad	pc64_table - .
	.quad	pc64_fn - . - 0x10
	.text
pc64_fn:
	ret
	.section .note.GNU-stack,"",@progbits
