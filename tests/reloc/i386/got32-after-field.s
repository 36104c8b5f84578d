# R_386_GOT32 in data right after another relocated field.  Whether the
# field is "baseless" (G + GOT + A) is decided by the byte before it, here
# the last byte of the previous field.  minikern and ld.lld read that byte
# from the object (0x00: with a base, G + A); GNU ld reads it after
# relocating the previous field (0x05 here: baseless) and so disagrees with
# both.  Only ld.lld is the reference; the difference is GNU ld's.
# DEFSYM: high5=0x05000000
# REF: lld
# EXPECT: agree
	.data
	.long	high5
	.long	kdata@GOT
	.section .note.GNU-stack,"",@progbits
