# R_386_SIZE32 (Z + A): object sizes, with addends in the field.  ld.lld
# 14 does not know this type, so only GNU ld is the reference here.
# REF: gnu
# EXPECT: agree
	.data
	.type	size32_local, @object
	.size	size32_local, 24
size32_local:
	.zero	24
	.globl	size32_global
	.type	size32_global, @object
	.size	size32_global, 0x1000
size32_global:
	.zero	0x1000
	.section .rodata,"a"
	.long	size32_local@SIZE
	.long	size32_global@SIZE
	.long	size32_global@SIZE + 8
	.section .note.GNU-stack,"",@progbits
