# TLS in data (R_386_TLS_LDO_32, as debug info uses it).
# EXPECT-ERROR: tls-data.o:(.data+0x4): relocation R_386_TLS_LDO_32 against tls_data_var: thread-local storage is not supported in a kernel module
# REF-EXPECT: skip
	.data
	.long	0
	.long	tls_data_var@dtpoff
	.section .tbss,"awT",@nobits
tls_data_var:
	.zero	8
	.section .note.GNU-stack,"",@progbits
