/*
 * reloc_abs8: an absolute symbol (SHN_ABS after ld -r) whose value does not
 * fit the one-byte field that refers to it in use.S.
 */
	.globl	far_away
	.set	far_away, 0x1234
	.section .note.GNU-stack,"",@progbits
