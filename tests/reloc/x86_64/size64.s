# R_X86_64_SIZE64 (Z + A, 64 bits): object sizes in quadwords, with a
# large addend.
# EXPECT: agree
	.data
	.globl	size64_obj
	.type	size64_obj, @object
	.size	size64_obj, 48
size64_obj:
	.zero	48
	.section .rodata,"a"
	.quad	size64_obj@SIZE
	.quad	size64_obj@SIZE + 0x100000000
	.quad	size64_obj@SIZE - 49
	.text
	movabsq	$size64_obj@SIZE, %rax
	.section .note.GNU-stack,"",@progbits
