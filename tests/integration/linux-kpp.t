# The crypto API's key agreement front end, with Debian's providers as
# they are.  lkkpp (tests/linux/lkkpp) checks RFC 7748's X25519 public
# key and shared secret through curve25519-x86_64, and agrees a P-256
# secret through ecdh_generic with two keys the provider draws from the
# default rng (the host's getrandom here).  libcurve25519's init runs
# Linux's own X25519 self-test.
# arch: x86_64
# status: 0
# args: -m $LINUX -m $LINUXTEST
minikern> modprobe libcurve25519
libcurve25519-generic.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> modprobe ecdh_generic
minikern> modprobe lkkpp
lkkpp: curve25519-x86 public 8520f0098930a754..., shared 4a5d9d5ba4ce2de1...
lkkpp: ecdh-nist-p256-generic: two keys, different, shared secrets the same
minikern> lsmod
Module                  Size  Used by
lkkpp {{ *\d+}}  0
ecdh_generic {{ *\d+}}  1 lkkpp
ecc {{ *\d+}}  1 ecdh_generic
libcurve25519 {{ *\d+}}  0
curve25519_x86_64 {{ *\d+}}  1 libcurve25519
libcurve25519_generic {{ *\d+}}  2 curve25519_x86_64,libcurve25519
minikern> modprobe -r lkkpp
minikern> rmmod ecdh_generic ecc
