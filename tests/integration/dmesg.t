# dmesg: the kernel message buffer holds the boot messages, what modules
# print, the loader's log lines (which the console does not show) and every
# error line; -c prints and clears it.
# status: 1
minikern> kldload hello
Hello, world!
minikern> kldload nosuch
kldload: nosuch: module not found in the module path ($MODULES:$TESTMODULES)
minikern> dmesg
sysinit: console
minikern {{[0-9.]+}} ($ARCH): kernel at 0x{{[0-9a-f]+}}-0x{{[0-9a-f]+}}
...
kernel: {{[0-9]+}} symbols exported to modules
...
Hello, world!
hello.ko: loaded at 0x{{[0-9a-f]+}}, 12288 bytes, {{[0-9]+}} relocations
kldload: nosuch: module not found in the module path ($MODULES:$TESTMODULES)
minikern> dmesg -c
...
kldload: nosuch: module not found in the module path ($MODULES:$TESTMODULES)
minikern> dmesg
minikern> kldunload hello
Goodbye from hello: Hello, world!
minikern> dmesg
Goodbye from hello: Hello, world!
hello.ko: unloaded
minikern> dmesg -x
dmesg: usage: dmesg [-c]
minikern> dmesg
Goodbye from hello: Hello, world!
hello.ko: unloaded
dmesg: usage: dmesg [-c]
