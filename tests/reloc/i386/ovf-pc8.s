# R_386_PC8 out of range forward: S = .text+0xca, A = -1 (in the field),
# P = .text+0x1: 0xc8.
# SECTIONS: .text=0x10000000
# EXPECT-ERROR: ovf-pc8.o:(.text+0x1): relocation R_386_PC8 against pc8_far out of range: 0xc8 is not in [-128, 127]
	.text
	.globl	pc8_far
	.byte	0xeb
	.reloc	., R_386_PC8, pc8_far
	.byte	-1
	.fill	200, 1, 0x90
pc8_far:
	ret
	.section .note.GNU-stack,"",@progbits
