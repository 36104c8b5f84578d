# A module that still holds memory when it is unloaded is named with the
# bytes and allocations it leaked.  The leaked memory stays charged to it:
# vmstat -m keeps listing it, and kern.malloc counts it.
# status: 0
minikern> kldload leaky
minikern> leaky leak 1000
minikern> vmstat -m
         Type InUse MemUse Requests
        leaky     3     2K        3
minikern> kldunload leaky
leaky: unloading without freeing
leaky.ko: module leaked 1128 bytes in 3 allocations
minikern> sysctl kern.malloc.inuse kern.malloc.memuse
kern.malloc.inuse: 3
kern.malloc.memuse: 1128
minikern> vmstat -m
         Type InUse MemUse Requests
        leaky     3     2K        3
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
