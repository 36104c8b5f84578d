// Module signatures (see module_sig.h).  The format is Linux's, so that
// modules signed by its sign-file load here; the checks follow Linux's
// order: the trailer first (its magic, its type, its length against the
// file), then the PKCS#7 message, then the signer among the trusted keys,
// then the signature over the module's bytes.
#include "module_sig.h"

#include <cerrno>
#include <cstring>

#if MK_HAVE_OPENSSL
#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#endif

namespace mk {

namespace {

[[maybe_unused]] std::string hex_colons(const u8 *p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; i++)
    s += strf(i ? ":%02X" : "%02X", p[i]);
  return s;
}

} // namespace

#if MK_HAVE_OPENSSL

bool signatures_supported() { return true; }

namespace {

std::string ssl_error() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (!e)
    return "unknown OpenSSL error";
  const char *r = ERR_reason_error_string(e);
  return r ? r : strf("OpenSSL error 0x%lx", e);
}

struct CmsPtr {
  CMS_ContentInfo *p = nullptr;
  ~CmsPtr() { CMS_ContentInfo_free(p); }
};

// The message and its one signer, or why not.
Result<CMS_SignerInfo *> parse_pkcs7(const std::string &name,
                                     const AppendedSignature &sig,
                                     CmsPtr &cms) {
  const unsigned char *p = sig.pkcs7;
  cms.p = d2i_CMS_ContentInfo(nullptr, &p, (long)sig.pkcs7_len);
  if (!cms.p)
    return error(name + ": malformed module signature: not a PKCS#7 "
                        "message (" + ssl_error() + ")");
  if (p != sig.pkcs7 + sig.pkcs7_len)
    return error(name + ": malformed module signature: bytes after the "
                        "PKCS#7 message");
  if (OBJ_obj2nid(CMS_get0_type(cms.p)) != NID_pkcs7_signed ||
      CMS_is_detached(cms.p) != 1)
    return error(name + ": malformed module signature: not a detached "
                        "PKCS#7 signedData");
  STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(cms.p);
  if (!sis || sk_CMS_SignerInfo_num(sis) != 1)
    return error(name + ": malformed module signature: it must have exactly "
                        "one signer");
  return sk_CMS_SignerInfo_value(sis, 0);
}

} // namespace

Result<void> check_signature_form(const std::string &name,
                                  const AppendedSignature &sig) {
  CmsPtr cms;
  auto si = parse_pkcs7(name, sig, cms);
  ERR_clear_error();
  if (!si)
    return si.take_error();
  return {};
}

Result<SignatureInfo> describe_signature(const std::string &name,
                                         const AppendedSignature &sig) {
  CmsPtr cms;
  auto si = parse_pkcs7(name, sig, cms);
  if (!si)
    return si.take_error();
  SignatureInfo info;
  ASN1_OCTET_STRING *keyid = nullptr;
  X509_NAME *issuer = nullptr;
  ASN1_INTEGER *serial = nullptr;
  if (CMS_SignerInfo_get0_signer_id(*si, &keyid, &issuer, &serial) == 1) {
    if (issuer) {
      // The issuer's common name, or its whole name when it has none.
      int at = X509_NAME_get_index_by_NID(issuer, NID_commonName, -1);
      if (at >= 0) {
        ASN1_STRING *cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(issuer, at));
        unsigned char *utf8 = nullptr;
        int n = ASN1_STRING_to_UTF8(&utf8, cn);
        if (n >= 0)
          info.signer.assign((const char *)utf8, (size_t)n);
        OPENSSL_free(utf8);
      } else {
        char buf[256];
        info.signer = X509_NAME_oneline(issuer, buf, sizeof buf);
      }
    }
    if (serial)
      info.sig_key = hex_colons(ASN1_STRING_get0_data(serial),
                                (size_t)ASN1_STRING_length(serial));
    else if (keyid)
      info.sig_key = hex_colons(ASN1_STRING_get0_data(keyid),
                                (size_t)ASN1_STRING_length(keyid));
  }
  X509_ALGOR *dig = nullptr, *alg = nullptr;
  CMS_SignerInfo_get0_algs(*si, nullptr, nullptr, &dig, &alg);
  if (dig) {
    const ASN1_OBJECT *obj = nullptr;
    X509_ALGOR_get0(&obj, nullptr, nullptr, dig);
    const char *ln = OBJ_nid2ln(OBJ_obj2nid(obj));
    info.hashalgo = ln ? ln : "unknown";
  }
  if (ASN1_OCTET_STRING *s = CMS_SignerInfo_get0_signature(*si))
    info.signature = hex_colons(ASN1_STRING_get0_data(s),
                                (size_t)ASN1_STRING_length(s));
  ERR_clear_error();
  return info;
}

struct SignatureVerifier::Impl {
  STACK_OF(X509) *certs = sk_X509_new_null();
  ~Impl() { sk_X509_pop_free(certs, X509_free); }
};

Result<std::unique_ptr<SignatureVerifier>>
SignatureVerifier::create(const std::vector<std::string> &files) {
  std::unique_ptr<SignatureVerifier> v(new SignatureVerifier);
  v->impl_ = std::make_unique<Impl>();
  for (const std::string &f : files) {
    BIO *bio = BIO_new_file(f.c_str(), "rb");
    if (!bio)
      return error(strf("--trusted-cert %s: cannot open it: %s", f.c_str(),
                        std::strerror(errno)));
    int n = 0;
    while (X509 *c = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
      sk_X509_push(v->impl_->certs, c);
      n++;
    }
    if (n == 0) { // not PEM: one DER certificate
      (void)BIO_reset(bio);
      if (X509 *c = d2i_X509_bio(bio, nullptr)) {
        sk_X509_push(v->impl_->certs, c);
        n++;
      }
    }
    BIO_free(bio);
    ERR_clear_error();
    if (n == 0)
      return error(strf("--trusted-cert %s: no X.509 certificate in it (PEM "
                        "or DER)",
                        f.c_str()));
  }
  return v;
}

SignatureVerifier::~SignatureVerifier() = default;

SignatureVerifier::Verdict
SignatureVerifier::verify(const u8 *data, const AppendedSignature &sig) const {
  CmsPtr cms;
  auto si = parse_pkcs7("", sig, cms);
  if (!si) {
    // parse_pkcs7's message starts with ": malformed module signature: "
    // for an empty name.
    const std::string &m = si.error().message;
    return {Outcome::Bad, m.substr(m.find(": ", 2) + 2)};
  }
  X509 *signer = nullptr;
  for (int i = 0; i < sk_X509_num(impl_->certs); i++)
    if (CMS_SignerInfo_cert_cmp(*si, sk_X509_value(impl_->certs, i)) == 0)
      signer = sk_X509_value(impl_->certs, i);
  if (!signer) {
    auto d = describe_signature("", sig);
    return {Outcome::UnknownKey,
            strf("signed by a key that is not trusted (signer %s, key %s)",
                 d ? d->signer.c_str() : "?", d ? d->sig_key.c_str() : "?")};
  }
  STACK_OF(X509) *one = sk_X509_new_null();
  sk_X509_push(one, signer);
  BIO *content = BIO_new_mem_buf(data, (int)sig.content_len);
  // The signer is trusted as such: no chain to build (Linux's keyring
  // holds keys, not CAs), and no certificate from inside the message.
  const int ok = CMS_verify(cms.p, one, nullptr, content, nullptr,
                            CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY |
                                CMS_NOINTERN);
  BIO_free(content);
  sk_X509_free(one);
  if (ok != 1)
    return {Outcome::Bad, "the signature does not match the module (" +
                              ssl_error() + ")"};
  ERR_clear_error();
  return {Outcome::Good, ""};
}

#else // no OpenSSL in this build (i386: see docs/robustness.md)

bool signatures_supported() { return false; }

Result<void> check_signature_form(const std::string &name,
                                  const AppendedSignature &sig) {
  return check_pkcs7_shape(name, sig);
}

Result<SignatureInfo> describe_signature(const std::string &name,
                                         const AppendedSignature &) {
  return error(name + ": module signatures cannot be read by this build "
                      "(no OpenSSL)");
}

struct SignatureVerifier::Impl {};

Result<std::unique_ptr<SignatureVerifier>>
SignatureVerifier::create(const std::vector<std::string> &) {
  return error("--trusted-cert: this kernel is built without OpenSSL (the "
               "i386 build: see docs/robustness.md); it cannot verify "
               "signatures");
}

SignatureVerifier::~SignatureVerifier() = default;

SignatureVerifier::Verdict SignatureVerifier::verify(const u8 *,
                                                     const AppendedSignature &) const {
  return {Outcome::Bad, "this build cannot verify signatures"};
}

#endif

} // namespace mk
