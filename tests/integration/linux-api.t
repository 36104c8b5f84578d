# Debian's library and crypto modules whose only needs from vmlinux are
# the Linux API of kernel/linuxkpi/: each loads, passes its init (the
# crypto ones register their algorithms, ts_* their text search ops,
# test_static_keys checks its keys; lru_cache binds seq_file's output)
# and unloads, leaving no memory behind.
# arch: x86_64
# args: -m $LINUX
minikern> modprobe zstd_compress
zstd_compress.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> modprobe ts_kmp
minikern> modprobe lru_cache
minikern> modprobe crc32c_generic
minikern> modprobe sha512_generic
minikern> modprobe twofish_generic
minikern> modprobe libchacha
minikern> modprobe test_static_keys
minikern> lsmod
Module                  Size  Used by
test_static_keys {{ *\d+}}  0
test_static_key_base {{ *\d+}}  1 test_static_keys
libchacha {{ *\d+}}  0
twofish_generic {{ *\d+}}  0
twofish_common {{ *\d+}}  1 twofish_generic
sha512_generic {{ *\d+}}  0
crc32c_generic {{ *\d+}}  0
lru_cache {{ *\d+}}  0
ts_kmp {{ *\d+}}  0
zstd_compress {{ *\d+}}  0
minikern> modprobe -r test_static_keys libchacha twofish_generic sha512_generic crc32c_generic lru_cache ts_kmp zstd_compress
minikern> lsmod
Module                  Size  Used by
minikern> modprobe ts_kmp
minikern> rmmod ts_kmp
minikern> vmstat -m
         Type InUse MemUse Requests
