# TLS, initial exec through the GOT (R_386_TLS_GOTIE).
# EXPECT-ERROR: tls-ie.o:(.text+0x2): relocation R_386_TLS_GOTIE against ext_tls: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	movl	ext_tls@gotntpoff(%ebx), %eax
	movl	%gs:(%eax), %eax
	ret
	.section .note.GNU-stack,"",@progbits
