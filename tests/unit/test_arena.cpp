// The module arena (arena.cpp, ModuleArena): one reservation of address
// space, a first-fit allocator of page-aligned blocks, and a memfd mapped
// twice so code that may run is written through a writable alias (a new
// module image in place, before it is executable) while the executing
// view is never writable and executable at once.
#include "support.h"

#include "../../linker/arena.h"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <cstring>

using mk::ModuleArena;
using mk::Protect;
using mkt::u64;
using mkt::u8;

namespace {

std::unique_ptr<ModuleArena> arena(u64 pages, u64 limit = 0) {
  auto a = ModuleArena::reserve(pages * ModuleArena::page_size(), limit);
  REQUIRE_OK(a);
  return std::move(*a);
}

const u8 *view(u64 addr) { return (const u8 *)(uintptr_t)addr; }

} // namespace

TEST_CASE("arena: reserve rounds up to whole pages") {
  const u64 ps = ModuleArena::page_size();
  auto a = ModuleArena::reserve(3 * ps + 1, 0);
  REQUIRE_OK(a);
  CHECK((*a)->size() == 4 * ps);
  CHECK((*a)->base() % ps == 0);
  CHECK((*a)->used() == 0);
  CHECK((*a)->contains((*a)->base()));
  CHECK((*a)->contains((*a)->base() + 4 * ps - 1));
  CHECK_FALSE((*a)->contains((*a)->base() + 4 * ps));
  CHECK_FALSE((*a)->contains((*a)->base() - 1));
}

TEST_CASE("arena: reserve below a limit") {
  // The x86_64 kernel's arena must end below 2 GiB (R_X86_64_32/32S).
  const u64 limit = 2ull << 30;
  auto a = arena(4096, limit); // 16 MiB with 4 KiB pages
  CHECK(a->base() + a->size() <= limit);
  CHECK(a->base() % ModuleArena::page_size() == 0);
  // A second one fits below the limit too, beside the first.
  auto b = arena(4096, limit);
  CHECK(b->base() + b->size() <= limit);
  CHECK((b->base() + b->size() <= a->base() ||
         a->base() + a->size() <= b->base()));
}

TEST_CASE("arena: no room below the limit") {
  // 256 MiB cannot end below 128 MiB.
  auto a = ModuleArena::reserve(256ull << 20, 128ull << 20);
  CHECK(mkt::message_of(a) ==
        "module arena: no free 256 MiB of address space below 0x8000000");
}

TEST_CASE("arena: allocate whole pages, at the requested alignment") {
  const u64 ps = ModuleArena::page_size();
  auto a = arena(64);
  auto b1 = a->allocate(1, 1);
  REQUIRE_OK(b1);
  CHECK(b1->size == ps);
  CHECK(b1->addr == a->base());
  CHECK(a->used() == ps);
  auto b2 = a->allocate(ps + 1, 8 * ps);
  REQUIRE_OK(b2);
  CHECK(b2->size == 2 * ps);
  CHECK(b2->addr % (8 * ps) == 0);
  CHECK(b2->addr > b1->addr);
  CHECK(a->contains(b2->addr + b2->size - 1));
  auto b0 = a->allocate(0, 0); // still a page: every block has an address
  REQUIRE_OK(b0);
  CHECK(b0->size == ps);
  // First fit: the gap the alignment left before b2, if there is one.
  CHECK(b0->addr == (b2->addr > b1->addr + ps ? b1->addr + ps
                                               : b2->addr + b2->size));
  CHECK(a->used() == 4 * ps);
}

TEST_CASE("arena: release and reuse") {
  const u64 ps = ModuleArena::page_size();
  auto a = arena(16);
  auto x = a->allocate(2 * ps, ps);
  auto y = a->allocate(2 * ps, ps);
  auto z = a->allocate(2 * ps, ps);
  REQUIRE_OK(x);
  REQUIRE_OK(y);
  REQUIRE_OK(z);
  a->release(*x);
  a->release(*y);
  CHECK(a->used() == 2 * ps);
  // x and y coalesced: a 4-page block fits where they were.
  auto w = a->allocate(4 * ps, ps);
  REQUIRE_OK(w);
  CHECK(w->addr == x->addr);
  a->release(*w);
  a->release(*z);
  CHECK(a->used() == 0);
  // Everything coalesced back: the whole arena in one block.
  auto all = a->allocate(16 * ps, ps);
  REQUIRE_OK(all);
  CHECK(all->addr == a->base());
  a->release(mk::ModuleArena::Block{}); // an empty block is a no-op
  CHECK(a->used() == 16 * ps);
}

TEST_CASE("arena: out of memory") {
  const u64 ps = ModuleArena::page_size();
  auto a = arena(4);
  auto x = a->allocate(ps, ps);
  REQUIRE_OK(x);
  auto big = a->allocate(4 * ps, ps);
  CHECK(mkt::message_of(big) ==
        mk::strf("out of module memory: %llu bytes requested, %llu of %llu "
                 "in use",
                 (unsigned long long)(4 * ps), (unsigned long long)ps,
                 (unsigned long long)(4 * ps)));
  CHECK(a->used() == ps); // a failed allocation takes nothing
  // An alignment larger than the arena is refused before any arithmetic,
  // wherever the arena happens to lie (even when one of its free pages
  // sits on such a boundary).
  auto aligned = a->allocate(ps, 64 * ps);
  CHECK_FALSE(aligned);
  CHECK(a->used() == ps);
  auto rest = a->allocate(3 * ps, ps);
  CHECK(bool(rest));
}

TEST_CASE("arena: the writable alias maps the same memory as the executing view") {
  const u64 ps = ModuleArena::page_size();
  auto a = arena(8);
  auto blk = a->allocate(2 * ps, ps);
  REQUIRE_OK(blk);
  const auto writing = a->writing();
  u8 *w = a->alias(blk->addr);
  CHECK((u64)(uintptr_t)w != blk->addr);
  // Write through the alias, then read through the read-only view.
  std::memcpy(w, "hello", 6);
  std::memcpy(w + ps, "world", 6);
  a->protect(blk->addr, 2 * ps, Protect::Read);
  CHECK(std::memcmp(view(blk->addr), "hello", 6) == 0);
  CHECK(std::memcmp(view(blk->addr + ps), "world", 6) == 0);
  // Later writes (relocation, patching) show up without touching the view's
  // protection.
  w[0] = 'j';
  CHECK(view(blk->addr)[0] == 'j');
  a->protect(blk->addr, ps, Protect::ReadExec);
  w[1] = 'E';
  CHECK(view(blk->addr)[1] == 'E');
}

TEST_CASE("arena: code written through the alias runs from the view") {
  const u64 ps = ModuleArena::page_size();
  auto a = arena(4);
  auto blk = a->allocate(ps, ps);
  REQUIRE_OK(blk);
  // mov $42, %eax; ret (the same bytes on x86_64 and i386)
  const u8 code[] = {0xb8, 42, 0, 0, 0, 0xc3};
  {
    const auto writing = a->writing();
    std::memcpy(a->alias(blk->addr), code, sizeof code);
  }
  a->protect(blk->addr, ps, Protect::ReadExec);
  auto fn = (int (*)())(uintptr_t)blk->addr;
  CHECK(fn() == 42);
}

TEST_CASE("arena: released memory comes back zeroed") {
  // COMMON symbols rely on fresh arena memory being zero.
  const u64 ps = ModuleArena::page_size();
  auto a = arena(4);
  auto x = a->allocate(ps, ps);
  REQUIRE_OK(x);
  const auto writing = a->writing();
  std::memset(a->alias(x->addr), 0xab, ps);
  a->release(*x);
  auto y = a->allocate(ps, ps);
  REQUIRE_OK(y);
  REQUIRE(y->addr == x->addr);
  const u8 *p = a->alias(y->addr);
  bool all_zero = true;
  for (u64 i = 0; i < ps; i++)
    all_zero &= p[i] == 0;
  CHECK(all_zero);
}

// The process's mappings of the arena's memfd: (permissions, start, end).
static std::vector<std::string> memfd_mappings(const char *name) {
  std::vector<std::string> v;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(name) != std::string::npos)
      v.push_back(line);
  return v;
}

TEST_CASE("arena: the writable alias exists only inside a writing scope") {
  const u64 ps = ModuleArena::page_size();
  auto a = arena(4);
  auto blk = a->allocate(ps, ps);
  REQUIRE_OK(blk);
  a->protect(blk->addr, ps, Protect::ReadExec);
  auto writable = [&] {
    int n = 0;
    for (const std::string &m : memfd_mappings("/memfd:minikern-arena"))
      n += m.size() > 19 && m.find(" rw") != std::string::npos;
    return n;
  };
  CHECK(writable() == 0);
  CHECK_FALSE(a->view().is_open());
  {
    const auto outer = a->writing();
    {
      const auto inner = a->writing(); // nested: still one mapping
      CHECK(writable() == 1);
      a->alias(blk->addr)[0] = 0xc3;
    }
    CHECK(a->view().is_open());
    CHECK(writable() == 1);
  }
  CHECK_FALSE(a->view().is_open());
  CHECK(writable() == 0);
  CHECK(view(blk->addr)[0] == 0xc3);
}

TEST_CASE("arena: a module image is written in place, never writable and executable") {
  const u64 ps = ModuleArena::page_size();
  auto a = arena(8);
  auto blk = a->allocate(2 * ps, ps, mk::Contents::Undefined);
  REQUIRE_OK(blk);
  const u64 maps = a->view().maps();
  const u64 epoch = a->view().quiet_epoch();
  CHECK(epoch == blk->view_epoch);
  u8 *w = a->write_in_place(*blk);
  CHECK(w == (u8 *)(uintptr_t)blk->addr);
  // Read+write, not executable: the executing view's pages, no alias.
  bool rw = false, rwx = false;
  for (const std::string &m : memfd_mappings("/memfd:minikern-arena")) {
    const u64 lo = std::stoull(m.substr(0, m.find('-')), nullptr, 16);
    if (lo == blk->addr)
      rw = m.find(" rw-") != std::string::npos;
    rwx |= m.find(" rwx") != std::string::npos;
  }
  CHECK(rw);
  CHECK_FALSE(rwx);
  w[0] = 0xc3;
  a->protect(blk->addr, ps, Protect::ReadExec);
  a->protect(blk->addr + ps, ps, Protect::Read);
  CHECK(view(blk->addr)[0] == 0xc3);
  // The view was never opened for it: nothing of it to unmap there.
  CHECK(a->view().maps() == maps);
  CHECK(a->view().quiet_epoch() == epoch);
  a->release(*blk);
  // Opening the view changes the epoch; while open it is kBusy.
  {
    const auto w2 = a->writing();
    CHECK(a->view().quiet_epoch() == mk::WritableView::kBusy);
  }
  CHECK(a->view().quiet_epoch() != epoch);
}

TEST_CASE("arena: two arenas are independent") {
  auto a = arena(4);
  auto b = arena(4);
  CHECK(a->base() != b->base());
  auto x = a->allocate(1, 1);
  REQUIRE_OK(x);
  CHECK(b->used() == 0);
  CHECK_FALSE(b->contains(x->addr));
}
