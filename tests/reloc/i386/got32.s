# R_386_GOT32 (G + A with a base register, G + GOT + A without): the older
# form, which the assembler still emits in data and which old compilers
# emit in code (written with .reloc here, since gas now picks GOT32X).
# The forms are told apart by the ModRM byte before the field; in data
# the byte before is whatever precedes the word, so the .byte 0x05 below
# makes the second data field "baseless" for every linker alike.
# EXPECT: agree
	.text
	.globl	got32_fn
got32_fn:
	.byte	0x8b, 0x83			# movl kdata@GOT(%ebx), %eax: base %ebx
	.reloc	., R_386_GOT32, kdata
	.long	0
	.byte	0x8b, 0x0d			# movl kprintf@GOT, %ecx: no base
	.reloc	., R_386_GOT32, kprintf
	.long	0
	.byte	0xff, 0xb6			# pushl got32_fn@GOT(%esi): base %esi
	.reloc	., R_386_GOT32, got32_fn
	.long	4				# REL addend 4: the next slot's word
	ret
	.data
	.byte	0
	.long	kdata@GOT			# byte before: 0x00, "base"
	.byte	0x05
	.long	got32_fn@GOT			# byte before: 0x05, "no base"
	.section .note.GNU-stack,"",@progbits
