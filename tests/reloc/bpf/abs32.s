# R_BPF_64_ABS32 (a global) and R_BPF_64_NODYLD32 (clang's choice for a
# local section reference in 32 bits).  The formula is the reference.
# DEFSYM: ext_var=0x40000
	.data
	.globl words
words:
	.long ext_var
	.long ext_var+4
	.long local+4
local:
	.long 0
