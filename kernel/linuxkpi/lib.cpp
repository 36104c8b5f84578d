// Library functions vmlinux exports to modules: LZ4 decompression (liblz4),
// zstd's common part (libzstd),
// xxHash (libxxhash for the one-shot forms; the streaming ones keep the
// kernel's own struct xxh64_state/xxh32_state, which are not libxxhash's),
// the ChaCha block function, the CRC32 family (zlib for the IEEE one,
// tables for crc32c and the big-endian form), random bytes, crypto helpers,
// sort/bsearch, the bitmap searches, hex dumps and the text search
// registry.
#include "lkpi.h"

#define LZ4_DISABLE_DEPRECATE_WARNINGS
#include <lz4.h>
#include <xxhash.h>
#include <zlib.h>

#include <cctype>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <sys/random.h>

namespace lkpi {

// ---- LZ4 -------------------------------------------------------------------

int LZ4_decompress_safe(const char *src, char *dst, int compressed_size,
                        int dst_capacity) {
  return ::LZ4_decompress_safe(src, dst, compressed_size, dst_capacity);
}
int LZ4_decompress_safe_partial(const char *src, char *dst, int compressed_size,
                                int target_size, int dst_capacity) {
  return ::LZ4_decompress_safe_partial(src, dst, compressed_size, target_size,
                                       dst_capacity);
}
int LZ4_decompress_fast(const char *src, char *dst, int original_size) {
  return ::LZ4_decompress_fast(src, dst, original_size);
}
int LZ4_decompress_safe_usingDict(const char *src, char *dst,
                                  int compressed_size, int dst_capacity,
                                  const char *dict, int dict_size) {
  return ::LZ4_decompress_safe_usingDict(src, dst, compressed_size,
                                         dst_capacity, dict, dict_size);
}
int LZ4_decompress_fast_usingDict(const char *src, char *dst, int original_size,
                                  const char *dict, int dict_size) {
  return ::LZ4_decompress_fast_usingDict(src, dst, original_size, dict,
                                         dict_size);
}

// ---- zstd's common part (zstd_common in vmlinux) ---------------------------
// What Debian's zstd_compress.ko takes from the kernel: the entropy table
// readers from libzstd's static archive (the shared one hides them; their
// signatures are the same in the kernel's zstd 1.5.2 and Debian's 1.5.4),
// the error helpers, and allocation through the caller's ZSTD_customMem.
// Linux's ZSTD_malloc is NULL: kernel users always bring a workspace.
// x86_64 only: libzstd-dev for i386 does not install beside the amd64 one.

#if defined(__x86_64__)
} // namespace lkpi
extern "C" {
size_t FSE_readNCount(short *, unsigned *, unsigned *, const void *, size_t);
size_t HUF_readStats(unsigned char *, size_t, unsigned *, unsigned *,
                     unsigned *, const void *, size_t);
unsigned ZSTD_isError(size_t);
const char *ZSTD_getErrorName(size_t);
int ZSTD_getErrorCode(size_t);
}
namespace lkpi {

struct ZSTD_customMem {
  void *(LKAPI *customAlloc)(void *opaque, size_t size);
  void (LKAPI *customFree)(void *opaque, void *address);
  void *opaque;
};

size_t lkpi_FSE_readNCount(short *norm, unsigned *max_symbol,
                           unsigned *table_log, const void *src, size_t size) {
  return ::FSE_readNCount(norm, max_symbol, table_log, src, size);
}
size_t lkpi_HUF_readStats(u8 *weights, size_t hw_size, u32 *rank_stats,
                          u32 *nb_symbols, u32 *table_log, const void *src,
                          size_t size) {
  return ::HUF_readStats(weights, hw_size, rank_stats, nb_symbols, table_log,
                         src, size);
}
unsigned lkpi_ZSTD_isError(size_t code) { return ::ZSTD_isError(code); }
const char *lkpi_ZSTD_getErrorName(size_t code) {
  return ::ZSTD_getErrorName(code);
}
int lkpi_ZSTD_getErrorCode(size_t code) { return ::ZSTD_getErrorCode(code); }

void *ZSTD_customMalloc(size_t size, ZSTD_customMem mem) {
  return mem.customAlloc ? mem.customAlloc(mem.opaque, size) : nullptr;
}
void *ZSTD_customCalloc(size_t size, ZSTD_customMem mem) {
  void *p = ZSTD_customMalloc(size, mem);
  if (p)
    std::memset(p, 0, size);
  return p;
}
void ZSTD_customFree(void *p, ZSTD_customMem mem) {
  if (p && mem.customFree)
    mem.customFree(mem.opaque, p);
}
#endif

// ---- xxHash ----------------------------------------------------------------

u32 xxh32(const void *input, size_t len, u32 seed) {
  return XXH32(input, len, seed);
}
u64 xxh64(const void *input, size_t len, u64 seed) {
  return XXH64(input, len, seed);
}

struct xxh64_state {
  u64 total_len;
  u64 v1, v2, v3, v4;
  u64 mem64[4];
  u32 memsize;
};
struct xxh32_state {
  u32 total_len_32;
  u32 large_len;
  u32 v1, v2, v3, v4;
  u32 mem32[4];
  u32 memsize;
};
#if defined(__x86_64__)
static_assert(sizeof(xxh64_state) == 80 && sizeof(xxh32_state) == 44);
#endif

namespace {
constexpr u64 P64_1 = 0x9E3779B185EBCA87ull, P64_2 = 0xC2B2AE3D27D4EB4Full,
              P64_3 = 0x165667B19E3779F9ull, P64_4 = 0x85EBCA77C2B2AE63ull,
              P64_5 = 0x27D4EB2F165667C5ull;
constexpr u32 P32_1 = 0x9E3779B1u, P32_2 = 0x85EBCA77u, P32_3 = 0xC2B2AE3Du,
              P32_4 = 0x27D4EB2Fu, P32_5 = 0x165667B1u;

u64 rotl64(u64 x, int r) { return (x << r) | (x >> (64 - r)); }
u32 rotl32(u32 x, int r) { return (x << r) | (x >> (32 - r)); }
u64 rd64(const u8 *p) {
  u64 v;
  std::memcpy(&v, p, 8);
  return v;
}
u32 rd32(const u8 *p) {
  u32 v;
  std::memcpy(&v, p, 4);
  return v;
}
u64 round64(u64 acc, u64 in) { return rotl64(acc + in * P64_2, 31) * P64_1; }
u64 merge64(u64 acc, u64 v) { return (acc ^ round64(0, v)) * P64_1 + P64_4; }
u32 round32(u32 acc, u32 in) { return rotl32(acc + in * P32_2, 13) * P32_1; }
} // namespace

void xxh64_reset(xxh64_state *s, u64 seed) {
  std::memset(s, 0, sizeof *s);
  s->v1 = seed + P64_1 + P64_2;
  s->v2 = seed + P64_2;
  s->v3 = seed;
  s->v4 = seed - P64_1;
}

int xxh64_update(xxh64_state *s, const void *input, size_t len) {
  if (!input)
    return -22;
  const u8 *p = (const u8 *)input, *end = p + len;
  s->total_len += len;
  if (s->memsize + len < 32) {
    std::memcpy((u8 *)s->mem64 + s->memsize, p, len);
    s->memsize += (u32)len;
    return 0;
  }
  if (s->memsize) {
    std::memcpy((u8 *)s->mem64 + s->memsize, p, 32 - s->memsize);
    s->v1 = round64(s->v1, s->mem64[0]);
    s->v2 = round64(s->v2, s->mem64[1]);
    s->v3 = round64(s->v3, s->mem64[2]);
    s->v4 = round64(s->v4, s->mem64[3]);
    p += 32 - s->memsize;
    s->memsize = 0;
  }
  for (; p + 32 <= end; p += 32) {
    s->v1 = round64(s->v1, rd64(p));
    s->v2 = round64(s->v2, rd64(p + 8));
    s->v3 = round64(s->v3, rd64(p + 16));
    s->v4 = round64(s->v4, rd64(p + 24));
  }
  if (p < end) {
    std::memcpy(s->mem64, p, (size_t)(end - p));
    s->memsize = (u32)(end - p);
  }
  return 0;
}

u64 xxh64_digest(const xxh64_state *s) {
  u64 h;
  if (s->total_len >= 32) {
    h = rotl64(s->v1, 1) + rotl64(s->v2, 7) + rotl64(s->v3, 12) +
        rotl64(s->v4, 18);
    h = merge64(h, s->v1);
    h = merge64(h, s->v2);
    h = merge64(h, s->v3);
    h = merge64(h, s->v4);
  } else {
    h = s->v3 + P64_5;
  }
  h += s->total_len;
  const u8 *p = (const u8 *)s->mem64, *end = p + s->memsize;
  for (; p + 8 <= end; p += 8)
    h = rotl64(h ^ round64(0, rd64(p)), 27) * P64_1 + P64_4;
  if (p + 4 <= end) {
    h = rotl64(h ^ (u64)rd32(p) * P64_1, 23) * P64_2 + P64_3;
    p += 4;
  }
  for (; p < end; p++)
    h = rotl64(h ^ *p * P64_5, 11) * P64_1;
  h ^= h >> 33;
  h *= P64_2;
  h ^= h >> 29;
  h *= P64_3;
  h ^= h >> 32;
  return h;
}

void xxh32_reset(xxh32_state *s, u32 seed) {
  std::memset(s, 0, sizeof *s);
  s->v1 = seed + P32_1 + P32_2;
  s->v2 = seed + P32_2;
  s->v3 = seed;
  s->v4 = seed - P32_1;
}

int xxh32_update(xxh32_state *s, const void *input, size_t len) {
  if (!input)
    return -22;
  const u8 *p = (const u8 *)input, *end = p + len;
  s->total_len_32 += (u32)len;
  s->large_len |= (len >= 16) | (s->total_len_32 >= 16);
  if (s->memsize + len < 16) {
    std::memcpy((u8 *)s->mem32 + s->memsize, p, len);
    s->memsize += (u32)len;
    return 0;
  }
  if (s->memsize) {
    std::memcpy((u8 *)s->mem32 + s->memsize, p, 16 - s->memsize);
    s->v1 = round32(s->v1, s->mem32[0]);
    s->v2 = round32(s->v2, s->mem32[1]);
    s->v3 = round32(s->v3, s->mem32[2]);
    s->v4 = round32(s->v4, s->mem32[3]);
    p += 16 - s->memsize;
    s->memsize = 0;
  }
  for (; p + 16 <= end; p += 16) {
    s->v1 = round32(s->v1, rd32(p));
    s->v2 = round32(s->v2, rd32(p + 4));
    s->v3 = round32(s->v3, rd32(p + 8));
    s->v4 = round32(s->v4, rd32(p + 12));
  }
  if (p < end) {
    std::memcpy(s->mem32, p, (size_t)(end - p));
    s->memsize = (u32)(end - p);
  }
  return 0;
}

u32 xxh32_digest(const xxh32_state *s) {
  u32 h;
  if (s->large_len)
    h = rotl32(s->v1, 1) + rotl32(s->v2, 7) + rotl32(s->v3, 12) +
        rotl32(s->v4, 18);
  else
    h = s->v3 + P32_5;
  h += s->total_len_32;
  const u8 *p = (const u8 *)s->mem32, *end = p + s->memsize;
  for (; p + 4 <= end; p += 4)
    h = rotl32(h + rd32(p) * P32_3, 17) * P32_4;
  for (; p < end; p++)
    h = rotl32(h + *p * P32_5, 11) * P32_1;
  h ^= h >> 15;
  h *= P32_2;
  h ^= h >> 13;
  h *= P32_3;
  h ^= h >> 16;
  return h;
}

void xxh64_copy_state(xxh64_state *d, const xxh64_state *s) { *d = *s; }
void xxh32_copy_state(xxh32_state *d, const xxh32_state *s) { *d = *s; }

// ---- ChaCha (lib/crypto/chacha.c) -----------------------------------------

namespace {
void chacha_permute(u32 *x, int nrounds) {
  auto qr = [x](int a, int b, int c, int d) {
    x[a] += x[b];
    x[d] = rotl32(x[d] ^ x[a], 16);
    x[c] += x[d];
    x[b] = rotl32(x[b] ^ x[c], 12);
    x[a] += x[b];
    x[d] = rotl32(x[d] ^ x[a], 8);
    x[c] += x[d];
    x[b] = rotl32(x[b] ^ x[c], 7);
  };
  for (int i = 0; i < nrounds; i += 2) {
    qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15);
    qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14);
  }
}
} // namespace

// One 64-byte block of key stream from `state`, whose block counter
// (word 12) then advances.
void chacha_block_generic(u32 *state, u8 *stream, int nrounds) {
  u32 x[16];
  std::memcpy(x, state, sizeof x);
  chacha_permute(x, nrounds);
  for (int i = 0; i < 16; i++) {
    const u32 v = x[i] + state[i];
    std::memcpy(stream + 4 * i, &v, 4); // little endian
  }
  state[12]++;
}
// HChaCha: the permuted state's first and last rows, no feed-forward.
void hchacha_block_generic(const u32 *state, u32 *stream, int nrounds) {
  u32 x[16];
  std::memcpy(x, state, sizeof x);
  chacha_permute(x, nrounds);
  std::memcpy(stream, x, 16);
  std::memcpy(stream + 4, x + 12, 16);
}

// ---- CRC32 -----------------------------------------------------------------
// Linux's forms take and return the raw register: no inversion in or out
// (callers pass ~0 and invert themselves), unlike zlib's crc32().

namespace {
struct CrcTable {
  u32 t[256];
  CrcTable(u32 poly, bool reflected) {
    for (u32 i = 0; i < 256; i++) {
      u32 c = reflected ? i : i << 24;
      for (int k = 0; k < 8; k++)
        c = reflected ? (c & 1 ? (c >> 1) ^ poly : c >> 1)
                      : (c & 0x80000000u ? (c << 1) ^ poly : c << 1);
      t[i] = c;
    }
  }
};
const CrcTable g_crc32c(0x82F63B78u, true);
const CrcTable g_crc32_be(0x04C11DB7u, false);
} // namespace

u32 crc32_le(u32 crc, const u8 *p, size_t len) {
  // zlib inverts on entry and exit; undo both.
  while (len) {
    const uInt n = len > 0x40000000 ? 0x40000000 : (uInt)len;
    crc = ~(u32)::crc32(~crc & 0xffffffffu, p, n);
    p += n;
    len -= n;
  }
  return crc;
}
u32 __crc32c_le(u32 crc, const u8 *p, size_t len) {
  while (len--)
    crc = (crc >> 8) ^ g_crc32c.t[(crc ^ *p++) & 0xff];
  return crc;
}
u32 crc32_be(u32 crc, const u8 *p, size_t len) {
  while (len--)
    crc = (crc << 8) ^ g_crc32_be.t[((crc >> 24) ^ *p++) & 0xff];
  return crc;
}

// ---- random ----------------------------------------------------------------

void get_random_bytes(void *buf, size_t n) {
  u8 *p = (u8 *)buf;
  while (n) {
    ssize_t r = getrandom(p, n, 0);
    if (r <= 0)
      continue;
    p += r;
    n -= (size_t)r;
  }
}
u32 get_random_u32() {
  u32 v;
  get_random_bytes(&v, sizeof v);
  return v;
}
u64 get_random_u64() {
  u64 v;
  get_random_bytes(&v, sizeof v);
  return v;
}
u16 get_random_u16() {
  u16 v;
  get_random_bytes(&v, sizeof v);
  return v;
}
u8 get_random_u8() {
  u8 v;
  get_random_bytes(&v, sizeof v);
  return v;
}
// The host's pool is initialised by the time a process runs.
int wait_for_random_bytes() { return 0; }
bool rng_is_initialized() { return true; }

int fips_enabled = 0;

// ---- crypto helpers
// ------------------------------------------------------------

// Nonzero iff the areas differ, in time independent of where.
unsigned long __crypto_memneq(const void *a, const void *b, size_t size) {
  const u8 *x = (const u8 *)a, *y = (const u8 *)b;
  unsigned long neq = 0;
  for (size_t i = 0; i < size; i++)
    neq |= (unsigned long)(x[i] ^ y[i]);
  return neq;
}
void __crypto_xor(u8 *dst, const u8 *src1, const u8 *src2, unsigned len) {
  for (unsigned i = 0; i < len; i++)
    dst[i] = src1[i] ^ src2[i];
}

// ---- sort and search
// -------------------------------------------------------------

typedef int (LKAPI *cmp_r_func_t)(const void *, const void *, const void *);
typedef void (LKAPI *swap_r_func_t)(void *, void *, int, const void *);

namespace {
void swap_bytes(void *a, void *b, size_t n) {
  u8 *x = (u8 *)a, *y = (u8 *)b;
  for (size_t i = 0; i < n; i++) {
    u8 t = x[i];
    x[i] = y[i];
    y[i] = t;
  }
}
} // namespace

// lib/sort.c: heapsort (no allocation, O(n log n) worst case); the
// swap function, if any, moves elements.
void sort_r(void *base, size_t num, size_t size, cmp_r_func_t cmp,
            swap_r_func_t swap, const void *priv) {
  u8 *b = (u8 *)base;
  auto sw = [&](size_t i, size_t j) {
    if (swap)
      swap(b + i * size, b + j * size, (int)size, priv);
    else
      swap_bytes(b + i * size, b + j * size, size);
  };
  auto sift = [&](size_t root, size_t n) {
    for (;;) {
      size_t child = 2 * root + 1;
      if (child >= n)
        return;
      if (child + 1 < n &&
          cmp(b + child * size, b + (child + 1) * size, priv) < 0)
        child++;
      if (cmp(b + root * size, b + child * size, priv) >= 0)
        return;
      sw(root, child);
      root = child;
    }
  };
  if (num < 2 || size == 0)
    return;
  for (size_t i = num / 2; i-- > 0;)
    sift(i, num);
  for (size_t n = num - 1; n > 0; n--) {
    sw(0, n);
    sift(0, n);
  }
}

namespace {
struct SortWrap {
  int (LKAPI *cmp)(const void *, const void *);
  void (LKAPI *swap)(void *, void *, int);
};
LKAPI int cmp_wrap(const void *a, const void *b, const void *priv) {
  return ((const SortWrap *)priv)->cmp(a, b);
}
LKAPI void swap_wrap(void *a, void *b, int n, const void *priv) {
  ((const SortWrap *)priv)->swap(a, b, n);
}
} // namespace

void sort(void *base, size_t num, size_t size,
          int (LKAPI *cmp)(const void *, const void *),
          void (LKAPI *swap)(void *, void *, int)) {
  SortWrap w{cmp, swap};
  sort_r(base, num, size, cmp_wrap, swap ? swap_wrap : nullptr, &w);
}

void *lkpi_bsearch(const void *key, const void *base, size_t num, size_t size,
                   int (LKAPI *cmp)(const void *, const void *)) {
  const u8 *b = (const u8 *)base;
  while (num > 0) {
    const u8 *pivot = b + (num >> 1) * size;
    int r = cmp(key, pivot);
    if (r == 0)
      return (void *)pivot;
    if (r > 0) {
      b = pivot + size;
      num--;
    }
    num >>= 1;
  }
  return nullptr;
}

// ---- bitmaps --------------------------------------------------------------

// lib/find_bit.c: the first set bit at or after `start` of the words
// `word(i)` give, below `nbits`; `nbits` when there is none.  CPU masks
// walk through these (for_each_possible_cpu is cpumask_next()).
namespace {
constexpr unsigned long kLongBits = 8 * sizeof(long);
template <class Word>
unsigned long find_from(unsigned long nbits, unsigned long start, Word word) {
  if (start >= nbits)
    return nbits;
  unsigned long i = start / kLongBits;
  unsigned long w = word(i) & (~0ul << (start % kLongBits));
  while (!w) {
    if (++i * kLongBits >= nbits)
      return nbits;
    w = word(i);
  }
  const unsigned long bit = i * kLongBits + (unsigned long)__builtin_ctzl(w);
  return bit < nbits ? bit : nbits;
}
} // namespace

unsigned long _find_next_bit(const unsigned long *a, unsigned long nbits,
                             unsigned long start) {
  return find_from(nbits, start, [&](unsigned long i) { return a[i]; });
}
unsigned long _find_next_zero_bit(const unsigned long *a, unsigned long nbits,
                                  unsigned long start) {
  return find_from(nbits, start, [&](unsigned long i) { return ~a[i]; });
}
unsigned long _find_next_and_bit(const unsigned long *a,
                                 const unsigned long *b, unsigned long nbits,
                                 unsigned long start) {
  return find_from(nbits, start,
                   [&](unsigned long i) { return a[i] & b[i]; });
}
unsigned long _find_next_andnot_bit(const unsigned long *a,
                                    const unsigned long *b,
                                    unsigned long nbits, unsigned long start) {
  return find_from(nbits, start,
                   [&](unsigned long i) { return a[i] & ~b[i]; });
}
unsigned long _find_first_bit(const unsigned long *a, unsigned long nbits) {
  return _find_next_bit(a, nbits, 0);
}
unsigned long _find_first_zero_bit(const unsigned long *a,
                                   unsigned long nbits) {
  return _find_next_zero_bit(a, nbits, 0);
}
unsigned long _find_first_and_bit(const unsigned long *a,
                                  const unsigned long *b,
                                  unsigned long nbits) {
  return _find_next_and_bit(a, b, nbits, 0);
}
// The last set bit below `nbits`; `nbits` when there is none.
unsigned long _find_last_bit(const unsigned long *a, unsigned long nbits) {
  for (unsigned long i = (nbits + kLongBits - 1) / kLongBits; i-- > 0;) {
    unsigned long w = a[i];
    if (i == nbits / kLongBits && nbits % kLongBits)
      w &= ~(~0ul << (nbits % kLongBits));
    if (w)
      return i * kLongBits + kLongBits - 1 - (unsigned long)__builtin_clzl(w);
  }
  return nbits;
}

// ---- hex dumps
// -------------------------------------------------------------------

// lib/hexdump.c, its exact layout: groups of 1, 2, 4 or 8 bytes (read in
// the host's byte order), the ASCII column at rowsize * 2 + rowsize /
// groupsize + 1.
int hex_dump_to_buffer(const void *buf, size_t len, int rowsize, int groupsize,
                       char *linebuf, size_t linebuflen, bool ascii) {
  const u8 *ptr = (const u8 *)buf;
  static const char hex[] = "0123456789abcdef";
  if (rowsize != 16 && rowsize != 32)
    rowsize = 16;
  if (len > (size_t)rowsize)
    len = (size_t)rowsize;
  if ((groupsize & (groupsize - 1)) || groupsize > 8 || groupsize <= 0)
    groupsize = 1;
  if (len % (size_t)groupsize)
    groupsize = 1;
  const int ngroups = (int)len / groupsize;
  const size_t ascii_column = (size_t)(rowsize * 2 + rowsize / groupsize + 1);
  size_t lx = 0;
  if (!linebuflen)
    return ascii ? (int)(ascii_column + len)
                 : (groupsize * 2 + 1) * ngroups - 1;
  if (len) {
    if (groupsize > 1) {
      for (int j = 0; j < ngroups; j++) {
        u64 v = 0;
        std::memcpy(&v, ptr + j * groupsize, (size_t)groupsize);
        int ret =
            std::snprintf(linebuf + lx, linebuflen - lx, "%s%0*llx",
                          j ? " " : "", groupsize * 2, (unsigned long long)v);
        if ((size_t)ret >= linebuflen - lx)
          return ascii ? (int)(ascii_column + len)
                       : (groupsize * 2 + 1) * ngroups - 1;
        lx += (size_t)ret;
      }
    } else {
      size_t j;
      for (j = 0; j < len; j++) {
        if (linebuflen < lx + 3)
          goto overflow2;
        linebuf[lx++] = hex[ptr[j] >> 4];
        linebuf[lx++] = hex[ptr[j] & 15];
        linebuf[lx++] = ' ';
      }
      if (j)
        lx--;
    }
    if (ascii) {
      while (lx < ascii_column) {
        if (linebuflen < lx + 2)
          goto overflow2;
        linebuf[lx++] = ' ';
      }
      for (size_t j = 0; j < len; j++) {
        if (linebuflen < lx + 2)
          goto overflow2;
        const u8 c = ptr[j];
        linebuf[lx++] = c < 128 && std::isprint(c) ? (char)c : '.';
      }
    }
  }
  linebuf[lx] = '\0';
  return (int)lx;
overflow2:
  linebuf[lx++] = '\0';
  return ascii ? (int)(ascii_column + len) : (groupsize * 2 + 1) * ngroups - 1;
}

int _printk(const char *fmt, ...);

// prefix_type: DUMP_PREFIX_NONE, DUMP_PREFIX_ADDRESS, DUMP_PREFIX_OFFSET.
void print_hex_dump(const char *level, const char *prefix_str, int prefix_type,
                    int rowsize, int groupsize, const void *buf, size_t len,
                    bool ascii) {
  const u8 *ptr = (const u8 *)buf;
  char linebuf[32 * 3 + 2 + 32 + 1];
  if (rowsize != 16 && rowsize != 32)
    rowsize = 16;
  for (size_t i = 0; i < len; i += (size_t)rowsize) {
    const size_t linelen =
        len - i < (size_t)rowsize ? len - i : (size_t)rowsize;
    hex_dump_to_buffer(ptr + i, linelen, rowsize, groupsize, linebuf,
                       sizeof linebuf, ascii);
    if (prefix_type == 1)
      _printk("%s%s%p: %s\n", level, prefix_str, (void *)(ptr + i), linebuf);
    else if (prefix_type == 2)
      _printk("%s%s%.8zx: %s\n", level, prefix_str, i, linebuf);
    else
      _printk("%s%s%s\n", level, prefix_str, linebuf);
  }
}

LINUX_EXPORT(LZ4_decompress_safe);
LINUX_EXPORT(LZ4_decompress_safe_partial);
LINUX_EXPORT(LZ4_decompress_fast);
LINUX_EXPORT(LZ4_decompress_safe_usingDict);
LINUX_EXPORT(LZ4_decompress_fast_usingDict);
#if defined(__x86_64__)
LINUX_EXPORT_FLAGS("FSE_readNCount", lkpi_FSE_readNCount, LE_GPL);
LINUX_EXPORT_FLAGS("HUF_readStats", lkpi_HUF_readStats, LE_GPL);
LINUX_EXPORT_FLAGS("ZSTD_isError", lkpi_ZSTD_isError, LE_GPL);
LINUX_EXPORT_FLAGS("ZSTD_getErrorName", lkpi_ZSTD_getErrorName, LE_GPL);
LINUX_EXPORT_FLAGS("ZSTD_getErrorCode", lkpi_ZSTD_getErrorCode, LE_GPL);
LINUX_EXPORT_GPL(ZSTD_customMalloc);
LINUX_EXPORT_GPL(ZSTD_customCalloc);
LINUX_EXPORT_GPL(ZSTD_customFree);
#endif
LINUX_EXPORT(xxh32);
LINUX_EXPORT(xxh64);
LINUX_EXPORT(xxh32_reset);
LINUX_EXPORT(xxh32_update);
LINUX_EXPORT(xxh32_digest);
LINUX_EXPORT(xxh32_copy_state);
LINUX_EXPORT(xxh64_reset);
LINUX_EXPORT(xxh64_update);
LINUX_EXPORT(xxh64_digest);
LINUX_EXPORT(xxh64_copy_state);
LINUX_EXPORT(chacha_block_generic);
LINUX_EXPORT(hchacha_block_generic);
LINUX_EXPORT(crc32_le);
LINUX_EXPORT(__crc32c_le);
LINUX_EXPORT(crc32_be);
LINUX_EXPORT(get_random_bytes);
LINUX_EXPORT(get_random_u32);
LINUX_EXPORT(get_random_u64);
LINUX_EXPORT(get_random_u16);
LINUX_EXPORT(get_random_u8);
LINUX_EXPORT(wait_for_random_bytes);
LINUX_EXPORT(rng_is_initialized);
LINUX_EXPORT_GPL(fips_enabled);
LINUX_EXPORT(__crypto_memneq);
LINUX_EXPORT_GPL(__crypto_xor);
LINUX_EXPORT(sort_r);
LINUX_EXPORT(sort);
LINUX_EXPORT_AS("bsearch", lkpi_bsearch);
// ---- text search
// -------------------------------------------------------------

// lib/textsearch.c's registry of algorithms (ts_kmp, ts_bm, ts_fsm):
// struct ts_ops, whose name is its first field, by name.
namespace {
std::mutex g_ts_mu;
std::set<std::pair<std::string, void *>> g_ts;
constexpr int kEexist = 17, kEnoent = 2;
} // namespace
int textsearch_register(void *ops) {
  const std::string name = *(const char **)ops;
  std::lock_guard g(g_ts_mu);
  for (auto &[n, o] : g_ts)
    if (n == name)
      return -kEexist;
  g_ts.emplace(name, ops);
  return 0;
}
int textsearch_unregister(void *ops) {
  std::lock_guard g(g_ts_mu);
  return g_ts.erase({*(const char **)ops, ops}) ? 0 : -kEnoent;
}

LINUX_EXPORT(textsearch_register);
LINUX_EXPORT(textsearch_unregister);
LINUX_EXPORT(hex_dump_to_buffer);
LINUX_EXPORT(print_hex_dump);
LINUX_EXPORT(_find_next_bit);
LINUX_EXPORT(_find_next_zero_bit);
LINUX_EXPORT(_find_next_and_bit);
LINUX_EXPORT(_find_next_andnot_bit);
LINUX_EXPORT(_find_first_bit);
LINUX_EXPORT(_find_first_zero_bit);
LINUX_EXPORT(_find_first_and_bit);
LINUX_EXPORT(_find_last_bit);

} // namespace lkpi
