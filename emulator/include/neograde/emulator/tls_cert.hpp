#pragma once

#include <string>
#include <vector>

namespace neograde::emulator {

struct pem_pair {
  std::string certificate;
  std::string private_key;
};

// A fresh self-signed certificate (P-256, SHA-256, valid for 7 days) for the given DNS names
// and IP addresses. Throws std::runtime_error if OpenSSL fails.
[[nodiscard]] pem_pair make_self_signed(const std::vector<std::string>& dns_names,
                                        const std::vector<std::string>& ip_addresses);

}  // namespace neograde::emulator
