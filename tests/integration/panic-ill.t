# An undefined instruction (ud2) in a module: SIGILL at that instruction.
# status: 3
minikern> kldload crashme
minikern> crashme ill
panic: illegal instruction (SIGILL) at address {{0x[0-9a-f]+}}
pc: {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
