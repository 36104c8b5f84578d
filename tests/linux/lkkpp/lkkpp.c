// A Linux module built out of tree with Debian's kbuild that agrees keys
// through the crypto API's kpp front end, over Debian's providers:
// curve25519 (curve25519-x86_64) with RFC 7748's test keys, whose public
// key and shared secret it checks, and ecdh-nist-p256 (ecdh_generic) with
// two private keys the provider draws from the default rng, whose two
// shared secrets must agree.
#include <crypto/ecdh.h>
#include <crypto/kpp.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

static int run(struct crypto_kpp *tfm, bool shared, const void *in,
	       unsigned int inlen, void *out, unsigned int outlen)
{
	struct kpp_request *req = kpp_request_alloc(tfm, GFP_KERNEL);
	struct scatterlist src, dst;
	int err;

	if (!req)
		return -ENOMEM;
	kpp_request_set_callback(req, 0, NULL, NULL);
	sg_init_one(&dst, out, outlen);
	if (shared)
		sg_init_one(&src, in, inlen);
	kpp_request_set_input(req, shared ? &src : NULL, inlen);
	kpp_request_set_output(req, &dst, outlen);
	err = shared ? crypto_kpp_compute_shared_secret(req) :
		       crypto_kpp_generate_public_key(req);
	kpp_request_free(req);
	return err;
}

static int x25519(void)
{
	static const u8 alice[32] = {
		0x77, 0x07, 0x6d, 0x0a, 0x73, 0x18, 0xa5, 0x7d, 0x3c, 0x16, 0xc1,
		0x72, 0x51, 0xb2, 0x66, 0x45, 0xdf, 0x4c, 0x2f, 0x87, 0xeb, 0xc0,
		0x99, 0x2a, 0xb1, 0x77, 0xfb, 0xa5, 0x1d, 0xb9, 0x2c, 0x2a };
	static const u8 bob_public[32] = {
		0xde, 0x9e, 0xdb, 0x7d, 0x7b, 0x7d, 0xc1, 0xb4, 0xd3, 0x5b, 0x61,
		0xc2, 0xec, 0xe4, 0x35, 0x37, 0x3f, 0x83, 0x43, 0xc8, 0x5b, 0x78,
		0x67, 0x4d, 0xad, 0xfc, 0x7e, 0x14, 0x6f, 0x88, 0x2b, 0x4f };
	struct crypto_kpp *tfm = crypto_alloc_kpp("curve25519", 0, 0);
	u8 *pub, *shared;
	int err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	pub = kmalloc(64, GFP_KERNEL);
	shared = pub + 32;
	err = pub ? crypto_kpp_set_secret(tfm, alice, 32) : -ENOMEM;
	if (!err)
		err = run(tfm, false, NULL, 0, pub, 32) ?:
		      run(tfm, true, bob_public, 32, shared, 32);
	if (!err)
		pr_info("lkkpp: %s public %*phN..., shared %*phN...\n",
			crypto_tfm_alg_driver_name(crypto_kpp_tfm(tfm)), 8, pub,
			8, shared);
	kfree(pub);
	crypto_free_kpp(tfm);
	return err;
}

static int ecdh(void)
{
	struct crypto_kpp *a = crypto_alloc_kpp("ecdh-nist-p256", 0, 0), *b;
	struct ecdh none = {}; /* no key: the provider makes one */
	u8 *pa, *pb, *sa, *sb, *secret;
	unsigned int len = crypto_ecdh_key_len(&none);
	int err;

	if (IS_ERR(a))
		return PTR_ERR(a);
	b = crypto_alloc_kpp("ecdh-nist-p256", 0, 0);
	if (IS_ERR(b)) {
		crypto_free_kpp(a);
		return PTR_ERR(b);
	}
	pa = kzalloc(4 * 64 + len, GFP_KERNEL);
	pb = pa + 64, sa = pb + 64, sb = sa + 64, secret = sb + 64;
	err = pa ? crypto_ecdh_encode_key(secret, len, &none) : -ENOMEM;
	if (!err)
		err = crypto_kpp_set_secret(a, secret, len) ?:
		      crypto_kpp_set_secret(b, secret, len) ?:
		      run(a, false, NULL, 0, pa, 64) ?:
		      run(b, false, NULL, 0, pb, 64) ?:
		      run(a, true, pb, 64, sa, 32) ?:
		      run(b, true, pa, 64, sb, 32);
	if (!err)
		pr_info("lkkpp: %s: two keys, %s, shared secrets %s\n",
			crypto_tfm_alg_driver_name(crypto_kpp_tfm(a)),
			memcmp(pa, pb, 64) ? "different" : "THE SAME",
			memcmp(sa, sb, 32) ? "DIFFERENT" : "the same");
	kfree(pa);
	crypto_free_kpp(b);
	crypto_free_kpp(a);
	return err;
}

static int __init lkkpp_init(void)
{
	return x25519() ?: ecdh();
}

static void __exit lkkpp_exit(void)
{
}

module_init(lkkpp_init);
module_exit(lkkpp_exit);
MODULE_LICENSE("GPL");
