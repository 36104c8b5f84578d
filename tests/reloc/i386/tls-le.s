# TLS, local exec (R_386_TLS_LE) after an accepted relocation: the message
# names the TLS field.
# EXPECT-ERROR: tls-le.o:(.text+0x7): relocation R_386_TLS_LE against tls_le_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	call	kprintf
	movl	%gs:tls_le_var@ntpoff, %eax
	ret
	.section .tdata,"awT",@progbits
tls_le_var:
	.long	7
	.section .note.GNU-stack,"",@progbits
