// A Linux module built out of tree with Debian's kbuild that checks a
// GOST R 34.10-2012 signature through the crypto API's akcipher front end
// and Debian's ecrdsa_generic: the key is given as Linux's x509 parser
// gives it (a DER OCTET STRING of the point, then the algorithm's OID
// number and the DER parameters: the curve's OID and the digest's), so
// both of ecrdsa's ASN.1 decoders and look_up_OID() run.  The vector
// (CryptoPro-A curve) comes from vector.py, an independent signer; the
// module verifies it, the same with one bit of the signature flipped, a
// key naming a curve ecrdsa lacks, and parameters that are not DER.
#include <crypto/akcipher.h>
#include <linux/module.h>
#include <linux/oid_registry.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

/* python3 vector.py */
static const u8 pub_xy[64] = {
	0xee, 0xbb, 0x05, 0xe7, 0x0b, 0x15, 0xd4, 0x7b, 0x67, 0x1c, 0x1b, 0x8f,
	0xf2, 0xf6, 0x6c, 0x93, 0x3d, 0xe9, 0xf2, 0x33, 0x63, 0xe5, 0xff, 0x60,
	0x8c, 0xb3, 0x97, 0xd8, 0x0d, 0x75, 0xe4, 0x0f, 0x79, 0xa4, 0x67, 0x68,
	0xb1, 0xb2, 0x07, 0x3a, 0x6d, 0xbf, 0x57, 0xbf, 0xa8, 0x58, 0x87, 0x9c,
	0x80, 0xe6, 0x15, 0xcf, 0xfd, 0x34, 0x3a, 0x13, 0xf8, 0x82, 0x86, 0x96,
	0xf9, 0xc4, 0x97, 0x4b };
static const u8 digest[32] = {
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b,
	0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f };
static const u8 signature[64] = {
	0x29, 0xc8, 0xdd, 0x49, 0x89, 0x76, 0xa8, 0x07, 0x45, 0xaf, 0x6c, 0xde,
	0x8d, 0xe3, 0xc9, 0x48, 0x48, 0xaf, 0x93, 0xf1, 0xbc, 0xb2, 0x5e, 0x1f,
	0x71, 0xf5, 0xf4, 0x1a, 0xbc, 0x03, 0xc0, 0x5b, 0x24, 0x93, 0x86, 0x5a,
	0xaa, 0x98, 0x25, 0x46, 0xd5, 0x0f, 0x55, 0xb5, 0xb6, 0xba, 0xb3, 0xd9,
	0xbc, 0x87, 0x5a, 0xfa, 0x85, 0xe0, 0xb7, 0xc7, 0xed, 0xf8, 0x7a, 0x4d,
	0xcc, 0x05, 0xd7, 0x3d };

/* SEQUENCE { OID 1.2.643.2.2.35.1 (CryptoPro-A), OID 1.2.643.7.1.1.2.2
 * (Streebog-256) } */
static const u8 params_cp_a[] = {
	0x30, 0x13, 0x06, 0x07, 0x2a, 0x85, 0x03, 0x02, 0x02, 0x23, 0x01,
	0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02 };
/* the same naming 1.2.643.7.1.2.1.1.1 (TC26 256 A), which ecrdsa lacks */
static const u8 params_tc26_a[] = {
	0x30, 0x15, 0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x01,
	0x01, 0x01, 0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02,
	0x02 };
/* a SEQUENCE whose length runs past its end */
static const u8 params_bad[] = { 0x30, 0x40, 0x06, 0x01, 0x2a };

static int set_key(struct crypto_akcipher *tfm, const u8 *params,
		   u32 paramlen)
{
	/* OCTET STRING (x || y), then algo and paramlen, then params */
	u32 keylen = 2 + sizeof(pub_xy), algo = OID_gost2012PKey256;
	u8 *key = kmalloc(keylen + 8 + paramlen, GFP_KERNEL);
	int err;

	if (!key)
		return -ENOMEM;
	key[0] = 0x04;
	key[1] = sizeof(pub_xy);
	memcpy(key + 2, pub_xy, sizeof(pub_xy));
	memcpy(key + keylen, &algo, 4);
	memcpy(key + keylen + 4, &paramlen, 4);
	memcpy(key + keylen + 8, params, paramlen);
	err = crypto_akcipher_set_pub_key(tfm, key, keylen);
	kfree(key);
	return err;
}

static int verify(struct crypto_akcipher *tfm, const u8 *sig)
{
	struct akcipher_request *req = akcipher_request_alloc(tfm, GFP_KERNEL);
	struct scatterlist sg[2];
	int err;

	if (!req)
		return -ENOMEM;
	/* the signature, then the digest, in two pieces */
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], sig, sizeof(signature));
	sg_set_buf(&sg[1], digest, sizeof(digest));
	akcipher_request_set_callback(req, 0, NULL, NULL);
	akcipher_request_set_crypt(req, sg, NULL, sizeof(signature),
				   sizeof(digest));
	err = crypto_akcipher_verify(req);
	akcipher_request_free(req);
	return err;
}

static int __init lkrdsa_init(void)
{
	struct crypto_akcipher *tfm = crypto_alloc_akcipher("ecrdsa", 0, 0);
	u8 *bad;
	int err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	bad = kmemdup(signature, sizeof(signature), GFP_KERNEL);
	if (!bad) {
		crypto_free_akcipher(tfm);
		return -ENOMEM;
	}
	bad[40] ^= 0x10;
	err = set_key(tfm, params_cp_a, sizeof(params_cp_a));
	pr_info("lkrdsa: %s: key %d, signature %d, flipped bit %d\n",
		crypto_tfm_alg_driver_name(crypto_akcipher_tfm(tfm)), err,
		err ? err : verify(tfm, signature), err ? err : verify(tfm, bad));
	pr_info("lkrdsa: key on TC26-256-A %d, key with broken DER %d\n",
		set_key(tfm, params_tc26_a, sizeof(params_tc26_a)),
		set_key(tfm, params_bad, sizeof(params_bad)));
	kfree(bad);
	crypto_free_akcipher(tfm);
	return 0;
}

static void __exit lkrdsa_exit(void)
{
}

module_init(lkrdsa_init);
module_exit(lkrdsa_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("GOST R 34.10-2012 signatures through ecrdsa_generic");
