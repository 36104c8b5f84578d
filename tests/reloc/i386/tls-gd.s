# TLS, general dynamic (R_386_TLS_GD): refused, naming the field.
# EXPECT-ERROR: tls-gd.o:(.text+0x3): relocation R_386_TLS_GD against tls_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.text
	leal	tls_var@tlsgd(,%ebx,1), %eax
	call	___tls_get_addr@PLT
	ret
	.section .tbss,"awT",@nobits
	.globl	tls_var
tls_var:
	.zero	4
	.section .note.GNU-stack,"",@progbits
