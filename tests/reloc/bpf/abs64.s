# R_BPF_64_ABS64: addresses in data, with addends.  GNU ld 2.40 numbers
# type 2 differently (R_BPF_INSN_32): the formula is the reference.
# DEFSYM: ext_var=0x123456789000
	.data
	.globl table
table:
	.quad ext_var
	.quad ext_var+16
	.quad table+8
	.quad entry
	.text
	.globl entry
entry:
	r0 = 0
	exit
