#include <neograde/core/evidence.hpp>

#include <neograde/core/base64.hpp>
#include <neograde/core/text.hpp>

#include <openssl/sha.h>

#include <algorithm>
#include <array>

namespace neograde {
namespace {

// The length of the valid UTF-8 sequence (RFC 3629 §4: no overlongs, no surrogates, nothing past
// U+10FFFF) that starts at s[i]; 0 when none does.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const auto c = at(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the bounds of the second byte
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  return n;
}

}  // namespace

void to_json(nlohmann::json& j, const body_digest& d) {
  j = nlohmann::json{{"bytes", d.bytes}, {"sha256", d.sha256}, {"kept_bytes", d.kept_bytes}};
  if (!d.binary.empty()) {
    j["binary"] = d.binary;
    j["head_base64"] = d.head_base64;
  }
}

void from_json(const nlohmann::json& j, body_digest& d) {
  j.at("bytes").get_to(d.bytes);
  j.at("sha256").get_to(d.sha256);
  j.at("kept_bytes").get_to(d.kept_bytes);
  d.binary = j.value("binary", "");
  d.head_base64 = j.value("head_base64", "");
}

std::string binary_reason(std::string_view body, const header_list& headers) {
  for (const auto& [name, value] : headers)
    if (iequals(name, "Content-Encoding") && !value.empty() && !iequals(value, "identity")) return "Content-Encoding: " + value;
  for (std::size_t i = 0; i < body.size();) {
    const auto c = static_cast<unsigned char>(body[i]);
    if (c == 0) return "a NUL byte at offset " + std::to_string(i);
    // Control bytes other than tab, LF and CR are escaped six bytes each in JSON (\u0001).
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return "a control byte at offset " + std::to_string(i);
    const auto n = utf8_sequence(body, i);
    if (n == 0) return "not UTF-8 at offset " + std::to_string(i);
    i += n;
  }
  return {};
}

std::optional<body_digest> keep_body(std::string& body, const header_list& headers, const body_limits& limits) {
  auto why = binary_reason(body, headers);
  if (why.empty() && body.size() <= limits.text_bytes) return std::nullopt;
  body_digest d{.bytes = body.size(), .sha256 = sha256_hex(body), .kept_bytes = 0, .binary = std::move(why), .head_base64 = {}};
  if (!d.binary.empty()) {
    const auto head = std::min(body.size(), limits.binary_head_bytes);
    d.head_base64 = base64_encode(std::string_view(body).substr(0, head));
    d.kept_bytes = head;
    body.clear();
    body.shrink_to_fit();
    return d;
  }
  // Text: back off to the start of the character the limit falls in (continuation bytes are
  // 10xxxxxx), so that the kept prefix is UTF-8 too.
  auto end = limits.text_bytes;
  while (end > 0 && (static_cast<unsigned char>(body[end]) & 0xc0) == 0x80) --end;
  body.resize(end);
  body.shrink_to_fit();
  d.kept_bytes = end;
  return d;
}

std::optional<std::string> whole_body(const std::string& kept, const std::optional<body_digest>& digest) {
  if (!digest) return kept;
  if (!digest->complete()) return std::nullopt;
  if (digest->binary.empty()) return kept;
  auto bytes = base64url_decode(digest->head_base64);  // accepts the standard alphabet too
  if (!bytes || bytes->size() != digest->bytes) return std::nullopt;
  return bytes;
}

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> md{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md.data());
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * md.size());
  for (auto b : md) {
    out += hex[b >> 4];
    out += hex[b & 0x0f];
  }
  return out;
}

}  // namespace neograde
