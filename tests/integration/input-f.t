# Commands read from a script file with -f: the same output, and the exit
# status says whether any command failed.
# input: -f
# status: 1
minikern> # a comment line in a script
minikern> kldload hello
Hello, world!
minikern> nosuchcommand with args
nosuchcommand: command not found
minikern> kldunload hello
Goodbye from hello: Hello, world!
