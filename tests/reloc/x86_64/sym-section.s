# Section symbols: references to local labels become relocations against
# the section symbol with the label's offset as addend, into .text, .data,
# .rodata and .bss, in 64-, 32- and PC-relative forms.
# EXPECT: agree
	.text
local_fn:
	leaq	local_ro+3(%rip), %rax
	movl	$local_bss + 8, %ecx
	ret
	.section .rodata,"a"
	.zero	16
local_ro:
	.asciz	"section symbol"
	.data
	.quad	local_fn
	.quad	local_ro
	.quad	local_bss + 0x100
	.long	local_ro - .
	.bss
	.zero	32
local_bss:
	.zero	0x200
	.section .note.GNU-stack,"",@progbits
