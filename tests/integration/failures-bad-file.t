# Files that are not loadable modules are refused, each with one line that
# names the file and the problem, before anything is allocated: the kernel
# (hello stays loaded, nothing else appears, no memory is used) is
# unchanged after each.  The damaged files are made from hello.ko here.
# status: 1
# setup: head -c 100 $MODULES/hello.ko > truncated.ko
# setup: cp $MODULES/hello.ko cut.ko; truncate -s -200 cut.ko
# setup: head -c 10 $MODULES/hello.ko > short.ko
# setup: : > empty.ko
# setup: cp $MODULES/hello.ko badmagic.ko; printf 'X' | dd of=badmagic.ko bs=1 seek=1 conv=notrunc status=none
# setup: cp $MODULES/hello.ko badmachine.ko; printf '\xb7\x00' | dd of=badmachine.ko bs=1 seek=18 conv=notrunc status=none
# setup: cp $MODULES/hello.ko exec.ko; printf '\x02' | dd of=exec.ko bs=1 seek=16 conv=notrunc status=none
# setup: cp $MODULES/hello.ko dyn.ko; printf '\x03' | dd of=dyn.ko bs=1 seek=16 conv=notrunc status=none
# setup: if [ "$ARCH" = x86_64 ]; then w=--32; else w=--64; fi; printf 'marker: .byte 0\n' | as $w -o other.o
minikern> kldload hello
Hello, world!
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # truncated.ko: cut after 100 bytes: the section header table is missing
minikern> kldload $TMP/truncated.ko
kldload: truncated.ko: section header table lies outside the file
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # cut.ko: the last 200 bytes cut off: the section header table is incomplete
minikern> kldload $TMP/cut.ko
kldload: cut.ko: section header table ({{[0-9]+}} entries at 0x{{[0-9a-f]+}}) lies outside the file
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # short.ko: 10 bytes: not even an ELF identification
minikern> kldload $TMP/short.ko
kldload: short.ko: file too short for an ELF header
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # empty.ko: an empty file
minikern> kldload $TMP/empty.ko
kldload: empty.ko: file too short for an ELF header
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # badmagic.ko: e_ident[1] is "X" instead of "E"
minikern> kldload $TMP/badmagic.ko
kldload: badmagic.ko: not an ELF file (bad magic)
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # badmachine.ko: e_machine is 183 (AArch64)
minikern> kldload $TMP/badmachine.ko
kldload: badmachine.ko: unsupported machine 183
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # exec.ko: e_type is ET_EXEC
minikern> kldload $TMP/exec.ko
kldload: exec.ko: not a relocatable object (e_type ET_EXEC)
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # dyn.ko: e_type is ET_DYN
minikern> kldload $TMP/dyn.ko
kldload: dyn.ko: not a relocatable object (e_type ET_DYN)
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> # other.o: a good object, but for the other architecture
minikern> kldload $TMP/other.o
[x86_64] kldload: other.o: module is for i386, this kernel is x86_64
[i386] kldload: other.o: module is for x86_64, this kernel is i386
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 12288
minikern> kldunload hello
Goodbye from hello: Hello, world!
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
