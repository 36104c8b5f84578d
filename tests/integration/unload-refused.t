# Unloads that are refused, each with a message that says why: a module
# whose MOD_QUIESCE or MOD_UNLOAD handler says EBUSY (veto, steered by its
# sysctls), and a module that holds a reference on itself (holder, released
# with its own command).  Once the reason is gone the unload succeeds.
# status: 1
minikern> kldload veto holder
veto: loaded; unloading is refused while veto.refuse_quiesce or veto.refuse_unload is set
holder: holding a reference on holder
minikern> kldunload veto
kldunload: veto.ko: module veto refused to unload (MOD_QUIESCE returned 16)
minikern> sysctl veto.refuse_quiesce=0 veto.refuse_unload=1
veto.refuse_quiesce: 1 -> 0
veto.refuse_unload: 0 -> 1
minikern> rmmod veto
rmmod: veto.ko: module veto refused to unload (MOD_UNLOAD returned 16)
minikern> kldstat -n veto
Id Refs {{ +}}Address     Size Name
 2    1 {{ *0x[0-9a-f]+}}     3000 veto.ko
minikern> sysctl veto.refuse_unload=0
veto.refuse_unload: 1 -> 0
minikern> kldunload veto
veto: unloaded
minikern> lsmod
Module                  Size  Used by
holder                 12288  1
minikern> kldunload holder
kldunload: holder.ko: module holder is busy (1 reference held)
minikern> holder hold
holder: 2 references held
minikern> rmmod holder
rmmod: holder.ko: module holder is busy (2 references held)
minikern> holder release
holder: 1 reference held
minikern> holder release
holder: 0 references held
minikern> holder release
holder: no reference to release
minikern> lsmod
Module                  Size  Used by
holder                 12288  0
minikern> kldunload holder
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
