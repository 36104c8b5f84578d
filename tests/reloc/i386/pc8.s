# R_386_PC8 (S + A - P, signed 8 bits): short jumps to global labels and
# byte distances; the REL addend -1 is the field itself.
# EXPECT: agree
	.text
	.globl	pc8_fn, pc8_back, pc8_fwd
pc8_back:
	nop
pc8_fn:
	.byte	0xeb
	.reloc	., R_386_PC8, pc8_fwd
	.byte	-1
	.byte	0xeb
	.reloc	., R_386_PC8, pc8_back
	.byte	-1
	.fill	100, 1, 0x90
pc8_fwd:
	ret
	.data
	.reloc	., R_386_PC8, pc8_data
	.byte	0x7e
pc8_data:
	.byte	0
	.section .note.GNU-stack,"",@progbits
