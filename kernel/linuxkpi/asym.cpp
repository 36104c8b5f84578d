// The crypto API's asymmetric front ends (crypto/kpp.c, crypto/akcipher.c):
// key agreement (Debian's curve25519-x86_64, ecdh_generic) and public-key
// ciphers and signatures (ecrdsa_generic).  Providers register; consumers
// allocate a tfm by name and run requests through the provider's
// functions, which Linux's inline crypto_kpp_*() and crypto_akcipher_*()
// call straight from the consumer's code.
#include "crypto.h"

#if defined(__x86_64__)

namespace lkpi {

namespace {
constexpr u32 kAlgTypeAkcipher = 0x6, kAlgTypeKpp = 0x8;

// 6.1's tfms are the bare crypto_tfm; the request size is the alg's.
struct crypto_kpp {
  crypto_tfm base;
};
struct kpp_alg {
  void *set_secret, *generate_public_key, *compute_shared_secret, *max_size;
  int (LKAPI *init)(crypto_kpp *);
  void (LKAPI *exit)(crypto_kpp *);
  unsigned reqsize;
  alignas(8) u8 base[kCraSize];
};
static_assert(offsetof(kpp_alg, base) == 56 && sizeof(kpp_alg) == 440);

struct crypto_akcipher {
  crypto_tfm base;
};
struct akcipher_alg {
  int (LKAPI *sign)(void *), (LKAPI *verify)(void *), (LKAPI *encrypt)(void *), (LKAPI *decrypt)(void *);
  int (LKAPI *set_pub_key)(crypto_akcipher *, const void *, unsigned);
  int (LKAPI *set_priv_key)(crypto_akcipher *, const void *, unsigned);
  void *max_size;
  int (LKAPI *init)(crypto_akcipher *);
  void (LKAPI *exit)(crypto_akcipher *);
  unsigned reqsize;
  alignas(8) u8 base[kCraSize];
};
static_assert(offsetof(akcipher_alg, max_size) == 48 &&
              offsetof(akcipher_alg, base) == 80 && sizeof(akcipher_alg) == 464);

int no_op(void *) { return -ENOSYS_; }
int no_key(crypto_akcipher *, const void *, unsigned) { return -ENOSYS_; }
} // namespace

// kpp_prepare_alg(); every function is the provider's to give.
int crypto_register_kpp(kpp_alg *alg) {
  if (!alg->set_secret || !alg->generate_public_key ||
      !alg->compute_shared_secret || !alg->max_size)
    return -EINVAL_;
  set_alg_type(alg->base, kAlgTypeKpp);
  return register_alg(alg->base);
}
void crypto_unregister_kpp(kpp_alg *alg) { unregister_alg(alg->base); }

__attribute__((noinline)) void *crypto_alloc_kpp(const char *name, u32, u32) {
  return create_tfm<crypto_kpp, kpp_alg>(name, kAlgTypeKpp, LKPI_CALLER(),
                                         [](crypto_kpp *, kpp_alg *) {});
}
int crypto_has_kpp(const char *name, u32, u32) {
  return find_alg(name, kAlgTypeKpp) != nullptr;
}

// akcipher_prepare_alg(): what the provider leaves out says -ENOSYS.
int crypto_register_akcipher(akcipher_alg *alg) {
  if (!alg->set_pub_key || !alg->max_size)
    return -EINVAL_;
  for (int (**op)(void *) : {&alg->sign, &alg->verify, &alg->encrypt, &alg->decrypt})
    if (!*op)
      *op = no_op;
  if (!alg->set_priv_key)
    alg->set_priv_key = no_key;
  set_alg_type(alg->base, kAlgTypeAkcipher);
  return register_alg(alg->base);
}
void crypto_unregister_akcipher(akcipher_alg *alg) { unregister_alg(alg->base); }

__attribute__((noinline)) void *crypto_alloc_akcipher(const char *name, u32, u32) {
  return create_tfm<crypto_akcipher, akcipher_alg>(
      name, kAlgTypeAkcipher, LKPI_CALLER(), [](crypto_akcipher *, akcipher_alg *) {});
}

LINUX_EXPORT_GPL(crypto_register_kpp);
LINUX_EXPORT_GPL(crypto_unregister_kpp);
LINUX_EXPORT_GPL(crypto_alloc_kpp);
LINUX_EXPORT_GPL(crypto_has_kpp);
LINUX_EXPORT_GPL(crypto_register_akcipher);
LINUX_EXPORT_GPL(crypto_unregister_akcipher);
LINUX_EXPORT_GPL(crypto_alloc_akcipher);

} // namespace lkpi

#endif // __x86_64__
