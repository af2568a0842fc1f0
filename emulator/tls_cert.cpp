#include <neograde/emulator/tls_cert.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>
#include <stdexcept>

namespace neograde::emulator {
namespace {

template <class T, void (*F)(T*)>
struct deleter {
  void operator()(T* p) const { F(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, deleter<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, deleter<X509, X509_free>>;
using bio_ptr = std::unique_ptr<BIO, deleter<BIO, BIO_free_all>>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("generating the emulator's certificate: ") + what);
}

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  check(ext != nullptr, "extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

std::string to_pem(const std::function<int(BIO*)>& write) {
  bio_ptr bio(BIO_new(BIO_s_mem()));
  check(bio && write(bio.get()) == 1, "PEM encoding");
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(len)};
}

}  // namespace

pem_pair make_self_signed(const std::vector<std::string>& dns_names, const std::vector<std::string>& ip_addresses,
                          const certificate_options& options) {
  pkey_ptr key(options.rsa_bits > 0 ? EVP_RSA_gen(static_cast<unsigned>(options.rsa_bits)) : EVP_EC_gen("P-256"));
  check(key != nullptr, "key");
  x509_ptr cert(X509_new());
  check(cert != nullptr, "certificate");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  check(RAND_bytes(serial, sizeof serial) == 1, "serial");
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), options.not_before_s);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), options.not_after_s);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("neograde"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("neograde emulator"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  std::string san;
  for (const auto& d : dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + d;
  for (const auto& ip : ip_addresses) san += (san.empty() ? "IP:" : ",IP:") + ip;
  add_extension(cert.get(), NID_subject_alt_name, san);
  // Self-signed and used as its own trust anchor by the tests' clients.
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert.get(), NID_key_usage,
                options.rsa_bits > 0 ? "critical,digitalSignature,keyEncipherment,keyCertSign" : "critical,digitalSignature,keyCertSign");
  add_extension(cert.get(), NID_ext_key_usage, "serverAuth");
  add_extension(cert.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "signature");

  pem_pair out;
  out.certificate = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); });
  out.private_key = to_pem([&](BIO* b) { return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  return out;
}

}  // namespace neograde::emulator
