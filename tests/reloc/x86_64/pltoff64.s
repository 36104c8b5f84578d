# R_X86_64_PLTOFF64 (L - GOT + A; no PLT, L = S): -mcmodel=large -fpic
# calls `movabs $f@PLTOFF,%rax; add %rbx,%rax; call *%rax`.
# EXPECT: agree
	.text
	.globl	pltoff64_fn
pltoff64_fn:
	movabsq	$kprintf@PLTOFF, %rax
	addq	%rbx, %rax
	call	*%rax
	movabsq	$pltoff64_fn@PLTOFF, %rax
	movabsq	$pltoff64_local@PLTOFF, %rax
	ret
pltoff64_local:
	ret
	.section .note.GNU-stack,"",@progbits
