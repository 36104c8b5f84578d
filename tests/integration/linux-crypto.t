# The crypto API's hash front end: Debian's libcrc32c, crc-t10dif and
# crc64-rocksoft find the algorithms the *_generic modules register
# (crypto_alloc_shash), and lkhash (tests/linux/lkhash) gets the standard
# check values through them and sha512 through the API itself.  A tfm
# holds its provider's module; crc-t10dif, loaded before its provider,
# uses its table until the crypto notifier says crct10dif is loaded.
# arch: x86_64
# status: 1
# args: -m $LINUX -m $LINUXTEST
minikern> modprobe libcrc32c
libcrc32c.ko: module verification failed: no trusted key to check its signature - tainting kernel
modprobe: libcrc32c: init_module failed: No such file or directory (-2)
minikern> modprobe crc-t10dif
minikern> modprobe crct10dif_generic
minikern> sleep 200
minikern> rmmod crct10dif_generic
rmmod: crct10dif_generic.ko: module crct10dif_generic is busy (1 reference held)
minikern> modprobe crc32c_generic
minikern> modprobe crc64_rocksoft_generic
minikern> modprobe sha512_generic
minikern> modprobe lkhash
lkhash: crc32c e3069283 crc-t10dif d0db crc64-rocksoft ae8b14860a799888
lkhash: sha512-generic(abc) ddaf35a193617aba..., 64 bytes, in pieces the same
minikern> lsmod
Module                  Size  Used by
lkhash {{ *\d+}}  0
libcrc32c {{ *\d+}}  1 lkhash
crc64_rocksoft {{ *\d+}}  1 lkhash
sha512_generic {{ *\d+}}  0
crc64_rocksoft_generic {{ *\d+}}  1
crc64 {{ *\d+}}  2 crc64_rocksoft_generic,crc64_rocksoft
crc32c_generic {{ *\d+}}  1
crct10dif_generic {{ *\d+}}  1
crc_t10dif {{ *\d+}}  1 lkhash
crct10dif_common {{ *\d+}}  2 crc_t10dif,crct10dif_generic
minikern> modprobe -r lkhash crc_t10dif
minikern> modprobe -r sha512_generic crc64_rocksoft_generic crc32c_generic crct10dif_generic
minikern> lsmod
Module                  Size  Used by
minikern> # At shutdown too a provider waits for the older module that holds it.
minikern> modprobe crc-t10dif
minikern> modprobe crct10dif_generic
minikern> sleep 200
