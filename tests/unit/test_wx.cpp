// W^X for real: at rest (no load or patch batch writing) no mapping of the
// process can write a page that some mapping executes — not the kernel's
// text (remapped onto a memfd), not the module arena's.  Checked from
// /proc/self/maps at idle, with modules loaded and SDT and fbt probes
// enabled in module and kernel code.
#include "support.h"

#include "../../kernel/kernel.h"
#include "../../sdt/registry.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

using mk::u32;
using mk::u64;

namespace {

struct Mapping {
  u64 lo, hi, off;
  std::string perms, dev, path;
  unsigned long inode;
};

std::vector<Mapping> mappings() {
  std::vector<Mapping> v;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    Mapping m;
    char perms[8], dev[16];
    unsigned long long lo, hi, off;
    int used = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %15s %lu %n", &lo, &hi,
                    perms, &off, dev, &m.inode, &used) < 6)
      continue;
    m.lo = lo, m.hi = hi, m.off = off, m.perms = perms, m.dev = dev;
    m.path = line.substr(std::min<size_t>(used, line.size()));
    v.push_back(m);
  }
  return v;
}

// Every pair (writable mapping, executable mapping) that reaches the same
// file pages, and every mapping both writable and executable.
std::vector<std::string> wx_violations() {
  std::vector<std::string> bad;
  const auto maps = mappings();
  for (const Mapping &w : maps) {
    if (w.perms[1] != 'w')
      continue;
    if (w.perms[2] == 'x')
      bad.push_back("writable and executable: " + w.path);
    if (w.inode == 0)
      continue;
    for (const Mapping &x : maps)
      if (x.perms[2] == 'x' && x.inode == w.inode && x.dev == w.dev &&
          w.off < x.off + (x.hi - x.lo) && x.off < w.off + (w.hi - w.lo))
        bad.push_back("writable alias of code: " + w.path);
  }
  return bad;
}

std::string build_dir(const char *sub) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  exe[n] = '\0';
  std::string dir(exe);
  return dir.substr(0, dir.find_last_of('/')) + "/" + sub;
}

std::vector<u32> ids_of(mk::Kernel &k, const std::string &desc) {
  std::vector<u32> ids;
  for (const auto &p : k.probes().match(mk::ProbeDesc::parse(desc)))
    ids.push_back(p.id);
  return ids;
}

} // namespace

TEST_CASE("W^X: no writable mapping of a code page at idle, loaded or tracing") {
  const std::string dir = build_dir("modules");
  if (access((dir + "/memdev.ko").c_str(), R_OK) != 0) {
    MESSAGE("skipped: " << dir << "/memdev.ko is not built");
    return;
  }
  mk::Options o;
  o.cpus = 1;
  o.quiet = true;
  o.arena_mib = 64;
  o.module_path = {dir};
  mk::Kernel k(o);
  REQUIRE(k.boot());
  // The kernel's text is a memfd mapping now; the arena's code too.
  bool text_remapped = false;
  for (const auto &m : mappings())
    text_remapped |= m.path.find("memfd:minikern-text") != std::string::npos &&
                     m.perms[2] == 'x';
  CHECK(text_remapped);
  CHECK(wx_violations().empty());

  auto f = k.linker().load("memdev");
  REQUIRE_OK(f);
  CHECK(wx_violations().empty());

  // SDT probes in the module, fbt in the module and in the kernel.
  auto sdt = ids_of(k, "memdev:::");
  auto fbt = ids_of(k, "fbt:memdev::");
  auto kfbt = ids_of(k, "fbt:kernel:kern_strlen:");
  REQUIRE(!sdt.empty());
  REQUIRE(!fbt.empty());
  REQUIRE(!kfbt.empty());
  std::vector<u32> all = sdt;
  all.insert(all.end(), fbt.begin(), fbt.end());
  all.insert(all.end(), kfbt.begin(), kfbt.end());
  auto e = k.probes().enable(all, [](void *, u32, const uintptr_t *) {},
                             nullptr);
  REQUIRE_OK(e);
  const auto bad = wx_violations();
  for (const auto &b : bad)
    MESSAGE(b);
  CHECK(bad.empty());
  // While a batch writes, the views exist; and they are gone again after.
  {
    const auto views = k.probes().patcher().writing();
    CHECK(!wx_violations().empty());
  }
  CHECK(wx_violations().empty());
  k.probes().disable(*e);
  CHECK(wx_violations().empty());
  REQUIRE_OK(k.linker().unload(*f));
  CHECK(wx_violations().empty());
}
