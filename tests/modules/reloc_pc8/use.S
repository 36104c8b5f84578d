/*
 * reloc_pc8: a one-byte PC-relative field (R_X86_64_PC8 / R_386_PC8, the
 * displacement of a short jump) whose target is an absolute address far
 * from the module arena.  S + A - P cannot fit in a signed byte wherever
 * the module lands, so the load must fail.
 */
	.text
	.globl	pc8_jump
pc8_jump:
	nop
	.byte	0xeb		/* jmp rel8 */
#ifdef __x86_64__
	.reloc	., R_X86_64_PC8, pc8_target - 1	/* RELA: addend in the entry */
	.byte	0
#else
	.reloc	., R_386_PC8, pc8_target	/* REL: addend -1 in the field */
	.byte	-1
#endif
	.section .note.GNU-stack,"",@progbits
