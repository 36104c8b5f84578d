# R_X86_64_GOTPCREL (G + GOT + A - P): the non-relaxable form, in an
# instruction (written with .reloc so the assembler does not pick GOTPCRELX)
# and in data; two fields share one symbol's slot, a third symbol is local.
# EXPECT: agree
	.text
	.globl	gotpcrel_fn
gotpcrel_fn:
	movq	0(%rip), %rax
	.reloc	.-4, R_X86_64_GOTPCREL, kdata-4
	movq	0(%rip), %rax
	.reloc	.-4, R_X86_64_GOTPCREL, gotpcrel_local-4
	ret
	.data
gotpcrel_local:
	.long	kdata@GOTPCREL
	.long	kdata@GOTPCREL + 8
	.section .note.GNU-stack,"",@progbits
