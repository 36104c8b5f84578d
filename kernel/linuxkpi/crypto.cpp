// Registration tables of algorithm providers: the crypto API's
// crypto_register_alg/algs/shash/shashes and lib/textsearch.c's
// textsearch_register, so Debian's crypto/*_generic and lib/ts_* modules
// pass their init and unload.  Registration only: a registered algorithm
// is checked for a duplicate name and kept, but nothing here looks one up
// or runs it yet (no crypto_alloc_* consumers).  The offsets are x86_64's:
// the i386 build, which loads no Linux module yet, leaves these out.
#include "lkpi.h"

#if defined(__x86_64__)

#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace lkpi {

namespace {
constexpr int EEXIST_ = 17, ENOENT_ = 2;

// struct crypto_alg (Linux 6.1, x86_64): the fields registration reads.
constexpr size_t kCraRefcnt = 52, kCraName = 56, kCraDriverName = 184,
                 kCraNameMax = 128;
// struct shash_alg: its crypto_alg at 96; 480 bytes each in an array.
constexpr size_t kShashBase = 96, kShashSize = 480;

std::mutex g_mu;
std::set<std::string> g_crypto;                // driver names registered
std::set<std::pair<std::string, void *>> g_ts; // textsearch: name, ops

u8 *base_of(void *shash) { return (u8 *)shash + kShashBase; }

std::string driver_name(u8 *alg) {
  char *drv = (char *)alg + kCraDriverName;
  if (!drv[0]) // Linux names a driver after its algorithm
    std::memcpy(drv, alg + kCraName, kCraNameMax);
  return std::string(drv, ::strnlen(drv, kCraNameMax));
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
}
int crypto_register_algs(u8 *algs, int count) {
  for (int i = 0; i < count; i++)
    if (int r = crypto_register_alg(algs + (size_t)i * 384); r) {
      while (i--)
        crypto_unregister_alg(algs + (size_t)i * 384);
      return r;
    }
  return 0;
}
void crypto_unregister_algs(u8 *algs, int count) {
  for (int i = count; i-- > 0;)
    crypto_unregister_alg(algs + (size_t)i * 384);
}
int crypto_register_shash(u8 *alg) { return crypto_register_alg(base_of(alg)); }
void crypto_unregister_shash(u8 *alg) { crypto_unregister_alg(base_of(alg)); }
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
LINUX_EXPORT(textsearch_register);
LINUX_EXPORT(textsearch_unregister);

} // namespace lkpi

#endif // __x86_64__
