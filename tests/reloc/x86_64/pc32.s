# R_X86_64_PC32 (S + A - P): RIP-relative operands (the addend folds in the
# distance to the end of the instruction) and `.long sym - .` in data, to
# the kernel area, to this module, with large addends both ways.
# DEFSYM: ext_pc=0x402000
# EXPECT: agree
	.text
	.globl	pc32_fn
pc32_fn:
	movl	ext_pc(%rip), %eax		# A = -4
	movl	pc32_var+8(%rip), %eax		# A = 8 - 4, local data
	cmpb	$1, ext_pc(%rip)		# A = -5: an immediate follows the field
	leaq	pc32_fn(%rip), %rax
	ret
	.data
pc32_var:
	.quad	0, 0
	.long	ext_pc - .
	.long	pc32_fn - .
	.long	ext_pc + 0x10000000 - .
	.long	ext_pc - 0x10000000 - .
	.section .note.GNU-stack,"",@progbits
