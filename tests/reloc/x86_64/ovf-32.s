# R_X86_64_32 out of range: 0x100000000 does not zero-extend from 32 bits.
# DEFSYM: far32=0x100000000
# EXPECT-ERROR: ovf-32.o:(.data+0x0): relocation R_X86_64_32 against far32 out of range: 0x100000000 is not in [0, 4294967295]
	.data
	.long	far32
	.section .note.GNU-stack,"",@progbits
