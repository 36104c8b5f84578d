# R_BPF_64_32: calls of a global function forwards and backwards in the
# same section, and of an external function far away (in instructions).
# DEFSYM: ext_fn=0x7ff0000
	.text
	.globl	back
back:
	r0 = 1
	exit
	.globl	entry
entry:
	call fwd
	call back
	call ext_fn
	exit
	.globl	fwd
fwd:
	r0 = 2
	exit
