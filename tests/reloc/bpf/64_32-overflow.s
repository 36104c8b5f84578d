# R_BPF_64_32: a callee more than 2^31 instructions away.
# DEFSYM: far_fn=0x10000000000
# EXPECT-ERROR: 64_32-overflow.o:(.text+0x0): relocation R_BPF_64_32 against far_fn out of range: 0x1fffffdfff is not in [-2147483648, 2147483647]
	.text
	.globl	entry
entry:
	call far_fn
	exit
