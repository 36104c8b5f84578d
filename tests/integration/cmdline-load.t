# --load loads modules at boot, before the first command; a module that
# cannot be loaded is reported and makes the exit status 1, the rest of the
# session still runs.
# args: --load hello --load nosuch --load counter_user
# status: 1
Hello, world!
kernel: --load: nosuch: module not found in the module path ($MODULES:$TESTMODULES)
libcounter: version 2 ready
counter_user.ko: loaded dependency libcounter.ko
libcounter: counter_user added 5, total 5
counter_user: libcounter has seen 1 call(s), total 5
minikern> lsmod
Module                  Size  Used by
counter_user           12288  0
libcounter             12288  1 counter_user
hello                  12288  0
minikern> halt
libcounter: counter_user added -5, total 0
libcounter: unloading after 2 calls
Goodbye from hello: Hello, world!
