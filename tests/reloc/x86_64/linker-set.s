# A linker set (FreeBSD's DATA_SET): a section `set_foo` of pointers to
# records, walked from __start_set_foo to __stop_set_foo.  Both bounds
# resolve to the module's own section, in absolute, PC-relative and GOT
# forms; the entries are relocated like any data.
# EXPECT: agree
	.section set_foo,"aw"
	.align	8
	.quad	rec_a
	.quad	rec_b
	.quad	kdata
	.data
rec_a:	.long	1
rec_b:	.long	2
	.globl	foo_bounds
foo_bounds:
	.quad	__start_set_foo
	.quad	__stop_set_foo
	.text
	.globl	walk_foo
walk_foo:
	leaq	__start_set_foo(%rip), %rax
	movq	__stop_set_foo@GOTPCREL(%rip), %rcx
	movl	$__stop_set_foo, %edx
	ret
	.section .note.GNU-stack,"",@progbits
