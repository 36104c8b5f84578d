// mk-link: the loader's link-only entry point, for the relocation
// regression harness (scripts/reloc-regress).  It links one relocatable
// object with the kernel's link pipeline (link_image) but at addresses
// given on the command line, into buffers, and
// writes the result as JSON without running anything:
//
//   mk-link [--base ADDR] [--section NAME=ADDR]... [--got ADDR]
//           [--defsym NAME=VALUE]... FILE.o
//
// Sections not named are laid out from --base as the kernel would.  The
// output lists every loaded section's address and relocated bytes, the GOT
// (address, slots), every symbol's final value, and every relocation with
// its type and psABI expression.  A load error is {"error": "..."} and exit
// status 1, with the same one-line message the kernel would print.
#include "../link.h"
#include "../object.h"

#include <elf.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/mman.h>

using namespace mk;

namespace {

std::string json_str(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      o += '\\', o += (char)c;
    else if (c < 0x20)
      o += strf("\\u%04x", c);
    else
      o += (char)c;
  }
  return o + "\"";
}

std::string hex(const u8 *p, size_t n) {
  static const char *d = "0123456789abcdef";
  std::string s;
  s.reserve(n * 2);
  for (size_t i = 0; i < n; i++)
    s += d[p[i] >> 4], s += d[p[i] & 15];
  return s;
}

const char *expr_name(RelExpr e) {
  switch (e) {
  case RelExpr::None: return "none";
  case RelExpr::Abs: return "abs";
  case RelExpr::PC: return "pc";
  case RelExpr::GotSlotPC: return "got_slot_pc";
  case RelExpr::GotSlotAbs: return "got_slot_abs";
  case RelExpr::GotSlotOff: return "got_slot_off";
  case RelExpr::GotBasePC: return "got_base_pc";
  case RelExpr::GotRel: return "got_rel";
  case RelExpr::Size: return "size";
  }
  return "?";
}

int usage() {
  std::fprintf(stderr, "usage: mk-link [--base ADDR] [--section NAME=ADDR]... "
                       "[--got ADDR] [--defsym NAME=VALUE]... FILE.o\n");
  return 2;
}

int fail(const std::string &msg) {
  std::printf("{\"error\": %s}\n", json_str(msg).c_str());
  std::fprintf(stderr, "%s\n", msg.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  u64 base = 0x10000000;
  std::map<std::string, u64> sec_at, defsym;
  std::optional<u64> got_at;
  std::string file;
  auto num = [](const char *s) { return (u64)std::strtoull(s, nullptr, 0); };
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto kv = [&](std::map<std::string, u64> &m) {
      if (i + 1 >= argc)
        return false;
      std::string v = argv[++i];
      auto eq = v.find('=');
      if (eq == std::string::npos)
        return false;
      m[v.substr(0, eq)] = num(v.c_str() + eq + 1);
      return true;
    };
    if (a == "--base" && i + 1 < argc)
      base = num(argv[++i]);
    else if (a == "--got" && i + 1 < argc)
      got_at = num(argv[++i]);
    else if (a == "--section") {
      if (!kv(sec_at))
        return usage();
    } else if (a == "--defsym") {
      if (!kv(defsym))
        return usage();
    } else if (a.size() && a[0] != '-' && file.empty())
      file = a;
    else
      return usage();
  }
  if (file.empty())
    return usage();

  auto objr = read_object(file);
  if (!objr)
    return fail(objr.error().message);
  const ObjectFile &obj = *objr;

  // The image at --base, then every named section moved to its address,
  // each in a buffer of its own, and the GOT to --got.  The image is fresh
  // anonymous memory: zeros that cost nothing until written, so a large
  // .bss or alignment gap (the layout allows up to kMaxImageSize) takes
  // address space, not memory.
  struct Mapping {
    void *p = nullptr;
    size_t n = 0;
    ~Mapping() {
      if (p)
        munmap(p, n);
    }
  } image;
  std::vector<std::vector<u8>> own(obj.sections.size());
  std::vector<u8> got;
  LinkOptions o;
  o.page_size = 4096;
  o.lookup = [&](const std::string &n) -> std::optional<u64> {
    auto it = defsym.find(n);
    if (it == defsym.end())
      return std::nullopt;
    return it->second;
  };
  o.allocate = [&](u64 size, u64) -> Result<ImageMemory> {
    void *p = size ? mmap(nullptr, size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                   : nullptr;
    if (p == MAP_FAILED)
      return error(strf("%s: cannot map %llu bytes for the image: %s",
                        obj.name.c_str(), (unsigned long long)size,
                        std::strerror(errno)));
    image.p = p;
    image.n = size;
    return ImageMemory{base, (u8 *)p, true};
  };
  o.adjust = [&](const ObjectFile &, const LinkPlan &plan, Placement &pl) {
    for (size_t i = 0; i < obj.sections.size(); i++) {
      auto it = sec_at.find(obj.sections[i].name);
      if (it == sec_at.end() || !pl.sec_mem[i])
        continue;
      own[i].assign(obj.sections[i].size, 0);
      pl.sec_addr[i] = it->second;
      pl.sec_mem[i] = own[i].data();
    }
    if (got_at && plan.wants_got) {
      got.assign((size_t)plan.got_slots * obj.arch->got_entry_size(), 0);
      pl.got_addr = *got_at;
      pl.got_mem = got.data();
    }
  };
  auto linked = link_image(obj, o);
  if (!linked)
    return fail(linked.error().message);
  const LinkPlan *plan = &linked->plan;
  const Placement &pl = linked->pl;
  const std::vector<u64> &values = linked->values;

  std::printf("{\"file\": %s, \"arch\": %s,\n", json_str(obj.name).c_str(),
              json_str(obj.arch->name()).c_str());
  std::printf(" \"sections\": [");
  bool first = true;
  for (size_t i = 0; i < obj.sections.size(); i++) {
    if (!pl.sec_mem[i])
      continue;
    const Section &s = obj.sections[i];
    std::printf("%s\n  {\"index\": %zu, \"name\": %s, \"addr\": %llu, "
                "\"size\": %llu, \"align\": %llu, \"nobits\": %s, "
                "\"bytes\": \"%s\"}",
                first ? "" : ",", i, json_str(s.name).c_str(),
                (unsigned long long)pl.sec_addr[i], (unsigned long long)s.size,
                (unsigned long long)s.align,
                s.type == SHT_NOBITS ? "true" : "false",
                s.type == SHT_NOBITS ? "" : hex(pl.sec_mem[i], s.size).c_str());
    first = false;
  }
  // The GOT as written (when placed in a buffer of its own) and its slots.
  const u8 *got_mem = pl.got_mem;
  size_t got_len = (size_t)plan->got_slots * obj.arch->got_entry_size();
  std::printf("],\n \"got\": {\"addr\": %llu, \"entry_size\": %u, "
              "\"bytes\": \"%s\", \"slots\": [",
              (unsigned long long)pl.got_addr, obj.arch->got_entry_size(),
              got_mem ? hex(got_mem, got_len).c_str() : "");
  first = true;
  for (size_t i = 0; i < plan->got_slot.size(); i++) {
    if (plan->got_slot[i] < 0)
      continue;
    std::printf("%s{\"slot\": %d, \"symbol\": %zu, \"value\": %llu}",
                first ? "" : ", ", plan->got_slot[i], i,
                (unsigned long long)values[i]);
    first = false;
  }
  std::printf("]},\n \"symbols\": [");
  for (size_t i = 0; i < obj.symbols.size(); i++)
    std::printf("%s\n  {\"index\": %zu, \"name\": %s, \"value\": %llu, "
                "\"shndx\": %u, \"bind\": %u, \"type\": %u}",
                i ? "," : "", i, json_str(obj.symbols[i].name.str()).c_str(),
                (unsigned long long)values[i], obj.symbols[i].shndx,
                obj.symbols[i].bind, obj.symbols[i].type);
  std::printf("],\n \"relocs\": [");
  first = true;
  for (const RelocSection &rs : obj.relocs) {
    if (!pl.sec_mem[rs.target])
      continue;
    const Section &t = obj.sections[rs.target];
    for (const Reloc &r : rs.relocs) {
      const RelocHowto how = obj.howto(rs.target, r);
      const RelExpr e = how.expr;
      std::printf("%s\n  {\"section\": %s, \"section_index\": %u, "
                  "\"offset\": %llu, \"type\": %s, \"symbol\": %u, "
                  "\"symbol_name\": %s, \"addend\": %lld, \"width\": %u, "
                  "\"expr\": \"%s\"}",
                  first ? "" : ",", json_str(t.name).c_str(), rs.target,
                  (unsigned long long)r.offset,
                  json_str(obj.arch->type_name(r.type)).c_str(), r.sym,
                  json_str(obj.symbol_label(r.sym)).c_str(),
                  (long long)r.addend, how.width, expr_name(e));
      first = false;
    }
  }
  std::printf("]}\n");
  return 0;
}
