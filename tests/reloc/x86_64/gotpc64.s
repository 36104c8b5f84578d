# R_X86_64_GOTPC64 (GOT + A - P, 64 bits): the -mcmodel=large -fpic
# prologue `leaq 1b(%rip),%rbx; movabs $_GLOBAL_OFFSET_TABLE_-1b,%r11`.
# EXPECT: agree
	.text
	.globl	gotpc64_fn
gotpc64_fn:
1:	leaq	1b(%rip), %rbx
	movabsq	$_GLOBAL_OFFSET_TABLE_-1b, %r11
	addq	%r11, %rbx
2:	movabsq	$_GLOBAL_OFFSET_TABLE_-2b+0x100, %r11
	ret
	.section .note.GNU-stack,"",@progbits
