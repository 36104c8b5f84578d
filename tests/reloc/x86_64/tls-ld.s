# TLS, local dynamic (R_X86_64_TLSLD).
# EXPECT-ERROR: tls-ld.o:(.text+0x3): relocation R_X86_64_TLSLD against tls_ld_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	leaq	tls_ld_var@tlsld(%rip), %rdi
	call	__tls_get_addr@PLT
	leaq	tls_ld_var@dtpoff(%rax), %rax
	ret
	.section .tbss,"awT",@nobits
tls_ld_var:
	.zero	8
	.section .note.GNU-stack,"",@progbits
