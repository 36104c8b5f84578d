// Fuzz target: the Linux API's ASN.1 BER decoder and OID functions
// (kernel/linuxkpi/asn1.cpp), which run a machine a Linux module brought
// over data from anywhere.  The input's first byte is the machine's
// length, then the machine, then the data; every action index is bound to
// an action that reads the whole value it is given.  Whatever the
// machine and the data, the decode must end, and no action may be handed
// a byte outside the data (ASan would also catch the read).  The data is
// also printed and looked up as an OID.
#include "fuzz.h"

#include "../../kernel/export.h"

#include <cstring>
#include <vector>

namespace {

struct Decoder {
  const uint8_t *machine;
  size_t machlen;
  const void *const *actions;
};
struct Data {
  const uint8_t *p;
  size_t n;
};

int LKAPI check_value(void *ctx, size_t, unsigned char, const void *value,
                size_t len) {
  const Data *d = (const Data *)ctx;
  const uint8_t *v = (const uint8_t *)value;
  FUZZ_CHECK(len == 0 || (v >= d->p && len <= d->n && v - d->p <= (ptrdiff_t)(d->n - len)),
             "an action was given %zu bytes at offset %td of %zu", len,
             v - d->p, d->n);
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < len; i++)
    sum = (uint8_t)(sum + v[i]);
  return len == 3 ? -22 : 0; // some actions fail, ending the decode
}

// The export `name` as a pointer of type F (called as Linux code calls:
// LKAPI, regparm(3) on i386).
template <class F> F linux_fn(const char *name) {
  const linux_export *const *it;
  SET_FOREACH(it, linux_export_set) {
    if (!std::strcmp((*it)->le_name, name))
      return (F)(uintptr_t)(*it)->le_addr;
  }
  std::abort();
}
using DecodeFn = int(LKAPI *)(const void *, void *, const unsigned char *, size_t);
using SprintFn = int(LKAPI *)(const void *, size_t, char *, size_t);
using LookUpFn = int(LKAPI *)(const void *, size_t);

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DecodeFn decode = linux_fn<DecodeFn>("asn1_ber_decoder");
  static const SprintFn sprint = linux_fn<SprintFn>("sprint_oid");
  static const LookUpFn look_up = linux_fn<LookUpFn>("look_up_OID");
  static const void *actions[256];
  if (!actions[0])
    for (const void *&a : actions)
      a = (const void *)&check_value;
  if (size < 1 || (size_t)data[0] + 1 > size)
    return 0;
  // Copies of their own, so that a read past either end is ASan's to see.
  std::vector<uint8_t> machine(data + 1, data + 1 + data[0]);
  std::vector<uint8_t> bytes(data + 1 + data[0], data + size);
  Data d{bytes.data(), bytes.size()};
  const Decoder dec{machine.data(), machine.size(), actions};
  const int r = decode(&dec, &d, bytes.data(), bytes.size());
  FUZZ_CHECK(r == 0 || r == -22 || r == -74 || r == -90, "decode returned %d", r);
  char buf[32];
  const int n = sprint(bytes.data(), bytes.size(), buf, sizeof buf);
  FUZZ_CHECK(n < (int)sizeof buf && (n < 0 || (int)std::strlen(buf) == n),
             "sprint_oid returned %d for \"%s\"", n, buf);
  look_up(bytes.data(), bytes.size());
  return 0;
}
