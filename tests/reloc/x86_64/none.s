# R_X86_64_NONE: no field.  The loader must accept it and write nothing,
# in code and in data, against a defined and an undefined symbol.
# EXPECT: agree
	.text
	.globl	none_fn
none_fn:
	.reloc	., R_X86_64_NONE, none_fn
	nop
	.reloc	., R_X86_64_NONE, ext_none
	ret
	.data
	.reloc	., R_X86_64_NONE, ext_none
	.byte	0x5a, 0xa5, 0x5a, 0xa5
	.section .note.GNU-stack,"",@progbits
