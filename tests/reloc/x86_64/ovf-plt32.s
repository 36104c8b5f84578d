# R_X86_64_PLT32 out of range: a call to a function beyond rel32 reach
# (why the module arena must sit within 2 GiB of the kernel).
# S + A - P = 0x10000000 - 4 - 0x90000001 = -0x80000005.
# DEFSYM: plt32_far=0x10000000
# SECTIONS: .text=0x90000000
# EXPECT-ERROR: ovf-plt32.o:(.text+0x1): relocation R_X86_64_PLT32 against plt32_far out of range: -0x80000005 is not in [-2147483648, 2147483647]
	.text
	call	plt32_far
	ret
	.section .note.GNU-stack,"",@progbits
