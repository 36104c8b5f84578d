# A Linux module's init sections (tests/linux/lkinit: __init code,
# __initdata, __initconst) are there while its init runs and are given
# back once it has returned 0, as Linux's do_init_module() frees them:
# their fbt probes go (an enabling that held some is told), %pS and
# stack() no longer name the init code, and listings show only the kept
# functions.
# arch: x86_64
# args: -m $LINUXTEST
minikern> dtrace -q -Z -n 'fbt:lkinit::entry { @[probefunc] = count(); } END { printa("%s %@d\n", @); }' -c 'insmod $LINUXTEST/lkinit.ko'
lkinit: from .init.rodata, 6 * 7 = 42, in init_module+0x0 [lkinit]
dtrace: enabling 1: 2 probes of lkinit.ko freed with its init code
init_module 1
lkinit_times 1

minikern> dtrace -l -n 'fbt:lkinit::entry'
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *\d+}}        fbt            lkinit                         where_get entry
minikern> sysctl module.lkinit.where
module.lkinit.where: init 0x{{[0-9a-f]+}}, kept where_get+0x0 [lkinit]
minikern> rmmod lkinit
minikern> insmod $LINUXTEST/lkinit.ko
lkinit: from .init.rodata, 6 * 7 = 42, in init_module+0x0 [lkinit]
minikern> dtrace -l -n 'fbt:lkinit::'
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *\d+}}        fbt            lkinit                         where_get entry
{{ *\d+}}        fbt            lkinit                         where_get return
minikern> rmmod lkinit
