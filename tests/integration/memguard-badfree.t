# --memguard: free() of an address no allocation returned (a module's
# global) is refused with a panic naming the caller, not handed to the
# heap.
# args: --memguard
# status: 3
minikern> kldload memabuse
minikern> memabuse badfree
memabuse: freeing a global
panic: memguard: free of a pointer that is not a heap block: {{0x[0-9a-f]+}} from memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
