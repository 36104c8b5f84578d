# Alternatives (.altinstructions) applied by CPU feature at load, as
# Linux's apply_alternatives() does, before the module's code runs
# (tests/linux/lkalt reports which instruction each ALTERNATIVE ran): a
# feature always present (a shorter replacement padded with NOPs, a
# relative call re-aimed as it moves), ALT_NOT of Linux's own PTI flag
# (absent here), kernel-only SMAP and LA57 (never applied), ERMS and FSRM
# as CPUID says.  A replacement longer than its original is refused with
# one line, leaving nothing behind.
# arch: x86_64
# args: -m $LINUXTEST
# status: 1
# setup: python3 $ROOT/tests/linux/patch-ko.py alt-long $LINUXTEST/lkalt.ko altlong.ko
minikern> insmod $LINUXTEST/lkalt.ko
lkalt: always 1, padded 7, called 2, not pti 1, smap 0, la57 0
lkalt: erms {{[01]}}, fsrm {{[01]}}
minikern> rmmod lkalt
minikern> insmod $TMP/altlong.ko
insmod: lkalt: .altinstructions entry 0: a replacement of {{\d+}} bytes for {{\d+}}
minikern> lsmod
Module                  Size  Used by
