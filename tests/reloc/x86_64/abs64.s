# R_X86_64_64 (S + A, the full 64 bits): in data and in code (movabs),
# with zero, positive, negative and large addends, against a local label,
# a global, an external and a section symbol.
# DEFSYM: ext64=0x401000
# EXPECT: agree
	.text
	.globl	abs64_fn
abs64_fn:
	movabsq	$ext64, %rax
	movabsq	$ext64 + 0x7fff0000, %rax
	movabsq	$abs64_local - 8, %rax
	ret
	.data
	.globl	abs64_table
abs64_table:
	.quad	ext64
	.quad	ext64 + 1
	.quad	ext64 - 1
	.quad	ext64 + 0x123456789abc		# large positive addend
	.quad	ext64 - 0x7000000000000000	# large negative addend (wraps)
abs64_local:
	.quad	abs64_local			# section symbol .data + 0x28
	.quad	abs64_table + 0x10		# global defined here
	.quad	abs64_fn			# into another section
	.section .note.GNU-stack,"",@progbits
