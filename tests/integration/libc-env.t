# The C environment of modules: tests/modules/libc_env checks the
# freestanding headers, every C library function the kernel exports
# (<string.h>, <strings.h>, <memory.h>, <ctype.h>, <stdlib.h>,
# <inttypes.h>, <stdio.h>, <math.h>, <time.h>, <errno.h>, <assert.h>), the
# compiler's runtime helpers, the calls the compiler makes on its own, and
# all of it from C++, against known answers (the clocks against each other
# and nanouptime()); each area prints passed/total and names every failed
# check.  printf, vprintf, puts, putchar and the puts gcc
# makes of printf("%s\n") write to the console; klog() only to dmesg.
# Nothing the checks allocated (strdup, strndup, malloc, realloc, calloc)
# is left behind.  tests/modenv/run builds the same module with gcc and
# clang in every compile mode and loads each.
minikern> kldload libc_env
minikern> libc_env
libc_env: headers  24/24
libc_env: string   70/70
libc_env: ctype    30/30
libc_env: stdlib   53/53
libc_env: puts and putchar reach the console:
ok
libc_env: vprintf too
libc_env: stdio    45/45
libc_env: math     220/220
libc_env: time     54/54
[x86_64] libc_env: rt       123/123
[i386] libc_env: rt       104/104 - no _Float16 in this compiler and arch
libc_env: printf("%s\n") reached the console
[x86_64] libc_env: builtins 57/57
[i386] libc_env: builtins 53/53
libc_env: c++      27/27
[x86_64] libc_env: PASS 703/703
[i386] libc_env: PASS 680/680
minikern> sysctl libc_env.failed
libc_env.failed: 0
minikern> dmesg
...
libc_env: klog reaches dmesg only
libc_env.ko: loaded at {{0x[0-9a-f]+}}, {{[0-9]+}} bytes, {{[0-9]+}} relocations
...
minikern> vmstat -m
         Type InUse MemUse Requests
     libc_env     0     0K        7
minikern> kldunload libc_env
minikern> vmstat -m
         Type InUse MemUse Requests
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
