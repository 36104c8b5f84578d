# R_X86_64_16 out of range: S + A = 0x10000.
# DEFSYM: far16=0xfff0
# EXPECT-ERROR: ovf-16.o:(.rodata+0x2): relocation R_X86_64_16 against far16 out of range: 0x10000 is not in [-32768, 65535]
	.section .rodata,"a"
	.word	0
	.word	far16 + 0x10
	.section .note.GNU-stack,"",@progbits
