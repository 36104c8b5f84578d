# TLS, local exec (R_X86_64_TPOFF32), after an ordinary relocation that is
# accepted: the message names the TLS field, not the first field.
# EXPECT-ERROR: tls-le.o:(.text+0x9): relocation R_X86_64_TPOFF32 against tls_le_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	call	kprintf
	movl	%fs:tls_le_var@tpoff, %eax
	ret
	.section .tdata,"awT",@progbits
tls_le_var:
	.long	7
	.section .note.GNU-stack,"",@progbits
