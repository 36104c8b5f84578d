# The crypto API's public-key front end and the ASN.1 decoder, with
# Debian's ecrdsa_generic as it is.  lkrdsa (tests/linux/lkrdsa) gives
# it a GOST R 34.10-2012 key as Linux's x509 parser does (DER point, the
# algorithm's OID number, DER parameters naming curve and digest), so
# its two compiled ASN.1 grammars run through asn1_ber_decoder and its
# OIDs through look_up_OID; then it verifies a signature from an
# independent signer (tests/linux/lkrdsa/vector.py), the same with one
# bit flipped (-EKEYREJECTED), a key on a curve ecrdsa lacks (-ENOPKG)
# and parameters that overrun their SEQUENCE (-EBADMSG).
# arch: x86_64
# status: 0
# args: -m $LINUX -m $LINUXTEST
minikern> modprobe ecrdsa_generic
ecc.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> modprobe lkrdsa
lkrdsa: ecrdsa-generic: key 0, signature 0, flipped bit -129
lkrdsa: key on TC26-256-A -65, key with broken DER -74
minikern> lsmod
Module                  Size  Used by
lkrdsa {{ *\d+}}  0
ecrdsa_generic {{ *\d+}}  0
ecc {{ *\d+}}  1 ecrdsa_generic
minikern> modprobe -r lkrdsa
minikern> rmmod ecrdsa_generic ecc
minikern> lsmod
Module                  Size  Used by
