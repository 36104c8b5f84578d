# The crypto API's hash front end, with Debian's modules as they are.
# modprobe loads a module's softdep=pre modules first, by name or by
# their alias= (libcrc32c's "crc32c" is crc32c_generic and crc32c-intel,
# the SSE4.2 one, which x86_match_cpu() and kernel_fpu_begin_mask() let
# run); the consumer's crypto_alloc_shash() takes the highest priority,
# and its tfm holds that module.  lkhash (tests/linux/lkhash) gets the
# standard check values through libcrc32c, crc-t10dif and crc64-rocksoft,
# and sha512 through the API itself: sha512-ssse3's best variant for
# this CPU (SSSE3, AVX or AVX2), above sha512_generic; then sha1 and
# sha256, vmlinux's built-in ones and then sha1-ssse3's and
# sha256-ssse3's (the SHA extensions where the CPU has them).
# arch: x86_64
# status: 1
# args: -m $LINUX -m $LINUXTEST
minikern> modprobe libcrc32c
crc32c_generic.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> lsmod
Module                  Size  Used by
libcrc32c {{ *\d+}}  0
crc32c_intel {{ *\d+}}  1
crc32c_generic {{ *\d+}}  0
minikern> rmmod crc32c_intel
rmmod: crc32c-intel.ko: module crc32c_intel is busy (1 reference held)
minikern> # Without sha512, lkhash's init fails after its CRCs; crc32c ran on SSE4.2.
minikern> dtrace -q -n 'fbt:crc32c_intel::entry { @[probefunc] = count(); }' -c 'modprobe lkhash'
lkhash: crc32c e3069283 crc-t10dif d0db crc64-rocksoft ae8b14860a799888
modprobe: lkhash: init_module failed: No such file or directory (-2)

  crc32c_pcl_intel_update {{ +1}}
minikern> modprobe sha512-ssse3
minikern> modprobe lkhash
lkhash: crc32c e3069283 crc-t10dif d0db crc64-rocksoft ae8b14860a799888
lkhash: sha512-{{(ssse3|avx|avx2)}}(abc) ddaf35a193617aba..., 64 bytes, in pieces the same
lkhash: sha1-generic(abc) a9993e364706816a...
lkhash: sha256-generic(abc) ba7816bf8f01cfea...
lkhash: sha256() the same
minikern> # vmlinux's built-in sha1 and sha256 give way to the arch modules'.
minikern> modprobe -r lkhash
minikern> modprobe sha1-ssse3
minikern> modprobe sha256-ssse3
minikern> modprobe lkhash
lkhash: crc32c e3069283 crc-t10dif d0db crc64-rocksoft ae8b14860a799888
lkhash: sha512-{{(ssse3|avx|avx2)}}(abc) ddaf35a193617aba..., 64 bytes, in pieces the same
lkhash: sha1-{{(ssse3|avx|avx2|ni)}}(abc) a9993e364706816a...
lkhash: sha256-{{(ssse3|avx|avx2|ni)}}(abc) ba7816bf8f01cfea...
lkhash: sha256() the same
minikern> modprobe -r lkhash libcrc32c
minikern> # What softdeps loaded stays; nothing holds it any more.
minikern> lsmod
Module                  Size  Used by
sha256_ssse3 {{ *\d+}}  0
sha1_ssse3 {{ *\d+}}  0
sha512_ssse3 {{ *\d+}}  0
sha512_generic {{ *\d+}}  1 sha512_ssse3
crct10dif_pclmul {{ *\d+}}  0
crct10dif_generic {{ *\d+}}  0
crct10dif_common {{ *\d+}}  2 crct10dif_generic,crct10dif_pclmul
crc64 {{ *\d+}}  0
crc32c_intel {{ *\d+}}  0
crc32c_generic {{ *\d+}}  0
