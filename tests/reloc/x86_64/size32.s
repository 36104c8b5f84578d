# R_X86_64_SIZE32 (Z + A): the size of a local and a global object, with
# addends.
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
	.long	size32_global@SIZE - 0x10
	.text
	movl	$size32_global@SIZE, %eax
	.section .note.GNU-stack,"",@progbits
