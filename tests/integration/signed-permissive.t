# Without --sig-enforce (Linux's policy): an unsigned module loads as
# always; one signed by a key that is not trusted loads and taints the
# kernel; a signature that is malformed or does not match is refused all
# the same.
# arch: x86_64
# status: 1
# args: --trusted-cert $TMP/cert.pem
# setup: openssl req -new -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj "/CN=minikern test key" 2>/dev/null
# setup: openssl req -new -x509 -newkey rsa:2048 -nodes -keyout other.pem -out othercert.pem -days 2 -subj "/CN=someone else" 2>/dev/null
# setup: $ROOT/scripts/sign-module other.pem othercert.pem $MODULES/hello.ko wrongkey.ko
# setup: $ROOT/scripts/sign-module key.pem cert.pem $MODULES/libcounter.ko tampered.ko; printf 'X' | dd of=tampered.ko bs=1 seek=300 conv=notrunc status=none
minikern> kldload libcounter
libcounter: version 2 ready
minikern> sysctl kern.tainted
kern.tainted: 0
minikern> kldload $TMP/wrongkey.ko
wrongkey.ko: module verification failed: signed by a key that is not trusted (signer someone else, key {{[0-9A-F:]+}}) - tainting kernel
Hello, world!
minikern> sysctl kern.tainted
kern.tainted: 1
minikern> kldunload libcounter
libcounter: unloading after 0 calls
minikern> kldload $TMP/tampered.ko
kldload: tampered.ko: bad module signature: the signature does not match the module (bad signature)
Goodbye from hello: Hello, world!
