# A Linux module's own per-CPU variables (tests/linux/lkpcpu:
# DEFINE_PER_CPU, this_cpu_inc, per_cpu over for_each_possible_cpu), as
# Linux's percpu_modalloc() and percpu_modcopy() give them: space at one
# offset in every CPU's area and the shell's (two CPU threads and the
# shell: 3 possible CPUs), each copy starting as the file wrote it (42,
# and a pointer relocated to the module's string).  8 work items of 1000
# this_cpu_inc each, spread over both CPU threads, and one from init on
# the shell's: the per-CPU counts sum to 8001, and each CPU's count is the
# rounds of exactly the work it ran.  Unloaded, the space goes back; loaded
# again, the copies are fresh.  A .data..percpu larger than the space left
# is refused with one line, and a load that fails after the space was
# given (a CRC that disagrees) gives it back.  On i386 (the 686 kbuild's
# lkpcpu) the variables take 12 bytes, and the damaged copy's emptied
# section is refused sooner: its REL relocations keep their addends in it.
# arch: x86_64 i386
# args: --cpus 2 -m $LINUXTEST
# status: 1
# setup: python3 $ROOT/tests/linux/patch-ko.py percpu-big $LINUXTEST/lkpcpu.ko 0x200000 big.ko
# setup: python3 $ROOT/tests/linux/patch-ko.py flip-crc $LINUXTEST/lkpcpu.ko _printk crc.ko
minikern> sysctl vm.percpu.used
vm.percpu.used: 0
minikern> insmod $LINUXTEST/lkpcpu.ko
lkpcpu: 3 possible CPUs, 3 with fresh copies
lkpcpu: 8 works x 1000 rounds and 1 from init: sum 8001, 0 CPUs disagree, 3 seeds right
lkpcpu: the works ran on 2 CPUs; this_cpu_ptr == per_cpu_ptr
minikern> sysctl vm.percpu.used
[x86_64] vm.percpu.used: 24
[i386] vm.percpu.used: 12
minikern> sysctl module.lkpcpu.sum
module.lkpcpu.sum: 8001
minikern> rmmod lkpcpu
minikern> sysctl vm.percpu.used
vm.percpu.used: 0
minikern> insmod $LINUXTEST/lkpcpu.ko rounds=5
lkpcpu: 3 possible CPUs, 3 with fresh copies
lkpcpu: 8 works x 5 rounds and 1 from init: sum 41, 0 CPUs disagree, 3 seeds right
lkpcpu: the works ran on 2 CPUs; this_cpu_ptr == per_cpu_ptr
minikern> rmmod lkpcpu
minikern> insmod $TMP/big.ko
[x86_64] insmod: lkpcpu: .data..percpu (2097152 bytes, aligned to 8): per-CPU space exhausted: 2097152 bytes asked, 983040 of the 983040 for modules free in each CPU's area
[i386] insmod: big.ko:(.data..percpu+0x0): REL relocation in a section with no contents
minikern> insmod $TMP/crc.ko
lkpcpu: disagrees about version of symbol _printk
insmod: lkpcpu: disagrees about version of symbol _printk
minikern> sysctl vm.percpu.used
vm.percpu.used: 0
minikern> lsmod
Module                  Size  Used by
