# No --trusted-cert: a signature no key can check.  As Linux does, a
# well-formed one loads and taints the kernel, and only a load that gets
# as far as running the module's code taints it; a signature that is not
# a PKCS#7 signedData at all is refused, as it is with a trusted key, and
# leaves the kernel as it was.  (The i386 kernel, without OpenSSL, checks
# the message's DER outline only.)
# status: 1
# setup: openssl req -new -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj "/CN=minikern test key" 2>/dev/null
# setup: $ROOT/scripts/sign-module key.pem cert.pem $MODULES/hello.ko signed.ko
# setup: $ROOT/scripts/sign-module key.pem cert.pem $TESTMODULES/undef_syms.ko signedundef.ko
# setup: python3 -c "import struct; d=open('$MODULES/hello.ko','rb').read(); g=b'not a signature at all'; open('garbage.ko','wb').write(d+g+bytes([0,0,2,0,0,0,0,0])+struct.pack('>I',len(g))+b'~Module signature appended~\n')"
minikern> kldload $TMP/garbage.ko
kldload: garbage.ko: malformed module signature: not a PKCS#7 message ({{.+}})
minikern> kldload $TMP/signedundef.ko
kldload: signedundef.ko: undefined symbols: another_missing_function, kern_printf, missing_variable, no_such_function
minikern> sysctl kern.tainted
kern.tainted: 0
minikern> kldload $TMP/signed.ko
signed.ko: module verification failed: no trusted key to check its signature - tainting kernel
Hello, world!
minikern> sysctl kern.tainted
kern.tainted: 1
Goodbye from hello: Hello, world!
