// The crypto API's random number generators (crypto/rng.c): providers
// register rngs, consumers allocate one by name, and the shared default
// ("stdrng", which ecc's key generation draws from) is taken and given
// back with crypto_get_default_rng()/crypto_put_default_rng().
//
// vmlinux builds a DRBG in as its stdrng; here the built-in stdrng is the
// host's getrandom(2), the same source get_random_bytes() reads, under the
// driver name "getrandom".  A provider module that registers a stdrng of
// higher priority (Debian's drbg, ansi_cprng) is taken instead.
#include "crypto.h"

#if defined(__x86_64__)

#include <cstring>
#include <mutex>

namespace lkpi {

void get_random_bytes(void *buf, size_t n); // lib.cpp

namespace {
constexpr u32 kAlgTypeRng = 0xc;

struct crypto_rng {
  crypto_tfm base;
};
struct rng_alg {
  int (LKAPI *generate)(crypto_rng *, const u8 *, unsigned, u8 *, unsigned);
  int (LKAPI *seed)(crypto_rng *, const u8 *, unsigned);
  void (LKAPI *set_ent)(crypto_rng *, const u8 *, unsigned);
  unsigned seedsize;
  alignas(8) u8 base[kCraSize];
};
static_assert(offsetof(rng_alg, seedsize) == 24 && offsetof(rng_alg, base) == 32 &&
              sizeof(rng_alg) == 416);

rng_alg *rng_of(crypto_rng *tfm) {
  return (rng_alg *)(tfm->base.alg - offsetof(rng_alg, base));
}

int getrandom_generate(crypto_rng *, const u8 *, unsigned, u8 *dst, unsigned dlen) {
  get_random_bytes(dst, dlen);
  return 0;
}
int getrandom_seed(crypto_rng *, const u8 *, unsigned) { return 0; }

// Registered by a static initialiser: the registry (crypto.cpp) is
// constant-initialised, so it is there whatever the order.
struct BuiltinRng {
  rng_alg alg{};
  BuiltinRng() {
    alg.generate = getrandom_generate;
    alg.seed = getrandom_seed;
    std::strcpy((char *)alg.base + kCraName, "stdrng");
    std::strcpy((char *)alg.base + kCraDriverName, "getrandom");
    field<int>(alg.base, kCraPriority) = 100;
    field<u32>(alg.base, kCraFlags) = kAlgTypeRng;
    register_alg(alg.base);
  }
} g_builtin_rng;

std::mutex g_default_mu;
unsigned g_default_users = 0;
} // namespace

crypto_rng *crypto_default_rng = nullptr;

int crypto_register_rng(rng_alg *alg) {
  if (alg->seedsize > 4096 / 8 || !alg->generate || !alg->seed)
    return -EINVAL_;
  set_alg_type(alg->base, kAlgTypeRng);
  return register_alg(alg->base);
}
void crypto_unregister_rng(rng_alg *alg) { unregister_alg(alg->base); }
int crypto_register_rngs(rng_alg *algs, int count) {
  return register_array(
      (u8 *)algs, count, sizeof *algs,
      [](u8 *a) { return crypto_register_rng((rng_alg *)a); },
      [](u8 *a) { crypto_unregister_rng((rng_alg *)a); });
}
void crypto_unregister_rngs(rng_alg *algs, int count) {
  unregister_array((u8 *)algs, count, sizeof *algs,
                   [](u8 *a) { crypto_unregister_rng((rng_alg *)a); });
}

__attribute__((noinline)) void *crypto_alloc_rng(const char *name, u32, u32) {
  return alloc_tfm(name, kAlgTypeRng, offsetof(crypto_rng, base), LKPI_CALLER());
}

// Seeds the rng with `seed`, or with `slen` bytes of the host's entropy
// when there is none.
int crypto_rng_reset(crypto_rng *tfm, const u8 *seed, unsigned slen) {
  u8 *buf = nullptr;
  if (!seed && slen) {
    if (!(buf = (u8 *)alloc(slen, 0, 0)))
      return -ENOMEM_;
    get_random_bytes(buf, slen);
    seed = buf;
  }
  const int err = rng_of(tfm)->seed(tfm, seed, slen);
  if (buf) {
    std::memset(buf, 0, slen);
    release(buf, 0);
  }
  return err;
}

// The default rng is made at its first user and freed when the last
// one puts it back (Linux keeps it until crypto_del_default_rng()), so
// a provider module it came from is held only while it is used.
int crypto_get_default_rng() {
  std::lock_guard g(g_default_mu);
  if (!crypto_default_rng) {
    void *rng = alloc_tfm("stdrng", kAlgTypeRng, offsetof(crypto_rng, base), 0);
    if (is_err(rng))
      return (int)(intptr_t)rng;
    auto *tfm = (crypto_rng *)rng;
    if (int err = crypto_rng_reset(tfm, nullptr, rng_of(tfm)->seedsize)) {
      free_tfm(tfm, &tfm->base, 0);
      return err;
    }
    crypto_default_rng = tfm;
  }
  g_default_users++;
  return 0;
}
__attribute__((noinline)) void crypto_put_default_rng() {
  std::lock_guard g(g_default_mu);
  if (g_default_users && !--g_default_users) {
    destroy_tfm(crypto_default_rng, &crypto_default_rng->base, 0);
    crypto_default_rng = nullptr;
  }
}

LINUX_EXPORT_GPL(crypto_register_rng);
LINUX_EXPORT_GPL(crypto_unregister_rng);
LINUX_EXPORT_GPL(crypto_register_rngs);
LINUX_EXPORT_GPL(crypto_unregister_rngs);
LINUX_EXPORT_GPL(crypto_alloc_rng);
LINUX_EXPORT_GPL(crypto_rng_reset);
LINUX_EXPORT_GPL(crypto_default_rng);
LINUX_EXPORT_GPL(crypto_get_default_rng);
LINUX_EXPORT_GPL(crypto_put_default_rng);

} // namespace lkpi

#endif // __x86_64__
