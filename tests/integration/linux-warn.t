# WARN in a Linux module (tests/linux/lkwarn): Linux's report, with the
# site's file and line from __bug_table and a call trace through the
# module's ORC frames, then the module goes on; WARN_ON_ONCE reports once.
# arch: x86_64
# args: -m $LINUXTEST
minikern> insmod $LINUXTEST/lkwarn.ko level=2
lkwarn: level 2 is above zero
------------[ cut here ]------------
WARNING: CPU: 0 PID: {{\d+}} at {{.*}}lkwarn.c:13 lkwarn`lkwarn_check+{{0x[0-9a-f]+}}
Modules linked in: lkwarn
Call Trace:
 lkwarn`init_module+{{0x[0-9a-f]+}}
 kernel`mk_module_call+{{0x[0-9a-f]+}}
 kernel`KernelLinker::run_init+{{0x[0-9a-f]+}}
...
---[ end trace ]---
------------[ cut here ]------------
WARNING: CPU: 0 PID: {{\d+}} at {{.*}}lkwarn.c:14 lkwarn`lkwarn_check+{{0x[0-9a-f]+}}
...
---[ end trace ]---
lkwarn: level 2 is above zero
------------[ cut here ]------------
WARNING: CPU: 0 PID: {{\d+}} at {{.*}}lkwarn.c:13 lkwarn`lkwarn_check+{{0x[0-9a-f]+}}
...
---[ end trace ]---
lkwarn: on after the warnings
minikern> rmmod lkwarn
