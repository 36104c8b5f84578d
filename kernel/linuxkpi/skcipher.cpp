// The crypto API's symmetric key cipher front end (crypto/skcipher.c):
// providers register skciphers (Debian's chacha_generic, chacha-x86_64,
// blowfish, camellia, des3_ede, twofish glue modules), consumers allocate
// a tfm by name, set its key and run requests over scatterlists, and the
// provider walks a request with skcipher_walk_virt()/skcipher_walk_done().
//
// The walk hands the provider the longest run that is contiguous in both
// source and destination and aligned to its alignmask.  A block split
// between two entries goes through a buffer (the "slow" step), as does a
// misaligned run (the "copy" step, a page at a time), as in Linux.  Every
// step is synchronous: there is no asynchronous provider here.
#include "crypto.h"

#if defined(__x86_64__)

#include <algorithm>
#include <cstring>

namespace lkpi {

namespace {
constexpr unsigned kPageSize = 4096;
constexpr unsigned kWalkSlow = 1 << 1, kWalkCopy = 1 << 2, kWalkDiff = 1 << 3,
                   kWalkSleep = 1 << 4;          // SKCIPHER_WALK_*
constexpr u32 kReqMaySleep = 0x200;             // CRYPTO_TFM_REQ_MAY_SLEEP

struct crypto_skcipher {
  unsigned reqsize;
  crypto_tfm base;
};
struct crypto_async_request {
  list_head list;
  void (LKAPI *complete)(crypto_async_request *, int);
  void *data;
  crypto_tfm *tfm;
  u32 flags;
};
struct skcipher_request {
  unsigned cryptlen;
  u8 *iv;
  scatterlist *src, *dst;
  crypto_async_request base;
  // the provider's request context follows
};
struct skcipher_alg {
  int (LKAPI *setkey)(crypto_skcipher *, const u8 *, unsigned);
  int (LKAPI *encrypt)(skcipher_request *);
  int (LKAPI *decrypt)(skcipher_request *);
  int (LKAPI *init)(crypto_skcipher *);
  void (LKAPI *exit)(crypto_skcipher *);
  unsigned min_keysize, max_keysize, ivsize, chunksize, walksize;
  alignas(8) u8 base[kCraSize];
};
struct scatter_walk {
  scatterlist *sg;
  unsigned offset; // into the entry's page, as sg->offset counts
};
struct skcipher_walk {
  struct {
    u8 *page;
    u8 *addr;
  } src, dst;
  scatter_walk in;
  unsigned nbytes;
  scatter_walk out;
  unsigned total;
  list_head buffers;
  u8 *page;   // the copy step's page
  u8 *buffer; // the slow step's block, or the aligned IV
  u8 *oiv;
  u8 *iv;
  unsigned ivsize;
  int flags;
  unsigned blocksize, stride, alignmask;
};
static_assert(sizeof(crypto_skcipher) == 40 && sizeof(skcipher_request) == 80 &&
              offsetof(skcipher_request, base) == 32 &&
              offsetof(crypto_async_request, tfm) == 32 &&
              offsetof(skcipher_alg, walksize) == 56 &&
              offsetof(skcipher_alg, base) == 64 && sizeof(skcipher_alg) == 448);
static_assert(offsetof(skcipher_walk, in) == 32 && offsetof(skcipher_walk, nbytes) == 48 &&
              offsetof(skcipher_walk, out) == 56 && offsetof(skcipher_walk, total) == 72 &&
              offsetof(skcipher_walk, page) == 96 && offsetof(skcipher_walk, iv) == 120 &&
              offsetof(skcipher_walk, flags) == 132 &&
              offsetof(skcipher_walk, alignmask) == 144 && sizeof(skcipher_walk) == 152);

skcipher_alg *skcipher_of(crypto_skcipher *tfm) {
  return (skcipher_alg *)(tfm->base.alg - offsetof(skcipher_alg, base));
}
crypto_skcipher *tfm_of(skcipher_request *req) {
  return (crypto_skcipher *)((u8 *)req->base.tfm - offsetof(crypto_skcipher, base));
}
void set_needkey(crypto_skcipher *tfm) {
  if (skcipher_of(tfm)->max_keysize)
    tfm->base.crt_flags |= kTfmNeedKey;
}

// ---- walking scatterlists

// Where the walk stands: past the end of an entry it moves to the next.
u8 *at(scatter_walk &w) {
  while (w.offset >= w.sg->offset + w.sg->length) {
    scatterlist *next = sg_next(w.sg);
    if (!next)
      return nullptr;
    w.sg = next;
    w.offset = next->offset;
  }
  return sg_virt(w.sg) + (w.offset - w.sg->offset);
}
// The bytes left in the current entry, at most `n`.
unsigned clamp(scatter_walk &w, unsigned n) {
  if (!at(w))
    return 0;
  return std::min(n, w.sg->offset + w.sg->length - w.offset);
}
// Past `n` bytes of the list (fewer if it ends first).
void advance(scatter_walk &w, unsigned n) {
  while (n) {
    const unsigned k = clamp(w, n);
    if (!k)
      break;
    w.offset += k, n -= k;
  }
}
// `n` bytes between `buf` and the list from `w` on, across entries
// (none when `buf` is null: whether the list holds them); false if the
// list ends first.
bool copy_chunks(u8 *buf, scatter_walk w, unsigned n, bool out) {
  while (n) {
    u8 *p = at(w);
    const unsigned k = clamp(w, n);
    if (!p || !k)
      return false;
    if (buf && out)
      std::memcpy(p, buf, k);
    else if (buf)
      std::memcpy(buf, p, k);
    if (buf)
      buf += k;
    n -= k, w.offset += k;
  }
  return true;
}

int walk_next(skcipher_walk *walk);

int walk_finish(skcipher_walk *walk, int err) {
  if (walk->iv != walk->oiv)
    std::memcpy(walk->oiv, walk->iv, walk->ivsize);
  if (walk->buffer)
    release(walk->buffer, 0);
  if (walk->page)
    release(walk->page, 0);
  walk->buffer = walk->page = nullptr;
  walk->iv = walk->oiv;
  return err;
}

// The most one step takes: the stride, or what is left when less (at
// least a block).
unsigned step_size(const skcipher_walk *walk) {
  return std::min(walk->stride, std::max(walk->total, walk->blocksize));
}
// The walk's buffer, made at its first need: room for a step's block,
// aligned, and after it an aligned IV.  Steps only shrink, so the first
// size holds every later one.
u8 *walk_buffer(skcipher_walk *walk) {
  if (!walk->buffer)
    walk->buffer = (u8 *)alloc(step_size(walk) + 2 * walk->alignmask +
                                   walk->ivsize + 1,
                               0, 0);
  return walk->buffer;
}

// A block that spans entries: gathered into a buffer, scattered back by
// skcipher_walk_done().
int walk_slow(skcipher_walk *walk, unsigned bsize) {
  if (!walk_buffer(walk))
    return walk_finish(walk, -ENOMEM_);
  u8 *buf = aligned(walk->buffer, walk->alignmask);
  // A list shorter than cryptlen says is refused, not read or written
  // past.
  if (!copy_chunks(buf, walk->in, bsize, false) || !copy_chunks(nullptr, walk->out, bsize, true))
    return walk_finish(walk, -EINVAL_);
  walk->src.addr = walk->dst.addr = buf;
  walk->nbytes = bsize;
  walk->flags |= kWalkSlow;
  return 0;
}

int walk_next(skcipher_walk *walk) {
  walk->flags &= ~(kWalkSlow | kWalkCopy | kWalkDiff);
  const unsigned bsize = step_size(walk);
  unsigned n = clamp(walk->in, walk->total);
  n = clamp(walk->out, n);
  if (n < bsize) {
    if (walk->total < walk->blocksize)
      return walk_finish(walk, -EINVAL_);
    return walk_slow(walk, bsize);
  }
  u8 *src = at(walk->in), *dst = at(walk->out);
  if (((uintptr_t)src | (uintptr_t)dst) & walk->alignmask) {
    if (!walk->page && !(walk->page = (u8 *)alloc(kPageSize, 0, 0, kPageSize)))
      return walk_finish(walk, -ENOMEM_);
    n = std::min(n, kPageSize);
    std::memcpy(walk->page, src, n);
    walk->src.addr = walk->dst.addr = walk->page;
    walk->nbytes = n;
    walk->flags |= kWalkCopy;
    return 0;
  }
  walk->src.addr = src;
  walk->dst.addr = dst;
  if (src != dst)
    walk->flags |= kWalkDiff;
  walk->nbytes = n;
  return 0;
}
} // namespace

// The provider says how many of this step's bytes it left (err >= 0) or
// that it failed (err < 0); the walk moves on, or ends and returns the
// IV to the request.
int skcipher_walk_done(skcipher_walk *walk, int err) {
  const unsigned n = walk->nbytes;
  if (!n)
    return walk_finish(walk, err);
  unsigned done = 0;
  if (err >= 0 && (unsigned)err <= n)
    done = n - (unsigned)err;
  else if (err >= 0)
    err = -EINVAL_; // more left than it was given
  if (walk->flags & kWalkSlow) {
    if (err > 0) // a partial block: the message is not whole blocks
      err = -EINVAL_, done = 0;
    else if (err == 0)
      copy_chunks(walk->dst.addr, walk->out, n, true);
  } else if ((walk->flags & kWalkCopy) && done) {
    std::memcpy(at(walk->out), walk->page, done);
  }
  walk->nbytes = 0;
  if (err < 0)
    return walk_finish(walk, err);
  advance(walk->in, done);
  advance(walk->out, done);
  walk->total -= done;
  if (walk->total)
    return walk_next(walk);
  return walk_finish(walk, 0);
}

int skcipher_walk_virt(skcipher_walk *walk, skcipher_request *req, bool atomic) {
  crypto_skcipher *tfm = tfm_of(req);
  skcipher_alg *alg = skcipher_of(tfm);
  *walk = {};
  walk->total = req->cryptlen;
  walk->iv = walk->oiv = req->iv;
  if ((req->base.flags & kReqMaySleep) && !atomic)
    walk->flags |= kWalkSleep;
  if (!walk->total)
    return 0;
  walk->in = {req->src, req->src->offset};
  walk->out = {req->dst, req->dst->offset};
  walk->blocksize = field<u32>(alg->base, kCraBlocksize);
  walk->stride = alg->walksize;
  walk->ivsize = alg->ivsize;
  walk->alignmask = field<u32>(alg->base, kCraAlignmask);
  if ((uintptr_t)walk->iv & walk->alignmask) { // the provider gets an aligned IV
    if (!walk_buffer(walk))
      return -ENOMEM_;
    walk->iv = aligned(walk->buffer + step_size(walk) + walk->alignmask, walk->alignmask);
    std::memcpy(walk->iv, walk->oiv, walk->ivsize);
  }
  return walk_next(walk);
}

// ---- registration (skcipher_prepare_alg()) and the consumer's calls

int crypto_register_skcipher(skcipher_alg *alg) {
  if (alg->ivsize > kPageSize / 8 || alg->chunksize > kPageSize / 8 ||
      alg->walksize > kPageSize / 8 || !alg->encrypt || !alg->decrypt ||
      !alg->setkey || alg->min_keysize > alg->max_keysize)
    return -EINVAL_;
  const u32 mask = field<u32>(alg->base, kCraAlignmask);
  if (mask & (mask + 1))
    return -EINVAL_;
  if (!alg->chunksize)
    alg->chunksize = field<u32>(alg->base, kCraBlocksize);
  if (!alg->walksize)
    alg->walksize = alg->chunksize;
  set_alg_type(alg->base, kAlgTypeSkcipher);
  return register_alg(alg->base);
}
void crypto_unregister_skcipher(skcipher_alg *alg) { unregister_alg(alg->base); }
int crypto_register_skciphers(skcipher_alg *algs, int count) {
  return register_array(
      (u8 *)algs, count, sizeof *algs,
      [](u8 *a) { return crypto_register_skcipher((skcipher_alg *)a); },
      [](u8 *a) { crypto_unregister_skcipher((skcipher_alg *)a); });
}
void crypto_unregister_skciphers(skcipher_alg *algs, int count) {
  unregister_array((u8 *)algs, count, sizeof *algs,
                   [](u8 *a) { crypto_unregister_skcipher((skcipher_alg *)a); });
}

__attribute__((noinline)) void *crypto_alloc_skcipher(const char *name, u32, u32) {
  return create_tfm<crypto_skcipher, skcipher_alg>(
      name, kAlgTypeSkcipher, LKPI_CALLER(),
      [](crypto_skcipher *tfm, skcipher_alg *) { set_needkey(tfm); });
}
int crypto_has_skcipher(const char *name, u32, u32) {
  return find_alg(name, kAlgTypeSkcipher) != nullptr;
}

int crypto_skcipher_setkey(crypto_skcipher *tfm, const u8 *key, unsigned keylen) {
  skcipher_alg *alg = skcipher_of(tfm);
  if (keylen < alg->min_keysize || keylen > alg->max_keysize)
    return -EINVAL_;
  if (int err = with_aligned_key(key, keylen, field<u32>(alg->base, kCraAlignmask),
                                 [&](const u8 *k) { return alg->setkey(tfm, k, keylen); })) {
    set_needkey(tfm);
    return err;
  }
  tfm->base.crt_flags &= ~kTfmNeedKey;
  return 0;
}
int crypto_skcipher_encrypt(skcipher_request *req) {
  crypto_skcipher *tfm = tfm_of(req);
  if (tfm->base.crt_flags & kTfmNeedKey)
    return -ENOKEY_;
  return skcipher_of(tfm)->encrypt(req);
}
int crypto_skcipher_decrypt(skcipher_request *req) {
  crypto_skcipher *tfm = tfm_of(req);
  if (tfm->base.crt_flags & kTfmNeedKey)
    return -ENOKEY_;
  return skcipher_of(tfm)->decrypt(req);
}

LINUX_EXPORT_GPL(skcipher_walk_virt);
LINUX_EXPORT_GPL(skcipher_walk_done);
LINUX_EXPORT_GPL(crypto_register_skcipher);
LINUX_EXPORT_GPL(crypto_unregister_skcipher);
LINUX_EXPORT_GPL(crypto_register_skciphers);
LINUX_EXPORT_GPL(crypto_unregister_skciphers);
LINUX_EXPORT_GPL(crypto_alloc_skcipher);
LINUX_EXPORT_GPL(crypto_has_skcipher);
LINUX_EXPORT_GPL(crypto_skcipher_setkey);
LINUX_EXPORT_GPL(crypto_skcipher_encrypt);
LINUX_EXPORT_GPL(crypto_skcipher_decrypt);

} // namespace lkpi

#endif // __x86_64__
