#pragma once
// Small text helpers: case-insensitive ASCII comparison, as HTTP header and auth-scheme names
// need (RFC 9110 §5.1, §11.1), and quoting for a POSIX shell.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace neograde {

[[nodiscard]] inline bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// One word in single quotes for a POSIX shell (a ' becomes '\''): curl reproductions, and the
// command lines ssh hands to the instance's shell.
[[nodiscard]] inline std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace neograde
