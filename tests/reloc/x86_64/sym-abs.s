# SHN_ABS symbols.  The assembler resolves an absolute symbol it can see
# itself, leaving a relocation against symbol 0 with the value as addend
# (abs_const, abs_addr below).  Defined in another piece and joined with
# `ld -r`, absolute symbols keep relocations against the SHN_ABS symbol
# (abs_far, abs_small), in absolute, PC-relative and GOT forms.
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
	movq	abs_far@GOTPCREL(%rip), %rax
	movl	$abs_far + 4, %ecx
	ret
	.data
	.quad	abs_const
	.quad	abs_addr + 8
	.long	abs_addr - .
	.word	abs_const
	.quad	abs_far
	.quad	abs_far - 0x1000
	.long	abs_far - .
	.word	abs_small
	.byte	abs_small - 0x1200
	.section .note.GNU-stack,"",@progbits
#--- piece: the absolute definitions
	.globl	abs_far, abs_small
	.set	abs_far, 0x407000
	.set	abs_small, 0x1234
	.section .note.GNU-stack,"",@progbits
