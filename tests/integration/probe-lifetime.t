# A module's probes keep firing through its whole teardown and go only after
# its last code has run: tp_teardown fires tptd:::last from MOD_UNLOAD, from
# the last code of a kernel thread the kernel joins after MOD_UNLOAD, and
# from a destructor (tests/modules/tp_teardown).  Then the enabling is told
# the probe went.  (The kernel may say it waits for the thread.)
minikern> kldload tp_teardown
minikern> dtrace -q -n 'tptd:::last { printf("%s\n", stringof(arg0)); }' -c 'kldunload tp_teardown'
...
dtrace: enabling 1: 1 probe of tp_teardown.ko removed at unload
unload
thread
fini
