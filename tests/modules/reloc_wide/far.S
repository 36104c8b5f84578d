/* reloc_wide: the absolute value too wide for the field in use.S. */
	.globl	wide_value
#ifdef __x86_64__
	.set	wide_value, 0x123456789
#else
	.set	wide_value, 0x12345
#endif
	.section .note.GNU-stack,"",@progbits
