# R_X86_64_PC32 out of range: a RIP-relative load of a symbol 127 TiB away.
# S + A - P = 0x7f0000000000 - 4 - 0x10000002 = 0x7effeffffffa.
# DEFSYM: pc32_far=0x7f0000000000
# SECTIONS: .text=0x10000000
# EXPECT-ERROR: ovf-pc32.o:(.text+0x2): relocation R_X86_64_PC32 against pc32_far out of range: 0x7effeffffffa is not in [-2147483648, 2147483647]
	.text
	movl	pc32_far(%rip), %eax
	ret
	.section .note.GNU-stack,"",@progbits
