# A breakpoint (int3) in a module that no probe site explains: the patch
# engine, whose SIGTRAP handler sees every int3, says so and hands the
# trap to the kernel's, a panic at the module's instruction (not a death
# by SIGTRAP).
# status: 3
minikern> kldload crashme
minikern> crashme int3
sdt: breakpoint trap at {{0x[0-9a-f]+}} that no probe site explains
panic: breakpoint trap (SIGTRAP) at {{0x[0-9a-f]+}}: an int3 no probe site explains
pc: {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
