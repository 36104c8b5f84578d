// The crypto API's registration of algorithm providers
// (crypto_register_alg/algs/shash/shashes, as Debian's crypto/*_generic
// modules call them) and its synchronous hash front end (crypto/shash.c):
// crypto_alloc_shash() finds a registered shash by name, the update,
// final, finup and digest calls run the provider's functions, aligning
// what it asks to be aligned, and a tfm holds the provider's module as
// crypto_mod_get() does.  Consumers such as Debian's libcrc32c,
// crc-t10dif and crc64-rocksoft bind these.  The offsets are x86_64's:
// the i386 build leaves these out.
#include "crypto.h"

#if defined(__x86_64__)

#include "../kern_linker.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace lkpi {

namespace {
// include/crypto/hash.h's bounds.
constexpr unsigned kMaxDigest = 64, kMaxState = 512, kMaxAlignmask = 127;

struct shash_desc;
struct crypto_shash {
  unsigned descsize;
  crypto_tfm base;
};
struct shash_desc {
  crypto_shash *tfm;
  // the context follows
};
struct shash_alg {
  int (LKAPI *init)(shash_desc *);
  int (LKAPI *update)(shash_desc *, const u8 *, unsigned);
  int (LKAPI *final)(shash_desc *, u8 *);
  int (LKAPI *finup)(shash_desc *, const u8 *, unsigned, u8 *);
  int (LKAPI *digest)(shash_desc *, const u8 *, unsigned, u8 *);
  int (LKAPI *export_)(shash_desc *, void *);
  int (LKAPI *import_)(shash_desc *, const void *);
  int (LKAPI *setkey)(crypto_shash *, const u8 *, unsigned);
  int (LKAPI *init_tfm)(crypto_shash *);
  void (LKAPI *exit_tfm)(crypto_shash *);
  unsigned descsize;
  unsigned digestsize alignas(8);
  unsigned statesize;
  u8 base[kCraSize];
};
static_assert(sizeof(crypto_shash) == 40 &&
              offsetof(shash_alg, descsize) == 80 &&
              offsetof(shash_alg, digestsize) == 88 &&
              offsetof(shash_alg, base) == 96 && sizeof(shash_alg) == 480);
constexpr size_t kShashSize = sizeof(shash_alg);
constexpr size_t kDescMax = sizeof(shash_desc) + 360; // HASH_MAX_DESCSIZE

constexpr unsigned long kMsgAlgLoaded = 2; // CRYPTO_MSG_ALG_LOADED

std::mutex g_mu;
std::vector<u8 *> g_algs;                      // registered crypto_algs
NotifierChain g_chain;                          // crypto_chain

// crypto_mod_get()/crypto_mod_put(): the provider's module stays while a
// tfm uses it (rmmod says it is busy).
mk::ModuleRec *provider(u8 *alg) {
  const u64 mod = field<u64>(alg, kCraModule);
  mk::Kernel *k = mk::curkernel();
  if (!mod || !k)
    return nullptr;
  mk::LinkerFile *f = k->linker().file_at(mod);
  return f && !f->modules.empty() ? f->modules.front().get() : nullptr;
}

u8 *find_locked(const char *name, u32 type) {
  u8 *best = nullptr;
  for (u8 *a : g_algs)
    if (alg_type(a) == type && driver_name(a) == name)
      return a;
  for (u8 *a : g_algs)
    if (alg_type(a) == type && alg_name(a) == name &&
        (!best || field<int>(a, kCraPriority) > field<int>(best, kCraPriority)))
      best = a;
  return best;
}
} // namespace

std::string driver_name(u8 *alg) {
  char *drv = (char *)alg + kCraDriverName;
  if (!drv[0]) // Linux names a driver after its algorithm
    std::memcpy(drv, alg + kCraName, kCraNameMax);
  return std::string(drv, ::strnlen(drv, kCraNameMax));
}
std::string alg_name(u8 *alg) {
  return std::string((char *)alg + kCraName, ::strnlen((char *)alg + kCraName, kCraNameMax));
}

int register_alg(u8 *alg) {
  const std::string name = driver_name(alg);
  {
    std::lock_guard g(g_mu);
    for (u8 *a : g_algs)
      if (driver_name(a) == name)
        return -EEXIST_;
    std::memcpy(alg + kCraRefcnt, "\1\0\0\0", 4); // refcount_set(1)
    g_algs.push_back(alg);
  }
  g_chain.call(kMsgAlgLoaded, alg);
  return 0;
}
void unregister_alg(u8 *alg) {
  std::lock_guard g(g_mu);
  g_algs.erase(std::remove(g_algs.begin(), g_algs.end(), alg), g_algs.end());
}

u8 *find_alg(const char *name, u32 type) {
  std::lock_guard g(g_mu);
  return find_locked(name, type);
}

void *alloc_tfm(const char *name, u32 type, size_t front, u64 caller) {
  u8 *alg;
  mk::ModuleRec *mod = nullptr;
  {
    std::lock_guard g(g_mu);
    if (!(alg = find_locked(name, type)))
      return (void *)(intptr_t)-ENOENT_;
    if ((mod = provider(alg)))
      mod->holds++;
  }
  const u32 mask = field<u32>(alg, kCraAlignmask);
  u8 *mem = (u8 *)alloc(front + sizeof(crypto_tfm) + field<u32>(alg, kCraCtxsize) +
                            (mask & ~7u),
                        kGfpZero, caller);
  if (!mem) {
    if (mod)
      mod->holds--;
    return (void *)(intptr_t)-ENOMEM_;
  }
  auto *tfm = (crypto_tfm *)(mem + front);
  tfm->refcnt = 1;
  tfm->node = -1; // NUMA_NO_NODE
  tfm->alg = alg;
  return mem;
}
void free_tfm(void *mem, crypto_tfm *tfm, u64 caller) {
  if (mk::ModuleRec *mod = provider(tfm->alg))
    mod->holds--;
  std::memset(mem, 0, alloc_size(mem, caller));
  release(mem, caller);
}

namespace {
shash_alg *shash_of(crypto_shash *tfm) {
  return (shash_alg *)(tfm->base.alg - offsetof(shash_alg, base));
}
unsigned long alignmask_of(crypto_shash *tfm) {
  return field<u32>(tfm->base.alg, kCraAlignmask);
}

// shash.c's unaligned paths: what the provider asks to be aligned goes
// through a buffer that is.
int update_unaligned(shash_desc *desc, const u8 *data, unsigned len) {
  shash_alg *alg = shash_of(desc->tfm);
  const unsigned long mask = alignmask_of(desc->tfm);
  if ((uintptr_t)data & mask) {
    u8 buf[2 * (kMaxAlignmask + 1)];
    u8 *a = aligned(buf, mask);
    unsigned n = (unsigned)(mask + 1 - ((uintptr_t)data & mask));
    n = std::min(n, len);
    std::memcpy(a, data, n);
    const int err = alg->update(desc, a, n);
    std::memset(a, 0, n);
    if (err)
      return err;
    data += n, len -= n;
  }
  return alg->update(desc, data, len);
}
int final_unaligned(shash_desc *desc, u8 *out) {
  shash_alg *alg = shash_of(desc->tfm);
  const unsigned long mask = alignmask_of(desc->tfm);
  if (!((uintptr_t)out & mask))
    return alg->final(desc, out);
  u8 buf[kMaxDigest + kMaxAlignmask + 1];
  u8 *a = aligned(buf, mask);
  const int err = alg->final(desc, a);
  if (!err)
    std::memcpy(out, a, alg->digestsize);
  std::memset(a, 0, alg->digestsize);
  return err;
}
int finup_unaligned(shash_desc *desc, const u8 *data, unsigned len, u8 *out) {
  if (int err = update_unaligned(desc, data, len))
    return err;
  return final_unaligned(desc, out);
}
int init_desc(shash_desc *desc) {
  if (desc->tfm->base.crt_flags & kTfmNeedKey)
    return -ENOKEY_;
  return shash_of(desc->tfm)->init(desc);
}
int digest_unaligned(shash_desc *desc, const u8 *data, unsigned len, u8 *out) {
  if (int err = init_desc(desc))
    return err;
  return finup_unaligned(desc, data, len, out);
}
int default_export(shash_desc *desc, void *out) {
  std::memcpy(out, desc + 1, desc->tfm->descsize);
  return 0;
}
int default_import(shash_desc *desc, const void *in) {
  std::memcpy(desc + 1, in, desc->tfm->descsize);
  return 0;
}
int no_setkey(crypto_shash *, const u8 *, unsigned) { return -ENOSYS_; }
void exit_tfm(crypto_tfm *tfm) {
  crypto_shash *hash = (crypto_shash *)((u8 *)tfm - offsetof(crypto_shash, base));
  shash_of(hash)->exit_tfm(hash);
}
void set_needkey(crypto_shash *tfm, shash_alg *alg) {
  if (alg->setkey != no_setkey &&
      !(field<u32>(alg->base, kCraFlags) & kAlgOptionalKey))
    tfm->base.crt_flags |= kTfmNeedKey;
}
} // namespace

int crypto_register_alg(u8 *alg) { return register_alg(alg); }
void crypto_unregister_alg(u8 *alg) { unregister_alg(alg); }
int crypto_register_algs(u8 *algs, int count) {
  return register_array(algs, count, kCraSize, crypto_register_alg, crypto_unregister_alg);
}
void crypto_unregister_algs(u8 *algs, int count) {
  unregister_array(algs, count, kCraSize, crypto_unregister_alg);
}
// shash_prepare_alg(): bounds checked, the type set, the optional
// functions filled in with shash.c's defaults; then registered, and the
// crypto notifier chain told it is loaded (crc-t10dif rehashes on it).
int crypto_register_shash(u8 *p) {
  shash_alg *alg = (shash_alg *)p;
  if (alg->digestsize > kMaxDigest || alg->descsize + sizeof(shash_desc) > kDescMax ||
      alg->statesize > kMaxState || !alg->init || !alg->update || !alg->final ||
      (alg->export_ && !alg->import_) || (alg->import_ && !alg->export_))
    return -EINVAL_;
  const u32 mask = field<u32>(alg->base, kCraAlignmask);
  if ((mask & (mask + 1)) || mask > kMaxAlignmask)
    return -EINVAL_;
  set_alg_type(alg->base, kAlgTypeShash);
  if (!alg->finup)
    alg->finup = finup_unaligned;
  if (!alg->digest)
    alg->digest = digest_unaligned;
  if (!alg->export_) {
    alg->export_ = default_export;
    alg->import_ = default_import;
    alg->statesize = alg->descsize;
  }
  if (!alg->setkey)
    alg->setkey = no_setkey;
  return register_alg(alg->base);
}
void crypto_unregister_shash(u8 *alg) {
  crypto_unregister_alg(alg + offsetof(shash_alg, base));
}
int crypto_register_shashes(u8 *algs, int count) {
  return register_array(algs, count, kShashSize, crypto_register_shash,
                        crypto_unregister_shash);
}
void crypto_unregister_shashes(u8 *algs, int count) {
  unregister_array(algs, count, kShashSize, crypto_unregister_shash);
}

int crypto_register_notifier(notifier_block *nb) { return g_chain.add(nb); }
int crypto_unregister_notifier(notifier_block *nb) { return g_chain.remove(nb); }

// crypto_alloc_shash(): the shash whose driver name is `name`, else the
// one of highest priority whose algorithm name is; -ENOENT if none is
// registered (Linux would ask modprobe for "crypto-NAME" first).
__attribute__((noinline)) void *crypto_alloc_shash(const char *name, u32, u32) {
  const u64 caller = LKPI_CALLER();
  void *mem = alloc_tfm(name, kAlgTypeShash, offsetof(crypto_shash, base), caller);
  if (is_err(mem))
    return mem;
  auto *tfm = (crypto_shash *)mem;
  shash_alg *alg = shash_of(tfm);
  tfm->descsize = alg->descsize;
  set_needkey(tfm, alg);
  if (alg->exit_tfm)
    tfm->base.exit = exit_tfm;
  int err = alg->init_tfm ? alg->init_tfm(tfm) : 0;
  if (!err && tfm->descsize + sizeof(shash_desc) > kDescMax) {
    if (alg->exit_tfm)
      alg->exit_tfm(tfm);
    err = -EINVAL_;
  }
  if (err) {
    free_tfm(tfm, &tfm->base, caller);
    return (void *)(intptr_t)err;
  }
  return tfm;
}
int crypto_has_shash(const char *name, u32, u32) {
  return find_alg(name, kAlgTypeShash) != nullptr;
}
void destroy_tfm(void *mem, crypto_tfm *tfm, u64 caller) {
  auto cra_exit = field<void (LKAPI *)(crypto_tfm *)>(tfm->alg, kCraExit);
  if (!tfm->exit && cra_exit)
    cra_exit(tfm);
  else if (tfm->exit)
    tfm->exit(tfm);
  free_tfm(mem, tfm, caller);
}
__attribute__((noinline)) void crypto_destroy_tfm(void *mem, crypto_tfm *tfm) {
  if (mem && !is_err(mem))
    destroy_tfm(mem, tfm, LKPI_CALLER());
}

int crypto_shash_update(shash_desc *desc, const u8 *data, unsigned len) {
  return update_unaligned(desc, data, len);
}
int crypto_shash_final(shash_desc *desc, u8 *out) {
  return final_unaligned(desc, out);
}
int crypto_shash_finup(shash_desc *desc, const u8 *data, unsigned len, u8 *out) {
  const unsigned long mask = alignmask_of(desc->tfm);
  if (((uintptr_t)data | (uintptr_t)out) & mask)
    return finup_unaligned(desc, data, len, out);
  return shash_of(desc->tfm)->finup(desc, data, len, out);
}
int crypto_shash_digest(shash_desc *desc, const u8 *data, unsigned len, u8 *out) {
  crypto_shash *tfm = desc->tfm;
  if (tfm->base.crt_flags & kTfmNeedKey)
    return -ENOKEY_;
  if (((uintptr_t)data | (uintptr_t)out) & alignmask_of(tfm))
    return digest_unaligned(desc, data, len, out);
  return shash_of(tfm)->digest(desc, data, len, out);
}
int crypto_shash_tfm_digest(crypto_shash *tfm, const u8 *data, unsigned len, u8 *out) {
  alignas(16) u8 buf[kDescMax];
  auto *desc = (shash_desc *)buf;
  desc->tfm = tfm;
  const int err = crypto_shash_digest(desc, data, len, out);
  std::memset(buf, 0, sizeof(shash_desc) + tfm->descsize);
  return err;
}
int crypto_shash_setkey(crypto_shash *tfm, const u8 *key, unsigned keylen) {
  shash_alg *alg = shash_of(tfm);
  if (int err = with_aligned_key(key, keylen, alignmask_of(tfm),
                                 [&](const u8 *k) { return alg->setkey(tfm, k, keylen); })) {
    set_needkey(tfm, alg);
    return err;
  }
  tfm->base.crt_flags &= ~kTfmNeedKey;
  return 0;
}

// ---- SHA-1 and SHA-256 as Debian builds them into vmlinux
// (lib/crypto/sha1.c, lib/crypto/sha256.c, crypto/sha1_generic.c,
// crypto/sha256_generic.c): the block functions, the library calls, the
// shash update and finup the arch modules fall back on, and the generic
// algorithms registered at boot as vmlinux registers its built-in ones.

namespace {
constexpr unsigned kShaBlock = 64;
// struct sha1_state and struct sha256_state (include/crypto/sha*.h).
template <unsigned N> struct ShaState {
  u32 state[N];
  u64 count;
  u8 buf[kShaBlock];
};
using Sha1State = ShaState<5>;
using Sha256State = ShaState<8>;
static_assert(sizeof(Sha1State) == 96 && offsetof(Sha1State, count) == 24 &&
              sizeof(Sha256State) == 104);

u32 rol(u32 x, int n) { return (x << n) | (x >> (32 - n)); }
u32 ror(u32 x, int n) { return (x >> n) | (x << (32 - n)); }
u32 be32(const u8 *p) { return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3]; }

void sha1_block(u32 *h, const u8 *p, u32 *w) {
  for (int i = 0; i < 16; i++)
    w[i] = be32(p + 4 * i);
  u32 a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int i = 0; i < 80; i++) {
    if (i >= 16)
      w[i % 16] = rol(w[(i + 13) % 16] ^ w[(i + 8) % 16] ^ w[(i + 2) % 16] ^ w[i % 16], 1);
    const u32 f = i < 20 ? (b & c) | (~b & d) : i < 40 ? b ^ c ^ d
                : i < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
    const u32 k = i < 20 ? 0x5a827999 : i < 40 ? 0x6ed9eba1 : i < 60 ? 0x8f1bbcdc : 0xca62c1d6;
    const u32 t = rol(a, 5) + f + e + k + w[i % 16];
    e = d, d = c, c = rol(b, 30), b = a, a = t;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void sha256_block(u32 *h, const u8 *p) {
  static const u32 k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  u32 w[64];
  for (int i = 0; i < 16; i++)
    w[i] = be32(p + 4 * i);
  for (int i = 16; i < 64; i++)
    w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
           w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
  u32 a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    const u32 t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
    const u32 t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

template <unsigned N> void blocks(ShaState<N> *s, const u8 *p, unsigned n) {
  for (; n; n--, p += kShaBlock)
    if constexpr (N == 5) {
      u32 w[16];
      sha1_block(s->state, p, w);
    } else {
      sha256_block(s->state, p);
    }
}

// sha1_base_do_update() and the rest of include/crypto/sha*_base.h.
template <unsigned N> void sha_update(ShaState<N> *s, const u8 *data, unsigned len) {
  unsigned partial = s->count % kShaBlock;
  s->count += len;
  if (partial + len >= kShaBlock) {
    if (partial) {
      const unsigned p = kShaBlock - partial;
      std::memcpy(s->buf + partial, data, p);
      data += p, len -= p;
      blocks(s, s->buf, 1);
    }
    blocks(s, data, len / kShaBlock);
    data += len / kShaBlock * kShaBlock;
    len %= kShaBlock;
    partial = 0;
  }
  if (len)
    std::memcpy(s->buf + partial, data, len);
}
template <unsigned N> void sha_final(ShaState<N> *s, u8 *out, unsigned digest) {
  const unsigned at = kShaBlock - 8;
  unsigned partial = s->count % kShaBlock;
  s->buf[partial++] = 0x80;
  if (partial > at) {
    std::memset(s->buf + partial, 0, kShaBlock - partial);
    partial = 0;
    blocks(s, s->buf, 1);
  }
  std::memset(s->buf + partial, 0, at - partial);
  const u64 bits = s->count << 3;
  for (int i = 0; i < 8; i++)
    s->buf[at + i] = (u8)(bits >> (56 - 8 * i));
  blocks(s, s->buf, 1);
  for (unsigned i = 0; i < digest / 4; i++)
    for (int j = 0; j < 4; j++)
      out[4 * i + j] = (u8)(s->state[i] >> (24 - 8 * j));
  std::memset((void *)s, 0, sizeof *s);
}

constexpr u32 kSha1Init[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
constexpr u32 kSha256Init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
constexpr u32 kSha224Init[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};

template <class S> S *ctx_of(shash_desc *desc) { return (S *)(desc + 1); }
unsigned digest_of(shash_desc *desc) { return shash_of(desc->tfm)->digestsize; }
} // namespace

void sha1_init(u32 *h) { std::memcpy(h, kSha1Init, sizeof kSha1Init); }
void sha1_transform(u32 *digest, const char *data, u32 *w) {
  sha1_block(digest, (const u8 *)data, w);
}
void sha256_update(Sha256State *s, const u8 *data, unsigned len) { sha_update(s, data, len); }
void sha256_final(Sha256State *s, u8 *out) { sha_final(s, out, 32); }
void sha256(const u8 *data, unsigned len, u8 *out) {
  Sha256State s{};
  std::memcpy(s.state, kSha256Init, sizeof kSha256Init);
  sha_update(&s, data, len);
  sha_final(&s, out, 32);
}

namespace {
// The shash forms, over the state in the desc; the digest is the tfm's
// (sha224 and sha256 share these).
template <class S> int shash_update(shash_desc *desc, const u8 *data, unsigned len) {
  sha_update(ctx_of<S>(desc), data, len);
  return 0;
}
template <class S>
int shash_finup(shash_desc *desc, const u8 *data, unsigned len, u8 *out) {
  if (len)
    sha_update(ctx_of<S>(desc), data, len);
  sha_final(ctx_of<S>(desc), out, digest_of(desc));
  return 0;
}
} // namespace

int crypto_sha1_update(shash_desc *desc, const u8 *data, unsigned len) {
  return shash_update<Sha1State>(desc, data, len);
}
int crypto_sha1_finup(shash_desc *desc, const u8 *data, unsigned len, u8 *out) {
  return shash_finup<Sha1State>(desc, data, len, out);
}
int crypto_sha256_update(shash_desc *desc, const u8 *data, unsigned len) {
  return shash_update<Sha256State>(desc, data, len);
}
int crypto_sha256_finup(shash_desc *desc, const u8 *data, unsigned len, u8 *out) {
  return shash_finup<Sha256State>(desc, data, len, out);
}

namespace {
int sha1_generic_init(shash_desc *desc) {
  *ctx_of<Sha1State>(desc) = {};
  sha1_init(ctx_of<Sha1State>(desc)->state);
  return 0;
}
int sha256_generic_init(shash_desc *desc) {
  *ctx_of<Sha256State>(desc) = {};
  std::memcpy(ctx_of<Sha256State>(desc)->state, kSha256Init, sizeof kSha256Init);
  return 0;
}
int sha224_generic_init(shash_desc *desc) {
  *ctx_of<Sha256State>(desc) = {};
  std::memcpy(ctx_of<Sha256State>(desc)->state, kSha224Init, sizeof kSha224Init);
  return 0;
}
int sha1_generic_final(shash_desc *desc, u8 *out) { return crypto_sha1_finup(desc, nullptr, 0, out); }
int sha256_generic_final(shash_desc *desc, u8 *out) { return crypto_sha256_finup(desc, nullptr, 0, out); }

// vmlinux's built-in algorithms, registered before any module loads.
struct BuiltinShas {
  shash_alg algs[3] = {};
  BuiltinShas() {
    struct Def {
      const char *name, *driver;
      int (LKAPI *init)(shash_desc *);
      int (LKAPI *update)(shash_desc *, const u8 *, unsigned);
      int (LKAPI *final)(shash_desc *, u8 *);
      int (LKAPI *finup)(shash_desc *, const u8 *, unsigned, u8 *);
      unsigned descsize, digest;
    } defs[3] = {
        {"sha1", "sha1-generic", sha1_generic_init, crypto_sha1_update,
         sha1_generic_final, crypto_sha1_finup, sizeof(Sha1State), 20},
        {"sha224", "sha224-generic", sha224_generic_init, crypto_sha256_update,
         sha256_generic_final, crypto_sha256_finup, sizeof(Sha256State), 28},
        {"sha256", "sha256-generic", sha256_generic_init, crypto_sha256_update,
         sha256_generic_final, crypto_sha256_finup, sizeof(Sha256State), 32}};
    for (int i = 0; i < 3; i++) {
      shash_alg &a = algs[i];
      a.init = defs[i].init, a.update = defs[i].update, a.final = defs[i].final;
      a.finup = defs[i].finup;
      a.descsize = defs[i].descsize, a.digestsize = defs[i].digest;
      std::strcpy((char *)a.base + kCraName, defs[i].name);
      std::strcpy((char *)a.base + kCraDriverName, defs[i].driver);
      field<int>(a.base, kCraPriority) = 100;
      field<u32>(a.base, 36) = kShaBlock; // cra_blocksize
      crypto_register_shash((u8 *)&a);
    }
  }
} g_builtin_shas;
} // namespace

LINUX_EXPORT_GPL(crypto_register_alg);
LINUX_EXPORT_GPL(crypto_unregister_alg);
LINUX_EXPORT_GPL(crypto_register_algs);
LINUX_EXPORT_GPL(crypto_unregister_algs);
LINUX_EXPORT_GPL(crypto_register_shash);
LINUX_EXPORT_GPL(crypto_unregister_shash);
LINUX_EXPORT_GPL(crypto_register_shashes);
LINUX_EXPORT_GPL(crypto_unregister_shashes);
LINUX_EXPORT_GPL(crypto_register_notifier);
LINUX_EXPORT_GPL(crypto_unregister_notifier);
LINUX_EXPORT_GPL(crypto_alloc_shash);
LINUX_EXPORT_GPL(crypto_has_shash);
LINUX_EXPORT_GPL(crypto_destroy_tfm);
LINUX_EXPORT_GPL(crypto_shash_update);
LINUX_EXPORT_GPL(crypto_shash_final);
LINUX_EXPORT_GPL(crypto_shash_finup);
LINUX_EXPORT_GPL(crypto_shash_digest);
LINUX_EXPORT_GPL(crypto_shash_tfm_digest);
LINUX_EXPORT_GPL(crypto_shash_setkey);
LINUX_EXPORT(sha1_init);
LINUX_EXPORT(sha1_transform);
LINUX_EXPORT(sha256_update);
LINUX_EXPORT(sha256_final);
LINUX_EXPORT(sha256);
LINUX_EXPORT(crypto_sha1_update);
LINUX_EXPORT(crypto_sha1_finup);
LINUX_EXPORT(crypto_sha256_update);
LINUX_EXPORT(crypto_sha256_finup);

} // namespace lkpi

#endif // __x86_64__
