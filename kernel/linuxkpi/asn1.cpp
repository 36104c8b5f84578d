// ASN.1 for Linux modules: the BER decoder that runs the state machines
// Linux's asn1_compiler builds into a module (ecrdsa_generic's key and
// parameter grammars), and the OID registry (look_up_OID() and friends).
//
// The machine is a module's: a byte program of match, jump, action and
// end-of-constructed ops over a stack of at most ten open constructed
// elements and ten return addresses, as include/linux/asn1_ber_bytecode.h
// defines it.  The data is whoever's: every length is checked against the
// element that holds it (the short form too), so no action ever sees
// bytes past the buffer, and a malformed encoding or machine ends the
// decode with -EBADMSG, as does a machine that loops without reading.
//
// The registry's numbering is Linux 6.1's enum OID, read from the
// installed linux-headers at build time (scripts/linux-oids): a module
// compares look_up_OID()'s result with the enumerators it was compiled
// with.
#include "lkpi.h"

#include <cstring>

namespace lkpi {

namespace {

constexpr int EBADMSG_ = 74, EMSGSIZE_ = 90, ENOBUFS_ = 105;

// ---- the decoder -------------------------------------------------------------

// The module's action functions (regparm(3) on i386, as Linux calls).
typedef int (LKAPI *asn1_action_t)(void *context, size_t hdrlen,
                                   unsigned char tag, const void *value,
                                   size_t vlen);
struct asn1_decoder {
  const u8 *machine;
  size_t machlen;
  const asn1_action_t *actions;
};

// The opcodes: up to kLastMatch they read a tag from the data, with bit 0
// "or skip", bit 1 "act", bit 2 "jump", bit 3 "any tag", bit 4 "only if
// nothing matched yet"; the end ops' bit 0 is SET, bit 1 OF, bit 2 act.
constexpr u8 kSkip = 0x01, kAct = 0x02, kJump = 0x04, kAny = 0x08, kCond = 0x10;
constexpr u8 kLastMatch = 0x1b, kCondFail = 0x1c, kComplete = 0x1d,
             kAction = 0x1e, kEndSet = 0x01, kEndOf = 0x02, kEndAct = 0x04,
             kReturn = 0x28;
constexpr u8 kConsBit = 0x20, kLongTag = 0x1f, kIndefinite = 0x80;
constexpr int kStackDepth = 10;

// Each op's length in bytes (opcode, then its tag, jump target, action
// and loop target as it has them); 0 for an opcode the compiler never
// emits.
constexpr u8 kOpLength[kReturn + 1] = {
    2, 2, 3, 3, 3, 3, 0, 0, // match, or skip, act, act or skip, jump, jump or skip
    1, 0, 2, 0, 0, 0, 0, 0, // any, any act
    0, 2, 0, 3, 0, 3, 0, 0, // cond: or skip, act or skip, jump or skip
    1, 0, 2, 0, 1, 1, 2, 0, // cond: any, any act; cond fail, complete, act
    1, 1, 2, 2, 2, 2, 3, 3, // end seq, set, seq of, set of, and with act
    1,                      // return
};

// The length of an indefinite-length element whose contents start at
// *dp, up to and including its end-of-contents octets: *dp moves past
// them.  False if the data ends first or holds something malformed.
bool indefinite_length(const u8 *data, size_t datalen, size_t *dp,
                       size_t *len) {
  size_t p = *dp;
  int depth = 1;
  while (depth > 0) {
    if (datalen - p < 2)
      return false;
    const u8 tag = data[p++];
    if (tag == 0) { // end of contents: 00 00
      if (data[p++] != 0)
        return false;
      depth--;
      continue;
    }
    if ((tag & 0x1f) == kLongTag)
      do {
        if (datalen - p < 2)
          return false;
      } while (data[p++] & 0x80);
    size_t n = data[p++];
    if (n == kIndefinite) {
      if (!(tag & kConsBit))
        return false;
      depth++;
      continue;
    }
    if (n > 0x7f) {
      size_t bytes = n - 0x80;
      if (bytes > sizeof(size_t) - 1 || bytes > datalen - p)
        return false;
      for (n = 0; bytes > 0; bytes--)
        n = (n << 8) | data[p++];
    }
    if (n > datalen - p)
      return false;
    p += n;
  }
  *len = p - *dp;
  *dp = p;
  return true;
}

int decode(const asn1_decoder *dec, void *context, const u8 *data,
           size_t datalen) {
  const u8 *m = dec->machine;
  const size_t mlen = dec->machlen;
  struct Open {
    size_t dp;      // where its contents start
    size_t datalen; // the end of what holds it; 0: it is indefinite
    u8 hdr;         // its header's length
  } open[kStackDepth];
  u8 returns[kStackDepth];
  int csp = 0, jsp = 0;
  size_t pc = 0, dp = 0, tdp = 0, len = 0;
  u8 tag = 0, hdr = 0;
  bool matched = false, cons = false, indefinite = false;

  if (datalen > 65535)
    return -EMSGSIZE_;
  // A compiled machine reads each element with a bounded run of ops; one
  // that loops without reading (a SEQUENCE OF's end jumping to itself) is
  // stopped.
  const size_t max_steps = (datalen + 2) * (mlen + 1);
  for (size_t steps = 0;; steps++) {
    if (pc >= mlen || steps > max_steps)
      return -EBADMSG_;
    const u8 op = m[pc];
    const size_t oplen = op <= kReturn ? kOpLength[op] : 0;
    if (oplen == 0 || pc + oplen > mlen)
      return -EBADMSG_;

    if (op <= kLastMatch) {
      // A conditional match after a match, or any at the end of the
      // element, is passed over.
      if (((op & kCond) && matched) || dp == datalen) {
        pc += oplen;
        continue;
      }
      matched = cons = indefinite = false;
      hdr = 2;
      if (datalen - dp < 2)
        return -EBADMSG_;
      tag = data[dp++];
      if ((tag & 0x1f) == kLongTag)
        return -EBADMSG_;
      if (!(op & kAny)) {
        // The op's tag; with its constructed bit set, the data's may be
        // either form, and the element is opened.
        const u8 want = m[pc + 1];
        cons = want & kConsBit;
        if ((want ^ tag) & ~(want & kConsBit)) {
          if (op & kSkip) {
            dp--;
            pc += oplen;
            continue;
          }
          return -EBADMSG_;
        }
      }
      matched = true;
      len = data[dp++];
      if (len == kIndefinite) {
        // Its contents' length, found now: an action gets the bytes up to
        // its end-of-contents octets (Linux hands it 0x80).
        size_t p = dp;
        if (!(tag & kConsBit) || !indefinite_length(data, datalen, &p, &len))
          return -EBADMSG_;
        len -= 2;
        indefinite = true;
      } else {
        if (len > 0x7f) {
          size_t bytes = len - 0x80;
          if (bytes > 2 || bytes >= datalen - dp)
            return -EBADMSG_;
          hdr += (u8)bytes;
          for (len = 0; bytes > 0; bytes--)
            len = (len << 8) | data[dp++];
        }
        if (len > datalen - dp)
          return -EBADMSG_;
      }
      if (cons) {
        if (csp == kStackDepth)
          return -EBADMSG_;
        open[csp++] = {dp, indefinite ? 0 : datalen, hdr};
        if (!indefinite)
          datalen = dp + len;
      }
      tdp = dp;
    }

    if (op <= kLastMatch && (op & kJump)) {
      if (jsp == kStackDepth)
        return -EBADMSG_;
      returns[jsp++] = (u8)(pc + oplen);
      pc = m[pc + 2];
      continue;
    }
    if (op <= kLastMatch) {
      if (op & kAct) {
        const u8 act = m[pc + ((op & kAny) ? 1 : 2)];
        if (int r = dec->actions[act](context, hdr, tag, data + dp, len); r < 0)
          return r;
      }
      // Past a leaf (an opened element's contents are decoded next).
      if (!cons)
        dp += indefinite ? len + 2 : len;
      pc += oplen;
      continue;
    }
    switch (op) {
    case kCondFail:
      if (!matched)
        return -EBADMSG_;
      pc += oplen;
      continue;
    case kComplete:
      if (jsp || csp) {
        console_line(3, lformat("ASN.1 decoder error: Stacks not empty at "
                                "completion (%d, %d)",
                                jsp, csp));
        return -EBADMSG_;
      }
      return 0;
    case kAction:
      // Its result is not looked at, as in Linux.
      dec->actions[m[pc + 1]](context, hdr, tag, data + tdp, len);
      pc += oplen;
      continue;
    case kReturn:
      if (jsp == 0)
        return -EBADMSG_;
      pc = returns[--jsp];
      continue;
    default:
      break;
    }
    // The end of a constructed element: close it, or for
    // a SEQUENCE OF / SET OF with more in it, go round again.
    if ((op & kEndSet) && !(op & kEndOf) && !matched)
      return -EBADMSG_;
    if (csp == 0)
      return -EBADMSG_;
    const Open o = open[--csp];
    const size_t end = datalen;
    tdp = o.dp;
    hdr = o.hdr;
    if (o.datalen == 0) { // indefinite: its end-of-contents octets
      if (end - dp < 2)
        return -EBADMSG_;
      if (data[dp] != 0) {
        if (!(op & kEndOf))
          return -EBADMSG_;
        csp++;
        pc = m[pc + 1];
        continue;
      }
      if (data[dp + 1] != 0)
        return -EBADMSG_;
      dp += 2;
      datalen = end;
      len = dp - tdp - 2;
    } else {
      if (dp < end && (op & kEndOf)) {
        csp++;
        pc = m[pc + 1];
        continue;
      }
      if (dp != end)
        return -EBADMSG_;
      datalen = o.datalen;
      len = end - tdp;
    }
    if (op & kEndAct)
      // Not looked at either, as in Linux.
      dec->actions[m[pc + ((op & kEndOf) ? 2 : 1)]](context, hdr, 0, data + tdp,
                                                    len);
    pc += oplen;
  }
}

// ---- the OID registry ----------------------------------------------------------

const char *const kOidDotted[] = {
#define MK_LINUX_OID(name, dotted) dotted,
#include "linux_oids.inc"
#undef MK_LINUX_OID
};
constexpr int kOidCount = (int)(sizeof kOidDotted / sizeof kOidDotted[0]);

// "1.2.840.113549" as its DER contents (2a 86 48 86 f7 0d).
std::string der_of(const char *dotted) {
  std::vector<u64> arcs;
  for (const char *p = dotted; *p;) {
    arcs.push_back(std::strtoull(p, const_cast<char **>(&p), 10));
    if (*p == '.')
      p++;
  }
  std::string out;
  auto put = [&](u64 v) {
    u8 b[10];
    int n = 0;
    do
      b[n++] = (u8)(v & 0x7f);
    while (v >>= 7);
    while (n--)
      out += (char)(b[n] | (n ? 0x80 : 0));
  };
  put(arcs.at(0) * 40 + arcs.at(1));
  for (size_t i = 2; i < arcs.size(); i++)
    put(arcs[i]);
  return out;
}

const std::vector<std::string> &oid_ders() {
  static const std::vector<std::string> ders = [] {
    std::vector<std::string> v;
    for (const char *d : kOidDotted)
      v.push_back(der_of(d));
    return v;
  }();
  return ders;
}

} // namespace

// (The decoder is the module's struct asn1_decoder; typed void here, as
// the export is only ever called from C.)
int asn1_ber_decoder(const void *decoder, void *context,
                     const unsigned char *data, size_t datalen) {
  return decode((const asn1_decoder *)decoder, context, data, datalen);
}

// An OID's DER contents to its enum OID; OID__NR (the count) if unknown.
int look_up_OID(const void *data, size_t datasize) {
  const auto &ders = oid_ders();
  for (int i = 0; i < kOidCount; i++)
    if (ders[(size_t)i].size() == datasize &&
        std::memcmp(ders[(size_t)i].data(), data, datasize) == 0)
      return i;
  return kOidCount;
}

// A whole DER OBJECT IDENTIFIER (tag, length, contents) to its enum OID.
int parse_OID(const void *data, size_t datasize, int *oid) {
  const u8 *v = (const u8 *)data;
  if (datasize < 3 || v[0] != 0x06 || v[1] != datasize - 2)
    return -EBADMSG_;
  *oid = look_up_OID(v + 2, datasize - 2);
  return 0;
}

// DER contents as dotted decimal: its length, -EBADMSG ("(bad)" written)
// for a malformed encoding, -ENOBUFS if it does not fit.
int sprint_oid(const void *data, size_t datasize, char *buffer, size_t bufsize) {
  const u8 *v = (const u8 *)data;
  std::string out;
  bool first = true;
  for (size_t i = 0; i < datasize;) {
    u64 arc = 0;
    size_t start = i;
    do {
      if (i - start >= 9 || i >= datasize)
        goto bad;
      arc = (arc << 7) | (v[i] & 0x7f);
    } while (v[i++] & 0x80);
    if (first) {
      const u64 top = arc < 80 ? arc / 40 : 2;
      out = lformat("%llu.%llu", (unsigned long long)top,
                    (unsigned long long)(arc - top * 40));
      first = false;
    } else {
      out += lformat(".%llu", (unsigned long long)arc);
    }
  }
  if (first)
    goto bad;
  if (out.size() >= bufsize)
    return -ENOBUFS_;
  std::memcpy(buffer, out.c_str(), out.size() + 1);
  return (int)out.size();
bad:
  if (bufsize) {
    std::strncpy(buffer, "(bad)", bufsize - 1);
    buffer[bufsize - 1] = 0;
  }
  return -EBADMSG_;
}

// A registry OID as dotted decimal.
int sprint_OID(int oid, char *buffer, size_t bufsize) {
  if (oid < 0 || oid >= kOidCount)
    return -EBADMSG_; // Linux BUG()s here
  const std::string &der = oid_ders()[(size_t)oid];
  return sprint_oid(der.data(), der.size(), buffer, bufsize);
}

LINUX_EXPORT_GPL(asn1_ber_decoder);
LINUX_EXPORT_GPL(look_up_OID);
LINUX_EXPORT_GPL(parse_OID);
LINUX_EXPORT_GPL(sprint_oid);
LINUX_EXPORT_GPL(sprint_OID);

} // namespace lkpi
