# The Linux names: insmod, lsmod ("Used by" counts dependents and held
# references and names the dependents), rmmod, and modinfo, which reads a
# module's .modinfo without loading it.
# status: 1
minikern> insmod hello
Hello, world!
minikern> insmod $MODULES/counter_user.ko
libcounter: version 2 ready
counter_user.ko: loaded dependency libcounter.ko
libcounter: counter_user added 5, total 5
counter_user: libcounter has seen 1 call(s), total 5
minikern> lsmod
Module                  Size  Used by
counter_user           12288  0
libcounter             12288  1 counter_user
hello                  12288  0
minikern> rmmod libcounter
rmmod: libcounter.ko: in use by counter_user.ko
minikern> rmmod counter_user libcounter
libcounter: counter_user added -5, total 0
libcounter: unloading after 2 calls
minikern> rmmod counter_user
rmmod: ERROR: Module counter_user is not currently loaded
minikern> rmmod kernel
rmmod: ERROR: Module kernel is not currently loaded
minikern> lsmod
Module                  Size  Used by
hello                  12288  0
minikern> rmmod hello
Goodbye from hello: Hello, world!
minikern> lsmod
Module                  Size  Used by
minikern> insmod
insmod: usage: insmod FILE [name=value ...]
minikern> rmmod
rmmod: usage: rmmod MODULE ...
minikern> modinfo hello
filename:       $MODULES/hello.ko
license:        BSD-2-Clause
author:         minikern
description:    Greets on load and unload
version:        1
name:           hello
arch:           $ARCH
relocations:    {{[0-9]+}}
minikern> modinfo counter_user
filename:       $MODULES/counter_user.ko
license:        BSD-2-Clause
author:         minikern
description:    Adds to libcounter's counter while loaded
depend:         libcounter:1:2:3
version:        1
name:           counter_user
arch:           $ARCH
relocations:    {{[0-9]+}}
minikern> modinfo -F depend counter_user
libcounter:1:2:3
minikern> modinfo -F version $MODULES/libcounter.ko
2
minikern> modinfo plain
filename:       $MODULES/plain.ko
arch:           $ARCH
relocations:    {{[0-9]+}}
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> modinfo nosuch
modinfo: nosuch: module not found in the module path ($MODULES:$TESTMODULES)
minikern> modinfo
modinfo: usage: modinfo [-F field] FILE|NAME
