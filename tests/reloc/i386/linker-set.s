# A linker set: section `set_foo` walked from __start_set_foo to
# __stop_set_foo, bounds resolved to the module's own section, absolute,
# PC-relative, GOT-relative and through the GOT.
# EXPECT: agree
	.section set_foo,"aw"
	.align	4
	.long	rec_a
	.long	rec_b
	.long	kdata
	.data
rec_a:	.long	1
rec_b:	.long	2
	.globl	foo_bounds
foo_bounds:
	.long	__start_set_foo
	.long	__stop_set_foo
	.long	__stop_set_foo - .
	.text
	.globl	walk_foo
walk_foo:
	leal	__start_set_foo@GOTOFF(%ebx), %eax
	movl	__stop_set_foo@GOT(%ebx), %ecx
	movl	$__stop_set_foo, %edx
	ret
	.section .note.GNU-stack,"",@progbits
