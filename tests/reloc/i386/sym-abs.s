# SHN_ABS symbols: a relocation against symbol 0 with the value in the
# field (what the assembler leaves for an absolute symbol it can see), and
# relocations against SHN_ABS symbols defined in another piece joined with
# `ld -r`: absolute, PC-relative and through the GOT.
# BUILD: ld-r
# EXPECT: agree
	.globl	abs_const, abs_addr
	.set	abs_const, 0x1234
	.set	abs_addr, 0x406000
	.text
	.globl	sym_abs_fn
sym_abs_fn:
	movl	$abs_const, %eax
	call	abs_addr
	call	abs_far
	movl	abs_far@GOT(%ebx), %eax
	movl	$abs_far + 4, %ecx
	ret
	.data
	.long	abs_const
	.long	abs_addr + 8
	.long	abs_addr - .
	.word	abs_const
	.long	abs_far
	.long	abs_far - 0x1000
	.long	abs_far - .
	.word	abs_small
	.byte	abs_tiny + 1
	.section .note.GNU-stack,"",@progbits
#--- piece: the absolute definitions
	.globl	abs_far, abs_small, abs_tiny
	.set	abs_tiny, 0x12
	.set	abs_far, 0x407000
	.set	abs_small, 0x1234
	.section .note.GNU-stack,"",@progbits
