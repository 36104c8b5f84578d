# A fault at an instruction no __ex_table entry lists is a panic, as
# before exception tables: lkfault's crash parameter writes through a bad
# pointer where no fixup is.
# arch: x86_64
# args: -m $LINUXTEST
# status: 3
minikern> insmod $LINUXTEST/lkfault.ko crash=1
panic: page fault (SIGSEGV) at address 0x10: write, page not present
pc: {{0x[0-9a-f]+}} lkfault`crash_set+{{0x[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
