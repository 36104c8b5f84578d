# A GNU indirect function (STT_GNU_IFUNC), as gcc emits for
# __attribute__((ifunc)) and __attribute__((target_clones)): a reference
# to it must reach the function its resolver selects, not the resolver.
# Both references route the call and the address through an IPLT entry
# filled at start-up (IRELATIVE).  A loader must call the resolver (or
# refuse the object); binding the field to the resolver itself would make
# every call run the resolver and use its return value as the result.
# minikern refuses: a module has no dynamic linker to run the resolver.
# The references link it (with an IPLT): this refusal is minikern's policy.
# EXPECT-ERROR: ifunc.o: symbol pick_impl is a GNU indirect function (STT_GNU_IFUNC), which a module cannot define
# REF-EXPECT: ok
	.text
	.globl	ifunc_caller
ifunc_caller:
	call	pick_impl
	movabsq	$pick_impl, %rax
	ret
	.type	pick_impl, @gnu_indirect_function
	.globl	pick_impl
pick_impl:				# the resolver: returns the implementation
	leaq	impl_generic(%rip), %rax
	ret
impl_generic:
	movl	$1, %eax
	ret
	.section .note.GNU-stack,"",@progbits
