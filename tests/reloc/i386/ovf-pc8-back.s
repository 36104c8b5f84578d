# R_386_PC8 out of range backward: S = .text, A = -1, P = .text+0xc9:
# -0xca.
# SECTIONS: .text=0x10000000
# EXPECT-ERROR: ovf-pc8-back.o:(.text+0xc9): relocation R_386_PC8 against pc8_back out of range: -0xca is not in [-128, 127]
	.text
	.globl	pc8_back
pc8_back:
	.fill	200, 1, 0x90
	.byte	0xeb
	.reloc	., R_386_PC8, pc8_back
	.byte	-1
	.section .note.GNU-stack,"",@progbits
