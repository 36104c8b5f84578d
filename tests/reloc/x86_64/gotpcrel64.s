# R_X86_64_GOTPCREL64 (G + GOT - P + A, 64 bits).  ld.lld 14 does not know
# this type, so only GNU ld is the reference here.
# REF: gnu
# EXPECT: agree
	.text
	.globl	gotpcrel64_fn
gotpcrel64_fn:
	movabsq	$0, %rax
	.reloc	.-8, R_X86_64_GOTPCREL64, kdata-2
	movabsq	$0, %rax
	.reloc	.-8, R_X86_64_GOTPCREL64, gotpcrel64_fn+8
	ret
	.data
	.reloc	., R_X86_64_GOTPCREL64, kdata
	.quad	0
	.section .note.GNU-stack,"",@progbits
