# Several relocation sections applying to one section: a hand-made ELF64
# object (the assembler never splits .rela.text) whose .text is relocated
# by two SHT_RELA sections, .rela.text and .rela.text.more, both with
# sh_info = 1.  The file is the contents of section .elf below; every
# field of the headers is spelled out.
# BUILD: raw
# EXPECT: agree
	.section .elf,"a"
elf:
	.byte	0x7f, 0x45, 0x4c, 0x46	# ELF magic
	.byte	2, 1, 1, 0		# ELFCLASS64, little-endian, EV_CURRENT, SYSV
	.quad	0			# rest of e_ident
	.word	1			# e_type: ET_REL
	.word	62			# e_machine: EM_X86_64
	.long	1			# e_version
	.quad	0			# e_entry
	.quad	0			# e_phoff: no program headers
	.quad	shdrs - elf		# e_shoff
	.long	0			# e_flags
	.word	64			# e_ehsize
	.word	0, 0			# e_phentsize, e_phnum
	.word	64			# e_shentsize
	.word	7			# e_shnum
	.word	6			# e_shstrndx

	.balign	16
text:					# what the relocations patch
	.byte	0xe8			# call kfunc          (PLT32, first section)
	.long	0
	.byte	0x48, 0xb8		# movabs $text+0x10, %rax (64, second section)
	.quad	0
	.byte	0x48, 0x8d, 0x05	# lea kdata(%rip), %rax   (PC32, second section)
	.long	0
	.byte	0xc3			# ret
text_end:

	.balign	8
rela1:					# .rela.text: sh_info 1
	.quad	1, (2 << 32) | 4, -4	# r_offset, r_info (sym 2 kfunc, R_X86_64_PLT32), r_addend
rela1_end:
rela2:					# .rela.text.more: sh_info 1 as well
	.quad	7, (1 << 32) | 1, 0x10	# sym 1 (section .text), R_X86_64_64
	.quad	18, (3 << 32) | 2, -4	# sym 3 (kdata), R_X86_64_PC32
rela2_end:

symtab:					# Elf64_Sym: name, info, other, shndx, value, size
	.long	0
	.byte	0, 0
	.word	0
	.quad	0, 0			# [0] null
	.long	0
	.byte	3, 0			# STB_LOCAL, STT_SECTION
	.word	1
	.quad	0, 0			# [1] section .text
	.long	s_kfunc - strtab
	.byte	0x10, 0			# STB_GLOBAL, STT_NOTYPE
	.word	0			# SHN_UNDEF
	.quad	0, 0			# [2] kfunc
	.long	s_kdata - strtab
	.byte	0x10, 0
	.word	0
	.quad	0, 0			# [3] kdata
symtab_end:

strtab:
	.byte	0
s_kfunc: .asciz	"kfunc"
s_kdata: .asciz	"kdata"
strtab_end:

shstr:
	.byte	0
n_text:	.asciz	".text"
n_rela1: .asciz	".rela.text"
n_rela2: .asciz	".rela.text.more"
n_symtab: .asciz ".symtab"
n_strtab: .asciz ".strtab"
n_shstr: .asciz	".shstrtab"
shstr_end:

	.balign	8
shdrs:		# name, type, flags, addr, offset, size, link, info, addralign, entsize
	.long	0, 0
	.quad	0, 0, 0, 0
	.long	0, 0
	.quad	0, 0				# [0] null
	.long	n_text - shstr, 1		# SHT_PROGBITS
	.quad	6, 0, text - elf, text_end - text	# SHF_ALLOC|SHF_EXECINSTR
	.long	0, 0
	.quad	16, 0				# [1] .text
	.long	n_rela1 - shstr, 4		# SHT_RELA
	.quad	0x40, 0, rela1 - elf, rela1_end - rela1	# SHF_INFO_LINK
	.long	4, 1				# sh_link: .symtab, sh_info: .text
	.quad	8, 24				# [2] .rela.text
	.long	n_rela2 - shstr, 4
	.quad	0x40, 0, rela2 - elf, rela2_end - rela2
	.long	4, 1				# the same target
	.quad	8, 24				# [3] .rela.text.more
	.long	n_symtab - shstr, 2		# SHT_SYMTAB
	.quad	0, 0, symtab - elf, symtab_end - symtab
	.long	5, 2				# sh_link: .strtab, sh_info: first global
	.quad	8, 24				# [4] .symtab
	.long	n_strtab - shstr, 3		# SHT_STRTAB
	.quad	0, 0, strtab - elf, strtab_end - strtab
	.long	0, 0
	.quad	1, 0				# [5] .strtab
	.long	n_shstr - shstr, 3
	.quad	0, 0, shstr - elf, shstr_end - shstr
	.long	0, 0
	.quad	1, 0				# [6] .shstrtab
