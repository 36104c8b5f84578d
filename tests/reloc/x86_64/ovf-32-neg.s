# R_X86_64_32 with a top-2-GiB address (a -mcmodel=kernel symbol): it
# would fit R_X86_64_32S, but a zero-extended field cannot hold it.
# DEFSYM: high=0xffffffff80000000
# EXPECT-ERROR: ovf-32-neg.o:(.text+0x1): relocation R_X86_64_32 against high out of range: -0x80000000 is not in [0, 4294967295]
	.text
	movl	$high, %eax
	ret
	.section .note.GNU-stack,"",@progbits
