# Faults a Linux module expects (tests/linux/lkfault): each faulting
# instruction its __ex_table lists resumes at the entry's fixup, as
# Linux's fixup_exception() does: __get_kernel_nofault reads -1 for a
# null pointer and for the module's init data once init has returned (its
# pages are freed), a register takes -EFAULT, %eax the trap number (14 a
# page fault, 13 a general protection fault, 0 a divide error), rdmsr_safe
# -EIO.  Entries are checked at load: one outside the module's code, or
# of a type Linux does not define, refuses the module with one line and
# leaves nothing behind.  So do ORC tables (what stack() and panics walk
# Linux frames with) whose entry lies outside the module's code or is of
# a type Linux 6.1 does not write.
# arch: x86_64
# args: -m $LINUXTEST
# status: 1
# setup: python3 $ROOT/tests/linux/patch-ko.py ex-far $LINUXTEST/lkfault.ko exfar.ko
# setup: python3 $ROOT/tests/linux/patch-ko.py ex-type $LINUXTEST/lkfault.ko 0x55 extype.ko
# setup: python3 $ROOT/tests/linux/patch-ko.py orc-far $LINUXTEST/lkfault.ko orcfar.ko
# setup: python3 $ROOT/tests/linux/patch-ko.py orc-type $LINUXTEST/lkfault.ko orctype.ko
minikern> insmod $LINUXTEST/lkfault.ko
lkfault: init data 7
minikern> sysctl module.lkfault.probe
module.lkfault.probe: peek kept 42, null -1, freed init data -1; efault 0 then -14; trap page 14, gp 13; 100/5 20, 100/0 trap 0; rdmsr -5
minikern> sysctl module.lkfault.probe
module.lkfault.probe: peek kept 42, null -1, freed init data -1; efault 0 then -14; trap page 14, gp 13; 100/5 20, 100/0 trap 0; rdmsr -5
minikern> rmmod lkfault
minikern> insmod $TMP/exfar.ko
insmod: lkfault: __ex_table entry 0: instruction 0x{{[0-9a-f]+}} is outside the module's code
minikern> insmod $TMP/extype.ko
insmod: lkfault: __ex_table entry 0: fixup type 85 is not one Linux 6.1 defines
minikern> insmod $TMP/orcfar.ko
insmod: lkfault: .orc_unwind entry 0: address 0x{{[0-9a-f]+}} is outside the module's code
minikern> insmod $TMP/orctype.ko
insmod: lkfault: .orc_unwind entry 0: registers {{[0-9]+}}/{{[0-9]+}}, type 3: not an entry Linux 6.1 writes
minikern> lsmod
Module                  Size  Used by
