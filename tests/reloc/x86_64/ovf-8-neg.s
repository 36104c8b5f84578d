# R_X86_64_8 out of range below: S + A = 0x10 - 0x111 = -0x101.  (GNU ld
# accepts down to -256 for this type, ld.lld and minikern down to -128; this
# value is below both.)
# DEFSYM: small=0x10
# EXPECT-ERROR: ovf-8-neg.o:(.data+0x0): relocation R_X86_64_8 against small out of range: -0x101 is not in [-128, 255]
	.data
	.byte	small - 0x111
	.section .note.GNU-stack,"",@progbits
