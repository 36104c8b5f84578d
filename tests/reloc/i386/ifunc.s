# A GNU indirect function (STT_GNU_IFUNC): a reference must reach the
# function the resolver selects.  Both references go through an IPLT entry
# filled at start-up (IRELATIVE); binding the field to the resolver itself
# would make every call run the resolver instead.
# minikern refuses: a module has no dynamic linker to run the resolver.
# The references link it (with an IPLT): this refusal is minikern's policy.
# EXPECT-ERROR: ifunc.o: symbol pick_impl is a GNU indirect function (STT_GNU_IFUNC), which a module cannot define
# REF-EXPECT: ok
	.text
	.globl	ifunc_caller
ifunc_caller:
	call	pick_impl
	movl	$pick_impl, %eax
	ret
	.type	pick_impl, @gnu_indirect_function
	.globl	pick_impl
pick_impl:
	movl	$impl_generic, %eax
	ret
impl_generic:
	movl	$1, %eax
	ret
	.section .note.GNU-stack,"",@progbits
