# R_386_8 (S + A, 8 bits).  REL addends in a byte are ambiguous (GNU ld
# reads them unsigned, ld.lld and minikern sign-extended), so the fields
# here give the same byte either way.
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
	.byte	tiny + 0x5f			# 0x7f
	.byte	tiny - 1
	.section .note.GNU-stack,"",@progbits
