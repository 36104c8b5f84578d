// The signature Linux's sign-file appends to a module: the module's bytes,
// then a PKCS#7 (CMS) signedData in DER over exactly those bytes
// (detached), then a 12-byte struct module_signature (id_type 2 for
// PKCS#7, the DER's length big-endian in its last four bytes), then
// "~Module signature appended~\n".  Finding the parts needs no crypto and
// happens where the file is read (read_object), so the parser never sees
// the signature; checking it is the kernel's (kernel/module_sig.h).
#pragma once

#include "base.h"

#include <string>

namespace mk {

struct AppendedSignature {
  bool present = false;
  size_t content_len = 0;    // the signed bytes: the module without the rest
  const u8 *pkcs7 = nullptr; // the DER signedData
  size_t pkcs7_len = 0;
};

// The signature appended to `data`, if any; an error when the magic is
// there but the trailer is not a PKCS#7 one or its length overruns the
// file (a truncated signature).
Result<AppendedSignature> split_module_signature(const std::string &name,
                                                 const u8 *data, size_t size);

// Whether the signature is, in its structure, a DER PKCS#7 signedData
// message as module signatures are (detached, one signer), read with no
// crypto library: what a kernel with no key to check it with, or a build
// without OpenSSL, checks before it loads the module.  An error "NAME:
// malformed module signature: ..." when it is not.
Result<void> check_pkcs7_shape(const std::string &name,
                               const AppendedSignature &sig);

} // namespace mk
