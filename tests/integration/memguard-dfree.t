# --memguard: freeing a block twice is found in quarantine; the panic
# names the allocation, the first free and the second.
# args: --memguard
# status: 3
minikern> kldload memabuse
minikern> memabuse dfree
memabuse: freeing again
panic: memguard: double free of {{0x[0-9a-f]+}} (48-byte block allocated by memabuse at memabuse`memabuse_alloc+0x{{[0-9a-f]+}}, freed at memabuse`memabuse_cmd+0x{{[0-9a-f]+}}) from memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
