# A module that reads through a NULL pointer panics the kernel: the report
# names the fault, the address, the faulting instruction as
# module`function+0xoffset, a backtrace through the module's and the
# kernel's frames, and the last lines of the message buffer; the kernel
# exits with status 3.
# status: 3
minikern> kldload crashme
minikern> echo before the fault
before the fault
minikern> crashme null
crashme: reading through NULL
panic: page fault (SIGSEGV) at address 0x0: read, page not present
pc: {{0x[0-9a-f]+}} crashme`crashme_deref+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} crashme`crashme_deref+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} crashme`crashme_cmd+0x{{[0-9a-f]+}}
...
  #{{[0-9]+}} {{0x[0-9a-f]+}} kernel`Shell::run_line+0x{{[0-9a-f]+}}
...
dmesg (last lines):
...
  crashme.ko: loaded at {{0x[0-9a-f]+}}, {{[0-9]+}} bytes, {{[0-9]+}} relocations
  before the fault
  crashme: reading through NULL
panic: kernel stopped (exit status 3)
minikern> echo never reached
