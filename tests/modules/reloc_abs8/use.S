/*
 * reloc_abs8: `.byte far_away` leaves an R_X86_64_8 / R_386_8 relocation
 * against far_away (0x1234), which cannot fit in a byte: the load must fail
 * naming the section, offset, type, symbol, value and range.
 */
	.data
	.globl	abs8_table
abs8_table:
	.byte	1, 2, 3
	.byte	far_away
	.section .note.GNU-stack,"",@progbits
