# R_X86_64_8 out of range: S + A = 0x100 needs nine bits.  Both references
# must refuse it too, and minikern's message must name the site, type,
# symbol, value and range.
# DEFSYM: far8=0x100
# SECTIONS: .data=0x10001000
# EXPECT-ERROR: ovf-8.o:(.data+0x1): relocation R_X86_64_8 against far8 out of range: 0x100 is not in [-128, 255]
	.data
	.byte	0
	.byte	far8
	.section .note.GNU-stack,"",@progbits
