/* reloc_pc8: the far absolute target of the PC-relative byte in use.S. */
	.globl	pc8_target
	.set	pc8_target, 0x1234
	.section .note.GNU-stack,"",@progbits
