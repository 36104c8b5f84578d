# Dependencies: loading counter_user loads libcounter (version 2, within
# counter_user's 1..3) from the module path first, binds counter_user's calls
# and data references to libcounter's globals, and takes a reference on it.
# libcounter cannot be unloaded while counter_user is loaded; afterwards it
# stays loaded until it is unloaded itself.
# status: 1
minikern> kldload counter_user
libcounter: version 2 ready
counter_user.ko: loaded dependency libcounter.ko
libcounter: counter_user added 5, total 5
counter_user: libcounter has seen 1 call(s), total 5
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    3 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    2 {{ *0x[0-9a-f]+}}     3000 libcounter.ko
 3    1 {{ *0x[0-9a-f]+}}     3000 counter_user.ko
minikern> sysctl libcounter counter_user
libcounter.calls: 1
libcounter.total: 5
counter_user.amount: 5
minikern> kldunload libcounter
kldunload: libcounter.ko: in use by counter_user.ko
minikern> kldunload 2
kldunload: libcounter.ko: in use by counter_user.ko
minikern> kldload libcounter
kldload: libcounter.ko: module already loaded (id 2)
minikern> kldunload counter_user
libcounter: counter_user added -5, total 0
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 libcounter.ko
minikern> kldload counter_user
libcounter: counter_user added 5, total 5
counter_user: libcounter has seen 3 call(s), total 5
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    3 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    2 {{ *0x[0-9a-f]+}}     3000 libcounter.ko
 4    1 {{ *0x[0-9a-f]+}}     3000 counter_user.ko
minikern> kldunload counter_user libcounter
libcounter: counter_user added -5, total 0
libcounter: unloading after 4 calls
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
