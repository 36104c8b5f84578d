// Module parameters: the struct kernel_param_ops objects module_param()
// names (param_ops_int, param_ops_charp, param_array_ops ...) with
// kernel/params.c's semantics.  The loader calls ops->set(value, kp) for
// `insmod FILE name=value` and ops->get(buffer, kp) (a PAGE_SIZE buffer)
// for reads; ops->free(kp->arg), where there is one, when the module goes.
#include "lkpi.h"

#include <cstring>
#include <mutex>
#include <set>

namespace lkpi {

struct kernel_param;
struct kernel_param_ops {
  unsigned flags; // KERNEL_PARAM_OPS_FL_NOARG: set() takes a null value
  int (LKAPI *set)(const char *val, const kernel_param *kp);
  int (LKAPI *get)(char *buffer, const kernel_param *kp);
  void (LKAPI *free)(void *arg);
};
struct kparam_string {
  unsigned maxlen;
  char *string;
};
struct kparam_array {
  unsigned max;
  unsigned elemsize;
  unsigned *num;
  const kernel_param_ops *ops;
  void *elem;
};
struct kernel_param {
  const char *name;
  void *mod;
  const kernel_param_ops *ops;
  u16 perm;
  signed char level;
  u8 flags;
  union {
    void *arg;
    const kparam_string *str;
    const kparam_array *arr;
  };
};
#if defined(__x86_64__)
static_assert(sizeof(kernel_param) == 40 && offsetof(kernel_param, arg) == 32);
static_assert(sizeof(kernel_param_ops) == 32 && sizeof(kparam_array) == 32);
#else
static_assert(sizeof(kernel_param) == 20 && offsetof(kernel_param, arg) == 16);
static_assert(sizeof(kernel_param_ops) == 16 && sizeof(kparam_array) == 20);
#endif

int kstrtou8(const char *, unsigned, u8 *);
int kstrtos16(const char *, unsigned, short *);
int kstrtou16(const char *, unsigned, u16 *);
int kstrtoint(const char *, unsigned, int *);
int kstrtouint(const char *, unsigned, unsigned *);
int _kstrtol(const char *, unsigned, long *);
int _kstrtoul(const char *, unsigned, unsigned long *);
int kstrtoull(const char *, unsigned, unsigned long long *);
int kstrtobool(const char *, bool *);
int scnprintf(char *, size_t, const char *, ...);

namespace {
constexpr int EINVAL_ = 22, ENOSPC_ = 28, ENOMEM_ = 12;
constexpr size_t kPage = 4096;
} // namespace

// STANDARD_PARAM_DEF: parse with kstrto*, print with the type's format.
#define LKPI_STANDARD_PARAM(name, type, format, strtolfn)                      \
  LKAPI int param_set_##name(const char *val, const kernel_param *kp) {        \
    return strtolfn(val, 0, (type *)kp->arg);                                  \
  }                                                                            \
  LKAPI int param_get_##name(char *buffer, const kernel_param *kp) {           \
    return scnprintf(buffer, kPage, format "\n", *(type *)kp->arg);            \
  }                                                                            \
  const kernel_param_ops param_ops_##name = {0, param_set_##name,              \
                                             param_get_##name, nullptr};

LKPI_STANDARD_PARAM(byte, u8, "%hhu", kstrtou8)
LKPI_STANDARD_PARAM(short, short, "%hi", kstrtos16)
LKPI_STANDARD_PARAM(ushort, u16, "%hu", kstrtou16)
LKPI_STANDARD_PARAM(int, int, "%i", kstrtoint)
LKPI_STANDARD_PARAM(uint, unsigned, "%u", kstrtouint)
LKPI_STANDARD_PARAM(long, long, "%li", _kstrtol)
LKPI_STANDARD_PARAM(ulong, unsigned long, "%lu", _kstrtoul)
LKPI_STANDARD_PARAM(ullong, unsigned long long, "%llu", kstrtoull)
LKPI_STANDARD_PARAM(hexint, unsigned, "%#08x", kstrtouint)

// bool: y/n/1/0/Y/N (and on/off); a bare "name" means true.
LKAPI int param_set_bool(const char *val, const kernel_param *kp) {
  if (!val)
    val = "1";
  return kstrtobool(val, (bool *)kp->arg);
}
LKAPI int param_get_bool(char *buffer, const kernel_param *kp) {
  return std::snprintf(buffer, kPage, "%c\n", *(bool *)kp->arg ? 'Y' : 'N');
}
const kernel_param_ops param_ops_bool = {1, param_set_bool, param_get_bool,
                                         nullptr};

LKAPI int param_set_invbool(const char *val, const kernel_param *kp) {
  bool v;
  kernel_param dummy = *kp;
  dummy.arg = &v;
  int r = param_set_bool(val, &dummy);
  if (r == 0)
    *(bool *)kp->arg = !v;
  return r;
}
LKAPI int param_get_invbool(char *buffer, const kernel_param *kp) {
  return std::snprintf(buffer, kPage, "%c\n", *(bool *)kp->arg ? 'N' : 'Y');
}
const kernel_param_ops param_ops_invbool = {0, param_set_invbool,
                                            param_get_invbool, nullptr};

// charp: the value is copied; a copy made here is freed when replaced or
// when the module goes, the module's own initial string never.
namespace {
std::mutex g_charp_mu;
std::set<void *> g_charp_copies;

void maybe_free(void *p) {
  {
    std::lock_guard g(g_charp_mu);
    if (!g_charp_copies.erase(p))
      return;
  }
  release(p, 0);
}
} // namespace

LKAPI int param_set_charp(const char *val, const kernel_param *kp) {
  const size_t n = std::strlen(val);
  if (n > 1024) {
    console_line(3, mk::strf("%s: string parameter too long\n", kp->name));
    return -ENOSPC_;
  }
  maybe_free(*(char **)kp->arg);
  auto *copy = (char *)alloc(n + 1, 0, 0);
  if (!copy)
    return -ENOMEM_;
  std::memcpy(copy, val, n + 1);
  {
    std::lock_guard g(g_charp_mu);
    g_charp_copies.insert(copy);
  }
  *(char **)kp->arg = copy;
  return 0;
}
LKAPI int param_get_charp(char *buffer, const kernel_param *kp) {
  return scnprintf(buffer, kPage, "%s\n", *(char **)kp->arg);
}
LKAPI void param_free_charp(void *arg) { maybe_free(*(char **)arg); }
const kernel_param_ops param_ops_charp = {0, param_set_charp, param_get_charp,
                                          param_free_charp};

// string: copied into the module's own buffer of maxlen bytes.
LKAPI int param_set_copystring(const char *val, const kernel_param *kp) {
  const kparam_string *kps = kp->str;
  if (std::strlen(val) + 1 > kps->maxlen) {
    console_line(3, mk::strf("%s: string doesn't fit in %u chars.\n", kp->name,
                             kps->maxlen - 1));
    return -ENOSPC_;
  }
  std::strcpy(kps->string, val);
  return 0;
}
LKAPI int param_get_string(char *buffer, const kernel_param *kp) {
  return scnprintf(buffer, kPage, "%s\n", kp->str->string);
}
const kernel_param_ops param_ops_string = {0, param_set_copystring,
                                           param_get_string, nullptr};

// Arrays: a comma-separated list, each element set through the element
// type's ops; *num counts them.
namespace {
LKAPI int param_array_set(const char *val, const kernel_param *kp) {
  const kparam_array *arr = kp->arr;
  unsigned temp_num;
  unsigned *num = arr->num ? arr->num : &temp_num;
  std::string copy = val ? val : "";
  char *v = copy.data();
  kernel_param p = *kp;
  p.arg = arr->elem;
  *num = 0;
  char save;
  do {
    if (*num == arr->max) {
      console_line(3, mk::strf("%s: can only take %i arguments\n", kp->name,
                               (int)arr->max));
      return -EINVAL_;
    }
    const size_t len = std::strcspn(v, ",");
    save = v[len];
    v[len] = '\0';
    int r = arr->ops->set(v, &p);
    if (r != 0)
      return r;
    p.arg = (u8 *)p.arg + arr->elemsize;
    v += len + 1;
    (*num)++;
  } while (save == ',');
  return 0;
}
LKAPI int param_array_get(char *buffer, const kernel_param *kp) {
  const kparam_array *arr = kp->arr;
  kernel_param p = *kp;
  int off = 0;
  const unsigned n = arr->num ? *arr->num : arr->max;
  for (unsigned i = 0; i < n; i++) {
    if (i)
      buffer[off - 1] = ','; // the previous element's newline
    p.arg = (u8 *)arr->elem + arr->elemsize * i;
    int r = arr->ops->get(buffer + off, &p);
    if (r < 0)
      return r;
    off += r;
  }
  buffer[off] = '\0';
  return off;
}
LKAPI void param_array_free(void *arg) {
  const kparam_array *arr = (const kparam_array *)arg;
  if (arr->ops->free)
    for (unsigned i = 0; i < (arr->num ? *arr->num : arr->max); i++)
      arr->ops->free((u8 *)arr->elem + arr->elemsize * i);
}
} // namespace
const kernel_param_ops param_array_ops = {0, param_array_set, param_array_get,
                                          param_array_free};

LINUX_EXPORT(param_ops_byte);
LINUX_EXPORT(param_ops_short);
LINUX_EXPORT(param_ops_ushort);
LINUX_EXPORT(param_ops_int);
LINUX_EXPORT(param_ops_uint);
LINUX_EXPORT(param_ops_long);
LINUX_EXPORT(param_ops_ulong);
LINUX_EXPORT(param_ops_ullong);
LINUX_EXPORT(param_ops_hexint);
LINUX_EXPORT(param_ops_bool);
LINUX_EXPORT(param_ops_invbool);
LINUX_EXPORT(param_ops_charp);
LINUX_EXPORT(param_ops_string);
LINUX_EXPORT(param_array_ops);
LINUX_EXPORT_LKAPI(param_set_byte);
LINUX_EXPORT_LKAPI(param_get_byte);
LINUX_EXPORT_LKAPI(param_set_short);
LINUX_EXPORT_LKAPI(param_get_short);
LINUX_EXPORT_LKAPI(param_set_ushort);
LINUX_EXPORT_LKAPI(param_get_ushort);
LINUX_EXPORT_LKAPI(param_set_int);
LINUX_EXPORT_LKAPI(param_get_int);
LINUX_EXPORT_LKAPI(param_set_uint);
LINUX_EXPORT_LKAPI(param_get_uint);
LINUX_EXPORT_LKAPI(param_set_long);
LINUX_EXPORT_LKAPI(param_get_long);
LINUX_EXPORT_LKAPI(param_set_ulong);
LINUX_EXPORT_LKAPI(param_get_ulong);
LINUX_EXPORT_LKAPI(param_set_ullong);
LINUX_EXPORT_LKAPI(param_get_ullong);
LINUX_EXPORT_LKAPI(param_set_hexint);
LINUX_EXPORT_LKAPI(param_get_hexint);
LINUX_EXPORT_LKAPI(param_set_bool);
LINUX_EXPORT_LKAPI(param_get_bool);
LINUX_EXPORT_LKAPI(param_set_invbool);
LINUX_EXPORT_LKAPI(param_get_invbool);
LINUX_EXPORT_LKAPI(param_set_charp);
LINUX_EXPORT_LKAPI(param_get_charp);
LINUX_EXPORT_LKAPI(param_free_charp);
LINUX_EXPORT_LKAPI(param_set_copystring);
LINUX_EXPORT_LKAPI(param_get_string);

} // namespace lkpi
