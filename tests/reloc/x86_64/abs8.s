# R_X86_64_8 (S + A, 8 bits, signed or unsigned), including -128 and 255.
# DEFSYM: tiny=0x20
# EXPECT: agree
	.text
	.globl	abs8_fn
abs8_fn:
	movb	$tiny, %al
	addb	$tiny + 1, %cl
	ret
	.data
	.byte	tiny
	.byte	tiny + 0xdf			# 255
	.byte	tiny - 0xa0			# -128
	.byte	tiny - 0x21			# -1
	.section .note.GNU-stack,"",@progbits
