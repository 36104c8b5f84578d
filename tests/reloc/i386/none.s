# R_386_NONE: no field; nothing is written (REL: the bytes stay as they are).
# EXPECT: agree
	.text
	.globl	none_fn
none_fn:
	.reloc	., R_386_NONE, none_fn
	nop
	.reloc	., R_386_NONE, ext_none
	ret
	.data
	.reloc	., R_386_NONE, ext_none
	.byte	0x5a, 0xa5, 0x5a, 0xa5
	.section .note.GNU-stack,"",@progbits
