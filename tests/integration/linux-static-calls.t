# Static calls of a Linux module's own (tests/linux/lksc:
# DEFINE_STATIC_CALL, static_call(), static_call_update()), as Linux's
# static_call_inline.c does them: at load every .static_call_sites entry
# is aimed straight at its key's function (a call and a tail call, which
# read back where they go), and static_call_update() re-aims the
# trampoline and every site through the patch engine, and back.  A key
# that is neither the module's nor an exported static call is refused
# with one line, leaving nothing behind.
# arch: x86_64
# args: -m $LINUXTEST
# status: 1
# setup: python3 $ROOT/tests/linux/patch-ko.py sc-key-far $LINUXTEST/lksc.ko far.ko
minikern> insmod $LINUXTEST/lksc.ko
lksc: 11 12, call double, tail double
minikern> sysctl module.lksc.aim module.lksc.result
module.lksc.aim: call double, tail double, trampoline double
module.lksc.result: 15 16
minikern> sysctl module.lksc.op=square
module.lksc.op: double -> square
minikern> sysctl module.lksc.aim module.lksc.result
module.lksc.aim: call square, tail square, trampoline square
module.lksc.result: 50 64
minikern> dtrace -q -n 'fbt:lksc:lksc_square:entry { @ = count(); }' -c 'sysctl module.lksc.result'
module.lksc.result: 50 64

                2
minikern> sysctl module.lksc.op=double
module.lksc.op: square -> double
minikern> sysctl module.lksc.aim module.lksc.result
module.lksc.aim: call double, tail double, trampoline double
module.lksc.result: 15 16
minikern> sysctl module.lksc.op=cube
sysctl: module.lksc.op: `cube' invalid for parameter `op'
minikern> rmmod lksc
minikern> insmod $TMP/far.ko
insmod: lksc: .static_call_sites entry 0: key 0x{{[0-9a-f]+}} is neither the module's data nor an exported static call
minikern> lsmod
Module                  Size  Used by
