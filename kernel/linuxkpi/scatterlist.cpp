// Pages and scatterlists (lib/scatterlist.c), as the crypto API's
// request front ends and their callers use them.
//
// Linux code turns an address into its struct page inline
// (virt_to_page(), sg_set_buf()) and back (page_address(), sg_virt()):
// page = vmemmap_base + ((addr - page_offset_base) >> PAGE_SHIFT), with
// a 64-byte struct page.  Here page_offset_base is 0, so every address
// of the process is its own "physical" address, and vmemmap_base is an
// inaccessible reservation covering every page of the address space:
// the arithmetic both ways is Linux's, and code that reads or writes a
// struct page itself faults there (a panic naming it) instead of
// touching memory that is something else.  The reservation (2 TiB of
// address space, no memory) is made when a kernel of the process first
// binds a Linux module, and kept: a process that loads none has none.
#include "lkpi.h"

#include "../kern_linuxkpi_hook.h"

#if defined(__x86_64__)

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace lkpi {

namespace {
constexpr unsigned kPageShift = 12;
constexpr u64 kStructPage = 64;
constexpr u64 kUserPages = (1ull << 47) >> kPageShift; // 47-bit user space

} // namespace

unsigned long page_offset_base = 0;
unsigned long vmemmap_base = 0;
unsigned long phys_base = 0; // __pa() of kernel-image addresses; none here

namespace {
void reserve_vmemmap() {
  static std::once_flag once;
  std::call_once(once, [] {
    void *p = ::mmap(nullptr, kUserPages * kStructPage, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) // else the bare arithmetic from 0, which no code here dereferences
      vmemmap_base = (unsigned long)(uintptr_t)p;
  });
}
struct SetHook {
  SetHook() { mk::linux_modules_coming = reserve_vmemmap; }
} g_set_hook;
} // namespace

u64 virt_to_page(const void *addr) {
  return vmemmap_base + ((u64)(uintptr_t)addr >> kPageShift) * kStructPage;
}
u8 *page_to_virt(u64 page) {
  return (u8 *)(uintptr_t)(((page - vmemmap_base) / kStructPage) << kPageShift);
}

u8 *sg_virt(const scatterlist *sg) {
  return page_to_virt(sg->page_link & ~kSgFlags) + sg->offset;
}

scatterlist *sg_next(scatterlist *sg) {
  if (sg->page_link & kSgEnd)
    return nullptr;
  sg++;
  if (sg->page_link & kSgChain)
    sg = (scatterlist *)(uintptr_t)(sg->page_link & ~kSgFlags);
  return sg;
}

void sg_init_table(scatterlist *sg, unsigned nents) {
  std::memset((void *)sg, 0, sizeof *sg * nents);
  if (nents)
    sg[nents - 1].page_link |= kSgEnd;
}

void sg_init_one(scatterlist *sg, const void *buf, unsigned len) {
  sg_init_table(sg, 1);
  sg->page_link = virt_to_page(buf) | kSgEnd;
  sg->offset = (u32)((uintptr_t)buf & ((1u << kPageShift) - 1));
  sg->length = len;
}

int sg_nents(scatterlist *sg) {
  int n = 0;
  for (; sg; sg = sg_next(sg))
    n++;
  return n;
}

int sg_nents_for_len(scatterlist *sg, u64 len) {
  if (!len)
    return 0;
  u64 total = 0;
  for (int n = 1; sg; sg = sg_next(sg), n++)
    if ((total += sg->length) >= len)
      return n;
  return -22; // -EINVAL: the list is shorter than len
}

scatterlist *sg_last(scatterlist *sgl, unsigned nents) {
  scatterlist *last = nullptr;
  for (unsigned i = 0; sgl && i < nents; i++, sgl = sg_next(sgl))
    last = sgl;
  return last;
}

namespace {
// Calls fn(address, length, offset) over the bytes of the first `nents`
// entries from `skip` bytes in, up to `len` of them; what it covered.
template <class F>
size_t each_range(scatterlist *sgl, unsigned nents, size_t len, u64 skip, F fn) {
  size_t done = 0;
  for (unsigned i = 0; sgl && i < nents && done < len; i++, sgl = sg_next(sgl)) {
    if (skip >= sgl->length) {
      skip -= sgl->length;
      continue;
    }
    const size_t n = std::min<size_t>(sgl->length - skip, len - done);
    fn(sg_virt(sgl) + skip, n, done);
    done += n;
    skip = 0;
  }
  return done;
}
} // namespace

// sg_copy_buffer(): up to `buflen` bytes between `buf` and the first
// `nents` entries, from `skip` bytes into them; the bytes copied.
size_t sg_copy_buffer(scatterlist *sgl, unsigned nents, void *buf, size_t buflen,
                      u64 skip, bool to_buffer) {
  return each_range(sgl, nents, buflen, skip, [&](u8 *at, size_t n, size_t done) {
    if (to_buffer)
      std::memcpy((u8 *)buf + done, at, n);
    else
      std::memcpy(at, (const u8 *)buf + done, n);
  });
}
size_t sg_copy_from_buffer(scatterlist *sgl, unsigned nents, const void *buf,
                           size_t buflen) {
  return sg_copy_buffer(sgl, nents, (void *)buf, buflen, 0, false);
}
size_t sg_copy_to_buffer(scatterlist *sgl, unsigned nents, void *buf, size_t buflen) {
  return sg_copy_buffer(sgl, nents, buf, buflen, 0, true);
}
size_t sg_pcopy_from_buffer(scatterlist *sgl, unsigned nents, const void *buf,
                            size_t buflen, u64 skip) {
  return sg_copy_buffer(sgl, nents, (void *)buf, buflen, skip, false);
}
size_t sg_pcopy_to_buffer(scatterlist *sgl, unsigned nents, void *buf,
                          size_t buflen, u64 skip) {
  return sg_copy_buffer(sgl, nents, buf, buflen, skip, true);
}
size_t sg_zero_buffer(scatterlist *sgl, unsigned nents, size_t buflen, u64 skip) {
  return each_range(sgl, nents, buflen, skip,
                    [](u8 *at, size_t n, size_t) { std::memset(at, 0, n); });
}

// scatterwalk_map_and_copy(): `nbytes` between `buf` and the list at
// `start`, into the list when `out`.
void scatterwalk_map_and_copy(void *buf, scatterlist *sg, unsigned start,
                              unsigned nbytes, int out) {
  sg_copy_buffer(sg, ~0u, buf, nbytes, start, !out);
}

// ---- the mapping iterator (sg_miter_*): a page at a time, each step's
// bytes those of one page of one entry; the caller may consume fewer
// (`consumed`) and the next step starts after them.
struct sg_mapping_iter {
  u64 page;
  u8 *addr;
  size_t length, consumed;
  scatterlist *sg; // struct sg_page_iter
  unsigned sg_pgoffset, nents;
  int pg_advance;
  unsigned offset, remaining, flags; // in the page; left on it
};
static_assert(sizeof(sg_mapping_iter) == 64 && offsetof(sg_mapping_iter, offset) == 52);

namespace {
constexpr u64 kPageSize = 1u << kPageShift;
unsigned page_count(const scatterlist *sg) {
  return (unsigned)((sg->offset + (u64)sg->length + kPageSize - 1) >> kPageShift);
}
bool page_iter_next(sg_mapping_iter *m) {
  if (!m->nents || !m->sg)
    return false;
  m->sg_pgoffset += m->pg_advance;
  m->pg_advance = 1;
  while (m->sg_pgoffset >= page_count(m->sg)) {
    m->sg_pgoffset -= page_count(m->sg);
    m->sg = sg_next(m->sg);
    if (!--m->nents || !m->sg)
      return false;
  }
  return true;
}
bool miter_next_page(sg_mapping_iter *m) {
  if (m->remaining)
    return true;
  if (!page_iter_next(m))
    return false;
  const scatterlist *sg = m->sg;
  m->offset = m->sg_pgoffset ? 0 : sg->offset;
  m->sg_pgoffset += m->offset >> kPageShift;
  m->offset &= kPageSize - 1;
  const u64 left = sg->offset + (u64)sg->length -
                   ((u64)m->sg_pgoffset << kPageShift) - m->offset;
  m->remaining = (unsigned)std::min<u64>(left, kPageSize - m->offset);
  return true;
}
} // namespace

void sg_miter_start(sg_mapping_iter *m, scatterlist *sgl, unsigned nents, unsigned flags) {
  std::memset((void *)m, 0, sizeof *m);
  m->sg = sgl;
  m->nents = nents;
  m->flags = flags;
}
void sg_miter_stop(sg_mapping_iter *m) {
  if (!m->addr)
    return;
  const size_t used = std::min(m->consumed, m->length);
  m->offset += (unsigned)used;
  m->remaining -= (unsigned)used;
  m->page = 0;
  m->addr = nullptr;
  m->length = m->consumed = 0;
}
bool sg_miter_next(sg_mapping_iter *m) {
  sg_miter_stop(m);
  if (!miter_next_page(m))
    return false;
  m->page = (m->sg->page_link & ~kSgFlags) + (u64)m->sg_pgoffset * kStructPage;
  m->consumed = m->length = m->remaining;
  m->addr = page_to_virt(m->page) + m->offset;
  return true;
}
bool sg_miter_skip(sg_mapping_iter *m, i64 offset) {
  sg_miter_stop(m);
  while (offset > 0) {
    if (!miter_next_page(m))
      return false;
    const unsigned k = (unsigned)std::min<i64>(offset, m->remaining);
    m->offset += k;
    m->remaining -= k;
    offset -= k;
  }
  return true;
}

// The zero page Linux maps wherever it needs zeroes to read.
alignas(4096) const unsigned long empty_zero_page[4096 / sizeof(long)] = {};

// struct sg_table; the entries are one block here, never chained.
struct sg_table {
  scatterlist *sgl;
  unsigned nents, orig_nents;
};
__attribute__((noinline)) int sg_alloc_table(sg_table *table, unsigned nents,
                                             unsigned gfp) {
  *table = {};
  if (!nents)
    return -22;
  auto *sgl = (scatterlist *)alloc(sizeof(scatterlist) * nents, gfp, LKPI_CALLER());
  if (!sgl)
    return -12;
  sg_init_table(sgl, nents);
  *table = {sgl, nents, nents};
  return 0;
}
__attribute__((noinline)) void sg_free_table(sg_table *table) {
  if (table->sgl)
    release(table->sgl, LKPI_CALLER());
  *table = {};
}

LINUX_EXPORT(page_offset_base);
LINUX_EXPORT(vmemmap_base);
LINUX_EXPORT(phys_base);
LINUX_EXPORT(sg_next);
LINUX_EXPORT(sg_init_table);
LINUX_EXPORT(sg_init_one);
LINUX_EXPORT(sg_nents);
LINUX_EXPORT(sg_nents_for_len);
LINUX_EXPORT(sg_last);
LINUX_EXPORT(sg_copy_buffer);
LINUX_EXPORT(sg_copy_from_buffer);
LINUX_EXPORT(sg_copy_to_buffer);
LINUX_EXPORT(sg_pcopy_from_buffer);
LINUX_EXPORT(sg_pcopy_to_buffer);
LINUX_EXPORT(sg_zero_buffer);
LINUX_EXPORT(sg_alloc_table);
LINUX_EXPORT_GPL(scatterwalk_map_and_copy);
LINUX_EXPORT(sg_miter_start);
LINUX_EXPORT(sg_miter_next);
LINUX_EXPORT(sg_miter_skip);
LINUX_EXPORT(sg_miter_stop);
LINUX_EXPORT(empty_zero_page);
LINUX_EXPORT(sg_free_table);

} // namespace lkpi

#endif // __x86_64__
