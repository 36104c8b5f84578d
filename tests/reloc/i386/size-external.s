# R_386_SIZE32 against a symbol outside the module: its size is not known
# to the loader, so it refuses rather than write 0.  GNU ld links it (a
# --defsym symbol has size 0; ld.lld 14 does not know the type): this
# refusal is minikern's policy.
# EXPECT-ERROR: size-external.o:(.rodata+0x4): relocation R_386_SIZE32 against kdata: the size of a symbol outside the module is unknown
# REF: gnu
# REF-EXPECT: ok
	.data
	.type	sized, @object
	.size	sized, 8
sized:	.long	0, 0
	.section .rodata,"a"
	.long	sized@SIZE
	.long	kdata@SIZE
	.section .note.GNU-stack,"",@progbits
