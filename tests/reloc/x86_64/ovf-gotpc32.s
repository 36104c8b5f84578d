# R_X86_64_GOTPC32 out of range: GOT + A - P with the GOT 127 TiB away.
# GOT: 0x7f0000000000
# SECTIONS: .text=0x10000000
# EXPECT-ERROR: ovf-gotpc32.o:(.text+0x3): relocation R_X86_64_GOTPC32 against _GLOBAL_OFFSET_TABLE_ out of range: 0x7effeffffff9 is not in [-2147483648, 2147483647]
	.text
	leaq	_GLOBAL_OFFSET_TABLE_(%rip), %rbx
	ret
	.section .note.GNU-stack,"",@progbits
