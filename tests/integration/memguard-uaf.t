# --memguard: a freed block is poisoned and made inaccessible in
# quarantine; reading it faults, and the panic names where it was
# allocated and where it was freed.
# args: --memguard
# status: 3
minikern> kldload memabuse
minikern> memabuse uaf
memabuse: reading freed memory
panic: page fault (SIGSEGV) at address {{0x[0-9a-f]+}}: read, protection violation
memguard: use after free: {{0x[0-9a-f]+}} is 10 bytes into the 64-byte block at {{0x[0-9a-f]+}} allocated by memabuse at memabuse`memabuse_alloc+0x{{[0-9a-f]+}}, freed at memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
pc: {{0x[0-9a-f]+}} memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
