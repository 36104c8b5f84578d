# A call through a wild function pointer (to an unmapped address) is
# reported like a call through NULL: the address, and the module function
# that made the call.
# status: 3
minikern> kldload nullcall
minikern> nullcall wild
nullcall: calling through 0x1230
panic: page fault (SIGSEGV) at address 0x1230: fetch, page not present
pc: 0x1230 (not code: a call through a bad function pointer)
called from: {{0x[0-9a-f]+}} nullcall`nullcall_cmd+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} nullcall`nullcall_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
