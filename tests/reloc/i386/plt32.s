# R_386_PLT32 (L + A - P; no PLT in a module, L = S): calls and tail calls
# to the kernel, to a global of the module and to a weak definition.
# EXPECT: agree
	.text
	.globl	plt32_fn, plt32_weak
	.weak	plt32_weak
plt32_fn:
	call	kprintf@PLT
	call	plt32_weak@PLT
	call	plt32_fn@PLT
	jmp	kmalloc@PLT
plt32_weak:
	ret
	.section .note.GNU-stack,"",@progbits
