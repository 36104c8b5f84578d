// Misc character devices (drivers/char/misc.c): misc_register() gives a
// module's struct miscdevice a minor of major 10 and a struct device
// (this_device) whose attribute groups Linux shows in sysfs.  Here:
//
// - the devices are listed by the shell's `lsdev` (Linux's /proc/misc,
//   with the class and the module), and `cat /dev/NAME` reads one as
//   read(2) of its node would: misc_open()'s private_data, the driver's
//   open, read until it returns 0, release;
// - each attribute of the device's groups is a sysctl named after its
//   sysfs file: /sys/class/misc/NAME[/GROUP]/ATTR is
//   `sysctl dev.misc.NAME[.GROUP].ATTR`.  Reading one calls its show()
//   into a zeroed page, as sysfs does; setting one calls its store() with
//   exactly the value given (`echo -n`), NUL-terminated, at most a page
//   (-E2BIG beyond; an empty value stores nothing, as sysfs_kf_write()).
//   An attribute without show is write-only: listings pass it over.
//
// Minors are 6.1's: MISC_DYNAMIC_MINOR (255) takes the highest free of the
// 128 dynamic ones counting down from 127, -EBUSY when none is free or a
// fixed minor is taken; a second device of one name is -EEXIST, as sysfs
// refuses the duplicate.  A failed registration leaves no minor, device
// or sysctl behind.  A module that leaves its devices registered loses
// them at unload.
#include "lkpi.h"

#if defined(__x86_64__)

#include "../kern_linker.h"
#include "../kern_sysctl.h"
#include "../shell.h"
#include "../sysinit.h"

#include <algorithm>
#include <bitset>
#include <cstring>
#include <memory>

namespace lkpi {

namespace {

// struct miscdevice (80 bytes).
constexpr size_t kMiscMinor = 0, kMiscName = 8, kMiscFops = 16, kMiscList = 24,
                 kMiscParent = 40, kMiscThisDevice = 48, kMiscGroups = 56;
// struct device (752 bytes): kobj.name first.
constexpr size_t kDevSize = 752, kDevParent = 64, kDevDriverData = 120,
                 kDevDevt = 660, kDevGroups = 696;
// struct attribute_group, struct attribute, struct device_attribute.
constexpr size_t kGroupName = 0, kGroupIsVisible = 8, kGroupAttrs = 24;
constexpr size_t kAttrMode = 8, kDevAttrShow = 16, kDevAttrStore = 24;
// struct file_operations, struct file, struct inode (as debugfs.cpp).
constexpr size_t kFopRead = 16, kFopOpen = 112, kFopRelease = 128;
constexpr size_t kFileSize = 232, kFileInode = 32, kFilePos = 104,
                 kFilePrivate = 200, kInodeSize = 632;

constexpr int kMiscMajor = 10, kDynamicMinor = 255, kDynamicMinors = 128;
constexpr size_t kPageSize = 4096;
constexpr long kEbusy = 16, kEexist = 17, kEinval = 22, kE2big = 7;

using ShowFn = long (LKAPI *)(u8 *dev, u8 *attr, char *buf);
using StoreFn = long (LKAPI *)(u8 *dev, u8 *attr, const char *buf, size_t n);
using VisibleFn = u16 (LKAPI *)(u8 *kobj, u8 *attr, int n);
using OpenFn = int (LKAPI *)(u8 *inode, u8 *file);
using ReadFn = long (LKAPI *)(u8 *file, char *buf, size_t n, i64 *pos);

template <class T> T get(const u8 *p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}
template <class T> void put(u8 *p, size_t off, T v) {
  std::memcpy(p + off, &v, sizeof v);
}

struct MiscDev {
  u8 *misc = nullptr;
  std::string name;
  int minor = 0;
  std::unique_ptr<u8[]> device; // this_device
  std::vector<std::string> sysctls;
  mk::Kernel *kernel = nullptr;
  const mk::LinkerFile *owner = nullptr;
};

std::mutex g_mu;
std::vector<std::unique_ptr<MiscDev>> g_devs;
std::bitset<kDynamicMinors> g_minors;
list_head g_misc_list = {&g_misc_list, &g_misc_list};

mk::Result<std::string> show_attr(u8 *dev, u8 *attr) {
  auto show = get<ShowFn>(attr, kDevAttrShow);
  auto page = std::make_unique<char[]>(kPageSize + 1);
  std::memset(page.get(), 0, kPageSize + 1);
  const long n = show(dev, attr, page.get());
  if (n < 0)
    return mk::error(mk::strf("read: error %ld", n));
  if ((size_t)n >= kPageSize)
    console_line(4, "dev_attr_show: " + symbolize((u64)(uintptr_t)show) +
                        " returned bad count\n");
  return std::string(page.get(), std::min((size_t)n, kPageSize));
}

mk::Result<void> store_attr(u8 *dev, u8 *attr, const std::string &v) {
  if (v.size() > kPageSize)
    return mk::error(mk::strf("write: error %ld (a value of %zu bytes, at most "
                              "%zu)",
                              -kE2big, v.size(), kPageSize));
  if (v.empty())
    return {};
  auto page = std::make_unique<char[]>(kPageSize + 1);
  std::memcpy(page.get(), v.data(), v.size());
  page[v.size()] = '\0';
  const long n = get<StoreFn>(attr, kDevAttrStore)(dev, attr, page.get(), v.size());
  if (n < 0)
    return mk::error(mk::strf("write: error %ld", n));
  return {};
}

// The sysctls of `d`'s attribute groups; false (and none added) when one
// cannot be made.
bool add_attributes(MiscDev &d, u8 **groups) {
  if (!groups || !d.kernel)
    return true;
  u8 *dev = d.device.get();
  for (size_t g = 0; groups[g]; g++) {
    const u8 *grp = groups[g];
    const char *gname = get<const char *>(grp, kGroupName);
    auto visible = get<VisibleFn>(grp, kGroupIsVisible);
    u8 **attrs = get<u8 **>(grp, kGroupAttrs);
    for (int i = 0; attrs && attrs[i]; i++) {
      u8 *attr = attrs[i];
      u16 mode = get<u16>(attr, kAttrMode);
      if (visible && !(mode = visible(dev, attr, i)))
        continue;
      const bool can_show = (mode & 0444) && get<ShowFn>(attr, kDevAttrShow);
      const bool can_store = (mode & 0222) && get<StoreFn>(attr, kDevAttrStore);
      if (!can_show && !can_store)
        continue;
      const std::string aname = get<const char *>(attr, 0);
      mk::Sysctl::Node n;
      n.name = "dev.misc." + d.name + (gname ? "." + std::string(gname) : "") +
               "." + aname;
      n.kind = CTLTYPE_STRING;
      n.flags = (can_show ? CTLFLAG_RD : 0) | (can_store ? CTLFLAG_WR : 0);
      n.descr = "attribute " + aname + " of misc device " + d.name;
      n.owner = d.owner;
      if (can_show)
        n.get = [dev, attr] {
          auto r = show_attr(dev, attr);
          std::string s = r ? *r : "(" + r.error().message + ")";
          while (!s.empty() && s.back() == '\n')
            s.pop_back();
          return s;
        };
      else
        n.get = [] { return std::string(); };
      if (can_store)
        n.set = [dev, attr](const std::string &v) { return store_attr(dev, attr, v); };
      if (auto r = d.kernel->sysctl().add(n); !r) {
        console_line(3, "sysfs: cannot create duplicate filename '/devices/"
                        "virtual/misc/" + d.name + "/" + aname + "'\n");
        for (const std::string &s : d.sysctls)
          d.kernel->sysctl().remove(s);
        d.sysctls.clear();
        return false;
      }
      d.sysctls.push_back(n.name);
    }
  }
  return true;
}

void remove_locked(std::vector<std::unique_ptr<MiscDev>>::iterator it) {
  MiscDev &d = **it;
  if (d.kernel)
    for (const std::string &s : d.sysctls)
      d.kernel->sysctl().remove(s);
  list_del_init((list_head *)(d.misc + kMiscList));
  const int i = kDynamicMinors - d.minor - 1;
  if (i >= 0 && i < kDynamicMinors)
    g_minors.reset((size_t)i);
  g_devs.erase(it);
}

// ---- the shell's view ---------------------------------------------------------

using Args = std::vector<std::string>;

int cmd_lsdev(mk::Kernel &k, Args &a) {
  if (a.size() != 1) {
    k.error_line("lsdev: usage: lsdev");
    return 1;
  }
  std::lock_guard g(g_mu);
  std::vector<const MiscDev *> devs;
  for (auto &d : g_devs)
    devs.push_back(d.get());
  std::sort(devs.begin(), devs.end(), [](const MiscDev *x, const MiscDev *y) {
    return x->minor < y->minor;
  });
  k.printf("%-9s %-6s %-20s %s\n", "Device", "Class", "Name", "Module");
  for (const MiscDev *d : devs) {
    const mk::LinkerFile *f = d->owner;
    k.printf("%-9s %-6s %-20s %s\n",
             mk::strf("%d:%d", kMiscMajor, d->minor).c_str(), "misc",
             d->name.c_str(), f ? f->module_name().c_str() : "-");
  }
  return 0;
}

// read(2) of the device's node until end of file (at most 1 MiB).
int cmd_cat(mk::Kernel &k, Args &a) {
  if (a.size() < 2) {
    k.error_line("cat: usage: cat /dev/NAME ...");
    return 1;
  }
  int rc = 0;
  for (size_t i = 1; i < a.size(); i++) {
    const std::string &path = a[i];
    u8 *misc = nullptr;
    {
      std::lock_guard g(g_mu);
      for (auto &d : g_devs)
        if (path == "/dev/" + d->name)
          misc = d->misc;
    }
    if (!misc) {
      k.error_line("cat: " + path + ": no such device (lsdev lists them)");
      rc = 1;
      continue;
    }
    const u8 *fops = get<const u8 *>(misc, kMiscFops);
    auto read = fops ? get<ReadFn>(fops, kFopRead) : nullptr;
    if (!read) {
      k.error_line("cat: " + path + ": Invalid argument (the driver has no read)");
      rc = 1;
      continue;
    }
    alignas(8) u8 inode[kInodeSize] = {};
    alignas(8) u8 file[kFileSize] = {};
    put<u8 *>(file, kFileInode, inode);
    put<u8 *>(file, kFilePrivate, misc); // misc_open()
    if (auto open = get<OpenFn>(fops, kFopOpen))
      if (int err = open(inode, file)) {
        k.error_line(mk::strf("cat: %s: open: error %d", path.c_str(), err));
        rc = 1;
        continue;
      }
    std::string out;
    char buf[4096];
    long n = 0;
    while (out.size() < (1u << 20) &&
           (n = read(file, buf, sizeof buf, (i64 *)(file + kFilePos))) > 0)
      out.append(buf, (size_t)n);
    if (auto release = get<OpenFn>(fops, kFopRelease))
      release(inode, file);
    k.printf("%s", out.c_str());
    if (n < 0) {
      k.error_line(mk::strf("cat: %s: read: error %ld", path.c_str(), n));
      rc = 1;
    }
  }
  return rc;
}

bool init_misc(mk::Kernel &k) {
  k.shell().add(mk::Shell::Command{"lsdev", "lsdev",
                                   "list the Linux devices modules registered",
                                   cmd_lsdev, nullptr});
  k.shell().add(mk::Shell::Command{"cat", "cat /dev/NAME ...",
                                   "read a Linux device as read(2) would",
                                   cmd_cat, nullptr});
  return true;
}
SYSINIT(linuxkpi_misc, SI_SUB_SHELL, 1, init_misc);

} // namespace

// "misc NAME": what dev_warn() puts before a device's messages.
std::string dev_prefix(const u8 *dev) {
  const char *name = get<const char *>(dev, 0);
  return std::string("misc ") + (name ? name : "(null)");
}

__attribute__((noinline)) int misc_register(u8 *misc) {
  const u64 caller = LKPI_CALLER();
  const char *name = get<const char *>(misc, kMiscName);
  if (!name || !name[0]) {
    console_line(3, "misc_register: a device without a name\n");
    return -kEinval;
  }
  auto d = std::make_unique<MiscDev>();
  d->misc = misc;
  d->name = name;
  d->kernel = mk::curkernel();
  d->owner = d->kernel ? d->kernel->linker().file_at(caller) : nullptr;
  std::lock_guard g(g_mu);
  list_init((list_head *)(misc + kMiscList));
  const int asked = get<int>(misc, kMiscMinor);
  int dyn = -1;
  if (asked == kDynamicMinor) {
    for (int i = 0; i < kDynamicMinors && dyn < 0; i++)
      if (!g_minors.test((size_t)i))
        dyn = i;
    if (dyn < 0)
      return -kEbusy;
    d->minor = kDynamicMinors - dyn - 1;
  } else {
    for (auto &o : g_devs)
      if (o->minor == asked)
        return -kEbusy;
    d->minor = asked;
  }
  for (auto &o : g_devs)
    if (o->name == d->name) {
      console_line(3, "sysfs: cannot create duplicate filename '/devices/"
                      "virtual/misc/" + d->name + "'\n");
      return -kEexist;
    }
  d->device.reset(new u8[kDevSize]());
  u8 *dev = d->device.get();
  put<const char *>(dev, 0, d->name.c_str()); // kobj.name
  put<u8 *>(dev, kDevParent, get<u8 *>(misc, kMiscParent));
  put<u8 *>(dev, kDevDriverData, misc);
  put<u32>(dev, kDevDevt, ((u32)kMiscMajor << 20) | (u32)d->minor);
  put<u8 **>(dev, kDevGroups, get<u8 **>(misc, kMiscGroups));
  if (!add_attributes(*d, get<u8 **>(misc, kMiscGroups)))
    return -kEexist;
  if (dyn >= 0) {
    g_minors.set((size_t)dyn);
    put<int>(misc, kMiscMinor, d->minor);
  }
  put<u8 *>(misc, kMiscThisDevice, dev);
  list_add_between((list_head *)(misc + kMiscList), &g_misc_list, g_misc_list.next);
  g_devs.push_back(std::move(d));
  return 0;
}

void misc_deregister(u8 *misc) {
  std::lock_guard g(g_mu);
  auto it = std::find_if(g_devs.begin(), g_devs.end(),
                         [&](const std::unique_ptr<MiscDev> &d) { return d->misc == misc; });
  if (it == g_devs.end()) {
    console_line(4, lformat("misc_deregister: %px is not registered\n", misc));
    return;
  }
  remove_locked(it);
}

void misc_module_gone(u64 lo, u64 hi) {
  std::lock_guard g(g_mu);
  for (auto it = g_devs.begin(); it != g_devs.end();) {
    const u64 at = (u64)(uintptr_t)(*it)->misc;
    if (at >= lo && at < hi) {
      console_line(4, "misc: " + (*it)->name + " still registered as its module "
                      "goes: deregistered\n");
      remove_locked(it);
      it = g_devs.begin();
    } else {
      ++it;
    }
  }
}

// fs/libfs.c: `available` bytes at `from`, read from *ppos.  Kernel and
// user memory are one here, so the copy cannot fault.
long simple_read_from_buffer(void *to, size_t count, i64 *ppos, const void *from,
                             size_t available) {
  const i64 pos = *ppos;
  if (pos < 0)
    return -kEinval;
  if ((u64)pos >= available || !count)
    return 0;
  if (count > available - (size_t)pos)
    count = available - (size_t)pos;
  std::memcpy(to, (const u8 *)from + pos, count);
  *ppos = pos + (i64)count;
  return (long)count;
}

LINUX_EXPORT(misc_register);
LINUX_EXPORT(misc_deregister);
LINUX_EXPORT(simple_read_from_buffer);

} // namespace lkpi

#endif // __x86_64__
