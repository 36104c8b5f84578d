# Several relocation sections applying to one section: a hand-made ELF32
# object whose .text is relocated by two SHT_REL sections, .rel.text and
# .rel.text.more, both with sh_info = 1.  REL: each addend is in the field.
# The file is the contents of section .elf below.
# BUILD: raw
# EXPECT: agree
	.section .elf,"a"
elf:
	.byte	0x7f, 0x45, 0x4c, 0x46	# ELF magic
	.byte	1, 1, 1, 0		# ELFCLASS32, little-endian, EV_CURRENT, SYSV
	.long	0, 0			# rest of e_ident
	.word	1			# e_type: ET_REL
	.word	3			# e_machine: EM_386
	.long	1			# e_version
	.long	0			# e_entry
	.long	0			# e_phoff
	.long	shdrs - elf		# e_shoff
	.long	0			# e_flags
	.word	52			# e_ehsize
	.word	0, 0			# e_phentsize, e_phnum
	.word	40			# e_shentsize
	.word	7			# e_shnum
	.word	6			# e_shstrndx

	.balign	16
text:
	.byte	0xe8			# call kfunc            (PC32, first section)
	.long	-4			#   REL addend -4
	.byte	0xb8			# movl $text+0x10, %eax (32, second section)
	.long	0x10			#   REL addend 0x10
	.byte	0xa1			# movl kdata+8, %eax    (32, second section)
	.long	8			#   REL addend 8
	.byte	0xc3			# ret
text_end:

	.balign	4
rel1:					# .rel.text: sh_info 1
	.long	1, (2 << 8) | 2		# r_offset, r_info: sym 2 (kfunc), R_386_PC32
rel1_end:
rel2:					# .rel.text.more: sh_info 1 as well
	.long	6, (1 << 8) | 1		# sym 1 (section .text), R_386_32
	.long	11, (3 << 8) | 1	# sym 3 (kdata), R_386_32
rel2_end:

symtab:					# Elf32_Sym: name, value, size, info, other, shndx
	.long	0, 0, 0
	.byte	0, 0
	.word	0			# [0] null
	.long	0, 0, 0
	.byte	3, 0			# STB_LOCAL, STT_SECTION
	.word	1			# [1] section .text
	.long	s_kfunc - strtab, 0, 0
	.byte	0x10, 0			# STB_GLOBAL, STT_NOTYPE
	.word	0			# [2] kfunc, SHN_UNDEF
	.long	s_kdata - strtab, 0, 0
	.byte	0x10, 0
	.word	0			# [3] kdata, SHN_UNDEF
symtab_end:

strtab:
	.byte	0
s_kfunc: .asciz	"kfunc"
s_kdata: .asciz	"kdata"
strtab_end:

shstr:
	.byte	0
n_text:	.asciz	".text"
n_rel1:	.asciz	".rel.text"
n_rel2:	.asciz	".rel.text.more"
n_symtab: .asciz ".symtab"
n_strtab: .asciz ".strtab"
n_shstr: .asciz	".shstrtab"
shstr_end:

	.balign	4
shdrs:		# name, type, flags, addr, offset, size, link, info, addralign, entsize
	.long	0, 0, 0, 0, 0, 0, 0, 0, 0, 0			# [0] null
	.long	n_text - shstr, 1, 6, 0, text - elf, text_end - text, 0, 0, 16, 0
								# [1] .text: PROGBITS, ALLOC|EXECINSTR
	.long	n_rel1 - shstr, 9, 0x40, 0, rel1 - elf, rel1_end - rel1, 4, 1, 4, 8
								# [2] .rel.text: SHT_REL, link .symtab, info .text
	.long	n_rel2 - shstr, 9, 0x40, 0, rel2 - elf, rel2_end - rel2, 4, 1, 4, 8
								# [3] .rel.text.more: the same target
	.long	n_symtab - shstr, 2, 0, 0, symtab - elf, symtab_end - symtab, 5, 2, 4, 16
								# [4] .symtab: link .strtab, first global 2
	.long	n_strtab - shstr, 3, 0, 0, strtab - elf, strtab_end - strtab, 0, 0, 1, 0
								# [5] .strtab
	.long	n_shstr - shstr, 3, 0, 0, shstr - elf, shstr_end - shstr, 0, 0, 1, 0
								# [6] .shstrtab
