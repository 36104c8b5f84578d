# A module whose .eh_frame has an FDE with a CIE pointer aimed before the
# section (tests/modules/ehframe_bad_cie, written by hand): the load is
# refused with one line naming the record and the field, before any of
# its code runs or can be walked, and the kernel keeps nothing of it.
# status: 1
minikern> kldload ehframe_bad_cie
kldload: ehframe_bad_cie.ko: .eh_frame FDE at 0x18: CIE pointer 0x1000 outside the section
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # the arena is intact: a module still loads
minikern> kldload hello
Hello, world!
Goodbye from hello: Hello, world!
