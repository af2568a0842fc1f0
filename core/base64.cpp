#include <neograde/core/base64.hpp>

#include <openssl/evp.h>

#include <algorithm>

namespace neograde {

std::string base64_encode(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  std::string s = base64_encode(bytes);
  std::replace(s.begin(), s.end(), '+', '-');
  std::replace(s.begin(), s.end(), '/', '_');
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string s(text);
  std::replace(s.begin(), s.end(), '-', '+');
  std::replace(s.begin(), s.end(), '_', '/');
  while (s.size() % 4 != 0) s += '=';
  if (s.empty()) return std::string();
  std::string out(s.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(s.data()),
                          static_cast<int>(s.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts padding as zero bytes; drop them.
  std::size_t pad = static_cast<std::size_t>(std::count(s.end() - 2, s.end(), '='));
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

}  // namespace neograde
