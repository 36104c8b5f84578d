# Hostile inputs found by hand and by the fuzzers (issue 11): each gets one
# line naming the object and the cause, and the kernel is unchanged after
# it (no file, no arena memory, no kernel memory left behind).  What is not
# a file says what it is, without blocking on it (a FIFO with no writer).
# status: 1
# setup: mkdir dir.ko; mkfifo fifo.ko
# setup: if [ "$ARCH" = x86_64 ]; then m=0xffffffffffffffff; a=0x8000000000000000; else m=0xffffffff; a=0x80000000; fi; cp $MODULES/hello.ko hugebss.ko; $ROOT/tests/fuzz/elf-patch hugebss.ko .bss size $m; cp $MODULES/hello.ko align63.ko; $ROOT/tests/fuzz/elf-patch align63.ko .text addralign $a
# setup: cp $MODULES/hello.ko align31.ko; $ROOT/tests/fuzz/elf-patch align31.ko .text addralign 0x80000000
# setup: printf '#pragma D option bufsize=-1\nBEGIN { exit(0); }\n' > bufsize.d
minikern> kldload $TMP/dir.ko
kldload: $TMP/dir.ko: is a directory, not a module file
minikern> kldload $TMP/fifo.ko
kldload: $TMP/fifo.ko: is a FIFO, not a module file
minikern> kldload /dev/null
kldload: /dev/null: is a character device, not a module file
minikern> modinfo $TMP/fifo.ko
modinfo: $TMP/fifo.ko: is a FIFO, not a module file
minikern> # a .bss of 2^64 - 1 bytes: the layout's sums are checked
minikern> kldload $TMP/hugebss.ko
kldload: hugebss.ko: section .bss: the module image would exceed 4 GiB
minikern> # an alignment of 2^63 (ELF32: 2^31) is refused by name
minikern> kldload $TMP/align63.ko
[x86_64] kldload: align63.ko: section .text: alignment 0x8000000000000000 is above the largest a module may ask for (0x100000000)
[i386] kldload: align63.ko: out of module memory: 12288 bytes aligned to 0x80000000 requested, 0 of {{[0-9]+}} in use
minikern> # an alignment the arena cannot meet: the message names it
minikern> kldload $TMP/align31.ko
kldload: align31.ko: out of module memory: 12288 bytes aligned to 0x80000000 requested, 0 of {{[0-9]+}} in use
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # and the arena is intact: a module still loads and unloads
minikern> kldload hello
Hello, world!
minikern> kldunload hello
Goodbye from hello: Hello, world!
minikern> # D: sizes and nesting are bounded, with their own errors
minikern> dtrace -s $TMP/bufsize.d
dtrace: failed to compile script $TMP/bufsize.d: line 1: failed to set option 'bufsize' to '-1': Invalid value for specified option
minikern> dtrace -n 'BEGIN { trace(18446744073709551616); }'
dtrace: invalid probe specifier BEGIN { trace(18446744073709551616); }: constant 18446744073709551616 results in integer overflow
minikern> dtrace -n 'BEGIN { trace(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+1))))))))))))))))))))))))))))))))); }'
dtrace: invalid probe specifier BEGIN { trace(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+1))))))))))))))))))))))))))))))))); }: the clause needs 34 values on the interpreter's stack at once (at most 32): nest its expressions less
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
