# Debian's library modules that need only the part of the Linux API both
# kernels have, on each with its own flavour (amd64, 686): each loads
# with what its depends= names, passes its init (the ts_* register their
# text search ops) and goes with nothing left behind.
# args: -m $LINUX
minikern> modprobe bch
bch.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> modprobe cordic
minikern> modprobe crc64
minikern> modprobe libarc4
minikern> modprobe libdes
minikern> modprobe libpoly1305
minikern> modprobe lz4hc_compress
minikern> modprobe reed_solomon
minikern> modprobe ts_bm
minikern> modprobe ts_fsm
minikern> modprobe ts_kmp
minikern> lsmod
Module                  Size  Used by
ts_kmp {{ *\d+}}  0
ts_fsm {{ *\d+}}  0
ts_bm {{ *\d+}}  0
reed_solomon {{ *\d+}}  0
lz4hc_compress {{ *\d+}}  0
libpoly1305 {{ *\d+}}  0
libdes {{ *\d+}}  0
libarc4 {{ *\d+}}  0
crc64 {{ *\d+}}  0
cordic {{ *\d+}}  0
bch {{ *\d+}}  0
minikern> modprobe -r ts_kmp ts_fsm ts_bm reed_solomon lz4hc_compress libpoly1305 libdes libarc4 crc64 cordic bch
minikern> lsmod
Module                  Size  Used by
minikern> vmstat -m
         Type InUse MemUse Requests
