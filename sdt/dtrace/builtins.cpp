// The table of D's built-in functions (see BuiltinFn in dtrace.h).  Each
// entry is all the compiler knows about a function: the parser accepts
// its name, the type checker its arguments, and the BPF lowering calls
// its library function with them (a scratch buffer first when it makes a
// string; omitted arguments pass their default).
#include "dtrace.h"
#include "bpfgen.h"

#include "../../kernel/kern_panic.h"
#include "../registry.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>

namespace mk::dt {

namespace {

i64 host_strlen(const i64 *a) {
  return (i64)strnlen((const char *)(uintptr_t)a[0], kStrSize - 1);
}
i64 host_strchar(const i64 *a) {
  const char *s = (const char *)(uintptr_t)a[0];
  const i64 n = (i64)strnlen(s, kStrSize - 1);
  return a[1] < 0 || a[1] >= n ? 0 : (i64)(signed char)s[a[1]];
}
i64 host_chill(const i64 *a) {
  dt_chill(std::min<u64>((u64)a[0], kMaxChill));
  return 0;
}
i64 host_panic(const i64 *) { dt_panic(nullptr); }

constexpr ArgT I = ArgT::Int, S = ArgT::Str;

const BuiltinFn kBuiltins[] = {
    // name, nargs, required, argument types, defaults, result, how, lib, flags, host[, helper]
    {"stringof", 1, 1, {ArgT::Addr}, {}, Type::String, BuiltinFn::CopyIn, nullptr, 0, nullptr},
    {"copyinstr", 2, 1, {ArgT::Addr, I}, {}, Type::String, BuiltinFn::CopyIn, nullptr, 0, nullptr},
    {"stack", 1, 0, {I}, {}, Type::Stack, BuiltinFn::Stack, nullptr, 0, nullptr},
    {"speculation", 0, 0, {}, {}, Type::Int32, BuiltinFn::Speculation, nullptr, 0, nullptr},
    // Memory: alloca(size) is a void *, bcopy(src, dst, size) fills it.
    {"alloca", 1, 1, {I}, {}, Type::UInt64, BuiltinFn::Alloca, nullptr, 0, nullptr},
    {"bcopy", 3, 3, {ArgT::Addr, I, I}, {}, Type::Int32, BuiltinFn::Bcopy, nullptr, 0, nullptr},
    // copyin(addr, size): a copy in new alloca( ) bytes; copyinto(addr,
    // size, dst): into alloca( )'s bytes at dst.
    {"copyin", 2, 2, {ArgT::Addr, I}, {}, Type::UInt64, BuiltinFn::Alloca, nullptr, 0, nullptr},
    {"copyinto", 3, 3, {ArgT::Addr, I, I}, {}, Type::Int32, BuiltinFn::Bcopy, nullptr, 0, nullptr},
    {"strlen", 1, 1, {S}, {}, Type::Int64, BuiltinFn::Library, "dt_strlen", 0, host_strlen, H_STRLEN},
    {"strjoin", 2, 2, {S, S}, {}, Type::String, BuiltinFn::Library, "dt_strjoin", BF_DST, nullptr},
    // Without a length: one past any string (dt_substr clamps it).
    {"substr", 3, 2, {S, I, I}, {0, 0, 1 << 30}, Type::String, BuiltinFn::Library, "dt_substr", BF_DST, nullptr},
    {"index", 3, 2, {S, S, I}, {0, 0, 0}, Type::Int64, BuiltinFn::Library, "dt_index", 0, nullptr},
    {"rindex", 3, 2, {S, S, I}, {0, 0, INT64_MAX}, Type::Int64, BuiltinFn::Library, "dt_rindex", 0, nullptr},
    {"strchr", 2, 2, {S, I}, {}, Type::String, BuiltinFn::Library, "dt_strchr_d", BF_DST | BF_NULL, nullptr},
    {"strrchr", 2, 2, {S, I}, {}, Type::String, BuiltinFn::Library, "dt_strrchr_d", BF_DST | BF_NULL, nullptr},
    {"strstr", 2, 2, {S, S}, {}, Type::String, BuiltinFn::Library, "dt_strstr_d", BF_DST | BF_NULL, nullptr},
    {"strtok", 2, 2, {ArgT::StrOrNull, S}, {}, Type::String, BuiltinFn::Library, "dt_strtok_d", BF_DST | BF_NULL | BF_STATE, nullptr},
    {"basename", 1, 1, {S}, {}, Type::String, BuiltinFn::Library, "dt_basename", BF_DST, nullptr},
    {"dirname", 1, 1, {S}, {}, Type::String, BuiltinFn::Library, "dt_dirname", BF_DST, nullptr},
    {"lltostr", 1, 1, {I}, {}, Type::String, BuiltinFn::Library, "dt_lltostr", BF_DST, nullptr},
    {"toupper", 1, 1, {S}, {}, Type::String, BuiltinFn::Library, "dt_toupper", BF_DST, nullptr},
    {"tolower", 1, 1, {S}, {}, Type::String, BuiltinFn::Library, "dt_tolower", BF_DST, nullptr},
    {"strtoll", 2, 1, {S, I}, {0, 10}, Type::Int64, BuiltinFn::Library, "dt_strtoll", 0, nullptr},
    {"htons", 1, 1, {I}, {}, Type::Int64, BuiltinFn::Library, "dt_bswap16", 0, nullptr},
    {"ntohs", 1, 1, {I}, {}, Type::Int64, BuiltinFn::Library, "dt_bswap16", 0, nullptr},
    {"htonl", 1, 1, {I}, {}, Type::Int64, BuiltinFn::Library, "dt_bswap32", 0, nullptr},
    {"ntohl", 1, 1, {I}, {}, Type::Int64, BuiltinFn::Library, "dt_bswap32", 0, nullptr},
    {"htonll", 1, 1, {I}, {}, Type::Int64, BuiltinFn::Library, "dt_bswap64", 0, nullptr},
    {"ntohll", 1, 1, {I}, {}, Type::Int64, BuiltinFn::Library, "dt_bswap64", 0, nullptr},
    {"rand", 0, 0, {}, {}, Type::Int32, BuiltinFn::Library, "dt_rand", BF_STATE, nullptr},
    // inet_ntoa(ipaddr_t *), inet_ntoa6(in6_addr_t *[, strict]) and
    // inet_ntop(af, addr) as the parser rewrites them: the address's words,
    // loaded where D reads memory (parse.cpp, inet_call).
    {"inet_ntoa", 1, 1, {I}, {}, Type::String, BuiltinFn::Library, "dt_inet_ntoa", BF_DST, nullptr},
    {"inet_ntoa6", 3, 3, {I, I, I}, {}, Type::String, BuiltinFn::Library, "dt_inet_ntoa6", BF_DST, nullptr},
    // s[i], a string's character (the parser's name for it: no D
    // program can call "[]" by name).
    {"[]", 2, 2, {S, I}, {}, Type::Int8, BuiltinFn::Library, "dt_strchar", 0, host_strchar},
    // Destructive: the consumer's helpers do them in probe context.
    {"chill", 1, 1, {I}, {}, Type::Int32, BuiltinFn::Library, nullptr, BF_DESTRUCTIVE, host_chill, H_CHILL},
    {"panic", 0, 0, {}, {}, Type::Int32, BuiltinFn::Library, nullptr, BF_DESTRUCTIVE, host_panic, H_PANIC},
};

} // namespace

void dt_chill(u64 ns) {
  // A busy wait, as DTrace's: the probe's thread is held, not descheduled.
  timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do
    clock_gettime(CLOCK_MONOTONIC, &t);
  while ((u64)(t.tv_sec - t0.tv_sec) * 1000000000 + (u64)t.tv_nsec -
             (u64)t0.tv_nsec <
         ns);
}

void dt_panic(const char *probe) {
  // The backtrace from the probe's site: through the probed code's
  // frames, which the unwinder cannot reach from a JIT-compiled clause.
  const char *what = probe ? probe : "its probe";
  if (const ProbeFrame *pf = probe_frame())
    mk::panic_from(*pf, "dtrace: panic( ) called by a D clause of %s", what);
  mk::panic("dtrace: panic( ) called by a D clause of %s", what);
}

const BuiltinFn *find_builtin(const std::string &name) {
  for (const BuiltinFn &f : kBuiltins)
    if (name == f.name)
      return &f;
  return nullptr;
}

const BuiltinFn &builtin(u32 index) { return kBuiltins[index]; }

u32 builtin_index(const BuiltinFn &f) { return (u32)(&f - kBuiltins); }

std::string builtin_names() {
  std::string r;
  for (const BuiltinFn &f : kBuiltins)
    r += (r.empty() ? "" : ", ") + std::string(f.name);
  return r;
}

} // namespace mk::dt
