// What the crypto API's front ends share (crypto/api.c, crypto/algapi.c
// in Linux): struct crypto_alg's fields, the registry of algorithms by
// driver name and type, and a tfm's allocation, which holds the
// provider's module as crypto_mod_get() does.  x86_64 layouts (Linux 6.1,
// Debian's config: no CONFIG_CRYPTO_STATS), measured with a probe module
// built by Debian's kbuild.
#pragma once

#include "lkpi.h"

#if defined(__x86_64__)

#include <cstring>
#include <string>
#include <vector>

namespace lkpi {

// struct crypto_alg: 384 bytes.
constexpr size_t kCraFlags = 32, kCraBlocksize = 36, kCraCtxsize = 40,
                 kCraAlignmask = 44, kCraPriority = 48, kCraRefcnt = 52,
                 kCraName = 56, kCraDriverName = 184, kCraNameMax = 128,
                 kCraExit = 360, kCraModule = 376, kCraSize = 384;
// cra_flags' type field and the flags read here.
constexpr u32 kAlgTypeMask = 0xf, kAlgTypeSkcipher = 0x5, kAlgTypeShash = 0xe,
              kAlgOptionalKey = 0x4000;
// crypto_tfm.crt_flags: CRYPTO_TFM_NEED_KEY.
constexpr u32 kTfmNeedKey = 1;
constexpr int EEXIST_ = 17, ENOENT_ = 2, EINVAL_ = 22, ENOSYS_ = 38,
              ENOKEY_ = 126, ENOMEM_ = 12;

template <class T> T &field(u8 *alg, size_t off) { return *(T *)(alg + off); }
inline bool is_err(const void *p) { return (uintptr_t)p >= (uintptr_t)-4095; }

struct crypto_tfm {
  u32 refcnt;
  u32 crt_flags;
  int node;
  void (LKAPI *exit)(crypto_tfm *);
  u8 *alg; // struct crypto_alg
  // the context follows (__crt_ctx, CRYPTO_MINALIGN)
};
static_assert(sizeof(crypto_tfm) == 32);

inline u32 alg_type(u8 *alg) { return field<u32>(alg, kCraFlags) & kAlgTypeMask; }
// What each crypto_register_*() does to cra_flags: the type its front
// end serves.
inline void set_alg_type(u8 *alg, u32 type) {
  u32 &flags = field<u32>(alg, kCraFlags);
  flags = (flags & ~kAlgTypeMask) | type;
}
std::string alg_name(u8 *alg);
// cra_driver_name, set to cra_name when the provider left it empty.
std::string driver_name(u8 *alg);

// Registers `alg` under its driver name (-EEXIST if taken), then tells
// the crypto notifier chain it is loaded.
int register_alg(u8 *alg);
void unregister_alg(u8 *alg);

// The registered algorithm of type `type` whose driver name is `name`,
// else the one of highest priority whose algorithm name is; null if none.
u8 *find_alg(const char *name, u32 type);

// crypto_alloc_tfm(): the front end's own structure, whose struct
// crypto_tfm is at offset `front`, then the provider's context (its
// cra_ctxsize, with room to align it to cra_alignmask).  Zeroed, the tfm
// pointing at the algorithm found by find_alg(), and the provider's
// module held until free_tfm().  An ERR_PTR when there is no such
// algorithm or no memory.
void *alloc_tfm(const char *name, u32 type, size_t front, u64 caller);
// Undoes alloc_tfm() when the front end's own initialisation failed.
void free_tfm(void *mem, crypto_tfm *tfm, u64 caller);
// crypto_destroy_tfm(): the provider's exit, then free_tfm().
void destroy_tfm(void *mem, crypto_tfm *tfm, u64 caller);

// crypto_create_tfm() for a front end whose tfm is `Tfm` (a crypto_tfm
// `base`) and whose algorithm is `Alg` (init and exit taking a Tfm, the
// crypto_alg `base`): alloc_tfm(), `prepare(tfm, alg)`, the provider's
// exit hooked for destroy_tfm(), then its init; undone if init fails.
template <class Alg> Alg *alg_of(crypto_tfm *tfm) {
  return (Alg *)(tfm->alg - offsetof(Alg, base));
}
template <class Tfm, class Alg> void exit_tfm_as(crypto_tfm *tfm) {
  alg_of<Alg>(tfm)->exit((Tfm *)((u8 *)tfm - offsetof(Tfm, base)));
}
template <class Tfm, class Alg, class Prepare>
void *create_tfm(const char *name, u32 type, u64 caller, Prepare prepare) {
  void *mem = alloc_tfm(name, type, offsetof(Tfm, base), caller);
  if (is_err(mem))
    return mem;
  auto *tfm = (Tfm *)mem;
  Alg *alg = alg_of<Alg>(&tfm->base);
  prepare(tfm, alg);
  if (alg->exit)
    tfm->base.exit = exit_tfm_as<Tfm, Alg>;
  if (int err = alg->init ? alg->init(tfm) : 0) {
    free_tfm(tfm, &tfm->base, caller);
    return (void *)(intptr_t)err;
  }
  return tfm;
}

// crypto_register_*s(): each of `count` algorithms `size` bytes apart,
// in order; on a failure the ones before it are unregistered again.
template <class Reg, class Unreg>
int register_array(u8 *algs, int count, size_t size, Reg reg, Unreg unreg) {
  for (int i = 0; i < count; i++)
    if (int r = reg(algs + (size_t)i * size); r) {
      while (i--)
        unreg(algs + (size_t)i * size);
      return r;
    }
  return 0;
}
template <class Unreg> void unregister_array(u8 *algs, int count, size_t size, Unreg unreg) {
  for (int i = count; i-- > 0;)
    unreg(algs + (size_t)i * size);
}

inline u8 *aligned(u8 *buf, unsigned long mask) {
  return (u8 *)(((uintptr_t)buf + mask) & ~(uintptr_t)mask);
}

// setkey(key) with the key where the provider's alignmask wants it: a
// misaligned key is copied to an aligned buffer, wiped afterwards.
template <class SetKey>
int with_aligned_key(const u8 *key, unsigned keylen, unsigned long mask, SetKey setkey) {
  if (!((uintptr_t)key & mask))
    return setkey(key);
  std::vector<u8> buf(keylen + mask + 1);
  u8 *a = aligned(buf.data(), mask);
  std::memcpy(a, key, keylen);
  const int err = setkey(a);
  std::memset(a, 0, keylen);
  return err;
}

} // namespace lkpi

#endif // __x86_64__
