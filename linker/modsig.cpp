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

Result<void> check_pkcs7_shape(const std::string &name,
                               const AppendedSignature &sig) {
  // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT ... }
  static const u8 kSignedData[] = {0x2a, 0x86, 0x48, 0x86, 0xf7,
                                   0x0d, 0x01, 0x07, 0x02}; // 1.2.840.113549.1.7.2
  const u8 *p = sig.pkcs7;
  const size_t n = sig.pkcs7_len;
  size_t body = 0, len = 0, oid = 0, oid_len = 0, content = 0, content_len = 0;
  if (!der_element(p, n, 0, 0x30, &body, &len) || body + len != n)
    return error(name + ": malformed module signature: not a PKCS#7 "
                        "message (no DER SEQUENCE spanning its " +
                 std::to_string(n) + " bytes)");
  if (!der_element(p, n, body, 0x06, &oid, &oid_len) ||
      oid_len != sizeof kSignedData ||
      std::memcmp(p + oid, kSignedData, sizeof kSignedData) != 0)
    return error(name + ": malformed module signature: not a PKCS#7 "
                        "signedData message");
  if (!der_element(p, n, oid + oid_len, 0xa0, &content, &content_len) ||
      content + content_len != n)
    return error(name + ": malformed module signature: the PKCS#7 message "
                        "has no signedData content");
  return {};
}

} // namespace mk
