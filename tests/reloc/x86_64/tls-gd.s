# TLS, general dynamic (R_X86_64_TLSGD): a kernel module has no thread-local
# storage, so the loader refuses the object, naming the first TLS field.
# The references link TLS, so they are not consulted.
# EXPECT-ERROR: tls-gd.o:(.text+0x4): relocation R_X86_64_TLSGD against tls_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	.globl	tls_gd_fn
tls_gd_fn:
	.byte	0x66
	leaq	tls_var@tlsgd(%rip), %rdi
	.word	0x6666
	rex64
	call	__tls_get_addr@PLT
	ret
	.section .tbss,"awT",@nobits
	.globl	tls_var
tls_var:
	.zero	4
	.section .note.GNU-stack,"",@progbits
