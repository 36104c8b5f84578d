# A call through a NULL function pointer jumps to address 0, where no code
# is: the report says so and names the module function that made the
# call (the return address the call pushed), and the backtrace starts
# there.
# status: 3
minikern> kldload nullcall
minikern> nullcall null
nullcall: calling through NULL
panic: page fault (SIGSEGV) at address 0x0: fetch, page not present
pc: 0x0 (not code: a call through a bad function pointer)
called from: {{0x[0-9a-f]+}} nullcall`nullcall_cmd+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} nullcall`nullcall_cmd+0x{{[0-9a-f]+}}
...
  #{{[0-9]+}} {{0x[0-9a-f]+}} kernel`Shell::run_line+0x{{[0-9a-f]+}}
...
dmesg (last lines):
...
  nullcall: calling through NULL
panic: kernel stopped (exit status 3)
