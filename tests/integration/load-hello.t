# Load hello by name, by path and with -v; unload it by name and by id;
# the errors for loading twice, unknown names and files, and for unloading
# what is not loaded or is the kernel.
# status: 1
# setup: cp $MODULES/hello.ko hello2.ko
minikern> kldload hello
Hello, world!
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> kldload hello
kldload: hello.ko: module already loaded (id 2)
minikern> # the same module in a file of another name
minikern> kldload $TMP/hello2.ko
kldload: hello2.ko: module hello is already loaded from hello.ko
minikern> kldunload hello
Goodbye from hello: Hello, world!
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> kldload -v $MODULES/hello.ko
Hello, world!
Loaded $MODULES/hello.ko, id=3
minikern> kldunload -v 3
Goodbye from hello: Hello, world!
Unloading hello.ko, id=3
minikern> kldload hello.ko
Hello, world!
minikern> kldunload -n hello.ko
Goodbye from hello: Hello, world!
minikern> kldunload hello
kldunload: can't find file hello
minikern> kldunload 1
kldunload: kernel: the kernel cannot be unloaded
minikern> kldload nosuch
kldload: nosuch: module not found in the module path ($MODULES:$TESTMODULES)
minikern> kldload $TMP/nosuch.ko
kldload: $TMP/nosuch.ko: no such file
minikern> kldload
kldload: usage: kldload [-v] file ...
minikern> kldunload
kldunload: usage: kldunload [-v] name | id ...
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
