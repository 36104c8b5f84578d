// A Linux module built out of tree with Debian's kbuild that encrypts
// through the crypto API's skcipher front end, over providers as Debian
// ships them: chacha20 (RFC 7539's test vector, from chacha_generic and
// chacha-x86_64) in one buffer, in place, and in three pieces whose
// second block spans two entries and whose destination is misaligned
// (the walk's buffered steps), then decrypted back; and cbc(blowfish)
// from blowfish-x86_64, whose chained IV comes back in the request.
#include <crypto/skcipher.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

static const char text[] = "Ladies and Gentlemen of the class of '99: If I "
	"could offer you only one tip for the future, sunscreen would be it.";
#define LEN (sizeof(text) - 1) /* 114 */

static int crypt(struct crypto_skcipher *tfm, struct scatterlist *src,
		 struct scatterlist *dst, unsigned int len, u8 *iv, bool enc)
{
	struct skcipher_request *req = skcipher_request_alloc(tfm, GFP_KERNEL);
	int err;

	if (!req)
		return -ENOMEM;
	skcipher_request_set_callback(req, 0, NULL, NULL);
	skcipher_request_set_crypt(req, src, dst, len, iv);
	err = enc ? crypto_skcipher_encrypt(req) : crypto_skcipher_decrypt(req);
	skcipher_request_free(req);
	return err;
}

static int chacha(const char *name)
{
	static const u8 iv0[16] = { 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x4a };
	struct crypto_skcipher *tfm = crypto_alloc_skcipher(name, 0, 0);
	struct scatterlist one, three[3];
	u8 key[32], iv[16], *whole, *pieces;
	int i, err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	whole = kmalloc(2 * LEN + 8, GFP_KERNEL);
	if (!whole) {
		crypto_free_skcipher(tfm);
		return -ENOMEM;
	}
	pieces = whole + LEN + 1; /* misaligned for the u32 alignmask */
	for (i = 0; i < 32; i++)
		key[i] = i;
	err = crypto_skcipher_setkey(tfm, key, 32);
	if (!err) {
		memcpy(whole, text, LEN);
		memcpy(iv, iv0, 16);
		sg_init_one(&one, whole, LEN);
		err = crypt(tfm, &one, &one, LEN, iv, true);
	}
	if (!err) {
		struct scatterlist src[3];
		char *copy = kmemdup(text, LEN, GFP_KERNEL);

		err = -ENOMEM;
		if (copy) {
			sg_init_table(src, 3);
			sg_set_buf(&src[0], copy, 13);
			sg_set_buf(&src[1], copy + 13, 70);
			sg_set_buf(&src[2], copy + 83, LEN - 83);
			sg_init_table(three, 3);
			sg_set_buf(&three[0], pieces, 40);
			sg_set_buf(&three[1], pieces + 40, 3);
			sg_set_buf(&three[2], pieces + 43, LEN - 43);
			memcpy(iv, iv0, 16);
			err = crypt(tfm, src, three, LEN, iv, true);
			kfree(copy);
		}
	}
	if (!err)
		pr_info("lkcipher: %s %*phN..., in pieces %s\n",
			crypto_skcipher_driver_name(tfm), 8, whole,
			memcmp(whole, pieces, LEN) ? "DIFFERENT" : "the same");
	if (!err) {
		memcpy(iv, iv0, 16);
		err = crypt(tfm, three, three, LEN, iv, false);
	}
	if (!err)
		pr_info("lkcipher: %s decrypts to %s\n",
			crypto_skcipher_driver_name(tfm),
			memcmp(pieces, text, LEN) ? "SOMETHING ELSE" : "the text");
	kfree(whole);
	crypto_free_skcipher(tfm);
	return err;
}

static int blowfish(void)
{
	static const u8 key[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
		0xef, 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87 };
	static const char msg[] = "The quick brown fox jumps over the lazy dog.....";
	struct crypto_skcipher *tfm = crypto_alloc_skcipher("cbc(blowfish)", 0, 0);
	u8 iv[8] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	struct scatterlist sg;
	u8 buf[48];
	int err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	memcpy(buf, msg, 48);
	sg_init_one(&sg, buf, 48);
	err = crypto_skcipher_setkey(tfm, key, 16) ?:
	      crypt(tfm, &sg, &sg, 48, iv, true);
	if (!err)
		pr_info("lkcipher: %s %*phN..., iv now %*phN\n",
			crypto_skcipher_driver_name(tfm), 8, buf, 8, iv);
	/* A partial block is refused; the tfm stays usable. */
	if (!err && crypt(tfm, &sg, &sg, 47, iv, true) != -EINVAL)
		err = -EPROTO;
	crypto_free_skcipher(tfm);
	return err;
}

static int __init lkcipher_init(void)
{
	struct crypto_skcipher *tfm;
	int err;

	/* No key yet: Linux refuses to encrypt. */
	tfm = crypto_alloc_skcipher("chacha20", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	{
		struct scatterlist sg;
		u8 buf[16] = {}, iv[16] = {};

		sg_init_one(&sg, buf, 16);
		err = crypt(tfm, &sg, &sg, 16, iv, true);
		pr_info("lkcipher: without a key: %d\n", err);
	}
	crypto_free_skcipher(tfm);
	return chacha("chacha20-generic") ?: chacha("chacha20") ?: blowfish();
}

static void __exit lkcipher_exit(void)
{
}

module_init(lkcipher_init);
module_exit(lkcipher_exit);
MODULE_LICENSE("GPL");
