#include <neograde/core/signing.hpp>

#include <neograde/core/base64.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <map>
#include <vector>

namespace neograde {

namespace {

// Replaces each {name} in tmpl by vars[name]; unknown names are left as they are.
std::string render_braces(const std::string& tmpl, const std::map<std::string, std::string>& vars) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    auto open = tmpl.find('{', i);
    auto close = open == std::string::npos ? std::string::npos : tmpl.find('}', open);
    if (close == std::string::npos) break;
    out.append(tmpl, i, open - i);
    auto it = vars.find(tmpl.substr(open + 1, close - open - 1));
    out += it != vars.end() ? it->second : tmpl.substr(open, close - open + 1);
    i = close + 1;
  }
  out.append(tmpl, i);
  return out;
}

}  // namespace

std::string canonical_query(std::string_view raw_query) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < raw_query.size()) {
    auto amp = raw_query.find('&', start);
    if (amp == std::string_view::npos) amp = raw_query.size();
    if (amp > start) parts.emplace_back(raw_query.substr(start, amp - start));
    start = amp + 1;
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "&") + p;
  return out;
}

std::optional<std::string> hmac_authorization(const auth_method& m, const std::string& access_key, const std::string& secret_b64url,
                                              const std::string& method, const std::string& path, const std::string& raw_query,
                                              const std::string& timestamp) {
  auto secret = base64url_decode(secret_b64url);
  if (!secret || secret->empty()) return std::nullopt;
  const auto to_sign = render_braces(m.string_to_sign, {{"path_prefix", m.path_prefix},
                                                        {"path", path},
                                                        {"query", canonical_query(raw_query)},
                                                        {"method", method},
                                                        {"timestamp", timestamp}});
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret->data(), static_cast<int>(secret->size()), reinterpret_cast<const unsigned char*>(to_sign.data()),
       to_sign.size(), mac, &len);
  const auto signature = base64url_encode({reinterpret_cast<const char*>(mac), len});
  return render_braces(m.authorization, {{"access_key", access_key}, {"signature", signature}});
}

std::pair<std::string, std::string> split_credentials(const std::string& key) {
  auto colon = key.find(':');
  if (colon == std::string::npos) return {key, ""};
  return {key.substr(0, colon), key.substr(colon + 1)};
}

}  // namespace neograde
