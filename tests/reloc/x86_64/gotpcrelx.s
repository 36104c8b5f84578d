# R_X86_64_GOTPCRELX (G + GOT + A - P; relaxable, no REX prefix): call and
# jmp through the GOT (-fno-plt) and 32-bit loads.  The references run with
# --no-relax so they keep the GOT load, as minikern does.
# EXPECT: agree
	.text
	.globl	gotpcrelx_fn
gotpcrelx_fn:
	call	*kprintf@GOTPCREL(%rip)
	movl	kdata@GOTPCREL(%rip), %eax
	movl	gotpcrelx_fn@GOTPCREL(%rip), %ecx
	jmp	*kmalloc@GOTPCREL(%rip)
	.section .note.GNU-stack,"",@progbits
