# R_X86_64_GOT32 out of range: G + A with an addend past 2 GiB.
# EXPECT-ERROR: ovf-got32.o:(.data+0x0): relocation R_X86_64_GOT32 against kdata out of range: 0x80000010 is not in [-2147483648, 2147483647]
	.data
	.long	kdata@GOT + 0x80000010
	.section .note.GNU-stack,"",@progbits
