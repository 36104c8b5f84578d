// Checking module signatures (the format: linker/modsig.h) against the
// trusted certificates, with OpenSSL (x86_64 builds: see "Signed modules"
// in docs/robustness.md for why the i386 kernel has none), and describing
// them for modinfo.
#pragma once

#include "../linker/modsig.h"

#include <memory>
#include <string>
#include <vector>

namespace mk {

// What modinfo shows, named as Linux's modinfo names it.
struct SignatureInfo {
  std::string signer;   // the signer's issuer common name (or the name)
  std::string sig_key;  // the signer's serial number, "AB:CD:..."
  std::string hashalgo; // "sha256"
  std::string signature; // the signature bytes, "AB:CD:..."
};
Result<SignatureInfo> describe_signature(const std::string &name,
                                         const AppendedSignature &sig);

// Whether this build can verify signatures at all.
bool signatures_supported();

// Whether `sig` is a well-formed signature at all (a detached PKCS#7
// signedData with one signer; without OpenSSL, its DER outline): what is
// checked when no trusted key could verify it.  The error names the file.
Result<void> check_signature_form(const std::string &name,
                                  const AppendedSignature &sig);

class SignatureVerifier {
public:
  // Trusted certificates, PEM or DER, each file one or more.
  static Result<std::unique_ptr<SignatureVerifier>>
  create(const std::vector<std::string> &cert_files);
  ~SignatureVerifier();

  enum class Outcome { Good, UnknownKey, Bad };
  struct Verdict {
    Outcome outcome;
    std::string why; // for UnknownKey and Bad
  };
  // Check `sig` over data[0, sig.content_len).
  Verdict verify(const u8 *data, const AppendedSignature &sig) const;

private:
  SignatureVerifier() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace mk
