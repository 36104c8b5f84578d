# R_BPF_64_64: ld_imm64 of a local variable (through the section symbol,
# with an addend in imm), of an external, and of an address above 4 GiB.
# DEFSYM: ext_var=0x20000 far_var=0x123456789000
	.text
	.globl	entry
entry:
	r1 = local_var ll
	r2 = local_var+12 ll
	r3 = ext_var ll
	r4 = ext_var+8 ll
	r5 = far_var ll
	r0 = 0
	exit
	.data
local_var:
	.quad 0
	.quad 0
