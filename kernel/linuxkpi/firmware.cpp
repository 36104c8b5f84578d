// Firmware loading (drivers/base/firmware_loader/ in Linux 6.1): a
// driver's request_firmware() reads a file from the firmware directories
// into a struct firmware it later gives back with release_firmware().
//
// The directories are Linux's, in its order: the one set in sysctl
// module.firmware_class.path (Linux's firmware_class.path parameter;
// empty, so skipped, by default), /lib/firmware/updates/UTS,
// /lib/firmware/updates, /lib/firmware/UTS and /lib/firmware, UTS being
// this kernel's release, 6.1.0-minikern (banner.cpp).  The first that has
// the file gives it; one where it is absent is passed over silently, one
// that fails otherwise is said ("loading PATH failed with error N") and
// passed over too.  What no directory gives fails the request with
// Linux's "Direct firmware load for NAME failed with error N", said
// against the device (request_firmware_direct() keeps quiet).
//
// A name with a ".." component is -EINVAL, as Linux 6.1.y refuses path
// traversal.  The sizes are kernel_read_file()'s: an empty file is -EINVAL; a file
// larger than the caller's buffer (request_firmware_into_buf()) -EFBIG;
// a partial read (request_partial_firmware_into_buf()) takes what fits of
// the file from its offset.  firmware_request_platform() falls back to
// the firmware EFI found embedded in the machine's boot code, listed in
// efi_embedded_fw_list once efi_embedded_fw_checked says the search ran:
// on this machine, as on any that did not boot by EFI, the list is empty
// and the search never ran, so only what a module itself lists there is
// found (Linux's lib/test_firmware does).  Compressed (.xz) firmware, the
// firmware cache and the sysfs user-helper fallback, which would wait for
// a program to write the data, are not here: a request that would fall
// back to the helper fails as a direct one does.
//
// request_firmware_nowait() runs the request on system_wq and hands the
// result (null when it failed) to the callback there; the requesting
// module is held until the callback has returned, so it cannot unload in
// between.  The struct firmware and the data read for it are charged to
// the module that asked.
#include "lkpi.h"

#if defined(__x86_64__)

#include "../kern_linker.h"
#include "../kern_sysctl.h"
#include "../sysinit.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lkpi {

bool queue_work_on(int cpu, workqueue_struct *wq, work_struct *w);
extern workqueue_struct *system_wq;
// The name a device goes by in messages (misc.cpp): "misc test_firmware".
std::string dev_prefix(const u8 *dev);

// struct efi_embedded_fw (include/linux/efi_embedded_fw.h).
struct efi_embedded_fw {
  list_head list;
  const char *name;
  const u8 *data;
  size_t length;
};
static_assert(sizeof(efi_embedded_fw) == 40);

list_head efi_embedded_fw_list = {&efi_embedded_fw_list, &efi_embedded_fw_list};
bool efi_embedded_fw_checked;

namespace {

// struct firmware: 24 bytes in 6.1 (no pages array), priv ours.
struct firmware {
  size_t size;
  const u8 *data;
  void *priv;
};
static_assert(sizeof(firmware) == 24 && offsetof(firmware, priv) == 16);

// What priv points at: says the firmware is one of ours and whether its
// data is the caller's buffer (into_buf) or ours to free.
struct FwPriv {
  u64 magic;
  bool owns_data;
};
constexpr u64 kFwMagic = 0x6677707269763631ull; // "fwpriv61"

// FW_OPT_* of drivers/base/firmware_loader/firmware.h, the ones that
// change what happens here.
constexpr u32 kOptNoWarn = 1u << 4, kOptPartial = 1u << 8,
              kOptFallbackPlatform = 1u << 7;

constexpr const char *kUts = "6.1.0-minikern";
constexpr size_t kPathParaMax = 256; // fw_path_para[256]

std::mutex g_path_mu;
std::string g_path_para; // module.firmware_class.path

constexpr int kEnoent = 2, kEio = 5, kEnomem = 12, kEfault = 14,
              kEinval = 22, kEfbig = 27,
              kEnametoolong = 36;

void dev_warn(const u8 *dev, const std::string &msg) {
  console_line(4, (dev ? dev_prefix(dev) + ": " : std::string()) + msg + "\n");
}

// kernel_read_file() of `path` from `offset` into `*buf` (allocated for
// the file when null) of `buf_size` bytes; with `partial`, a file larger
// than the buffer is not an error.  The bytes read, or -errno.
long read_file(const std::string &path, size_t offset, u8 **buf,
               size_t buf_size, bool partial, u64 caller) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0)
    return -errno;
  if (!S_ISREG(st.st_mode) || st.st_size <= 0)
    return -kEinval;
  const u64 i_size = (u64)st.st_size;
  if (i_size > INT_MAX)
    return -kEfbig;
  if (!partial && offset == 0 && i_size > buf_size)
    return -kEfbig;
  const bool whole = offset == 0 && i_size <= buf_size;
  u8 *allocated = nullptr;
  if (!*buf) {
    allocated = (u8 *)alloc(i_size, 0, caller);
    if (!allocated)
      return -kEnomem;
    *buf = allocated;
  }
  size_t copied = 0;
  u64 pos = offset;
  while (copied < buf_size) {
    const size_t left = pos < i_size ? (size_t)(i_size - pos) : 0;
    const size_t want = std::min(buf_size - copied, left);
    if (want == 0)
      break;
    const ssize_t n = ::pread(fd, *buf + copied, want, (off_t)pos);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        break;
      const long err = -errno;
      if (allocated) {
        release(allocated, caller);
        *buf = nullptr;
      }
      return err;
    }
    copied += (size_t)n;
    pos += (u64)n;
  }
  if (whole && pos != i_size) {
    if (allocated) {
      release(allocated, caller);
      *buf = nullptr;
    }
    return -kEio;
  }
  return (long)copied;
}

// fw_get_filesystem_firmware(): the first directory that gives the file.
// As in Linux, a failure other than -ENOENT is said and the search goes
// on, so what fails the request is the last directory's error.
long from_filesystem(const u8 *dev, const char *name, u8 **buf,
                     size_t buf_size, size_t offset, u32 opts, u64 caller) {
  std::vector<std::string> dirs;
  {
    std::lock_guard g(g_path_mu);
    dirs.push_back(g_path_para);
  }
  dirs.push_back(std::string("/lib/firmware/updates/") + kUts);
  dirs.push_back("/lib/firmware/updates");
  dirs.push_back(std::string("/lib/firmware/") + kUts);
  dirs.push_back("/lib/firmware");
  long rc = -kEnoent;
  for (const std::string &dir : dirs) {
    if (dir.empty())
      continue;
    const std::string path = dir + "/" + name;
    if (path.size() >= 4096) // PATH_MAX
      return -kEnametoolong;
    rc = read_file(path, offset, buf, buf_size, opts & kOptPartial, caller);
    if (rc < 0) {
      if (rc != -kEnoent)
        dev_warn(dev, lformat("loading %s failed with error %ld", path.c_str(), rc));
      continue;
    }
    return rc;
  }
  return rc;
}

// firmware_fallback_platform(): the firmware EFI found embedded, a copy.
long from_platform(const char *name, u8 **buf, size_t buf_size, u64 caller) {
  if (!efi_embedded_fw_checked) {
    console_line(4, "Warning efi_get_embedded_fw called while we did not check "
                    "for embedded fw\n");
    return -kEnoent;
  }
  for (list_head *p = efi_embedded_fw_list.next; p != &efi_embedded_fw_list;
       p = p->next) {
    auto *e = (efi_embedded_fw *)((u8 *)p - offsetof(efi_embedded_fw, list));
    if (!e->name || std::strcmp(e->name, name) != 0)
      continue;
    if (*buf && e->length > buf_size)
      return -kEfbig;
    if (!*buf && !(*buf = (u8 *)alloc(e->length ? e->length : 1, 0, caller)))
      return -kEnomem;
    std::memcpy(*buf, e->data, e->length);
    return (long)e->length;
  }
  return -kEnoent;
}

// name_contains_dotdot() (6.1.y's "Block path traversal"): a ".."
// component would leave the firmware directories.
bool has_dotdot(const char *name) {
  for (const char *p = name; (p = std::strstr(p, "..")); p += 2)
    if ((p == name || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
      return true;
  return false;
}

// _request_firmware(): `*out` gets the firmware, or null with the error.
int request(const firmware **out, const char *name, const u8 *dev, void *buf,
            size_t size, size_t offset, u32 opts, u64 caller) {
  if (!out)
    return -kEinval;
  *out = nullptr;
  if (!name || !name[0] || has_dotdot(name))
    return -kEinval;
  if ((opts & kOptPartial) && !buf)
    return -kEinval;
  auto *fw = (firmware *)alloc(sizeof(firmware), kGfpZero, caller);
  auto *priv = (FwPriv *)alloc(sizeof(FwPriv), kGfpZero, caller);
  if (!fw || !priv) {
    release(fw, caller);
    release(priv, caller);
    return -kEnomem;
  }
  u8 *data = (u8 *)buf;
  const size_t msize = buf ? size : (size_t)INT_MAX;
  long rc = from_filesystem(dev, name, &data, msize, offset, opts, caller);
  if (rc == -kEnoent && !(opts & kOptPartial) && (opts & kOptFallbackPlatform))
    rc = from_platform(name, &data, msize, caller);
  if (rc < 0) {
    if (!(opts & kOptNoWarn))
      dev_warn(dev, lformat("Direct firmware load for %s failed with error %ld",
                            name, rc));
    release(fw, caller);
    release(priv, caller);
    return (int)rc;
  }
  priv->magic = kFwMagic;
  priv->owns_data = data != buf;
  fw->size = (size_t)rc;
  fw->data = data;
  fw->priv = priv;
  *out = fw;
  return 0;
}

// request_firmware_nowait()'s work: the request, then the callback.
struct FwWork {
  work_struct work;
  char *name;
  const u8 *dev;
  void *context;
  void (LKAPI *cont)(const firmware *, void *);
  u32 opts;
  u64 caller;
  mk::ModuleRec *held;
};

LKAPI void fw_work_fn(work_struct *w) {
  auto *fw = (FwWork *)((u8 *)w - offsetof(FwWork, work));
  const firmware *got = nullptr;
  request(&got, fw->name, fw->dev, nullptr, 0, 0, fw->opts, fw->caller);
  fw->cont(got, fw->context);
  if (fw->held)
    fw->held->holds--;
  release(fw->name, fw->caller);
  release(fw, fw->caller);
}

bool init_firmware(mk::Kernel &k) {
  mk::Sysctl::Node n;
  n.name = "module.firmware_class.path";
  n.kind = CTLTYPE_STRING;
  n.flags = CTLFLAG_RW;
  n.descr = "A directory searched for firmware before /lib/firmware/updates/" +
            std::string(kUts) + ", /lib/firmware/updates, /lib/firmware/" +
            kUts + " and /lib/firmware (empty: none)";
  n.get = [] {
    std::lock_guard g(g_path_mu);
    return g_path_para;
  };
  n.set = [](const std::string &v) -> mk::Result<void> {
    std::string dir = v;
    while (!dir.empty() && dir.back() == '\n') // as Linux strips it
      dir.pop_back();
    if (dir.size() >= kPathParaMax)
      return mk::error(mk::strf("a path of %zu bytes: at most %zu", dir.size(),
                                kPathParaMax - 1));
    std::lock_guard g(g_path_mu);
    g_path_para = dir;
    return {};
  };
  if (auto r = k.sysctl().add(n); !r) {
    k.error_line("kernel: " + r.error().message);
    return false;
  }
  return true;
}
SYSINIT(linuxkpi_firmware, SI_SUB_KLD, 1, init_firmware);

} // namespace

// FW_OPT_UEVENT (1) everywhere; _direct adds NO_WARN and
// NOFALLBACK_SYSFS, into_buf NOCACHE, the partial form PARTIAL.
__attribute__((noinline)) int request_firmware(const firmware **fw,
                                               const char *name, const u8 *dev) {
  return request(fw, name, dev, nullptr, 0, 0, 1, LKPI_CALLER());
}
__attribute__((noinline)) int request_firmware_direct(const firmware **fw,
                                                      const char *name,
                                                      const u8 *dev) {
  return request(fw, name, dev, nullptr, 0, 0, 1 | kOptNoWarn | (1u << 5),
                 LKPI_CALLER());
}
__attribute__((noinline)) int firmware_request_nowarn(const firmware **fw,
                                                      const char *name,
                                                      const u8 *dev) {
  return request(fw, name, dev, nullptr, 0, 0, 1 | kOptNoWarn, LKPI_CALLER());
}
__attribute__((noinline)) int firmware_request_platform(const firmware **fw,
                                                        const char *name,
                                                        const u8 *dev) {
  return request(fw, name, dev, nullptr, 0, 0, 1 | kOptFallbackPlatform,
                 LKPI_CALLER());
}
__attribute__((noinline)) int request_firmware_into_buf(const firmware **fw,
                                                        const char *name,
                                                        const u8 *dev, void *buf,
                                                        size_t size) {
  return request(fw, name, dev, buf, size, 0, 1 | (1u << 6), LKPI_CALLER());
}
__attribute__((noinline)) int
request_partial_firmware_into_buf(const firmware **fw, const char *name,
                                  const u8 *dev, void *buf, size_t size,
                                  size_t offset) {
  return request(fw, name, dev, buf, size, offset, 1 | (1u << 6) | kOptPartial,
                 LKPI_CALLER());
}

__attribute__((noinline)) void release_firmware(const firmware *fw) {
  if (!fw)
    return;
  const u64 caller = LKPI_CALLER();
  auto *priv = (FwPriv *)fw->priv;
  if (!priv || (uintptr_t)priv <= kZeroSizePtr || priv->magic != kFwMagic) {
    console_line(3, lformat("release_firmware: %px is no firmware this kernel "
                            "gave\n", fw));
    return;
  }
  if (priv->owns_data)
    release(fw->data, caller);
  priv->magic = 0;
  release(priv, caller);
  release(fw, caller);
}

// `uevent` false asks for the user-helper fallback, which is not here.
__attribute__((noinline)) int
request_firmware_nowait(u8 *module, bool uevent, const char *name,
                        const u8 *dev, unsigned gfp, void *context,
                        void (LKAPI *cont)(const firmware *, void *)) {
  const u64 caller = LKPI_CALLER();
  if (!cont || !name)
    return -kEinval;
  auto *w = (FwWork *)alloc(sizeof(FwWork), kGfpZero, caller);
  if (!w)
    return -kEnomem;
  const size_t len = std::strlen(name);
  w->name = (char *)alloc(len + 1, 0, caller);
  if (!w->name) {
    release(w, caller);
    return -kEnomem;
  }
  std::memcpy(w->name, name, len + 1);
  w->dev = dev;
  w->context = context;
  w->cont = cont;
  w->opts = (1u << 1) | (uevent ? 1u : (1u << 2)); // NOWAIT | UEVENT/USERHELPER
  w->caller = caller;
  // try_module_get(): a module that is going cannot ask.
  if (module) {
    mk::Kernel *k = mk::curkernel();
    mk::LinkerFile *f = k ? k->linker().file_at((u64)(uintptr_t)module) : nullptr;
    if (!f || f->modules.empty()) {
      release(w->name, caller);
      release(w, caller);
      return -kEfault;
    }
    w->held = f->modules.front().get();
    w->held->holds++;
  }
  list_init(&w->work.entry);
  w->work.func = fw_work_fn;
  queue_work_on(8192 /* WORK_CPU_UNBOUND */, system_wq, &w->work);
  return 0;
}

LINUX_EXPORT_GPL(efi_embedded_fw_list);
LINUX_EXPORT_GPL(efi_embedded_fw_checked);
LINUX_EXPORT(request_firmware);
LINUX_EXPORT_GPL(request_firmware_direct);
LINUX_EXPORT_GPL(firmware_request_nowarn);
LINUX_EXPORT_GPL(firmware_request_platform);
LINUX_EXPORT(request_firmware_into_buf);
LINUX_EXPORT(request_partial_firmware_into_buf);
LINUX_EXPORT(release_firmware);
LINUX_EXPORT(request_firmware_nowait);

} // namespace lkpi

#endif // __x86_64__
