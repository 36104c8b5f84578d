# A module that refers to symbols nobody exports is refused with one error
# that names all of them (sorted), and nothing of it stays behind.  Only
# exported kernel symbols count: kern_printf is a function of the kernel
# executable, but it is exported as printf, not under its own name.
# status: 1
minikern> kldload undef_syms
kldload: undef_syms.ko: undefined symbols: another_missing_function, kern_printf, missing_variable, no_such_function
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
