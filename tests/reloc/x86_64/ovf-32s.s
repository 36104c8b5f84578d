# R_X86_64_32S out of range: 0x80000000 does not sign-extend from 32 bits
# (a -fno-pic small-model module placed above 2 GiB would meet this).
# DEFSYM: far32s=0x80000000
# EXPECT-ERROR: ovf-32s.o:(.text+0x3): relocation R_X86_64_32S against far32s out of range: 0x80000000 is not in [-2147483648, 2147483647]
	.text
	movq	$far32s, %rax
	ret
	.section .note.GNU-stack,"",@progbits
