# R_X86_64_PC8 (S + A - P, signed 8 bits): short jumps to global labels
# (which the assembler leaves to the linker) and byte distances in data.
# EXPECT: agree
	.text
	.globl	pc8_fn, pc8_back, pc8_fwd
pc8_back:
	nop
pc8_fn:
	.byte	0xeb				# jmp rel8
	.reloc	., R_X86_64_PC8, pc8_fwd - 1
	.byte	0
	.byte	0xeb
	.reloc	., R_X86_64_PC8, pc8_back - 1
	.byte	0
	.fill	100, 1, 0x90
pc8_fwd:
	ret
	.data
	.reloc	., R_X86_64_PC8, pc8_data + 126
	.byte	0
pc8_data:
	.byte	0
	.section .note.GNU-stack,"",@progbits
