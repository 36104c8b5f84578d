# R_BPF_64_ABS32: an address above 4 GiB does not fit.
# DEFSYM: high_var=0x100000000
# EXPECT-ERROR: abs32-overflow.o:(.data+0x0): relocation R_BPF_64_ABS32 against high_var out of range: 0x100000000 is not in [0, 4294967295]
# REF-EXPECT: skip
	.data
	.long high_var
