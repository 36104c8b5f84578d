# BUG in a Linux module stops the kernel: "kernel BUG at file:line!", then
# the panic report, with the backtrace through the module's ORC frames.
# arch: x86_64
# args: -m $LINUXTEST
# status: 3
minikern> insmod $LINUXTEST/lkwarn.ko level=3
...
kernel BUG at {{.*}}lkwarn.c:15! (module lkwarn)
panic: illegal instruction (SIGILL) at address {{0x[0-9a-f]+}}
pc: {{0x[0-9a-f]+}} lkwarn`lkwarn_check+{{0x[0-9a-f]+}}
...
  #1 {{0x[0-9a-f]+}} lkwarn`init_module+{{0x[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
