# A fault on a CPU thread (a module's callout reading through NULL) panics
# the kernel as a fault in the shell does, naming the CPU thread; the
# shell meanwhile waits in the module.
# args: --cpus 1
# status: 3
minikern> kldload crashme
minikern> crashme callout
crashme: callout on cpu 0
panic: page fault (SIGSEGV) at address 0x0: read, page not present
pc: {{0x[0-9a-f]+}} crashme`crashme_deref+0x{{[0-9a-f]+}}
thread: cpu0 (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} crashme`crashme_deref+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} crashme`crashme_tick+0x{{[0-9a-f]+}}
  #2 {{0x[0-9a-f]+}} kernel`Cpus::run+0x{{[0-9a-f]+}}
...
dmesg (last lines):
...
  crashme: callout on cpu 0
panic: kernel stopped (exit status 3)
