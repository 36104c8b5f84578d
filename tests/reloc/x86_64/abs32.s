# R_X86_64_32 (S + A, zero-extended): -fno-pic small-model immediates and
# data words.  Values up to 0xffffffff are fine.
# DEFSYM: ext32=0x403000 top32=0xfffffff0
# EXPECT: agree
	.text
	.globl	abs32_fn
abs32_fn:
	movl	$ext32, %eax
	movl	$abs32_data + 4, %ecx
	movl	$top32 + 0xf, %edx		# exactly 0xffffffff
	ret
	.data
abs32_data:
	.long	ext32
	.long	ext32 + 0x1000
	.long	abs32_fn
	.section .note.GNU-stack,"",@progbits
