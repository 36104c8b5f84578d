# .init_array and .fini_array: constructor pointers (R_X86_64_64) against
# local and global functions, with an addend, as a plain object without
# module metadata carries them.
# EXPECT: agree
	.text
ctor_local:
	ret
	.globl	ctor_global
ctor_global:
	ret
	nop
	.section .init_array,"aw"
	.align	8
	.quad	ctor_local
	.quad	ctor_global
	.quad	ctor_global + 1
	.section .fini_array,"aw"
	.align	8
	.quad	ctor_global
	.section .note.GNU-stack,"",@progbits
