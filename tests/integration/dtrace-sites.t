# dtrace -S shows where a probe's sites are and their bytes, disassembled:
# a NOP sled while disabled, a call or jump to the probe's trampoline while
# enabled (here from inside a run with -c and while a background enabling
# is active), the NOPs again once disabled.  dtt_word's probe is its last
# act, a tail call: disabled it is `ret` and NOPs.
minikern> kldload dtrace_probes
minikern> dtrace -S -n dtt:::tick -n dtt:::word
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
        0x{{[0-9a-f]+}} dtt_tick+0x{{[0-9a-f]+}}: call site, 5 bytes, disabled
[x86_64]             {{[0-9a-f]+}}:  0f 1f 44 00 00        nopl (%rax, %rax)
[i386]             {{[0-9a-f]+}}:  0f 1f 44 00 00        nopl (%eax, %eax)
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_word word
        0x{{[0-9a-f]+}} dtt_word+0x{{[0-9a-f]+}}: tail call site, 5 bytes, disabled
[x86_64]             {{[0-9a-f]+}}:  c3                    retq
[x86_64]             {{[0-9a-f]+}}:  0f 1f 40 00           nopl (%rax)
[i386]             {{[0-9a-f]+}}:  c3                    retl
[i386]             {{[0-9a-f]+}}:  0f 1f 40 00           nopl (%eax)
minikern> dtrace -q -n 'dtt:::tick, dtt:::word' -c 'dtrace -S -n dtt:::tick -n dtt:::word'
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
        0x{{[0-9a-f]+}} dtt_tick+0x{{[0-9a-f]+}}: call site, 5 bytes, enabled
[x86_64]             {{[0-9a-f]+}}:  e8 {{(?:[0-9a-f][0-9a-f] )+}}       callq 0x{{[0-9a-f]+}}
[i386]             {{[0-9a-f]+}}:  e8 {{(?:[0-9a-f][0-9a-f] )+}}       calll 0x{{[0-9a-f]+}}
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_word word
        0x{{[0-9a-f]+}} dtt_word+0x{{[0-9a-f]+}}: tail call site, 5 bytes, enabled
[x86_64]             {{[0-9a-f]+}}:  e9 {{(?:[0-9a-f][0-9a-f] )+}}       jmp 0x{{[0-9a-f]+}}
[i386]             {{[0-9a-f]+}}:  e9 {{(?:[0-9a-f][0-9a-f] )+}}       jmp 0x{{[0-9a-f]+}}
minikern> dtrace -q -n dtt:::tick &
dtrace: enabling 2 started in the background
minikern> dtrace -lS -n dtt:::tick
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
        0x{{[0-9a-f]+}} dtt_tick+0x{{[0-9a-f]+}}: call site, 5 bytes, enabled
[x86_64]             {{[0-9a-f]+}}:  e8 {{(?:[0-9a-f][0-9a-f] )+}}       callq 0x{{[0-9a-f]+}}
[i386]             {{[0-9a-f]+}}:  e8 {{(?:[0-9a-f][0-9a-f] )+}}       calll 0x{{[0-9a-f]+}}
minikern> dtrace -k 2
minikern> dtrace -S -n dtt:::tick
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
        0x{{[0-9a-f]+}} dtt_tick+0x{{[0-9a-f]+}}: call site, 5 bytes, disabled
[x86_64]             {{[0-9a-f]+}}:  0f 1f 44 00 00        nopl (%rax, %rax)
[i386]             {{[0-9a-f]+}}:  0f 1f 44 00 00        nopl (%eax, %eax)
minikern> # the kernel's own sites, found in its image, work the same way
minikern> dtrace -S -n kernel:::module-load
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     kernel            kernel {{ *[A-Za-z_:]+}} module-load
        0x{{[0-9a-f]+}} {{[A-Za-z_:]+}}+0x{{[0-9a-f]+}}: call site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
minikern> dtrace -S -n dtrace:::BEGIN
   ID   PROVIDER            MODULE                          FUNCTION NAME
    1     dtrace                                                     BEGIN
        (no sites: fired by the consumer)
minikern> kldunload dtrace_probes
