# Loads that fill the module arena: in a 2 MiB arena one copy of bigbss
# (1.5 MiB of bss) fits, a second copy (the same plain object under another
# file name, so another module) does not, and leaves the first and the
# arena as they were.  After an unload the space can be used again.
# args: --arena-mib 2
# setup: cp $TESTMODULES/bigbss.ko bigbss2.ko
# status: 1
minikern> kldload bigbss
bigbss: holding 1536 KiB
minikern> sysctl vm.arena.size vm.arena.used
vm.arena.size: 2097152
vm.arena.used: 1585152
minikern> kldload $TMP/bigbss2.ko
kldload: bigbss2.ko: out of module memory: 1585152 bytes requested, 1585152 of 2097152 in use
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}   183000 bigbss.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 1585152
minikern> # the rest of the arena is still usable
minikern> kldload hello counter_user
Hello, world!
libcounter: version 2 ready
counter_user.ko: loaded dependency libcounter.ko
libcounter: counter_user added 5, total 5
counter_user: libcounter has seen 1 call(s), total 5
minikern> sysctl vm.arena.used
vm.arena.used: 1622016
minikern> kldunload bigbss
minikern> kldload $TMP/bigbss2.ko
bigbss: holding 1536 KiB
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    5 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 3    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
 4    2 {{ *0x[0-9a-f]+}}     3000 libcounter.ko
 5    1 {{ *0x[0-9a-f]+}}     3000 counter_user.ko
 6    1 {{ *0x[0-9a-f]+}}   183000 bigbss2.ko
minikern> kldunload bigbss2 counter_user libcounter hello
libcounter: counter_user added -5, total 0
libcounter: unloading after 2 calls
Goodbye from hello: Hello, world!
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
