# A division by zero in a module: SIGFPE, named as an integer divide
# fault at the dividing instruction.
# status: 3
minikern> kldload crashme
minikern> crashme divzero
panic: integer divide fault (SIGFPE) at address {{0x[0-9a-f]+}}
pc: {{0x[0-9a-f]+}} crashme`crashme_divide+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} crashme`crashme_divide+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
