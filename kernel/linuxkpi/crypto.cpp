// The crypto API's registration of algorithm providers
// (crypto_register_alg/algs/shash/shashes, as Debian's crypto/*_generic
// modules call them) and its synchronous hash front end (crypto/shash.c):
// crypto_alloc_shash() finds a registered shash by name, the update,
// final, finup and digest calls run the provider's functions, aligning
// what it asks to be aligned, and a tfm holds the provider's module as
// crypto_mod_get() does.  Consumers such as Debian's libcrc32c,
// crc-t10dif and crc64-rocksoft bind these.  Also lib/textsearch.c's
// textsearch_register.  The offsets are x86_64's: the i386 build, which
// loads no Linux module yet, leaves these out.
#include "lkpi.h"

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
constexpr int EEXIST_ = 17, ENOENT_ = 2, EINVAL_ = 22, ENOSYS_ = 38,
              ENOKEY_ = 126;

// struct crypto_alg (Linux 6.1, x86_64, Debian's config: no
// CONFIG_CRYPTO_STATS): 384 bytes.
constexpr size_t kCraFlags = 32, kCraCtxsize = 40, kCraAlignmask = 44,
                 kCraPriority = 48, kCraRefcnt = 52, kCraName = 56,
                 kCraDriverName = 184, kCraNameMax = 128, kCraExit = 360,
                 kCraModule = 376, kCraSize = 384;
constexpr u32 kAlgTypeMask = 0xf, kAlgTypeShash = 0xe, kAlgOptionalKey = 0x4000;
constexpr u32 kTfmNeedKey = 1;
// include/crypto/hash.h's bounds.
constexpr unsigned kMaxDigest = 64, kMaxState = 512, kMaxAlignmask = 127;

struct shash_desc;
struct crypto_tfm {
  u32 refcnt;
  u32 crt_flags;
  int node;
  void (*exit)(crypto_tfm *);
  u8 *alg; // struct crypto_alg
  // the context follows
};
struct crypto_shash {
  unsigned descsize;
  crypto_tfm base;
};
struct shash_desc {
  crypto_shash *tfm;
  // the context follows
};
struct shash_alg {
  int (*init)(shash_desc *);
  int (*update)(shash_desc *, const u8 *, unsigned);
  int (*final)(shash_desc *, u8 *);
  int (*finup)(shash_desc *, const u8 *, unsigned, u8 *);
  int (*digest)(shash_desc *, const u8 *, unsigned, u8 *);
  int (*export_)(shash_desc *, void *);
  int (*import_)(shash_desc *, const void *);
  int (*setkey)(crypto_shash *, const u8 *, unsigned);
  int (*init_tfm)(crypto_shash *);
  void (*exit_tfm)(crypto_shash *);
  unsigned descsize;
  unsigned digestsize alignas(8);
  unsigned statesize;
  u8 base[kCraSize];
};
static_assert(sizeof(crypto_tfm) == 32 && sizeof(crypto_shash) == 40 &&
              offsetof(shash_alg, descsize) == 80 &&
              offsetof(shash_alg, digestsize) == 88 &&
              offsetof(shash_alg, base) == 96 && sizeof(shash_alg) == 480);
constexpr size_t kShashSize = sizeof(shash_alg);
constexpr size_t kDescMax = sizeof(shash_desc) + 360; // HASH_MAX_DESCSIZE

template <class T> T &field(u8 *alg, size_t off) { return *(T *)(alg + off); }

// struct notifier_block.
struct notifier_block {
  int (*notifier_call)(notifier_block *, unsigned long, void *);
  notifier_block *next;
  int priority;
};
constexpr unsigned long kMsgAlgLoaded = 2; // CRYPTO_MSG_ALG_LOADED

std::mutex g_mu;
std::set<std::string> g_crypto;                // driver names registered
std::vector<shash_alg *> g_shash;              // those that are shashes
std::set<std::pair<std::string, void *>> g_ts; // textsearch: name, ops
notifier_block *g_chain = nullptr;              // crypto_chain, by priority

std::string driver_name(u8 *alg) {
  char *drv = (char *)alg + kCraDriverName;
  if (!drv[0]) // Linux names a driver after its algorithm
    std::memcpy(drv, alg + kCraName, kCraNameMax);
  return std::string(drv, ::strnlen(drv, kCraNameMax));
}
std::string alg_name(u8 *alg) {
  return std::string((char *)alg + kCraName, ::strnlen((char *)alg + kCraName, kCraNameMax));
}

// The blocking notifier chain, called with no lock of ours held (a
// notifier may well allocate a tfm).
void notify(unsigned long msg, void *data) {
  std::vector<notifier_block *> nbs;
  {
    std::lock_guard g(g_mu);
    for (notifier_block *nb = g_chain; nb; nb = nb->next)
      nbs.push_back(nb);
  }
  for (notifier_block *nb : nbs)
    if (nb->notifier_call(nb, msg, data) & 0x8000) // NOTIFY_STOP_MASK
      break;
}

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

shash_alg *shash_of(crypto_shash *tfm) {
  return (shash_alg *)(tfm->base.alg - offsetof(shash_alg, base));
}
unsigned long alignmask_of(crypto_shash *tfm) {
  return field<u32>(tfm->base.alg, kCraAlignmask);
}
u8 *aligned(u8 *buf, unsigned long mask) {
  return (u8 *)(((uintptr_t)buf + mask) & ~(uintptr_t)mask);
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

int crypto_register_alg(u8 *alg) {
  const std::string name = driver_name(alg);
  std::lock_guard g(g_mu);
  if (!g_crypto.insert(name).second)
    return -EEXIST_;
  std::memcpy(alg + kCraRefcnt, "\1\0\0\0", 4); // refcount_set(1)
  return 0;
}
void crypto_unregister_alg(u8 *alg) {
  const std::string name = driver_name(alg);
  std::lock_guard g(g_mu);
  g_crypto.erase(name);
  g_shash.erase(std::remove(g_shash.begin(), g_shash.end(),
                            (shash_alg *)(alg - offsetof(shash_alg, base))),
                g_shash.end());
}
int crypto_register_algs(u8 *algs, int count) {
  for (int i = 0; i < count; i++)
    if (int r = crypto_register_alg(algs + (size_t)i * kCraSize); r) {
      while (i--)
        crypto_unregister_alg(algs + (size_t)i * kCraSize);
      return r;
    }
  return 0;
}
void crypto_unregister_algs(u8 *algs, int count) {
  for (int i = count; i-- > 0;)
    crypto_unregister_alg(algs + (size_t)i * kCraSize);
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
  u32 &flags = field<u32>(alg->base, kCraFlags);
  flags = (flags & ~kAlgTypeMask) | kAlgTypeShash;
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
  if (int r = crypto_register_alg(alg->base))
    return r;
  {
    std::lock_guard g(g_mu);
    g_shash.push_back(alg);
  }
  notify(kMsgAlgLoaded, alg->base);
  return 0;
}
void crypto_unregister_shash(u8 *alg) {
  crypto_unregister_alg(alg + offsetof(shash_alg, base));
}
int crypto_register_shashes(u8 *algs, int count) {
  for (int i = 0; i < count; i++)
    if (int r = crypto_register_shash(algs + (size_t)i * kShashSize); r) {
      while (i--)
        crypto_unregister_shash(algs + (size_t)i * kShashSize);
      return r;
    }
  return 0;
}
void crypto_unregister_shashes(u8 *algs, int count) {
  for (int i = count; i-- > 0;)
    crypto_unregister_shash(algs + (size_t)i * kShashSize);
}

int crypto_register_notifier(notifier_block *nb) {
  std::lock_guard g(g_mu);
  notifier_block **at = &g_chain;
  while (*at && (*at)->priority >= nb->priority)
    at = &(*at)->next;
  nb->next = *at;
  *at = nb;
  return 0;
}
int crypto_unregister_notifier(notifier_block *nb) {
  std::lock_guard g(g_mu);
  for (notifier_block **at = &g_chain; *at; at = &(*at)->next)
    if (*at == nb) {
      *at = nb->next;
      return 0;
    }
  return -ENOENT_;
}

// crypto_alloc_shash(): the shash whose driver name is `name`, else the
// one of highest priority whose algorithm name is; -ENOENT if none is
// registered (Linux would ask modprobe for "crypto-NAME" first).
__attribute__((noinline)) void *crypto_alloc_shash(const char *name, u32, u32) {
  const u64 caller = LKPI_CALLER();
  shash_alg *alg = nullptr;
  mk::ModuleRec *mod = nullptr;
  {
    std::lock_guard g(g_mu);
    for (shash_alg *a : g_shash)
      if (driver_name(a->base) == name) {
        alg = a;
        break;
      }
    if (!alg)
      for (shash_alg *a : g_shash)
        if (alg_name(a->base) == name &&
            (!alg || field<int>(a->base, kCraPriority) >
                         field<int>(alg->base, kCraPriority)))
          alg = a;
    if (!alg)
      return (void *)(intptr_t)-ENOENT_;
    if ((mod = provider(alg->base)))
      mod->holds++;
  }
  const unsigned mask = field<u32>(alg->base, kCraAlignmask);
  auto *tfm = (crypto_shash *)alloc(sizeof(crypto_shash) +
                                        field<u32>(alg->base, kCraCtxsize) +
                                        (mask & ~7u),
                                    kGfpZero, caller);
  if (!tfm) {
    if (mod)
      mod->holds--;
    return (void *)(intptr_t)-12; // -ENOMEM
  }
  tfm->base.refcnt = 1;
  tfm->base.node = -1; // NUMA_NO_NODE
  tfm->base.alg = alg->base;
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
    release(tfm, caller);
    if (mod)
      mod->holds--;
    return (void *)(intptr_t)err;
  }
  return tfm;
}
int crypto_has_shash(const char *name, u32, u32) {
  std::lock_guard g(g_mu);
  for (shash_alg *a : g_shash)
    if (driver_name(a->base) == name || alg_name(a->base) == name)
      return 1;
  return 0;
}
__attribute__((noinline)) void crypto_destroy_tfm(void *mem, crypto_tfm *tfm) {
  const u64 caller = LKPI_CALLER();
  if ((uintptr_t)mem == 0 || (uintptr_t)mem >= (uintptr_t)-4095)
    return;
  u8 *alg = tfm->alg;
  auto cra_exit = field<void (*)(crypto_tfm *)>(alg, kCraExit);
  if (!tfm->exit && cra_exit)
    cra_exit(tfm);
  else if (tfm->exit)
    tfm->exit(tfm);
  if (mk::ModuleRec *mod = provider(alg))
    mod->holds--;
  std::memset(mem, 0, alloc_size(mem, caller));
  release(mem, caller);
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
  const unsigned long mask = alignmask_of(tfm);
  int err;
  if ((uintptr_t)key & mask) {
    std::vector<u8> buf(keylen + mask + 1);
    u8 *a = aligned(buf.data(), mask);
    std::memcpy(a, key, keylen);
    err = alg->setkey(tfm, a, keylen);
    std::memset(a, 0, keylen);
  } else {
    err = alg->setkey(tfm, key, keylen);
  }
  if (err) {
    set_needkey(tfm, alg);
    return err;
  }
  tfm->base.crt_flags &= ~kTfmNeedKey;
  return 0;
}

// struct ts_ops: its name is the first field.
int textsearch_register(void *ops) {
  const std::string name = *(const char **)ops;
  std::lock_guard g(g_mu);
  for (auto &[n, o] : g_ts)
    if (n == name)
      return -EEXIST_;
  g_ts.emplace(name, ops);
  return 0;
}
int textsearch_unregister(void *ops) {
  std::lock_guard g(g_mu);
  return g_ts.erase({*(const char **)ops, ops}) ? 0 : -ENOENT_;
}

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
LINUX_EXPORT(textsearch_register);
LINUX_EXPORT(textsearch_unregister);

} // namespace lkpi

#endif // __x86_64__
