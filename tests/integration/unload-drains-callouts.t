# A module unloaded with its callout still armed: the kernel drains the
# callout (waiting for a call in progress) before it frees the module's
# memory, and names the module.  Nothing runs the module's code afterwards.
# args: --cpus 2
minikern> kldload callout_forgot
minikern> sleep 100
minikern> sysctl callout_forgot.ticks
callout_forgot.ticks: {{[1-9][0-9]*}}
minikern> kldunload callout_forgot
callout_forgot.ko: drained 1 callout the module left armed
minikern> sleep 50
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
