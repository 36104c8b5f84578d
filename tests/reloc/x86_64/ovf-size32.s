# R_X86_64_SIZE32 out of range: Z + A = 16 - 0x80000011 = -0x80000001.
# (GNU ld checks this type as unsigned, ld.lld and minikern as signed;
# this value is outside both.)
# EXPECT-ERROR: ovf-size32.o:(.rodata+0x0): relocation R_X86_64_SIZE32 against size_obj out of range: -0x80000001 is not in [-2147483648, 2147483647]
	.data
	.type	size_obj, @object
	.size	size_obj, 16
size_obj:
	.zero	16
	.section .rodata,"a"
	.reloc	., R_X86_64_SIZE32, size_obj - 0x80000011
	.long	0
	.section .note.GNU-stack,"",@progbits
