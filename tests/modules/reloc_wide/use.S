/*
 * reloc_wide: a wider field that still overflows.  On x86_64 a
 * sign-extended 32-bit field (R_X86_64_32S, as in `movq $sym, %rax`)
 * against 0x123456789; on i386, where 32-bit fields wrap and never overflow,
 * a 16-bit field (R_386_16) against 0x12345.
 */
	.section .rodata,"a"
	.globl	wide_table
wide_table:
	.long	0
#ifdef __x86_64__
	.reloc	., R_X86_64_32S, wide_value
	.long	0
#else
	.reloc	., R_386_16, wide_value
	.word	0
#endif
	.section .note.GNU-stack,"",@progbits
