# TLS, local dynamic (R_386_TLS_LDM).
# EXPECT-ERROR: tls-ldm.o:(.text+0x2): relocation R_386_TLS_LDM against tls_ld_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	leal	tls_ld_var@tlsldm(%ebx), %eax
	call	___tls_get_addr@PLT
	leal	tls_ld_var@dtpoff(%eax), %eax
	ret
	.section .tbss,"awT",@nobits
tls_ld_var:
	.zero	8
	.section .note.GNU-stack,"",@progbits
