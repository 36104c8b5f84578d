# With --memguard, a module that uses malloc correctly runs as before; the
# blocks it freed are held in quarantine, and memory accounting is
# unchanged (vmstat -m, leaks at unload).
# args: --memguard
minikern> sysctl vm.memguard.enabled
vm.memguard.enabled: 1
minikern> kldload memabuse
minikern> memabuse ok
memabuse: ok
minikern> sysctl vm.memguard.quarantined
vm.memguard.quarantined: 1
minikern> kldload leaky
minikern> kldunload leaky
leaky: unloading without freeing
leaky.ko: module leaked 128 bytes in 2 allocations
