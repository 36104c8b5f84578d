# .init_array and .fini_array: constructor pointers (R_386_32) against
# local and global functions, one with an addend in the field.
# EXPECT: agree
	.text
ctor_local:
	ret
	.globl	ctor_global
ctor_global:
	ret
	nop
	.section .init_array,"aw"
	.align	4
	.long	ctor_local
	.long	ctor_global
	.long	ctor_global + 1
	.section .fini_array,"aw"
	.align	4
	.long	ctor_global
	.section .note.GNU-stack,"",@progbits
