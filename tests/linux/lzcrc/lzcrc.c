// A Linux module built out of tree with Debian's kbuild, unmodified Linux
// code from end to end: it calls Debian's own lz4_compress.ko, crc16.ko
// and crc-itu-t.ko, LZ4_decompress_safe from the kernel, kmalloc and
// kfree, a list under a mutex, and takes a charp parameter.
#include <linux/crc-itu-t.h>
#include <linux/crc16.h>
#include <linux/list.h>
#include <linux/lz4.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *text = "123456789";
module_param(text, charp, 0644);
MODULE_PARM_DESC(text, "the bytes to checksum and compress");

static int copies = 64;
module_param(copies, int, 0444);
MODULE_PARM_DESC(copies, "how many copies of text to compress");

struct chunk {
	struct list_head link;
	size_t len;
	char data[];
};

static LIST_HEAD(chunks);
static DEFINE_MUTEX(chunks_lock);

static int lzcrc_roundtrip(void)
{
	size_t len = strlen(text), total = len * copies, i;
	int bound = LZ4_compressBound(total), clen, dlen, ret = 0;
	char *src, *dst, *back;
	void *wrk;

	src = kmalloc(total, GFP_KERNEL);
	dst = kmalloc(bound, GFP_KERNEL);
	back = kmalloc(total, GFP_KERNEL);
	wrk = kmalloc(LZ4_MEM_COMPRESS, GFP_KERNEL);
	if (!src || !dst || !back || !wrk) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < (size_t)copies; i++)
		memcpy(src + i * len, text, len);
	clen = LZ4_compress_default(src, dst, total, bound, wrk);
	dlen = LZ4_decompress_safe(dst, back, clen, total);
	pr_info("lzcrc: lz4 %zu bytes -> %d -> %d, %s\n", total, clen, dlen,
		dlen == (int)total && !memcmp(src, back, total) ? "same" : "DIFFERENT");
out:
	kfree(wrk);
	kfree(back);
	kfree(dst);
	kfree(src);
	return ret;
}

static int __init lzcrc_init(void)
{
	size_t len = strlen(text), n = 0, sum = 0;
	struct chunk *c;
	int i, ret;

	pr_info("lzcrc: text \"%s\": crc16 %04x crc_itu_t %04x\n", text,
		crc16(0, text, len), crc_itu_t(0, text, len));
	ret = lzcrc_roundtrip();
	if (ret)
		return ret;
	for (i = 1; i <= 3; i++) {
		c = kmalloc(sizeof(*c) + len * i, GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		c->len = len * i;
		mutex_lock(&chunks_lock);
		list_add_tail(&c->link, &chunks);
		mutex_unlock(&chunks_lock);
	}
	mutex_lock(&chunks_lock);
	list_for_each_entry(c, &chunks, link) {
		n++;
		sum += c->len;
	}
	mutex_unlock(&chunks_lock);
	pr_info("lzcrc: %zu chunks, %zu bytes\n", n, sum);
	return 0;
}

static void __exit lzcrc_exit(void)
{
	struct chunk *c, *t;
	size_t n = 0;

	mutex_lock(&chunks_lock);
	list_for_each_entry_safe(c, t, &chunks, link) {
		list_del(&c->link);
		kfree(c);
		n++;
	}
	mutex_unlock(&chunks_lock);
	pr_info("lzcrc: freed %zu chunks\n", n);
}

module_init(lzcrc_init);
module_exit(lzcrc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("LZ4 and CRC through Debian's library modules");
