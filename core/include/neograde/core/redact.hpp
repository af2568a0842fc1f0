#pragma once
// Secrets never leak: every exchange is redacted before anything keeps it.

#include <neograde/core/finding.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace neograde {

inline constexpr std::string_view redacted_marker = "<redacted>";

class redactor {
 public:
  // A value to scrub wherever it appears (keys, tokens). Empty values are ignored.
  void add_secret(std::string value);

  [[nodiscard]] std::string text(std::string_view s) const;
  [[nodiscard]] header_list headers(const header_list& h) const;
  [[nodiscard]] exchange apply(exchange e) const;

  // Header names whose values are always secret (authorization, api-key, cookie, ...).
  [[nodiscard]] static bool is_secret_header(std::string_view name) noexcept;
  // JSON member names whose values are always secret (private_key, access_token, ...).
  [[nodiscard]] static bool is_secret_field(std::string_view name) noexcept;

 private:
  [[nodiscard]] std::string body(std::string_view s) const;
  std::vector<std::string> secrets_;
};

}  // namespace neograde
