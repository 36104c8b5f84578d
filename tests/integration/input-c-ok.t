# With -c and every command succeeding, the exit status is 0; halt stops
# the kernel before the remaining commands.
# input: -c
# status: 0
minikern> kldload hello
Hello, world!
minikern> halt
Goodbye from hello: Hello, world!
minikern> echo not reached
