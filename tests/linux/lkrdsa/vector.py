#!/usr/bin/env python3
"""The GOST R 34.10-2012 (256-bit) test vector lkrdsa.c carries: a key pair on
the CryptoPro-A parameter set (RFC 4357, section 11.4), a digest, and its
signature, computed here from first principles, so that ecrdsa_generic's
verification is checked against an independent signer.

    python3 tests/linux/lkrdsa/vector.py      # prints the C arrays

The curve is checked before use (G on it, of order q), and every signature
is verified here too.  The private key and the nonce are fixed: the output
is the same on every run."""

P = 2**256 - 617
A = P - 3
B = 166
Q = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF6C611070995AD10045841B09B761B893
G = (1, 0x8D91E471E0989CDA27DF505A453F2B7635294F2DDF23E3B122ACC99C9E9F1E14)


def add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if p1 == p2:
        m = (3 * x1 * x1 + A) * pow(2 * y1, -1, P)
    else:
        m = (y2 - y1) * pow(x2 - x1, -1, P)
    x3 = (m * m - x1 - x2) % P
    return x3, (m * (x1 - x3) - y1) % P


def mul(k, pt):
    r = None
    while k:
        if k & 1:
            r = add(r, pt)
        pt = add(pt, pt)
        k >>= 1
    return r


def on_curve(pt):
    x, y = pt
    return (y * y - (x * x * x + A * x + B)) % P == 0


def sign(d, digest_le, k):
    # GOST: e = h mod q (h: the digest as a little-endian integer), 1 if 0;
    # r = x(kG) mod q; s = (r d + k e) mod q.
    e = int.from_bytes(digest_le, "little") % Q or 1
    r = mul(k, G)[0] % Q
    s = (r * d + k * e) % Q
    assert r and s
    return r, s


def verify(pub, digest_le, r, s):
    e = int.from_bytes(digest_le, "little") % Q or 1
    v = pow(e, -1, Q)
    z1, z2 = s * v % Q, -r * v % Q
    c = add(mul(z1, G), mul(z2, pub))
    return c is not None and c[0] % Q == r


def carray(name, b):
    rows = [", ".join("0x%02x" % x for x in b[i:i + 12]) for i in range(0, len(b), 12)]
    return "static const u8 %s[%d] = {\n\t%s };" % (name, len(b), ",\n\t".join(rows))


def main():
    assert on_curve(G) and mul(Q, G) is None
    d = int.from_bytes(b"minikern ecrdsa test private key", "big") % Q
    pub = mul(d, G)
    assert on_curve(pub)
    digest = bytes(range(0x20, 0x40))  # any 32 bytes: the verifier takes a digest
    r, s = sign(d, digest, int.from_bytes(b"minikern ecrdsa test nonce, k..", "big") % Q)
    assert verify(pub, digest, r, s) and not verify(pub, digest, r, (s + 1) % Q)
    key = pub[0].to_bytes(32, "little") + pub[1].to_bytes(32, "little")
    sig = s.to_bytes(32, "big") + r.to_bytes(32, "big")  # s, then r
    print(carray("pub_xy", key))
    print(carray("digest", digest))
    print(carray("signature", sig))


if __name__ == "__main__":
    main()
