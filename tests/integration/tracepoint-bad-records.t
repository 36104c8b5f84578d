# asm-goto records, and the cache records of their blocks, are checked at
# load, every field (tests/modules/tp_bad_*, hand-made in assembly, each
# with one field wrong): the first bad record fails the load with one line
# naming it, and nothing of the module stays.
# tp_good_asm has the same record right, and loads.
# status: 1
minikern> kldload tp_bad_nop
kldload: tp_bad_nop.ko: tracepoint record 0 (set_sdt_tracepoint_set+0x0): patch point .text+0x0 does not hold a 5-byte NOP (0f 1f 40 00 90)
minikern> kldload tp_bad_where
kldload: tp_bad_where.ko: tracepoint record 0 (set_sdt_tracepoint_set+0x0): patch point 0x{{[0-9a-f]+}} is not in the module's code
minikern> kldload tp_bad_target
kldload: tp_bad_target.ko: tracepoint record 0 (set_sdt_tracepoint_set+0x0): target 0x{{[0-9a-f]+}} is not in the module's code
minikern> kldload tp_bad_probe
kldload: tp_bad_probe.ko: tracepoint record 0 (set_sdt_tracepoint_set+0x0): probe 0x{{[0-9a-f]+}} is not a probe definition (of this module or a loaded one)
minikern> kldload tp_bad_size
[x86_64] kldload: tp_bad_size.ko: set_sdt_tracepoint_set is 32 bytes, not a whole number of 24-byte tracepoint records
[i386] kldload: tp_bad_size.ko: set_sdt_tracepoint_set is 16 bytes, not a whole number of 12-byte tracepoint records
minikern> kldload tp_bad_dup
[x86_64] kldload: tp_bad_dup.ko: tracepoint record 1 (set_sdt_tracepoint_set+0x18): patch point .text+0x0 is also record 0's
[i386] kldload: tp_bad_dup.ko: tracepoint record 1 (set_sdt_tracepoint_set+0xc): patch point .text+0x0 is also record 0's
minikern> kldload tp_bad_cache
kldload: tp_bad_cache.ko: asm-goto cache record 0 (set_sdt_goto_cache_set+0x0): block address 0x{{[0-9a-f]+}} is not in the module's code
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> dtrace -l -P tpbad
   ID   PROVIDER            MODULE                          FUNCTION NAME
dtrace: description 'tpbad:::' matched 0 probes
minikern> kldload tp_good_asm
minikern> dtrace -S -P tpbad
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}      tpbad       tp_good_asm                          tpbad_fn probe
        0x{{[0-9a-f]+}} tpbad_fn+0x0: asm-goto site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
minikern> kldunload tp_good_asm
