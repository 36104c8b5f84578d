# A module that declares a sysctl or a shell command that already exists
# (the kernel's kern.ostype, the built-in kldstat) is refused.  What it
# registered before the clash (dup_sysctl.mine, the dup_command command) is
# removed again and the kernel's own node and command are untouched.
# status: 1
minikern> kldload dup_sysctl
kldload: dup_sysctl.ko: sysctl kern.ostype already exists
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> sysctl dup_sysctl.mine
sysctl: unknown oid 'dup_sysctl.mine'
minikern> sysctl kern.ostype
kern.ostype: minikern
minikern> kldload dup_command
kldload: dup_command.ko: shell command kldstat already exists
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> help dup_command
help: no such command: dup_command
minikern> help kldstat
usage: kldstat [-v] [-i id] [-n name]
  list loaded files
