# TLS in data (R_X86_64_DTPOFF64, as debug info and TLS descriptors use it).
# EXPECT-ERROR: tls-data.o:(.data+0x8): relocation R_X86_64_DTPOFF64 against tls_data_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.data
	.quad	0
	.quad	tls_data_var@dtpoff
	.section .tbss,"awT",@nobits
tls_data_var:
	.zero	8
	.section .note.GNU-stack,"",@progbits
