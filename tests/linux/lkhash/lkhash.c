// A Linux module built out of tree with Debian's kbuild that hashes
// through the crypto API's shash front end: crc32c() of Debian's
// libcrc32c, crc_t10dif() of crc-t10dif and crc64_rocksoft() of
// crc64-rocksoft (each over the *_generic module that registers the
// algorithm), then sha512 from sha512_generic with crypto_alloc_shash(),
// in one digest and in pieces (the inline crypto_shash_init() calls the
// provider's init itself), and sha1 and sha256, which vmlinux has built
// in, through the API and the sha256() library call.
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/crc-t10dif.h>
#include <linux/crc32c.h>
#include <linux/crc64.h>
#include <linux/module.h>

static const char check[] = "123456789";

static int lkhash_digest(const char *alg, u8 *out)
{
	struct crypto_shash *tfm = crypto_alloc_shash(alg, 0, 0);
	int err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = crypto_shash_tfm_digest(tfm, "abc", 3, out);
	if (!err)
		pr_info("lkhash: %s(abc) %*phN...\n",
			crypto_shash_driver_name(tfm), 8, out);
	crypto_free_shash(tfm);
	return err;
}

static int __init lkhash_init(void)
{
	struct crypto_shash *tfm;
	u8 whole[64], pieces[64];
	int err;

	pr_info("lkhash: crc32c %08x crc-t10dif %04x crc64-rocksoft %016llx\n",
		~crc32c(~0, check, 9), crc_t10dif(check, 9),
		crc64_rocksoft(check, 9));

	tfm = crypto_alloc_shash("sha512", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = crypto_shash_tfm_digest(tfm, "abc", 3, whole);
	if (!err) {
		SHASH_DESC_ON_STACK(desc, tfm);

		desc->tfm = tfm;
		err = crypto_shash_init(desc) ?:
		      crypto_shash_update(desc, "ab", 2) ?:
		      crypto_shash_finup(desc, "c", 1, pieces);
		shash_desc_zero(desc);
	}
	if (!err)
		pr_info("lkhash: %s(abc) %*phN..., %zu bytes, in pieces %s\n",
			crypto_shash_driver_name(tfm), 8, whole,
			(size_t)crypto_shash_digestsize(tfm),
			memcmp(whole, pieces, 64) ? "DIFFERENT" : "the same");
	crypto_free_shash(tfm);
	if (!err)
		err = lkhash_digest("sha1", whole);
	if (!err)
		err = lkhash_digest("sha256", whole);
	if (!err) {
		sha256("abc", 3, pieces);
		pr_info("lkhash: sha256() %s\n",
			memcmp(whole, pieces, 32) ? "DIFFERENT" : "the same");
	}
	return err;
}

static void __exit lkhash_exit(void)
{
}

module_init(lkhash_init);
module_exit(lkhash_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("crc32c, crc-t10dif, crc64-rocksoft and sha512 through the crypto API");
