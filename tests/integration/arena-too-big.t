# A module larger than the whole module arena (bigbss: 1.5 MiB of bss in a
# 1 MiB arena) is refused when its image is allocated, after it was read,
# checked and its symbols bound; nothing is left allocated.
# args: --arena-mib 1
# status: 1
minikern> sysctl vm.arena.size vm.arena.used
vm.arena.size: 1048576
vm.arena.used: 0
minikern> kldload bigbss
kldload: bigbss.ko: out of module memory: 1585152 bytes requested, 0 of 1048576 in use
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # smaller modules still fit
minikern> kldload hello
Hello, world!
minikern> sysctl vm.arena.used
vm.arena.used: 12288
minikern> kldunload hello
Goodbye from hello: Hello, world!
