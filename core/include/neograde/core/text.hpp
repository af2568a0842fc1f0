#pragma once
// Case-insensitive ASCII comparison, as HTTP header and auth-scheme names need (RFC 9110 §5.1, §11.1).

#include <algorithm>
#include <cctype>
#include <string_view>

namespace neograde {

[[nodiscard]] inline bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace neograde
