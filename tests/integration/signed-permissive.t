# Without --sig-enforce (Linux's policy): an unsigned module loads as
# always; one signed by a key that is not trusted loads and taints the
# kernel (a load refused for another reason does not); a signature that
# is malformed (garbage) or does not match is refused all the same.
# arch: x86_64
# status: 1
# args: --trusted-cert $TMP/cert.pem
# setup: openssl req -new -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj "/CN=minikern test key" 2>/dev/null
# setup: openssl req -new -x509 -newkey rsa:2048 -nodes -keyout other.pem -out othercert.pem -days 2 -subj "/CN=someone else" 2>/dev/null
# setup: $ROOT/scripts/sign-module other.pem othercert.pem $MODULES/hello.ko wrongkey.ko
# setup: $ROOT/scripts/sign-module other.pem othercert.pem $TESTMODULES/undef_syms.ko wrongundef.ko
# setup: $ROOT/scripts/sign-module key.pem cert.pem $MODULES/libcounter.ko tampered.ko; printf 'X' | dd of=tampered.ko bs=1 seek=300 conv=notrunc status=none
# setup: python3 -c "import struct; d=open('$MODULES/hello.ko','rb').read(); g=b'not a signature at all'; open('garbage.ko','wb').write(d+g+bytes([0,0,2,0,0,0,0,0])+struct.pack('>I',len(g))+b'~Module signature appended~\n')"
minikern> kldload $TMP/garbage.ko
kldload: garbage.ko: malformed module signature: not a PKCS#7 message ({{.+}})
minikern> kldload libcounter
libcounter: version 2 ready
minikern> # Refused for another reason: no module of it ran, no taint.
minikern> kldload $TMP/wrongundef.ko
kldload: wrongundef.ko: undefined symbols: another_missing_function, kern_printf, missing_variable, no_such_function
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
