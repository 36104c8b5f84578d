# R_X86_64_SIZE32 against a symbol outside the module: its size is not
# known to the loader (a kernel export or another module's global carries
# none), so the loader refuses rather than write 0.  The references link
# it (a --defsym symbol has size 0): this refusal is minikern's policy.
# EXPECT-ERROR: size-external.o:(.rodata+0x4): relocation R_X86_64_SIZE32 against kdata: the size of a symbol outside the module is unknown
# REF-EXPECT: ok
	.data
	.type	sized, @object
	.size	sized, 8
sized:	.quad	0
	.section .rodata,"a"
	.long	sized@SIZE
	.long	kdata@SIZE
	.section .note.GNU-stack,"",@progbits
