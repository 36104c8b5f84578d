// Splitting an appended module signature off a file (see modsig.h).
#include "modsig.h"

#include <cstring>

namespace mk {

namespace {

constexpr char kMagic[] = "~Module signature appended~\n";
constexpr size_t kMagicLen = sizeof(kMagic) - 1;
constexpr size_t kTrailerLen = 12; // struct module_signature
constexpr u8 kIdPkcs7 = 2;         // its id_type for a PKCS#7 message

// One DER element at `at` of [0, n): its tag must be `tag`; its contents
// [*body, *body + *len) must lie inside.
bool der_element(const u8 *p, size_t n, size_t at, u8 tag, size_t *body,
                 size_t *len) {
  if (at + 2 > n || p[at] != tag)
    return false;
  size_t l = p[at + 1], head = 2;
  if (l & 0x80) { // long form: 1 to 4 length bytes follow
    const size_t k = l & 0x7f;
    if (k == 0 || k > 4 || at + 2 + k > n)
      return false;
    l = 0;
    for (size_t i = 0; i < k; i++)
      l = l << 8 | p[at + 2 + i];
    head += k;
  }
  if (l > n - at - head)
    return false;
  *body = at + head;
  *len = l;
  return true;
}

} // namespace

Result<AppendedSignature> split_module_signature(const std::string &name,
                                                 const u8 *data, size_t size) {
  AppendedSignature s;
  if (size < kMagicLen ||
      std::memcmp(data + size - kMagicLen, kMagic, kMagicLen) != 0) {
    s.content_len = size;
    return s;
  }
  auto bad = [&](const std::string &why) {
    return error(name + ": malformed module signature: " + why);
  };
  if (size < kMagicLen + kTrailerLen)
    return bad("the signature trailer is cut off");
  const u8 *t = data + size - kMagicLen - kTrailerLen;
  // algo, hash, id_type, signer_len, key_id_len, pad[3], sig_len (BE32)
  if (t[2] != kIdPkcs7)
    return bad(strf("signature type %u, not PKCS#7 (2)", t[2]));
  if (t[0] || t[1] || t[3] || t[4])
    return bad("a PKCS#7 signature's trailer names no algorithm, signer or "
               "key (they are inside the message)");
  const u32 len = (u32)t[8] << 24 | (u32)t[9] << 16 | (u32)t[10] << 8 | t[11];
  const size_t room = size - kMagicLen - kTrailerLen;
  if (len == 0 || len > room)
    return bad(strf("the signature is %u bytes, the file has %zu before its "
                    "trailer (truncated?)",
                    len, room));
  s.present = true;
  s.content_len = room - len;
  s.pkcs7 = data + s.content_len;
  s.pkcs7_len = len;
  return s;
}

namespace {

// A DER reader over [at, end) of the message: each element's tag, its
// contents, and where the next begins.
struct Der {
  const u8 *p;
  size_t at, end;
  u8 tag = 0;
  size_t body = 0, len = 0;
  // The next element; false at the end or when it overruns.
  bool next() {
    if (at >= end || !der_element(p, end, at, p[at], &body, &len))
      return false;
    tag = p[at];
    at = body + len;
    return true;
  }
  bool next(u8 want) { return next() && tag == want; }
  Der inside() const { return Der{p, body, body + len}; }
  bool done() const { return at == end; }
};

// Every constructed element under [at, end), to `depth` levels, made of
// elements that exactly fill it (no high tag numbers: CMS has none).
bool well_formed(const u8 *p, size_t at, size_t end, int depth) {
  if (depth == 0)
    return false;
  Der d{p, at, end};
  while (!d.done()) {
    if (!d.next() || (d.tag & 0x1f) == 0x1f)
      return false;
    if ((d.tag & 0x20) && !well_formed(p, d.body, d.body + d.len, depth - 1))
      return false;
  }
  return true;
}

} // namespace

// RFC 5652's ContentInfo holding a SignedData: version, digest
// algorithms, a detached encapsulated content (its type alone), optional
// certificates and CRLs, and exactly one SignerInfo (version, signer id,
// digest algorithm, optional signed attributes, signature algorithm,
// signature, optional unsigned attributes); every constructed element,
// to any depth Linux's signatures reach, exactly filled by its parts.
Result<void> check_pkcs7_shape(const std::string &name,
                               const AppendedSignature &sig) {
  static const u8 kSignedData[] = {0x2a, 0x86, 0x48, 0x86, 0xf7,
                                   0x0d, 0x01, 0x07, 0x02}; // 1.2.840.113549.1.7.2
  const u8 *p = sig.pkcs7;
  const size_t n = sig.pkcs7_len;
  auto bad = [&](const std::string &why) {
    return error(name + ": malformed module signature: " + why);
  };
  Der top{p, 0, n};
  if (!top.next(0x30) || !top.done())
    return bad("not a PKCS#7 message (no DER SEQUENCE spanning its " +
               std::to_string(n) + " bytes)");
  if (!well_formed(p, 0, n, 16))
    return bad("not a PKCS#7 message (its DER elements do not nest)");
  Der ci = top.inside();
  if (!ci.next(0x06) || ci.len != sizeof kSignedData ||
      std::memcmp(p + ci.body, kSignedData, sizeof kSignedData) != 0)
    return bad("not a PKCS#7 signedData message");
  if (!ci.next(0xa0) || !ci.done())
    return bad("the PKCS#7 message has no signedData content");
  Der content = ci.inside();
  if (!content.next(0x30) || !content.done())
    return bad("the PKCS#7 message has no signedData content");
  Der sd = content.inside();
  if (!sd.next(0x02) || !sd.next(0x31))
    return bad("not a PKCS#7 signedData (no version and digest algorithms)");
  if (!sd.next(0x30))
    return bad("not a PKCS#7 signedData (no content info)");
  Der eci = sd.inside();
  if (!eci.next(0x06) || !eci.done())
    return bad("not a detached PKCS#7 signedData");
  bool more = sd.next();
  if (more && sd.tag == 0xa0) // certificates
    more = sd.next();
  if (more && sd.tag == 0xa1) // crls
    more = sd.next();
  if (!more || sd.tag != 0x31 || !sd.done())
    return bad("not a PKCS#7 signedData (no signer infos at its end)");
  Der infos = sd.inside();
  if (!infos.next(0x30) || !infos.done())
    return bad("it must have exactly one signer");
  Der si = infos.inside();
  if (!si.next(0x02) || !si.next() || (si.tag != 0x30 && si.tag != 0x80) ||
      !si.next(0x30))
    return bad("its signer info has no version, signer or digest algorithm");
  if (!si.next())
    return bad("its signer info has no signature algorithm");
  if (si.tag == 0xa0 && !si.next()) // signed attributes
    return bad("its signer info has no signature algorithm");
  if (si.tag != 0x30 || !si.next(0x04))
    return bad("its signer info has no signature");
  if (!si.done() && (!si.next(0xa1) || !si.done()))
    return bad("its signer info has more than its parts");
  return {};
}

} // namespace mk
