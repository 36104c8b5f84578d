# R_386_32 (S + A; REL: A is the field's contents, read once at parse
# time): in data and in code, zero, positive, negative and large addends,
# against a local label, a global, an external and a section symbol.
# 32-bit fields wrap, so S + A past 2^32 is fine.
# DEFSYM: ext32=0x401000
# EXPECT: agree
	.text
	.globl	abs32_fn
abs32_fn:
	movl	$ext32, %eax
	movl	$abs32_local - 8, %ecx
	movl	ext32 + 0x10, %edx
	ret
	.data
	.globl	abs32_table
abs32_table:
	.long	ext32
	.long	ext32 + 1
	.long	ext32 - 1
	.long	ext32 + 0x7ff00000		# large positive
	.long	ext32 - 0x80000000		# large negative
	.long	ext32 + 0xfff00000		# wraps past 2^32
abs32_local:
	.long	abs32_local			# section symbol .data + 0x18
	.long	abs32_table + 8
	.long	abs32_fn
	.section .note.GNU-stack,"",@progbits
