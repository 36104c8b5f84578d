# Commands given with -c (here one -c per command) run in order; a failing
# command does not stop the ones after it, but makes the exit status 1.
# input: -c
# status: 1
minikern> kldload nosuch
kldload: nosuch: module not found in the module path ($MODULES:$TESTMODULES)
minikern> echo still running
still running
minikern> kldload hello; kldstat; kldunload hello
Hello, world!
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
Goodbye from hello: Hello, world!
