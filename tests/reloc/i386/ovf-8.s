# R_386_8 out of range: S + A = 0x100.
# DEFSYM: far8=0x100
# EXPECT-ERROR: ovf-8.o:(.data+0x1): relocation R_386_8 against far8 out of range: 0x100 is not in [-128, 255]
	.data
	.byte	0
	.byte	far8
	.section .note.GNU-stack,"",@progbits
