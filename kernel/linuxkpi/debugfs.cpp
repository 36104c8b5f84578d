// debugfs (fs/debugfs/) and the simple attribute files (fs/libfs.c's
// simple_attr_*) Linux modules create there, and the notifier chains of
// events this kernel has none of (memory hotplug, suspend).
//
// A debugfs file is a sysctl here, as a Linux module's parameter is:
// debugfs_create_file("error", 0600, dir, data, &fops) under
// "notifier-error-inject/pm/actions/PM_SUSPEND_PREPARE" is
// `sysctl debug.notifier-error-inject.pm.actions.PM_SUSPEND_PREPARE.error`.
// Reading one runs the module's fops as read(2) of the file would: open,
// read until it returns 0, release; setting one runs open, write, release.
// The struct file and struct inode the fops get are Linux 6.1's size, with
// f_inode, f_pos, private_data and i_private where Linux has them.
//
// A module's entries go with it if it leaves them (Linux would keep
// dentries whose fops are gone).
#include "lkpi.h"

#if defined(__x86_64__)

#include "../kern_linker.h"
#include "../kern_sysctl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace lkpi {

namespace {
constexpr size_t kFileSize = 232, kFileInode = 32, kFilePos = 104,
                 kFilePrivate = 200, kInodeSize = 632, kInodeSizeField = 80,
                 kInodePrivate = 624;
// struct file_operations' members called here.
constexpr size_t kFopRead = 16, kFopWrite = 24, kFopOpen = 112, kFopRelease = 128;
constexpr size_t kIoMax = 4096;

using OpenFn = int (LKAPI *)(u8 *inode, u8 *file);
using ReadFn = long (LKAPI *)(u8 *file, char *buf, size_t n, i64 *pos);
using WriteFn = long (LKAPI *)(u8 *file, const char *buf, size_t n, i64 *pos);

// A dentry: what debugfs_create_* return and modules hand back.
struct Entry {
  std::string name;
  Entry *parent = nullptr;
  std::vector<Entry *> children;
  const u8 *fops = nullptr; // null: a directory
  void *data = nullptr;
  unsigned mode = 0;
  u64 creator = 0; // the module code that made it
  mk::Kernel *kernel = nullptr;
  std::string sysctl; // the node's name, for a file
};

std::mutex g_mu;
std::vector<std::unique_ptr<Entry>> g_entries; // every live one

std::string path_of(const Entry *e) {
  std::string p = e->name;
  for (const Entry *d = e->parent; d; d = d->parent)
    p = d->name + "." + p;
  return p;
}

template <class T> T fop(const u8 *fops, size_t off) {
  T f;
  std::memcpy(&f, fops + off, sizeof f);
  return f;
}

// One open file: Linux's struct file and struct inode, zeroed, linked.
struct OpenFile {
  alignas(8) u8 inode[kInodeSize] = {};
  alignas(8) u8 file[kFileSize] = {};
  OpenFile(void *data) {
    u8 *in = inode;
    std::memcpy(inode + kInodePrivate, &data, 8);
    std::memcpy(file + kFileInode, &in, 8);
  }
  i64 *pos() { return (i64 *)(file + kFilePos); }
};

mk::Result<std::string> read_file(const Entry &e) {
  OpenFile f(e.data);
  if (auto open = fop<OpenFn>(e.fops, kFopOpen))
    if (int err = open(f.inode, f.file))
      return mk::error(mk::strf("open: error %d", err));
  std::string out;
  auto read = fop<ReadFn>(e.fops, kFopRead);
  long n = 0;
  char buf[kIoMax];
  while (read && out.size() < (1u << 20) &&
         (n = read(f.file, buf, sizeof buf, f.pos())) > 0)
    out.append(buf, (size_t)n);
  if (auto release = fop<OpenFn>(e.fops, kFopRelease))
    release(f.inode, f.file);
  if (!read)
    return mk::error("not readable");
  if (n < 0)
    return mk::error(mk::strf("read: error %ld", n));
  return out;
}

mk::Result<void> write_file(const Entry &e, const std::string &v) {
  auto write = fop<WriteFn>(e.fops, kFopWrite);
  if (!write)
    return mk::error("not writable");
  OpenFile f(e.data);
  if (auto open = fop<OpenFn>(e.fops, kFopOpen))
    if (int err = open(f.inode, f.file))
      return mk::error(mk::strf("open: error %d", err));
  const std::string line = v + "\n";
  const long n = write(f.file, line.data(), line.size(), f.pos());
  if (auto release = fop<OpenFn>(e.fops, kFopRelease))
    release(f.inode, f.file);
  if (n < 0)
    return mk::error(mk::strf("write: error %ld", n));
  return {};
}

void add_node(Entry *e) {
  if (!e->kernel)
    return;
  mk::Sysctl::Node n;
  n.name = e->sysctl = "debug." + path_of(e);
  n.kind = CTLTYPE_STRING;
  n.flags = (e->mode & 0222) ? CTLFLAG_RW : CTLFLAG_RD;
  n.descr = "debugfs file " + path_of(e);
  n.owner = e->kernel->linker().file_at(e->creator);
  n.get = [e] {
    auto r = read_file(*e);
    std::string s = r ? *r : "(" + r.error().message + ")";
    while (!s.empty() && s.back() == '\n')
      s.pop_back();
    return s;
  };
  if (e->mode & 0222)
    n.set = [e](const std::string &v) { return write_file(*e, v); };
  if (auto r = e->kernel->sysctl().add(n); !r)
    e->sysctl.clear();
}

// Removes `e` and what is under it; g_mu held.
void remove_locked(Entry *e) {
  while (!e->children.empty())
    remove_locked(e->children.back());
  if (e->kernel && !e->sysctl.empty())
    e->kernel->sysctl().remove(e->sysctl);
  if (Entry *p = e->parent)
    std::erase(p->children, e);
  std::erase_if(g_entries, [&](const std::unique_ptr<Entry> &u) { return u.get() == e; });
}

Entry *as_entry(void *dentry) {
  if (!dentry || (uintptr_t)dentry >= (uintptr_t)-4095)
    return nullptr;
  for (auto &u : g_entries)
    if (u.get() == dentry)
      return u.get();
  return nullptr;
}

void *create(const char *name, unsigned mode, void *parent, void *data,
             const u8 *fops, u64 caller) {
  std::lock_guard g(g_mu);
  Entry *p = nullptr;
  if (parent && !(p = as_entry(parent)))
    return (void *)(intptr_t)-2; // -ENOENT: not a debugfs directory
  if (p && p->fops)
    return (void *)(intptr_t)-20; // -ENOTDIR
  for (auto &u : g_entries)
    if (u->parent == p && u->name == name)
      return (void *)(intptr_t)-17; // -EEXIST
  auto e = std::make_unique<Entry>();
  e->name = name;
  e->parent = p;
  e->fops = fops;
  e->data = data;
  e->mode = mode;
  e->creator = caller;
  e->kernel = mk::curkernel();
  Entry *raw = e.get();
  g_entries.push_back(std::move(e));
  if (p)
    p->children.push_back(raw);
  if (fops)
    add_node(raw);
  return raw;
}
} // namespace

__attribute__((noinline)) void *debugfs_create_dir(const char *name, void *parent) {
  return create(name, 040755, parent, nullptr, nullptr, LKPI_CALLER());
}
__attribute__((noinline)) void *debugfs_create_file(const char *name, unsigned mode,
                                                    void *parent, void *data,
                                                    const u8 *fops) {
  return create(name, mode ? mode : 0444, parent, data, fops, LKPI_CALLER());
}
void debugfs_remove(void *dentry) {
  std::lock_guard g(g_mu);
  if (Entry *e = as_entry(dentry))
    remove_locked(e);
}

void debugfs_module_gone(u64 lo, u64 hi) {
  std::lock_guard g(g_mu);
  for (bool again = true; again;) {
    again = false;
    for (auto &u : g_entries)
      if ((u->creator >= lo && u->creator < hi) ||
          ((u64)(uintptr_t)u->fops >= lo && (u64)(uintptr_t)u->fops < hi)) {
        remove_locked(u.get());
        again = true;
        break;
      }
  }
}

// ---- simple attribute files (fs/libfs.c) -------------------------------------

namespace {
// struct simple_attr: the get/set the module gave, its format, and the
// text of the last read and write.
struct SimpleAttr {
  int (LKAPI *get)(void *, u64 *);
  int (LKAPI *set)(void *, u64);
  char get_buf[24];
  char set_buf[24];
  void *data;
  const char *fmt;
  std::mutex mu;
};
SimpleAttr *attr_of(u8 *file) {
  SimpleAttr *a;
  std::memcpy(&a, file + kFilePrivate, 8);
  return a;
}

long attr_write(u8 *file, const char *buf, size_t len, bool is_signed) {
  SimpleAttr *a = attr_of(file);
  if (!a || !a->set)
    return -13; // -EACCES
  std::lock_guard g(a->mu);
  const size_t n = std::min(len, sizeof a->set_buf - 1);
  std::memcpy(a->set_buf, buf, n);
  a->set_buf[n] = '\0';
  char *end = nullptr;
  errno = 0;
  const u64 v = is_signed ? (u64)std::strtoll(a->set_buf, &end, 0)
                          : std::strtoull(a->set_buf, &end, 0);
  if (end == a->set_buf || errno)
    return -22; // kstrtoull's -EINVAL / -ERANGE
  const int err = a->set(a->data, v);
  return err ? err : (long)len;
}
} // namespace

__attribute__((noinline)) int simple_attr_open(u8 *inode, u8 *file,
                                               int (LKAPI *get)(void *, u64 *),
                                               int (LKAPI *set)(void *, u64),
                                               const char *fmt) {
  auto *a = (SimpleAttr *)alloc(sizeof(SimpleAttr), kGfpZero, LKPI_CALLER());
  if (!a)
    return -12;
  new (a) SimpleAttr{};
  a->get = get, a->set = set, a->fmt = fmt;
  std::memcpy(&a->data, inode + kInodePrivate, 8);
  std::memcpy(file + kFilePrivate, &a, 8);
  return 0;
}
__attribute__((noinline)) int simple_attr_release(u8 *, u8 *file) {
  if (SimpleAttr *a = attr_of(file)) {
    a->~SimpleAttr();
    release(a, LKPI_CALLER());
  }
  return 0;
}
// The value formatted at the first read of an open file (pos 0), then
// read from that text.
long simple_attr_read(u8 *file, char *buf, size_t len, i64 *ppos) {
  SimpleAttr *a = attr_of(file);
  if (!a || !a->get)
    return -13;
  std::lock_guard g(a->mu);
  if (*ppos == 0) {
    u64 v;
    if (int err = a->get(a->data, &v))
      return err;
    std::snprintf(a->get_buf, sizeof a->get_buf, a->fmt, (unsigned long long)v);
  }
  const size_t size = std::strlen(a->get_buf);
  if ((u64)*ppos >= size)
    return 0;
  const size_t n = std::min(len, size - (size_t)*ppos);
  std::memcpy(buf, a->get_buf + *ppos, n);
  *ppos += (i64)n;
  return (long)n;
}
long simple_attr_write(u8 *file, const char *buf, size_t len, i64 *) {
  return attr_write(file, buf, len, false);
}
long simple_attr_write_signed(u8 *file, const char *buf, size_t len, i64 *) {
  return attr_write(file, buf, len, true);
}

// generic_file_llseek() over the file's f_pos and its inode's i_size.
i64 generic_file_llseek(u8 *file, i64 offset, int whence) {
  i64 *pos = (i64 *)(file + kFilePos);
  u8 *inode;
  std::memcpy(&inode, file + kFileInode, 8);
  const i64 size = inode ? *(i64 *)(inode + kInodeSizeField) : 0;
  i64 to;
  switch (whence) {
  case 0: to = offset; break;        // SEEK_SET
  case 1: to = *pos + offset; break; // SEEK_CUR
  case 2: to = size + offset; break; // SEEK_END
  default: return -22;
  }
  if (to < 0)
    return -22;
  return *pos = to;
}

// ---- notifier chains of events that do not happen here ------------------------

namespace {
// Memory hotplug and system suspend: this kernel has neither, so its
// chains are kept and never called.
NotifierChain g_memory_chain, g_pm_chain;
} // namespace

int register_memory_notifier(notifier_block *nb) { return g_memory_chain.add(nb); }
void unregister_memory_notifier(notifier_block *nb) { g_memory_chain.remove(nb); }
int register_pm_notifier(notifier_block *nb) { return g_pm_chain.add(nb); }
int unregister_pm_notifier(notifier_block *nb) { return g_pm_chain.remove(nb); }

LINUX_EXPORT_GPL(debugfs_create_dir);
LINUX_EXPORT_GPL(debugfs_create_file);
LINUX_EXPORT_GPL(debugfs_remove);
LINUX_EXPORT_GPL(simple_attr_open);
LINUX_EXPORT_GPL(simple_attr_release);
LINUX_EXPORT_GPL(simple_attr_read);
LINUX_EXPORT_GPL(simple_attr_write);
LINUX_EXPORT_GPL(simple_attr_write_signed);
LINUX_EXPORT(generic_file_llseek);
LINUX_EXPORT(register_memory_notifier);
LINUX_EXPORT(unregister_memory_notifier);
LINUX_EXPORT_GPL(register_pm_notifier);
LINUX_EXPORT_GPL(unregister_pm_notifier);

} // namespace lkpi

#endif // __x86_64__
