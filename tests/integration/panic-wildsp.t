# A module that points its stack pointer at an unmapped page and writes
# there: the report runs on the thread's alternate signal stack, reads
# nothing at the wild stack pointer, and its backtrace is the faulting
# frame alone.
# status: 3
minikern> kldload stackwreck
minikern> stackwreck sp
stackwreck: stack pointer to 0x1000
panic: page fault (SIGSEGV) at address 0x1000: write, page not present
pc: {{0x[0-9a-f]+}} stackwreck`stackwreck_sp+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} stackwreck`stackwreck_sp+0x{{[0-9a-f]+}}
dmesg (last lines):
...
  stackwreck: stack pointer to 0x1000
panic: kernel stopped (exit status 3)
