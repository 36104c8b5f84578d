# R_386_GOTOFF (S + A - GOT): local data addressed from the GOT base in a
# -fpic module; local, global and section symbols, an external, addends.
# DEFSYM: far_gotoff=0x7f001000
# EXPECT: agree
	.text
	.globl	gotoff_fn
gotoff_fn:
	leal	gotoff_var@GOTOFF(%ebx), %eax
	movl	gotoff_var@GOTOFF+8(%ebx), %eax
	leal	gotoff_str@GOTOFF(%ebx), %ecx
	leal	gotoff_fn@GOTOFF(%ebx), %edx
	leal	far_gotoff@GOTOFF(%ebx), %esi
	ret
	.data
	.long	0
gotoff_var:
	.long	1, 2, 3
	.section .rodata,"a"
gotoff_str:
	.asciz	"gotoff"
	.long	gotoff_var@GOTOFF
	.section .note.GNU-stack,"",@progbits
