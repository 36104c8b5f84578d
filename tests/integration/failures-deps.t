# Dependency failures: a version outside the declared range, a dependency
# that is nowhere on the module path, and a dependency loop.  A dependency
# loaded for the failed module is unloaded again, and no reference is left.
# status: 1
minikern> # dep_badversion wants libcounter 3 to 4; libcounter is version 2
minikern> kldload dep_badversion
libcounter: version 2 ready
dep_badversion.ko: loaded dependency libcounter.ko
libcounter: unloading after 0 calls
kldload: dep_badversion.ko: needs libcounter version 3 to 4, but version 2 is loaded
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # the same with libcounter already loaded: it stays, with its reference count
minikern> kldload libcounter
libcounter: version 2 ready
minikern> kldload dep_badversion
kldload: dep_badversion.ko: needs libcounter version 3 to 4, but version 2 is loaded
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 3    1 {{ *0x[0-9a-f]+}}     3000 libcounter.ko
minikern> kldunload libcounter
libcounter: unloading after 0 calls
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # dep_missing needs libcounter (found, loaded) and no_such_module (not found)
minikern> kldload dep_missing
libcounter: version 2 ready
dep_missing.ko: loaded dependency libcounter.ko
libcounter: unloading after 0 calls
kldload: dep_missing.ko: dependency no_such_module: no_such_module: module not found in the module path ($MODULES:$TESTMODULES)
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # loop_a needs loop_b, which needs loop_a
minikern> kldload loop_a
kldload: loop_a.ko: dependency loop_b: loop_b.ko: dependency loop_a: loop_a.ko: dependency loop: loop_a.ko -> loop_b.ko -> loop_a.ko
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
