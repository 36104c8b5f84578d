// The code map (see codemap.h).
#include "codemap.h"

#include "site.h"
#include "unwind.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <unistd.h>
#include <utility>

namespace mk {

// ---- one image ------------------------------------------------------------------------

namespace {

// A function table being read: whether each function's symbol is global.
struct FunctionsBuilder {
  CodeImage::Functions &t;
  std::vector<bool> global;

  void add(u64 addr, u64 size, std::string_view name, bool is_global) {
    t.funcs.push_back(
        CodeImage::Func{addr, size, (u32)t.names.size(), (u32)name.size()});
    t.names.append(name);
    global.push_back(is_global);
  }
  // By address; of aliases (one start), the global ones last, where
  // function_at()'s walk back from above meets them first: a global name
  // before a local alias.
  void sort() {
    std::vector<size_t> order(t.funcs.size());
    for (size_t i = 0; i < order.size(); i++)
      order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const u64 x = t.funcs[a].addr, y = t.funcs[b].addr;
      return x != y ? x < y : global[a] < global[b];
    });
    std::vector<CodeImage::Func> sorted;
    sorted.reserve(order.size());
    for (size_t i : order)
      sorted.push_back(t.funcs[i]);
    t.funcs = std::move(sorted);
  }
};

void sort_fdes(std::vector<CodeImage::Fde> &fdes) {
  // The compiler writes them in address order, and the loader places a
  // module's sections in order: mostly sorted already.
  if (!std::is_sorted(fdes.begin(), fdes.end(),
                      [](const CodeImage::Fde &a, const CodeImage::Fde &b) {
                        return a.lo < b.lo;
                      }))
    std::sort(fdes.begin(), fdes.end(),
              [](const CodeImage::Fde &a, const CodeImage::Fde &b) {
                return a.lo < b.lo;
              });
}

} // namespace

CodeImage::~CodeImage() {
  delete funcs_.load(std::memory_order_relaxed);
  delete fdes_.load(std::memory_order_relaxed);
  delete orcs_.load(std::memory_order_relaxed);
}

void CodeImage::set_tables(std::unique_ptr<Functions> f,
                           std::vector<Fde> fdes) {
  sort_fdes(fdes);
  delete funcs_.exchange(f.release(), std::memory_order_release);
  delete fdes_.exchange(new std::vector<Fde>(std::move(fdes)),
                        std::memory_order_release);
}

const CodeImage::Functions *CodeImage::functions() const {
  if (const Functions *t = funcs_.load(std::memory_order_acquire))
    return t;
  MutexLock g(build_mu_);
  if (const Functions *t = funcs_.load(std::memory_order_acquire))
    return t;
  auto t = std::make_unique<Functions>();
  FunctionsBuilder b{*t, {}};
  if (obj)
    for (size_t i = 1; i < obj->symbols.size(); i++) {
      const Symbol &s = obj->symbols[i];
      if (s.type != STT_FUNC || s.shndx == SHN_UNDEF ||
          s.shndx >= sec_addr.size() || !sec_addr[s.shndx])
        continue;
      b.add(sec_addr[s.shndx] + s.value, s.size, s.name, s.bind != STB_LOCAL);
    }
  b.sort();
  funcs_.store(t.get(), std::memory_order_release);
  return t.release();
}

const CodeImage::Func *CodeImage::function_at(u64 pc) const {
  if (gone(pc))
    return nullptr;
  const std::vector<Func> &funcs = functions()->funcs;
  auto it = std::upper_bound(funcs.begin(), funcs.end(), pc,
                             [](u64 a, const Func &f) { return a < f.addr; });
  // Aliases share a start; a few steps back covers them.
  for (int n = 0; n < 8 && it != funcs.begin(); n++) {
    --it;
    if (pc < it->addr + std::max<u64>(it->size, 1))
      return &*it;
  }
  return nullptr;
}

std::string_view CodeImage::name_of(const Func &f) const {
  // A Func comes from function_at(): the table is there.
  const Functions *t = funcs_.load(std::memory_order_acquire);
  return std::string_view(t->names).substr(f.name_off, f.name_len);
}

bool CodeImage::fde_at(u64 pc, Fde &out) const {
  if (gone(pc))
    return false;
  if (const std::vector<Fde> *fdes = fdes_.load(std::memory_order_acquire)) {
    auto it = std::upper_bound(fdes->begin(), fdes->end(), pc,
                               [](u64 a, const Fde &f) { return a < f.lo; });
    if (it == fdes->begin())
      return false;
    --it;
    if (pc >= it->hi)
      return false;
    out = *it;
    return true;
  }
  return eh_frame && find_fde(eh_frame, eh_frame_size, pc, out);
}

namespace {
u64 orc_ip_at(const u8 *table, u64 i) {
  i32 rel;
  std::memcpy(&rel, table + i * 4, 4);
  return (u64)(uintptr_t)(table + i * 4) + (i64)rel;
}
} // namespace

bool CodeImage::orc_at(u64 pc, Orc &out) const {
  if (gone(pc))
    return false;
  u64 best = ~0ull, best_ip = 0;
  if (const auto *rows = orcs_.load(std::memory_order_acquire)) {
    auto it = std::upper_bound(rows->begin(), rows->end(), pc,
                               [](u64 a, const OrcRow &r) { return a < r.ip; });
    if (it == rows->begin())
      return false;
    best = std::prev(it)->index;
  } else {
    // Unsorted (as the link left it): the closest entry at or below pc.
    for (u64 i = 0; i < orc_count; i++) {
      const u64 ip = orc_ip_at(orc_ip, i);
      if (ip <= pc && (best == ~0ull || ip >= best_ip)) {
        best = i;
        best_ip = ip;
      }
    }
    if (best == ~0ull)
      return false;
  }
  const u8 *e = orc + best * 6;
  std::memcpy(&out.sp_offset, e, 2);
  std::memcpy(&out.bp_offset, e + 2, 2);
  out.sp_reg = e[4] & 0xf;
  out.bp_reg = e[4] >> 4;
  out.type = e[5] & 3;
  out.end = e[5] & 4;
  return true;
}

void CodeImage::index_unwind() const {
  if (orc_count && !orcs_.load(std::memory_order_acquire)) {
    MutexLock g(build_mu_);
    if (!orcs_.load(std::memory_order_acquire)) {
      auto rows = std::make_unique<std::vector<OrcRow>>();
      rows->reserve(orc_count);
      for (u64 i = 0; i < orc_count; i++)
        rows->push_back({orc_ip_at(orc_ip, i), (u32)i});
      std::stable_sort(rows->begin(), rows->end(),
                       [](const OrcRow &a, const OrcRow &b) {
                         return a.ip < b.ip;
                       });
      orcs_.store(rows.release(), std::memory_order_release);
    }
  }
  if (fdes_.load(std::memory_order_acquire) || !eh_frame)
    return;
  MutexLock g(build_mu_);
  if (fdes_.load(std::memory_order_acquire))
    return;
  auto fdes = std::make_unique<std::vector<Fde>>();
  // A malformed table: fde_at() goes on scanning, which stops where the
  // table does.
  if (!parse_eh_frame(*fdes, eh_frame, eh_frame_size))
    return;
  sort_fdes(*fdes);
  fdes_.store(fdes.release(), std::memory_order_release);
}

namespace {

// The executable's code segment and PT_GNU_EH_FRAME table.
struct ExeSearch {
  u64 base = 0, lo = 0, hi = 0;
  const u8 *eh_frame_hdr = nullptr;
};

int find_exe(struct dl_phdr_info *info, size_t, void *data) {
  auto *s = (ExeSearch *)data;
  s->base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const auto &ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && !s->lo) {
      s->lo = info->dlpi_addr + ph.p_vaddr;
      s->hi = s->lo + ph.p_memsz;
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      s->eh_frame_hdr = (const u8 *)(uintptr_t)(info->dlpi_addr + ph.p_vaddr);
    }
  }
  return 1; // the first object is the executable
}

// The function symbols of the ELF file at `path` that lie in [lo, hi).
Result<void> read_functions(CodeImage::Functions &t, const CodeImage &img,
                            const std::string &path, u64 base) {
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return error(path + ": cannot open to read the kernel's symbols");
  FunctionsBuilder b{t, {}};
  Elf *e = elf_begin(fd, ELF_C_READ, nullptr);
  Elf_Scn *scn = nullptr;
  while (e && (scn = elf_nextscn(e, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
      continue;
    Elf_Data *d = elf_getdata(scn, nullptr);
    const size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; d && i < n; i++) {
      GElf_Sym s;
      if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
          !s.st_value)
        continue;
      const u64 addr = base + s.st_value;
      if (addr < img.lo || addr >= img.hi)
        continue;
      const char *name = elf_strptr(e, sh.sh_link, s.st_name);
      b.add(addr, s.st_size, name ? name : "", GELF_ST_BIND(s.st_info) != STB_LOCAL);
    }
  }
  if (e)
    elf_end(e);
  close(fd);
  b.sort();
  return {};
}

} // namespace

// ---- the map --------------------------------------------------------------------------

CodeMap::~CodeMap() { live_.store(nullptr); }

std::shared_ptr<const CodeMap::Snapshot>
CodeMap::publish(std::vector<std::shared_ptr<const CodeImage>> images) {
  std::sort(images.begin(), images.end(),
            [](auto &a, auto &b) { return a->lo < b->lo; });
  auto snap = std::make_shared<Snapshot>();
  snap->images = std::move(images);
  live_.store(snap.get(), std::memory_order_release);
  return std::exchange(current_, std::move(snap));
}

Result<void> CodeMap::init_kernel(const std::string &path) {
  ExeSearch s;
  dl_iterate_phdr(find_exe, &s);
  if (!s.lo)
    return error("sdt: cannot find the kernel's text segment");
  auto img = std::make_shared<CodeImage>();
  img->name = "kernel";
  img->lo = s.lo, img->hi = s.hi;
  img->is64 = sizeof(void *) == 8;
  auto funcs = std::make_unique<CodeImage::Functions>();
  MK_TRY(read_functions(*funcs, *img, path, s.base));
  // Without a table the kernel's own frames cannot be walked; that is not
  // worth refusing to boot over.
  std::vector<CodeImage::Fde> fdes;
  if (s.eh_frame_hdr)
    (void)parse_eh_frame_hdr(fdes, s.eh_frame_hdr);
  img->set_tables(std::move(funcs), std::move(fdes));
  std::shared_ptr<const Snapshot> old;
  {
    MutexLock g(mu_);
    std::vector<std::shared_ptr<const CodeImage>> images;
    if (current_)
      for (auto &i : current_->images)
        if (i->owner)
          images.push_back(i);
    images.push_back(std::move(img));
    old = publish(std::move(images));
  }
  if (old)
    retire_(std::move(old));
  return {};
}

void CodeMap::add_module(const void *owner, const std::string &name,
                         std::shared_ptr<const ObjectFile> obj,
                         const Placement &pl, u64 base, u64 size) {
  auto img = std::make_shared<CodeImage>();
  img->owner = owner;
  img->name = name;
  img->lo = base, img->hi = base + size;
  img->is64 = obj->arch->elf_class() == ELFCLASS64;
  u64 orc_ips = 0, orcs = 0;
  for (size_t i = 0; i < obj->sections.size(); i++) {
    const std::string &n = obj->sections[i].name;
    if (!pl.sec_addr[i])
      continue;
    if (n == ".eh_frame") {
      img->eh_frame = (const u8 *)(uintptr_t)pl.sec_addr[i];
      img->eh_frame_size = obj->sections[i].size;
    } else if (n == ".orc_unwind_ip") {
      img->orc_ip = (const u8 *)(uintptr_t)pl.sec_addr[i];
      orc_ips = obj->sections[i].size;
    } else if (n == ".orc_unwind") {
      img->orc = (const u8 *)(uintptr_t)pl.sec_addr[i];
      orcs = obj->sections[i].size;
    }
  }
  // Two tables of one length, or none.
  if (img->orc_ip && img->orc && orc_ips % 4 == 0 && orcs % 6 == 0 &&
      orc_ips / 4 == orcs / 6)
    img->orc_count = orcs / 6;
  img->sec_addr = pl.sec_addr;
  img->obj = std::move(obj);
  bool walked;
  std::shared_ptr<const Snapshot> old;
  {
    MutexLock g(mu_);
    walked = unwind_users_ > 0;
    std::vector<std::shared_ptr<const CodeImage>> images;
    if (current_)
      images = current_->images;
    images.push_back(img);
    old = publish(std::move(images));
  }
  if (old)
    retire_(std::move(old));
  // A stack walker is running: it would scan the module's .eh_frame for
  // every frame in it until this is done.
  if (walked)
    img->index_unwind();
}

void CodeMap::use_unwind(int delta) const {
  std::shared_ptr<const Snapshot> s;
  {
    MutexLock g(mu_);
    unwind_users_ += delta;
    if (delta <= 0)
      return;
    s = current_;
  }
  if (s)
    for (auto &img : s->images)
      img->index_unwind();
}

void CodeMap::remove_module(const void *owner) {
  std::shared_ptr<const Snapshot> old;
  {
    MutexLock g(mu_);
    if (!current_)
      return;
    std::vector<std::shared_ptr<const CodeImage>> images;
    for (auto &i : current_->images)
      if (i->owner != owner)
        images.push_back(i);
    if (images.size() != current_->images.size())
      old = publish(std::move(images));
  }
  if (old)
    retire_(std::move(old));
}

void CodeMap::free_code(const void *owner, u64 lo, u64 hi) {
  MutexLock g(mu_);
  if (!current_)
    return;
  for (auto &i : current_->images)
    if (i->owner == owner && lo < hi) {
      // lo first: a reader between the stores sees [lo, 0), empty.
      i->gone_lo.store(lo, std::memory_order_release);
      i->gone_hi.store(hi, std::memory_order_release);
    }
}

const CodeImage *CodeMap::image_at(u64 pc) const {
  const Snapshot *s = live_.load(std::memory_order_acquire);
  if (!s)
    return nullptr;
  auto it = std::upper_bound(
      s->images.begin(), s->images.end(), pc,
      [](u64 a, const std::shared_ptr<const CodeImage> &i) { return a < i->lo; });
  if (it == s->images.begin())
    return nullptr;
  --it;
  return pc < (*it)->hi ? it->get() : nullptr;
}

std::shared_ptr<const CodeImage> CodeMap::kernel() const {
  MutexLock g(mu_);
  if (current_)
    for (auto &i : current_->images)
      if (!i->owner)
        return i;
  return nullptr;
}

CodeMap::Holder CodeMap::holder(u64 pc) const {
  Holder h;
  {
    MutexLock g(mu_);
    h.snapshot = current_;
  }
  if (h.snapshot)
    for (auto &img : h.snapshot->images)
      if (pc >= img->lo && pc < img->hi) {
        h.image = img.get();
        break;
      }
  return h;
}

std::string CodeMap::function_name(u64 pc) const {
  const Holder h = holder(pc);
  const CodeImage::Func *f = h.image ? h.image->function_at(pc) : nullptr;
  return f ? pretty_function(h.image->name_of(*f)) : std::string();
}

std::string CodeMap::symbolize(u64 pc) const {
  const Holder h = holder(pc);
  if (!h.image)
    return strf("0x%llx", (unsigned long long)pc);
  const CodeImage *img = h.image;
  const CodeImage::Func *f = img->function_at(pc);
  if (!f)
    return strf("%s`0x%llx", img->name.c_str(), (unsigned long long)pc);
  const std::string fn = pretty_function(img->name_of(*f));
  if (pc == f->addr)
    return img->name + "`" + fn;
  return strf("%s`%s+0x%llx", img->name.c_str(), fn.c_str(),
              (unsigned long long)(pc - f->addr));
}

std::optional<CodeImage::Func> CodeMap::function_at(u64 pc) const {
  const Holder h = holder(pc);
  if (const CodeImage::Func *f = h.image ? h.image->function_at(pc) : nullptr)
    return *f;
  return std::nullopt;
}

} // namespace mk
