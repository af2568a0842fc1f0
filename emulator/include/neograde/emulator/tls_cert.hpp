#pragma once

#include <string>
#include <vector>

namespace neograde::emulator {

struct pem_pair {
  std::string certificate;
  std::string private_key;
};

// The key and validity of a certificate. The defaults are the emulator's; tests of hostile TLS
// ask for weak keys and expired dates.
struct certificate_options {
  int rsa_bits = 0;           // 0: a P-256 key
  long not_before_s = -3600;  // relative to now
  long not_after_s = 7L * 24 * 3600;
};

// A fresh self-signed certificate (SHA-256; its own CA, usable as an extra trust anchor) for the
// given DNS names and IP addresses. Throws std::runtime_error if OpenSSL fails.
[[nodiscard]] pem_pair make_self_signed(const std::vector<std::string>& dns_names, const std::vector<std::string>& ip_addresses,
                                        const certificate_options& options = {});

}  // namespace neograde::emulator
