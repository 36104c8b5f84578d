# kldstat in FreeBSD's columns: Id, Refs (1 + the files that depend on it),
# Address, Size in hex, Name; -v adds the path and the modules inside;
# -i and -n pick one file.
# status: 1
minikern> kldload hello counter_user
Hello, world!
libcounter: version 2 ready
counter_user.ko: loaded dependency libcounter.ko
libcounter: counter_user added 5, total 5
counter_user: libcounter has seen 1 call(s), total 5
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    4 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
 3    2 {{ *0x[0-9a-f]+}}     3000 libcounter.ko
 4    1 {{ *0x[0-9a-f]+}}     3000 counter_user.ko
minikern> kldstat -v
Id Refs {{ +}}Address     Size Name
 1    4 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel ($KERNEL)
	Contains modules:
		 Id Name
		  1 kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko ($MODULES/hello.ko)
	Contains modules:
		 Id Name
		  2 hello
 3    2 {{ *0x[0-9a-f]+}}     3000 libcounter.ko ($MODULES/libcounter.ko)
	Contains modules:
		 Id Name
		  3 libcounter
 4    1 {{ *0x[0-9a-f]+}}     3000 counter_user.ko ($MODULES/counter_user.ko)
	Contains modules:
		 Id Name
		  4 counter_user
minikern> kldstat -i 3
Id Refs {{ +}}Address     Size Name
 3    2 {{ *0x[0-9a-f]+}}     3000 libcounter.ko
minikern> kldstat -n hello
Id Refs {{ +}}Address     Size Name
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> kldstat -v -n counter_user.ko
Id Refs {{ +}}Address     Size Name
 4    1 {{ *0x[0-9a-f]+}}     3000 counter_user.ko ($MODULES/counter_user.ko)
	Contains modules:
		 Id Name
		  4 counter_user
minikern> kldstat -i 9
kldstat: can't find file 9
minikern> kldstat -x
kldstat: usage: kldstat [-v] [-i id] [-n filename]
minikern> kldunload counter_user libcounter hello
libcounter: counter_user added -5, total 0
libcounter: unloading after 2 calls
Goodbye from hello: Hello, world!
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
