# Section symbols: local labels become the section symbol plus an addend,
# which for REL sits in the field: into .text, .data, .rodata and .bss.
# EXPECT: agree
	.text
local_fn:
	movl	$local_ro + 3, %eax
	movl	$local_bss + 8, %ecx
	leal	local_ro@GOTOFF(%ebx), %edx
	ret
	.section .rodata,"a"
	.zero	16
local_ro:
	.asciz	"section symbol"
	.data
	.long	local_fn
	.long	local_ro
	.long	local_bss + 0x100
	.long	local_ro - .
	.bss
	.zero	32
local_bss:
	.zero	0x200
	.section .note.GNU-stack,"",@progbits
