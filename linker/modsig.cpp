// Splitting an appended module signature off a file (see modsig.h).
#include "modsig.h"

#include <cstring>

namespace mk {

namespace {

constexpr char kMagic[] = "~Module signature appended~\n";
constexpr size_t kMagicLen = sizeof(kMagic) - 1;
constexpr size_t kTrailerLen = 12; // struct module_signature
constexpr u8 kIdPkcs7 = 2;         // its id_type for a PKCS#7 message

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

} // namespace mk
