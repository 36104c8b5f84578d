# A module that frees a block twice (without --memguard): the kernel's
# free() finds the block no longer allocated and panics, naming the module
# function that called it, before it follows anything the C library wrote
# into the freed block (which used to crash it, or let the C library abort
# the process with status 134).
# status: 3
minikern> kldload doublefree
minikern> doublefree
doublefree: freeing a block twice
panic: free: {{0x[0-9a-f]+}} is not an allocated block (freed already?), from doublefree`doublefree_cmd+0x{{[0-9a-f]+}}
called from: {{0x[0-9a-f]+}} kernel`{{[a-z_]+}}+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
...
  #{{[0-9]+}} {{0x[0-9a-f]+}} doublefree`doublefree_cmd+0x{{[0-9a-f]+}}
...
  #{{[0-9]+}} {{0x[0-9a-f]+}} kernel`Shell::run_line+0x{{[0-9a-f]+}}
...
dmesg (last lines):
...
  doublefree: freeing a block twice
panic: kernel stopped (exit status 3)
