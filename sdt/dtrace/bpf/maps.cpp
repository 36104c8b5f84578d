// Maps: arrays and hash tables, each optionally per-CPU.  D keeps its
// global, thread-local and associative variables and its aggregations in
// them.  Every value lives in one preallocated slab that is never freed
// while the map lives (the region a program may address through the map);
// a hash map's keys and slot states live apart from it, so a program that
// scribbles over values cannot corrupt the table.  Lookups take no lock
// (slot states are published with release/acquire); updates and deletes
// serialise on a mutex.
#include "bpf.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mk::bpf {

namespace {
constexpr u64 kMaxSlab = u64(1) << 30;

// Zeroed memory, 64-byte aligned.  From 64 KiB on it comes straight from
// mmap: zero pages the kernel provides as they are first touched, where
// a memset touched every page up front (D's variables are 1 MiB of values
// and 2 MiB of keys; a 10-clause script's maps took a third of its load
// time that way).
constexpr u64 kMappedFrom = u64(64) << 10;
u8 *zeroed(u64 bytes) {
  bytes = align_up(bytes, 64);
  if (bytes >= kMappedFrom) {
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<u8 *>(p);
  }
  u8 *p = static_cast<u8 *>(std::aligned_alloc(64, bytes));
  if (p)
    std::memset(p, 0, bytes);
  return p;
}
void release(u8 *p, u64 bytes) {
  if (!p)
    return;
  bytes = align_up(bytes, 64);
  if (bytes >= kMappedFrom)
    munmap(p, bytes);
  else
    std::free(p);
}

u32 round8(u32 v) { return (v + 7) & ~7u; }

u32 pow2_at_least(u64 v) {
  u64 p = 8;
  while (p < v)
    p <<= 1;
  return (u32)p;
}
} // namespace

Map::Map(const MapSpec &spec, unsigned ncpus) : spec_(spec), ncpus_(ncpus) {}

Map::~Map() {
  release(slab_, slab_size_);
  release(state_, slots_);
  release(keys_, u64(slots_) * spec_.key_size);
}

Result<std::unique_ptr<Map>> Map::create(const MapSpec &spec, unsigned ncpus) {
  const char *name = spec.name.c_str();
  if (spec.value_size == 0)
    return error(strf("map '%s': value size is 0", name));
  if (spec.max_entries == 0)
    return error(strf("map '%s': max_entries is 0", name));
  if (ncpus == 0)
    return error(strf("map '%s': no CPUs", name));
  const bool array = spec.type == MapType::Array ||
                     spec.type == MapType::PerCpuArray;
  if (array && spec.key_size != 4)
    return error(strf("map '%s': an array's key is 4 bytes, not %u", name,
                      spec.key_size));
  if (!array && (spec.key_size == 0 || spec.key_size > 512))
    return error(strf("map '%s': key size %u is not in [1, 512]", name,
                      spec.key_size));
  std::unique_ptr<Map> m(new Map(spec, ncpus));
  m->stride_ = round8(spec.value_size);
  m->slots_ = array ? spec.max_entries : pow2_at_least(u64(spec.max_entries) * 2);
  const u64 copies = m->per_cpu() ? ncpus : 1;
  const u64 bytes = u64(m->stride_) * m->slots_ * copies;
  if (bytes > kMaxSlab || u64(m->slots_) * spec.key_size > kMaxSlab)
    return error(strf("map '%s': %llu bytes of values is more than the limit "
                      "of %llu", name, (unsigned long long)bytes,
                      (unsigned long long)kMaxSlab));
  m->slab_ = zeroed(bytes);
  if (!m->slab_)
    return error(strf("map '%s': out of memory", name));
  m->slab_size_ = bytes;
  if (!array) {
    m->state_ = zeroed(m->slots_);
    m->keys_ = zeroed(u64(m->slots_) * spec.key_size);
    if (!m->state_ || !m->keys_)
      return error(strf("map '%s': out of memory", name));
  }
  return m;
}

namespace {
inline u64 mix64(u64 h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}
inline bool key_equal(const u8 *a, const void *b, u32 size) {
  // The common D keys (an integer, a pointer; a variable and its key, as
  // dlib/vars.c makes them) compare without a call.
  if (size == 16) {
    u64 x[2], y[2];
    std::memcpy(x, a, 16);
    std::memcpy(y, b, 16);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
  }
  if (size == 8) {
    u64 x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return x == y;
  }
  if (size == 4) {
    u32 x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    return x == y;
  }
  return std::memcmp(a, b, size) == 0;
}
} // namespace

u64 Map::hash_key(const void *key) const {
  if (spec_.key_size == 8 || spec_.key_size == 4) {
    u64 v = 0;
    std::memcpy(&v, key, spec_.key_size);
    return mix64(v);
  }
  if (spec_.key_size == 16) { // two words: no byte loop
    u64 w[2];
    std::memcpy(w, key, 16);
    return mix64(w[0] ^ mix64(w[1] + 0x9e3779b97f4a7c15ull));
  }
  // FNV-1a, then a final mix so that the low bits depend on every byte.
  const u8 *p = static_cast<const u8 *>(key);
  u64 h = 0xcbf29ce484222325ull;
  for (u32 i = 0; i < spec_.key_size; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  h ^= h >> 29;
  return h;
}

// The slot holding `key`, or -1.  Safe without the lock: a slot's key is
// written before its state says "used".
i64 Map::find_slot(const void *key, u64 hash) const {
  const u32 mask = slots_ - 1;
  for (u32 n = 0, s = (u32)hash & mask; n < slots_; n++, s = (s + 1) & mask) {
    const u8 st = state(s).load(std::memory_order_acquire);
    if (st == 0)
      return -1;
    if (st == 1 && key_equal(keys_ + u64(s) * spec_.key_size, key,
                             spec_.key_size))
      return s;
  }
  return -1;
}

void *Map::lookup(const void *key, unsigned cpu) {
  if (per_cpu() && cpu >= ncpus_)
    return nullptr;
  const unsigned copy = per_cpu() ? cpu : 0;
  if (!is_hash()) {
    u32 idx;
    std::memcpy(&idx, key, 4);
    return idx < spec_.max_entries ? value_at(idx, copy) : nullptr;
  }
  const i64 s = find_slot(key, hash_key(key));
  return s < 0 ? nullptr : value_at((u32)s, copy);
}

int Map::update(const void *key, const void *value, u64 flags, unsigned cpu) {
  if (flags > kUpdateExist || (per_cpu() && cpu >= ncpus_))
    return -EINVAL;
  const unsigned copy = per_cpu() ? cpu : 0;
  if (!is_hash()) {
    u32 idx;
    std::memcpy(&idx, key, 4);
    if (idx >= spec_.max_entries)
      return -E2BIG;
    if (flags == kUpdateNoExist)
      return -EEXIST; // every element of an array exists
    std::memcpy(value_at(idx, copy), value, spec_.value_size);
    return 0;
  }
  MutexLock g(mu_);
  const u64 h = hash_key(key);
  const i64 found = find_slot(key, h);
  if (found >= 0) {
    if (flags == kUpdateNoExist)
      return -EEXIST;
    std::memcpy(value_at((u32)found, copy), value, spec_.value_size);
    return 0;
  }
  if (flags == kUpdateExist)
    return -ENOENT;
  if (used_ >= spec_.max_entries)
    return -E2BIG;
  const u32 mask = slots_ - 1;
  u32 s = (u32)h & mask;
  while (state(s).load(std::memory_order_relaxed) == 1)
    s = (s + 1) & mask; // used_ < slots_, so a free slot exists
  std::memcpy(keys_ + u64(s) * spec_.key_size, key, spec_.key_size);
  for (unsigned c = 0; c < (per_cpu() ? ncpus_ : 1u); c++)
    std::memset(value_at(s, c), 0, stride_);
  std::memcpy(value_at(s, copy), value, spec_.value_size);
  state(s).store(1, std::memory_order_release);
  used_++;
  return 0;
}

int Map::remove(const void *key) {
  if (!is_hash())
    return -EINVAL;
  MutexLock g(mu_);
  const i64 s = find_slot(key, hash_key(key));
  if (s < 0)
    return -ENOENT;
  state(s).store(2, std::memory_order_release);
  used_--;
  return 0;
}

u32 Map::count() const {
  return is_hash() ? used_.load(std::memory_order_relaxed) : spec_.max_entries;
}

// ---- the map helpers, with Linux's ids and argument types ----------------

namespace {
u64 helper_lookup(u64 map, u64 key, u64, u64, u64, RunCtx *rc) {
  auto *m = reinterpret_cast<Map *>(static_cast<uintptr_t>(map));
  return static_cast<u64>(reinterpret_cast<uintptr_t>(
      m->lookup(reinterpret_cast<const void *>(static_cast<uintptr_t>(key)),
                rc->cpu)));
}
u64 helper_update(u64 map, u64 key, u64 value, u64 flags, u64, RunCtx *rc) {
  auto *m = reinterpret_cast<Map *>(static_cast<uintptr_t>(map));
  return static_cast<u64>(static_cast<i64>(
      m->update(reinterpret_cast<const void *>(static_cast<uintptr_t>(key)),
                reinterpret_cast<const void *>(static_cast<uintptr_t>(value)),
                flags, rc->cpu)));
}
u64 helper_delete(u64 map, u64 key, u64, u64, u64, RunCtx *) {
  auto *m = reinterpret_cast<Map *>(static_cast<uintptr_t>(map));
  return static_cast<u64>(static_cast<i64>(
      m->remove(reinterpret_cast<const void *>(static_cast<uintptr_t>(key)))));
}
} // namespace

std::vector<Helper> map_helpers() {
  std::vector<Helper> h(3);
  h[0].id = kHelperMapLookup;
  h[0].name = "map_lookup_elem";
  h[0].fn = helper_lookup;
  h[0].ret = RetType::MapValueOrNull;
  h[0].args[0] = ArgType::Map;
  h[0].args[1] = ArgType::MapKey;
  h[1].id = kHelperMapUpdate;
  h[1].name = "map_update_elem";
  h[1].fn = helper_update;
  h[1].args[0] = ArgType::Map;
  h[1].args[1] = ArgType::MapKey;
  h[1].args[2] = ArgType::MapValue;
  h[1].args[3] = ArgType::Scalar;
  h[2].id = kHelperMapDelete;
  h[2].name = "map_delete_elem";
  h[2].fn = helper_delete;
  h[2].args[0] = ArgType::Map;
  h[2].args[1] = ArgType::MapKey;
  return h;
}

} // namespace mk::bpf
