# The kernel's own probes: module loads and unloads, shell commands,
# sysctl writes, as a person would watch them.
minikern> dtrace -n 'kernel:::module-load { printf("%s\n", stringof(arg0)); }' -c 'kldload hello'
dtrace: description 'kernel:::module-load ' matched 1 probe
Hello, world!
CPU     ID                    FUNCTION:NAME
  0 {{ +[0-9]+ +[A-Za-z_:]+}}:module-load hello
minikern> dtrace -q -n 'kernel:::module-unload { printf("unloading %s\n", stringof(args[0])); }' -c 'kldunload hello'
Goodbye from hello: Hello, world!
unloading hello
minikern> dtrace -q -n 'kernel:::command-start { printf("%s\n", stringof(arg0)); }' -c 'echo a; echo b'
a
b
echo
echo
