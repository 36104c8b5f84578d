# Signed modules in Linux's format, keys made at test time.  Under
# --sig-enforce only modules signed by a trusted certificate load:
# unsigned, tampered, wrong-key and truncated-signature modules are
# refused with one line each, before anything is allocated (the kernel is
# unchanged after each).  Debian's own sign-file (linux-kbuild-6.1) signs
# modules that load here too.  modinfo shows the signature as Linux's does.
# arch: x86_64
# status: 1
# args: --sig-enforce --trusted-cert $TMP/cert.pem
# setup: openssl req -new -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj "/CN=minikern test key" 2>/dev/null
# setup: openssl req -new -x509 -newkey rsa:2048 -nodes -keyout other.pem -out othercert.pem -days 2 -subj "/CN=someone else" 2>/dev/null
# setup: $ROOT/scripts/sign-module key.pem cert.pem $MODULES/hello.ko hello.ko
# setup: $ROOT/scripts/sign-module -a sha512 key.pem cert.pem $MODULES/libcounter.ko libcounter.ko
# setup: cp $MODULES/ticker.ko ticker.ko; /usr/lib/linux-kbuild-6.1/scripts/sign-file sha256 key.pem cert.pem ticker.ko
# setup: $ROOT/scripts/sign-module other.pem othercert.pem $MODULES/memdev.ko wrongkey.ko
# setup: cp hello.ko tampered.ko; printf 'X' | dd of=tampered.ko bs=1 seek=200 conv=notrunc status=none
# setup: python3 -c "import sys; d=open('hello.ko','rb').read(); t=d[-40:]; open('truncated.ko','wb').write(d[:-40-64]+t)"
# setup: head -c -5 hello.ko > cutmagic.ko
minikern> sysctl kern.module_sig_enforce
kern.module_sig_enforce: 1
minikern> kldload $TMP/hello.ko
Hello, world!
minikern> modinfo -F signer $TMP/hello.ko
minikern test key
minikern> modinfo -F sig_hashalgo $TMP/libcounter.ko
sha512
minikern> modinfo $TMP/hello.ko
filename:       $TMP/hello.ko
license:        BSD-2-Clause
author:         minikern
description:    Greets on load and unload
version:        1
name:           hello
arch:           x86_64
relocations:    {{[0-9]+}}
sig_id:         PKCS#7
signer:         minikern test key
sig_key:        {{[0-9A-F]{2}(:[0-9A-F]{2})+}}
sig_hashalgo:   sha256
signature:      {{[0-9A-F]{2}(:[0-9A-F]{2})+}}
minikern> # signed by Debian's sign-file
minikern> kldload $TMP/ticker.ko
ticker: ticking every 100 ms
minikern> kldunload ticker
ticker: stopped after {{[0-9]+}} ticks
minikern> # unsigned, tampered, wrong key, truncated signature, cut magic
minikern> kldload $MODULES/memdev.ko
kldload: memdev.ko: module is not signed (signatures are enforced)
minikern> kldload $TMP/tampered.ko
kldload: tampered.ko: bad module signature: the signature does not match the module (bad signature)
minikern> kldload $TMP/wrongkey.ko
kldload: wrongkey.ko: signed by a key that is not trusted (signer someone else, key {{[0-9A-F:]+}}) (signatures are enforced)
minikern> kldload $TMP/truncated.ko
kldload: truncated.ko: malformed module signature: not a PKCS#7 message (wrong tag)
minikern> kldload $TMP/cutmagic.ko
kldload: cutmagic.ko: module is not signed (signatures are enforced)
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    2 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
 2    1 {{ *0x[0-9a-f]+}}     3000 hello.ko
minikern> sysctl kern.malloc.memuse vm.arena.used kern.tainted
kern.malloc.memuse: 0
vm.arena.used: {{[0-9]+}}
kern.tainted: 0
minikern> halt
Goodbye from hello: Hello, world!
