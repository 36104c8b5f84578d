# R_X86_64_GOTPLT64 (G + A, 64 bits; without a PLT the slot is the GOT's).
# ld.lld 14 does not know this type, so only GNU ld is the reference here.
# REF: gnu
# EXPECT: agree
	.text
	.globl	gotplt64_fn
gotplt64_fn:
	movabsq	$kprintf@GOTPLT, %rax
	movabsq	$gotplt64_fn@GOTPLT, %rax
	ret
	.section .note.GNU-stack,"",@progbits
