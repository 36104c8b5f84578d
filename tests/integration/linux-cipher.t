# The crypto API's skcipher front end, with Debian's cipher modules as
# they are: chacha20 from chacha_generic and chacha-x86_64 (the SIMD one
# takes over by priority), cbc(blowfish) from blowfish-x86_64.  lkcipher
# (tests/linux/lkcipher) encrypts RFC 7539's test vector in one buffer
# and in pieces split mid-block into a misaligned destination, decrypts
# it back, and checks the chained IV blowfish's CBC returns.  The
# skcipher walk runs inside the providers, seen here through fbt.
# libchacha20poly1305's init runs Linux's own self-test of its
# scatterlist calls (sg_miter) and fails if one is wrong.
# arch: x86_64
# status: 0
# args: -m $LINUX -m $LINUXTEST
minikern> modprobe chacha_generic
libchacha.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> modprobe blowfish-x86_64
minikern> modprobe lkcipher
lkcipher: without a key: -126
lkcipher: chacha20-generic 6e2e359a2568f980..., in pieces the same
lkcipher: chacha20-generic decrypts to the text
lkcipher: chacha20-generic 6e2e359a2568f980..., in pieces the same
lkcipher: chacha20-generic decrypts to the text
lkcipher: cbc-blowfish-asm fbe9b9a077dcf442..., iv now fe42267747e0b839
minikern> modprobe -r lkcipher
minikern> modprobe chacha-x86_64
minikern> dtrace -q -x aggsortkey -n 'fbt:chacha_x86_64::entry { @[probefunc] = count(); }' -c 'modprobe lkcipher'
lkcipher: without a key: -126
lkcipher: chacha20-generic 6e2e359a2568f980..., in pieces the same
lkcipher: chacha20-generic decrypts to the text
lkcipher: chacha20-simd 6e2e359a2568f980..., in pieces the same
lkcipher: chacha20-simd decrypts to the text
lkcipher: cbc-blowfish-asm fbe9b9a077dcf442..., iv now fe42267747e0b839

  chacha_dosimd {{ +\d+}}
  chacha_simd {{ +\d+}}
  chacha_simd_stream_xor {{ +\d+}}
minikern> modprobe -r lkcipher
minikern> modprobe libchacha20poly1305
minikern> lsmod
Module                  Size  Used by
libchacha20poly1305 {{ *\d+}}  0
poly1305_x86_64 {{ *\d+}}  1 libchacha20poly1305
chacha_x86_64 {{ *\d+}}  1 libchacha20poly1305
blowfish_x86_64 {{ *\d+}}  0
blowfish_common {{ *\d+}}  1 blowfish_x86_64
chacha_generic {{ *\d+}}  0
libchacha {{ *\d+}}  2 chacha_generic,chacha_x86_64
