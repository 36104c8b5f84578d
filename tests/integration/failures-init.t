# A module whose MOD_LOAD handler fails (after allocating and freeing
# memory) is unloaded again: its sysctl and shell command, registered
# before MOD_LOAD ran, are gone, its memory is free, the accounting is back
# where it was, and it can be tried again.
# status: 1
minikern> kldload fail_init
fail_init: MOD_LOAD attempt 1: failing with EIO
kldload: fail_init.ko: module fail_init failed to load (MOD_LOAD returned 5)
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> sysctl fail_init
sysctl: unknown oid 'fail_init'
minikern> help fail_init
help: no such command: fail_init
minikern> fail_init
fail_init: command not found
minikern> vmstat -m
         Type InUse MemUse Requests
minikern> kldload fail_init
fail_init: MOD_LOAD attempt 1: failing with EIO
kldload: fail_init.ko: module fail_init failed to load (MOD_LOAD returned 5)
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
