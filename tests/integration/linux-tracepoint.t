# TRACE_EVENT tracepoints of a Linux module (tests/linux/lktp) as probes,
# tracepoint:MODULE::EVENT: made as the module loads, so a -Z enabling
# sees what its init fires; enabled as Linux's tracepoint_probe_register()
# enables one (a function list in the tracepoint, its static call aimed at
# its iterator, its static key raised through the patch engine); arg0..
# are the TP_PROTO arguments, and stack() walks the module's ORC frames.
# Disabled, the key's sites skip the call again (the iterator does not
# run).  The module unloads with its probe enabled.  A __tracepoints_ptrs entry
# that points outside the module's tracepoints is refused with one line.
# arch: x86_64
# args: -m $LINUXTEST
# status: 1
# setup: python3 $ROOT/tests/linux/patch-ko.py tp-far $LINUXTEST/lktp.ko far.ko
minikern> dtrace -q -Z -n 'tracepoint:lktp::lktp_step { printf("%d %s\n", arg0, stringof(arg1)); }' -c 'insmod $LINUXTEST/lktp.ko steps=3'
0 even
1 odd
2 even

minikern> dtrace -l -n 'tracepoint:::'
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *\d+}} tracepoint              lktp                                   lktp_step
minikern> sysctl module.lktp.steps=4
module.lktp.steps: 3 -> 4
minikern> dtrace -q -n 'lktp_step { @[stringof(arg1)] = count(); @n = sum(arg0); } END { printa("%s %@d\n", @); printa("sum %@d\n", @n); }' -c 'sysctl module.lktp.steps=5'
module.lktp.steps: 4 -> 5
odd 2
even 3
sum 10

minikern> dtrace -q -n 'lktp_step /arg0 == 1/ { stack(); }' -c 'sysctl module.lktp.steps=2'
module.lktp.steps: 5 -> 2

              lktp`__traceiter_lktp_step+{{0x[0-9a-f]+}}
              lktp`lktp_run+{{0x[0-9a-f]+}}
              lktp`lktp_set_steps+{{0x[0-9a-f]+}}
...

minikern> dtrace -q -n 'fbt:lktp::entry { @[probefunc] = count(); } tracepoint:lktp:: { @[probename] = count(); }' -c 'sysctl module.lktp.steps=3'
module.lktp.steps: 2 -> 3

  lktp_run                                                          1
  lktp_set_steps                                                    1
  __traceiter_lktp_step                                             3
  lktp_step                                                         3

minikern> dtrace -q -n 'fbt:lktp:lktp_run:entry, fbt:lktp:__traceiter_lktp_step:entry { @[probefunc] = count(); }' -c 'sysctl module.lktp.steps=4'
module.lktp.steps: 3 -> 4

  lktp_run                                                          1

minikern> dtrace -q -n 'tracepoint:lktp:: { @ = count(); }' &
dtrace: enabling 6 started in the background
minikern> rmmod lktp
dtrace: enabling 6: 1 probe of lktp.ko removed at unload
minikern> dtrace -k 6
minikern> insmod $TMP/far.ko
insmod: lktp: __tracepoints_ptrs entry 0: {{0x[0-9a-f]+}} is not a tracepoint of the module's __tracepoints
minikern> lsmod
Module                  Size  Used by
