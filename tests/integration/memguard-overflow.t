# --memguard: a write one byte past the end of a module's block faults on
# the guard page behind it at once; the panic names the block, the module
# and the call site that allocated it.
# args: --memguard
# status: 3
minikern> kldload memabuse
minikern> memabuse overflow
memabuse: writing past the end
panic: page fault (SIGSEGV) at address {{0x[0-9a-f]+}}: write, protection violation
memguard: overflow past the end: {{0x[0-9a-f]+}} is 0 bytes past the end of the 112-byte block at {{0x[0-9a-f]+}} allocated by memabuse at memabuse`memabuse_alloc+0x{{[0-9a-f]+}}
pc: {{0x[0-9a-f]+}} memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
