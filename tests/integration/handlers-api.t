# The handler API (tests/modules/tp_handlers on tp_goto's tpgoto:::fire):
# handlers attached by the probe definition's symbol and by name run in
# priority order (H 20, M 10, L 1); the same (function, data) twice is
# refused, other data is not; detaching what is not attached is refused; a
# handler the module leaves attached is detached by the kernel at unload,
# which says so.
minikern> kldload tp_handlers
tp_handlers.ko: loaded dependency tp_goto.ko
minikern> tpgoto fire 2
minikern> tph log
tph: HMLHML
minikern> tph dup
sdt_handler_attach_probe: tp_handlers.ko: tph_low: already attached to tpgoto:tp_goto:tpgoto_fire:fire with data 0x{{[0-9a-f]+}}
tph: L again: EEXIST
tph: L with other data: 0
tph: detach it: 0
minikern> tph detach-bad
sdt_handler_detach: tph_mid is not attached to tpgoto::tpgoto_fire:fire with data 0x{{[0-9a-f]+}}
tph: ENOENT
minikern> dtrace -lv -n tpgoto::tpgoto_fire:fire
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     tpgoto           tp_goto                       tpgoto_fire fire

	Argument Types
		args[0]: int
		args[1]: unsigned

	Sites
		asm-goto: 1
		call: 1

	Handlers
		tp_handlers`tph_high, priority 20
		tp_handlers`tph_mid, priority 10
		tp_handlers`tph_low, priority 1

minikern> # a DTrace enabling runs among them, at the default priority
minikern> dtrace -q -n 'tpgoto:::fire { printf("dtrace %d\n", arg0); }' -c 'tpgoto fire 1; tph log'
tph: HML
dtrace 0
minikern> tph forget
tph: 0
minikern> tph sync
minikern> tpgoto fire 1
minikern> tph log
tph: HMLF
minikern> kldunload tp_handlers
tp_handlers.ko: handler tph_forgotten detached from tpgoto::tpgoto_fire:fire at unload
minikern> dtrace -lv -n tpgoto::tpgoto_fire:fire
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     tpgoto           tp_goto                       tpgoto_fire fire

	Argument Types
		args[0]: int
		args[1]: unsigned

	Sites
		asm-goto: 1
		call: 1

minikern> dtrace -S -n tpgoto::tpgoto_fire:fire
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     tpgoto           tp_goto                       tpgoto_fire fire
        0x{{[0-9a-f]+}} tpgoto_fire+0x{{[0-9a-f]+}}: call site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
        0x{{[0-9a-f]+}} tpgoto_fire+0x{{[0-9a-f]+}}: asm-goto site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
minikern> kldunload tp_goto
