# R_X86_64_REX_GOTPCRELX out of range: the GOT itself beyond rel32 reach
# of the code.  G + GOT + A - P = 0x7f0000000000 - 4 - 0x10000003.
# GOT: 0x7f0000000000
# SECTIONS: .text=0x10000000
# EXPECT-ERROR: ovf-gotpcrel.o:(.text+0x3): relocation R_X86_64_REX_GOTPCRELX against kdata out of range: 0x7effeffffff9 is not in [-2147483648, 2147483647]
	.text
	movq	kdata@GOTPCREL(%rip), %rax
	ret
	.section .note.GNU-stack,"",@progbits
