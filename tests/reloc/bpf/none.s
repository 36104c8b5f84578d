# R_BPF_NONE: nothing is written.  (No assembler syntax makes one: the
# harness retypes this file's R_BPF_64_ABS64 entry to R_BPF_NONE.)
# DEFSYM: ext_var=0x20000
# RETYPE: 2=0
	.data
	.quad ext_var+5
