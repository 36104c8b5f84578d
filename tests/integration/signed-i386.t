# The i386 kernel has no OpenSSL (libssl3:i386 must be the very version of
# the amd64 package, which Debian's mirrors do not always carry together):
# asking it to enforce signatures stops the boot with one line.  It still
# sees that a module is signed, and loads it unchecked as the x86_64
# kernel loads one signed by an unknown key.
# arch: i386
# status: 1
# args: --sig-enforce
kernel: module signatures need OpenSSL, which this build (the i386 kernel) does not have: see docs/robustness.md
