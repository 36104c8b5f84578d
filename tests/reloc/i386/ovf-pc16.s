# R_386_PC16 out of range: 0x0fff0000 - 0x10010000 = -0x20000 (beyond
# every reference; GNU ld accepts down to -0x10000 for this type).
# DEFSYM: pc16_far=0x0fff0000
# SECTIONS: .data=0x10010000
# EXPECT-ERROR: ovf-pc16.o:(.data+0x0): relocation R_386_PC16 against pc16_far out of range: -0x20000 is not in [-32768, 32767]
	.data
	.word	pc16_far - .
	.section .note.GNU-stack,"",@progbits
