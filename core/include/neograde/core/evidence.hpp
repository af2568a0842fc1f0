#pragma once
// What is kept of an HTTP body as evidence. The provider decides how long its answers are and
// what is in them (issue 36 measured a 4 MiB gzip body kept whole, escaped, in the evidence of
// every exchange: a 1.06 GB results file), so every kept body is bounded: text is cut to its first
// `text_bytes`, binary is never escaped byte by byte into JSON but shown by its first
// `binary_head_bytes` in base64; either way its full length and SHA-256 are kept beside it.

#include <neograde/core/http_message.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neograde {

struct body_limits {
  // Of a text body, the first bytes kept (cut at a UTF-8 boundary). 16 KiB: the Markdown and HTML
  // pages show 2,000 and 4,000 of them; and some 40 exchanges of evidence, each written to the
  // results and again to the scorecard, JSON-escaped (quotes and backslashes twice their size),
  // stay within a few megabytes.
  std::size_t text_bytes = 16 * 1024;
  std::size_t binary_head_bytes = 48;  // of a binary body, the first bytes kept, in base64
};

// What a kept body does not show, set only when it is not the whole body as received.
struct body_digest {
  std::uint64_t bytes = 0;       // the whole body's length
  std::string sha256;            // of the whole body (after redaction), lower-case hex
  std::uint64_t kept_bytes = 0;  // text: the length of the prefix kept; binary: of the bytes in head_base64
  // Why the body is binary ("Content-Encoding: gzip", "a NUL byte at offset 12", "not UTF-8 at
  // offset 3"); empty for text cut for its length.
  std::string binary;
  std::string head_base64;  // binary: its first kept_bytes bytes (the body member is then empty)

  [[nodiscard]] bool complete() const noexcept { return kept_bytes == bytes; }
  friend bool operator==(const body_digest&, const body_digest&) = default;
};
void to_json(nlohmann::json& j, const body_digest& d);
void from_json(const nlohmann::json& j, body_digest& d);

// Why `body` is not text to show as is: not UTF-8, a NUL or other control byte (tab, CR, LF
// aside), or a Content-Encoding in `headers` other than identity (the bytes are compressed);
// empty when it is text.
[[nodiscard]] std::string binary_reason(std::string_view body, const header_list& headers);

// Bounds `body` in place. Text within limits.text_bytes is left as is (nullopt). Longer text is cut
// to its first limits.text_bytes at most, at a character boundary. Binary is always moved out of
// the body member (JSON cannot carry its bytes) into the digest's head, whole when it is no longer
// than limits.binary_head_bytes.
[[nodiscard]] std::optional<body_digest> keep_body(std::string& body, const header_list& headers, const body_limits& limits = {});

// The body a digest and its kept part stand for, when they hold all of it (a complete digest, or
// none); nullopt when part of it was cut. What a cassette replays.
[[nodiscard]] std::optional<std::string> whole_body(const std::string& kept, const std::optional<body_digest>& digest);

// Lower-case hex SHA-256 of `bytes`.
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

}  // namespace neograde
