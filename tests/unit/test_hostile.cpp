// Hostile objects: each crash class issue 11 found (and the fuzzers after
// it), as the smallest object that showed it, with the one-line error it
// must now get and a check that nothing was left behind.
//
//   layout      sizes near 2^64, alignments of 2^63, huge COMMON symbols
//   arena       requests whose size or alignment would wrap its arithmetic
//   sets        relocations that aim a module's own linker sets and arrays
//               (metadata, sysctls, commands, probe definitions, init and
//               fini arrays) outside the module, or at the wrong region
#include "support.h"

#include "../../kernel/kern_sysctl.h"
#include "../../kernel/kernel.h"
#include "../../kernel/shell.h"
#include "../../linker/arena.h"
#include "../../sdt/registry.h"

#include <sys/module.h>
#include <sys/sdt.h>
#include <sys/shell.h>
#include <sys/sysctl.h>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <map>
#include <sys/mman.h>
#include <unistd.h>

using namespace mkt;
using mk::ModuleArena;

namespace {

#if defined(__x86_64__)
constexpr Target kNative = Target::X86_64;
#else
constexpr Target kNative = Target::I386;
#endif
constexpr unsigned kPtr = sizeof(void *);

} // namespace

// ---- layout --------------------------------------------------------------------

TEST_CASE("hostile: a .bss of 2^64 - 1 bytes is refused, not wrapped") {
  ObjBuilder b(Target::X86_64);
  b.text({0xc3});
  b.bss(~0ull);
  CHECK(message_of(link(b, kBase)) ==
        "t.o: section .bss: the module image would exceed 4 GiB");
}

TEST_CASE("hostile: sections that add up past 2^64 are refused") {
  ObjBuilder b(Target::X86_64);
  b.nobits(".bss", SHF_ALLOC | SHF_WRITE, 8, 1ull << 63);
  b.nobits(".bss.b", SHF_ALLOC | SHF_WRITE, 8, 1ull << 63);
  CHECK(message_of(link(b, kBase)) ==
        "t.o: section .bss: the module image would exceed 4 GiB");
  ObjBuilder c(Target::I386);
  c.nobits(".bss", SHF_ALLOC | SHF_WRITE, 4, 3ull << 30);
  c.nobits(".bss.b", SHF_ALLOC | SHF_WRITE, 4, 3ull << 30);
  CHECK(message_of(link(c, kBase)) ==
        "t.o: section .bss.b: the module image would exceed 4 GiB");
}

TEST_CASE("hostile: an alignment of 2^63 is refused by name") {
  ObjBuilder b(Target::X86_64);
  b.text({0xc3}, 1ull << 63);
  CHECK(message_of(link(b, kBase)) ==
        "t.o: section .text: alignment 0x8000000000000000 is above the "
        "largest a module may ask for (0x100000000)");
}

TEST_CASE("hostile: COMMON symbols of huge size or alignment") {
  ObjBuilder b(Target::X86_64);
  b.common("big", ~0ull - 8, 8);
  CHECK(message_of(link(b, kBase)) ==
        "t.o: COMMON symbol big: the module image would exceed 4 GiB");
  ObjBuilder c(Target::X86_64);
  c.common("aligned", 8, 1ull << 62);
  CHECK(message_of(link(c, kBase)) ==
        "t.o: COMMON symbol aligned: alignment 0x4000000000000000 is above "
        "the largest a module may ask for (0x100000000)");
}

TEST_CASE("hostile: a 4 GiB .bss in a zeroed image costs no memory") {
  // mk-link and the fuzzers link into fresh anonymous memory: the copy
  // stage must not touch a large .bss (nor the gap before an aligned one).
  // (1 GiB on i386, whose address space has no 4 GiB to spare.)
  const u64 big = kPtr == 8 ? (1ull << 32) - 2 * kPage : 1ull << 30;
  ObjBuilder b(Target::X86_64);
  b.text({0xc3});
  b.bss(big, kPage);
  auto obj = parse(b);
  REQUIRE_OK(obj);
  mk::LinkOptions o;
  void *mem = nullptr;
  u64 mapped = 0;
  o.allocate = [&](u64 size, u64) -> mk::Result<mk::ImageMemory> {
    mem = mmap(nullptr, size, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    REQUIRE(mem != MAP_FAILED);
    mapped = size;
    return mk::ImageMemory{kBase, (u8 *)mem, true};
  };
  auto li = mk::link_image(*obj, o);
  REQUIRE_OK(li);
  CHECK(((u8 *)mem)[0] == 0xc3);
  // Resident: the text page, not 4 GiB.
  std::vector<unsigned char> vec((mapped + kPage - 1) / kPage);
  REQUIRE(mincore(mem, mapped, vec.data()) == 0);
  size_t resident = 0;
  for (unsigned char v : vec)
    resident += v & 1;
  CHECK(resident < 16);
  munmap(mem, mapped);
}

// ---- arena ---------------------------------------------------------------------

TEST_CASE("hostile: arena requests that would wrap leave it unchanged") {
  const u64 ps = ModuleArena::page_size();
  auto ar = ModuleArena::reserve(16 * ps, 0);
  REQUIRE_OK(ar);
  auto &a = **ar;
  auto x = a.allocate(ps, ps);
  REQUIRE_OK(x);
  CHECK(message_of(a.allocate(3 * ps, 1ull << 63)) ==
        mk::strf("out of module memory: %llu bytes aligned to "
                 "0x8000000000000000 requested, %llu of %llu in use",
                 (unsigned long long)(3 * ps), (unsigned long long)ps,
                 (unsigned long long)(16 * ps)));
  CHECK(message_of(a.allocate(~0ull, ps)) ==
        mk::strf("out of module memory: 18446744073709551615 bytes "
                 "requested, %llu of %llu in use",
                 (unsigned long long)ps, (unsigned long long)(16 * ps)));
  CHECK(message_of(a.allocate(~0ull - ps + 2, ps)).find("out of module "
                                                         "memory") == 0);
  CHECK(message_of(a.allocate(ps, 3 * ps)) ==
        "module arena: alignment 0x3000 is not a power of two");
  CHECK(a.used() == ps);
  // The free map still holds exactly the rest of the arena: all 15 pages
  // come back in one piece, and nothing beyond.
  auto rest = a.allocate(15 * ps, ps);
  REQUIRE_OK(rest);
  CHECK(rest->addr == a.base() + ps);
  CHECK(!a.allocate(ps, ps));
  a.release(*rest);
  a.release(*x);
  CHECK(a.used() == 0);
}

// ---- a module's own linker sets ----------------------------------------------------

namespace {

class ModuleDir {
public:
  ModuleDir() {
    char tmpl[] = "/tmp/mk-hostile-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path_ = tmpl;
  }
  ~ModuleDir() {
    for (const auto &f : files_)
      std::remove(f.c_str());
    rmdir(path_.c_str());
  }
  std::string write(const std::string &name, const ObjBuilder &b) {
    const std::string p = path_ + "/" + name;
    std::vector<u8> bytes = b.build();
    std::ofstream(p, std::ios::binary)
        .write((const char *)bytes.data(), (std::streamsize)bytes.size());
    files_.push_back(p);
    return p;
  }

private:
  std::string path_;
  std::vector<std::string> files_;
};

// A module whose records are laid out by hand: .text (a ret), .rodata
// (strings), .data (records), and linker sets whose entries, like every
// pointer field of a record, are relocations against one of those.
struct SetModule {
  ObjBuilder b{kNative};
  u32 text, rodata, data;
  u32 s_text, s_ro, s_data, s_ext;
  std::vector<u8> ro_bytes, data_bytes;
  struct Ptr {
    u32 sec;
    u64 off;
    u32 sym;
    i64 addend;
  };
  std::vector<Ptr> ptrs;
  std::map<std::string, std::vector<std::pair<u32, i64>>> sets;
  bool finished = false;

  // A string in .rodata; its offset.
  u64 str(const std::string &s, bool nul = true) {
    u64 off = ro_bytes.size();
    ro_bytes.insert(ro_bytes.end(), s.begin(), s.end());
    if (nul)
      ro_bytes.push_back(0);
    return off;
  }
  // `n` zero bytes in .data at pointer alignment; their offset.
  u64 record(size_t n) {
    while (data_bytes.size() % 8)
      data_bytes.push_back(0);
    u64 off = data_bytes.size();
    data_bytes.resize(off + n);
    return off;
  }
  void put_int(u64 off, int v) {
    std::vector<u8> x = le((u32)v, 4);
    std::copy(x.begin(), x.end(), data_bytes.begin() + off);
  }
  // The pointer at .data+off points at symbol `sym` + addend.
  void ptr(u64 off, u32 sym, i64 addend) { ptrs.push_back({0, off, sym, addend}); }
  void entry(const std::string &set, u32 sym, i64 addend) {
    sets[set].push_back({sym, addend});
  }
  ObjBuilder &finish() {
    if (finished)
      return b;
    finished = true;
    text = b.text({0xc3, 0xc3, 0xc3, 0xc3});
    rodata = b.rodata(ro_bytes.empty() ? std::vector<u8>{0} : ro_bytes, 1);
    data = b.data(data_bytes.empty() ? zeros(8) : data_bytes, 8);
    s_text = b.section_symbol(text);
    s_ro = b.section_symbol(rodata);
    s_data = b.section_symbol(data);
    s_ext = b.undef("printf"); // a kernel export: outside the module
    auto fix = [&](u32 s) {
      return s == 1 ? s_text : s == 2 ? s_ro : s == 3 ? s_data : s_ext;
    };
    for (const Ptr &p : ptrs)
      reloc(data, p.off, fix(p.sym), p.addend);
    for (const auto &[name, ents] : sets) {
      u32 sec = b.section(name, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, kPtr,
                          zeros(ents.size() * kPtr));
      for (size_t i = 0; i < ents.size(); i++)
        reloc(sec, i * kPtr, fix(ents[i].first), ents[i].second);
    }
    return b;
  }
  // Symbols before finish(): 1 .text, 2 .rodata, 3 .data, 4 printf.
  static constexpr u32 kText = 1, kRo = 2, kData = 3, kExt = 4;

private:
  void reloc(u32 sec, u64 off, u32 sym, i64 addend) {
    if (kNative == Target::X86_64) {
      b.rela(sec, off, R_X86_64_64, sym, addend);
    } else {
      // REL: the addend is the field's contents.
      auto &bytes = b.sec(sec).bytes;
      std::vector<u8> x = le((u64)addend, 4);
      std::copy(x.begin(), x.end(), bytes.begin() + off);
      b.rel(sec, off, R_386_32, sym);
    }
  }
};

mk::Options options(const std::string &dir) {
  mk::Options o;
  o.cpus = 1;
  o.quiet = true;
  o.arena_mib = 64;
  o.module_path = {dir};
  return o;
}

// What a failed load must leave as it found it.
struct KernelState {
  size_t files, sysctls, commands, probes;
  u64 arena;
  long long kmem;
  explicit KernelState(mk::Kernel &k)
      : files(k.linker().files().size()), sysctls(k.sysctl().list("").size()),
        commands(k.shell().list().size()),
        probes(k.probes().live_probes()), arena(k.arena().used()),
        kmem(k.kernel_mstats()->memuse.load()) {}
  bool operator==(const KernelState &o) const {
    return files == o.files && sysctls == o.sysctls &&
           commands == o.commands && probes == o.probes && arena == o.arena;
  }
};

// Load `m` as bad.ko into a fresh kernel: its error, and the kernel as it
// was before.
std::string load_bad(SetModule &m) {
  ModuleDir dir;
  const std::string path = dir.write("bad.ko", m.finish());
  mk::Kernel k(options("/nonexistent"));
  REQUIRE(k.boot());
  KernelState before(k);
  auto r = k.linker().load(path);
  CHECK(KernelState(k) == before);
  return message_of(r);
}

constexpr size_t kMdSize = sizeof(mod_metadata);

// A MDT_MODULE record at .data+0 with its moduledata_t after it; the
// pointer fields are left to the caller.
u64 metadata(SetModule &m, int type = MDT_MODULE) {
  u64 md = m.record(kMdSize);
  m.put_int(md + offsetof(mod_metadata, md_version), MDT_STRUCT_VERSION);
  m.put_int(md + offsetof(mod_metadata, md_type), type);
  m.entry("set_modmetadata_set", SetModule::kData, (i64)md);
  return md;
}

} // namespace

TEST_CASE("hostile: a set entry outside the module is refused") {
  SetModule m;
  m.entry("set_modmetadata_set", SetModule::kExt, 0);
  CHECK(load_bad(m).find("bad.ko: module metadata 0: pointer 0x") == 0);
  SetModule n;
  n.entry("set_sysctl_set", SetModule::kText, 0); // code, not a record
  CHECK(load_bad(n).find("does not point at") != std::string::npos);
}

TEST_CASE("hostile: a null set entry is refused") {
  SetModule m;
  m.b.section("set_shell_cmd_set", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, kPtr,
              zeros(kPtr));
  CHECK(load_bad(m) == "bad.ko: shell command 0: pointer 0x0 is null");
}

TEST_CASE("hostile: a record that runs off the module's data is refused") {
  SetModule m;
  u64 md = m.record(8);
  // The entry points 8 bytes before the end of .data: a mod_metadata
  // does not fit there.
  m.entry("set_modmetadata_set", SetModule::kData, (i64)md);
  std::string e = load_bad(m);
  CHECK(e.find(mk::strf("does not point at %zu bytes of the module's data",
                        kMdSize)) != std::string::npos);
}

TEST_CASE("hostile: module metadata whose data or name points outside") {
  SetModule m;
  u64 md = metadata(m);
  m.ptr(md + offsetof(mod_metadata, md_cval), SetModule::kRo,
        (i64)m.str("bad"));
  m.ptr(md + offsetof(mod_metadata, md_data), SetModule::kExt, 0);
  CHECK(load_bad(m).find("bad.ko: module bad data: pointer 0x") == 0);

  SetModule n;
  u64 nd = metadata(n);
  u64 data = n.record(sizeof(moduledata_t));
  n.ptr(nd + offsetof(mod_metadata, md_data), SetModule::kData, (i64)data);
  n.ptr(data + offsetof(moduledata_t, name), SetModule::kRo,
        1 << 20); // far past .rodata
  CHECK(load_bad(n).find("name: pointer 0x") != std::string::npos);
  CHECK(load_bad(n).find("does not point at a string in the module's data") !=
        std::string::npos);
}

TEST_CASE("hostile: a name not NUL-terminated inside the module is refused") {
  SetModule m;
  u64 md = metadata(m);
  // .rodata ends without a NUL; .data follows in the image.
  m.ptr(md + offsetof(mod_metadata, md_cval), SetModule::kRo,
        (i64)m.str("unterminated", false));
  std::string e = load_bad(m);
  CHECK(e.find("is a string not NUL-terminated inside the module's data") !=
        std::string::npos);
}

TEST_CASE("hostile: an event handler outside the module's code is refused") {
  SetModule m;
  u64 md = metadata(m);
  u64 data = m.record(sizeof(moduledata_t));
  m.ptr(md + offsetof(mod_metadata, md_cval), SetModule::kRo,
        (i64)m.str("bad"));
  m.ptr(md + offsetof(mod_metadata, md_data), SetModule::kData, (i64)data);
  m.ptr(data + offsetof(moduledata_t, name), SetModule::kRo, 0);
  m.ptr(data + offsetof(moduledata_t, evhand), SetModule::kData, 0);
  CHECK(load_bad(m).find("bad.ko: module bad event handler: pointer 0x") == 0);
  CHECK(load_bad(m).find("is not in the module's code") != std::string::npos);
}

TEST_CASE("hostile: a version record outside the module is refused") {
  SetModule m;
  u64 md = metadata(m, MDT_VERSION);
  m.ptr(md + offsetof(mod_metadata, md_cval), SetModule::kRo,
        (i64)m.str("bad"));
  m.ptr(md + offsetof(mod_metadata, md_data), SetModule::kExt, 0);
  CHECK(load_bad(m).find("bad.ko: module bad version: pointer 0x") == 0);
}

TEST_CASE("hostile: a writable sysctl whose variable is read-only data") {
  SetModule m;
  u64 oid = m.record(sizeof(sysctl_oid));
  m.put_int(oid + offsetof(sysctl_oid, oid_kind), CTLTYPE_INT);
  m.put_int(oid + offsetof(sysctl_oid, oid_flags), CTLFLAG_RW);
  m.ptr(oid + offsetof(sysctl_oid, oid_name), SetModule::kRo,
        (i64)m.str("bad.knob"));
  m.ptr(oid + offsetof(sysctl_oid, oid_arg), SetModule::kRo, 0);
  m.entry("set_sysctl_set", SetModule::kData, (i64)oid);
  CHECK(load_bad(m).find("bad.ko: sysctl bad.knob variable: pointer 0x") == 0);
  CHECK(load_bad(m).find("writable data") != std::string::npos);
}

TEST_CASE("hostile: a string sysctl longer than the module's data") {
  SetModule m;
  u64 oid = m.record(sizeof(sysctl_oid));
  u64 buf = m.record(16);
  m.put_int(oid + offsetof(sysctl_oid, oid_kind), CTLTYPE_STRING);
  m.put_int(oid + offsetof(sysctl_oid, oid_flags), CTLFLAG_RW);
  std::vector<u8> len = le(1 << 20, kPtr);
  std::copy(len.begin(), len.end(),
            m.data_bytes.begin() + oid + offsetof(sysctl_oid, oid_len));
  m.ptr(oid + offsetof(sysctl_oid, oid_name), SetModule::kRo,
        (i64)m.str("bad.str"));
  m.ptr(oid + offsetof(sysctl_oid, oid_arg), SetModule::kData, (i64)buf);
  m.entry("set_sysctl_set", SetModule::kData, (i64)oid);
  CHECK(load_bad(m).find("bad.ko: sysctl bad.str variable: pointer 0x") == 0);
}

TEST_CASE("hostile: a shell command whose function is not code") {
  SetModule m;
  u64 sc = m.record(sizeof(shell_cmd));
  m.ptr(sc + offsetof(shell_cmd, sc_name), SetModule::kRo, (i64)m.str("bad"));
  m.ptr(sc + offsetof(shell_cmd, sc_func), SetModule::kExt, 0);
  m.entry("set_shell_cmd_set", SetModule::kData, (i64)sc);
  CHECK(load_bad(m).find("bad.ko: shell command bad function: pointer 0x") ==
        0);
}

TEST_CASE("hostile: a probe definition whose strings point outside") {
  SetModule m;
  u64 pd = m.record(sizeof(sdt_probedef));
  m.put_int(pd + offsetof(sdt_probedef, nargs), 1);
  m.ptr(pd + offsetof(sdt_probedef, provider), SetModule::kRo,
        (i64)m.str("bad"));
  m.ptr(pd + offsetof(sdt_probedef, name), SetModule::kRo, (i64)m.str("x"));
  m.ptr(pd + offsetof(sdt_probedef, argtypes), SetModule::kExt, 0);
  m.entry("set_sdt_probes_set", SetModule::kData, (i64)pd);
  CHECK(load_bad(m).find("bad.ko: probe definition 0 argument 0 type: "
                         "pointer 0x") == 0);
}

TEST_CASE("hostile: init and fini arrays must point at the module's code") {
  SetModule m;
  m.finish();
  u32 init = m.b.section(".init_array", SHT_INIT_ARRAY, SHF_ALLOC | SHF_WRITE,
                         kPtr, zeros(2 * kPtr));
  if (kNative == Target::X86_64) {
    m.b.rela(init, 0, R_X86_64_64, m.s_text, 0);
    m.b.rela(init, kPtr, R_X86_64_64, m.s_data, 0);
  } else {
    m.b.rel(init, 0, R_386_32, m.s_text);
    m.b.rel(init, kPtr, R_386_32, m.s_data);
  }
  ModuleDir dir;
  mk::Kernel k(options("/nonexistent"));
  REQUIRE(k.boot());
  KernelState before(k);
  auto r = k.linker().load(dir.write("bad.ko", m.b));
  CHECK(message_of(r).find("bad.ko: .init_array[1]: pointer 0x") == 0);
  CHECK(KernelState(k) == before);

  SetModule n;
  n.finish();
  u32 fini = n.b.section(".fini_array", SHT_FINI_ARRAY, SHF_ALLOC | SHF_WRITE,
                         kPtr, zeros(kPtr));
  if (kNative == Target::X86_64)
    n.b.rela(fini, 0, R_X86_64_64, n.s_ext, 0);
  else
    n.b.rel(fini, 0, R_386_32, n.s_ext);
  r = k.linker().load(dir.write("bad2.ko", n.b));
  CHECK(message_of(r).find("bad2.ko: .fini_array[0]: pointer 0x") == 0);
  CHECK(KernelState(k) == before);
}

TEST_CASE("hostile: a well-formed module of the same shape loads") {
  // The checks refuse only what is wrong: the same records, pointing where
  // they should, load and register.
  SetModule m;
  u64 md = metadata(m);
  u64 data = m.record(sizeof(moduledata_t));
  m.ptr(md + offsetof(mod_metadata, md_cval), SetModule::kRo,
        (i64)m.str("good"));
  m.ptr(md + offsetof(mod_metadata, md_data), SetModule::kData, (i64)data);
  m.ptr(data + offsetof(moduledata_t, name), SetModule::kRo,
        (i64)m.str("good"));
  u64 oid = m.record(sizeof(sysctl_oid));
  u64 var = m.record(sizeof(int));
  m.put_int(oid + offsetof(sysctl_oid, oid_kind), CTLTYPE_INT);
  m.put_int(oid + offsetof(sysctl_oid, oid_flags), CTLFLAG_RW);
  m.ptr(oid + offsetof(sysctl_oid, oid_name), SetModule::kRo,
        (i64)m.str("good.knob"));
  m.ptr(oid + offsetof(sysctl_oid, oid_arg), SetModule::kData, (i64)var);
  m.entry("set_sysctl_set", SetModule::kData, (i64)oid);
  u64 sc = m.record(sizeof(shell_cmd));
  m.ptr(sc + offsetof(shell_cmd, sc_name), SetModule::kRo,
        (i64)m.str("goodcmd"));
  m.ptr(sc + offsetof(shell_cmd, sc_func), SetModule::kText, 0);
  m.entry("set_shell_cmd_set", SetModule::kData, (i64)sc);
  ModuleDir dir;
  mk::Kernel k(options("/nonexistent"));
  REQUIRE(k.boot());
  KernelState before(k);
  auto f = k.linker().load(dir.write("good.ko", m.finish()));
  REQUIRE_OK(f);
  CHECK(k.linker().find_module("good") != nullptr);
  CHECK(k.sysctl().find("good.knob"));
  CHECK(k.shell().find("goodcmd") != nullptr);
  REQUIRE_OK(k.linker().unload(*f));
  CHECK(KernelState(k) == before);
}
