# Linux's own self-test of static keys, Debian's test_static_key_base.ko
# and test_static_keys.ko unmodified: the second binds the first's keys
# through __ksymtab, and its init flips keys of both modules with
# static_key_enable/disable and checks every static_branch_likely and
# _unlikely site (each patched through the patch engine) reads as the key
# says; its init fails if one does not.  The kernel is tainted (once) as
# the first module's code is about to run: modprobe loads the base first.
# arch: x86_64
# args: -m $LINUX
minikern> modprobe test_static_keys
test_static_key_base.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> lsmod
Module                  Size  Used by
test_static_keys       {{\d+}}  0
test_static_key_base {{ *\d+}}  1 test_static_keys
minikern> modprobe -r test_static_keys
minikern> lsmod
Module                  Size  Used by
minikern> modprobe test_static_keys
minikern> rmmod test_static_keys test_static_key_base
