# asm-goto probe sites (tests/modules/tp_goto, built with SDT_STYLE=asmgoto):
# a disabled site is one 5-byte NOP and its arguments are never computed
# (tp_goto counts its checksums); enabled, the NOP is a jmp to the
# out-of-line block, which computes them and fires the probe through its
# own call site.  One probe may be served by both styles in one function.
# status: 1
minikern> kldload tp_goto
minikern> tpgoto fire 1000
minikern> tpgoto sums
tpgoto: 0 checksums
minikern> tpgoto enabled
tpgoto: fire is disabled
minikern> dtrace -lv -n tpgoto:::fire -n tpgoto:::both
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     tpgoto           tp_goto                       tpgoto_fire fire

	Argument Types
		args[0]: int
		args[1]: unsigned

	Sites
		asm-goto: 1
		call: 1

{{ *[0-9]+}}     tpgoto           tp_goto                    tpgoto_enabled fire

	Argument Types
		args[0]: int
		args[1]: unsigned

	Sites
		asm-goto: 1

{{ *[0-9]+}}     tpgoto           tp_goto                       tpgoto_both both

	Argument Types
		args[0]: int
		args[1]: char *

	Sites
		asm-goto: 1
		call: 2

minikern> dtrace -S -n tpgoto:::fire
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     tpgoto           tp_goto                       tpgoto_fire fire
        0x{{[0-9a-f]+}} tpgoto_fire+0x{{[0-9a-f]+}}: call site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
        0x{{[0-9a-f]+}} tpgoto_fire+0x{{[0-9a-f]+}}: asm-goto site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
{{ *[0-9]+}}     tpgoto           tp_goto                    tpgoto_enabled fire
        0x{{[0-9a-f]+}} tpgoto_enabled+0x{{[0-9a-f]+}}: asm-goto site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
minikern> # enabled: the patch point jumps to the block, the block's call site calls the trampoline
minikern> dtrace -q -n tpgoto:::fire -c 'dtrace -S -n tpgoto:::fire'
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     tpgoto           tp_goto                       tpgoto_fire fire
        0x{{[0-9a-f]+}} tpgoto_fire+0x{{[0-9a-f]+}}: call site, 5 bytes, enabled
{{ +[0-9a-f]+}}:  e8 {{(?:[0-9a-f][0-9a-f] )+}}       call{{[lq]}} 0x{{[0-9a-f]+}}
        0x{{[0-9a-f]+}} tpgoto_fire+0x{{[0-9a-f]+}}: asm-goto site, 5 bytes, enabled
{{ +[0-9a-f]+}}:  e9 {{(?:[0-9a-f][0-9a-f] )+}}       jmp 0x{{[0-9a-f]+}}
{{ *[0-9]+}}     tpgoto           tp_goto                    tpgoto_enabled fire
        0x{{[0-9a-f]+}} tpgoto_enabled+0x{{[0-9a-f]+}}: asm-goto site, 5 bytes, enabled
{{ +[0-9a-f]+}}:  e9 {{(?:[0-9a-f][0-9a-f] )+}}       jmp 0x{{[0-9a-f]+}}
minikern> dtrace -q -n 'tpgoto:::fire /arg0 < 3/ { printf("%d %u\n", arg0, arg1); }' -c 'tpgoto fire 5'
0 783515136
1 783515136
2 783515136
minikern> dtrace -q -n tpgoto:::fire -c 'tpgoto enabled'
tpgoto: fire is enabled
minikern> tpgoto sums
tpgoto: 5 checksums
minikern> tpgoto enabled
tpgoto: fire is disabled
minikern> dtrace -q -n 'tpgoto:::both { printf("%d %s\n", arg0, stringof(arg1)); }' -c 'tpgoto both 2'
0 goto
0 call
1 goto
1 call
minikern> # a probe as the function's last act: the block's call is a tail call
minikern> dtrace -q -n 'tpgoto:::tail { printf("%s %d\n", probefunc, arg0); }' -c 'tpgoto tail 42'
tpgoto_tail 42
minikern> tpgoto fire 1000
minikern> tpgoto sums
tpgoto: 5 checksums
minikern> kldunload tp_goto
minikern> dtrace -l -P tpgoto
   ID   PROVIDER            MODULE                          FUNCTION NAME
dtrace: description 'tpgoto:::' matched 0 probes
