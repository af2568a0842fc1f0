#pragma once
// Small text helpers: case-insensitive ASCII comparison, as HTTP header and auth-scheme names
// need (RFC 9110 §5.1, §11.1), and quoting for a POSIX shell.

#include <algorithm>
#include <cctype>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace neograde {

[[nodiscard]] inline bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The first of `needles` (written in lower case) that `haystack` contains, ignoring ASCII case;
// nullopt when none does. For scans of every response or exchange: the lowered copy goes in a
// buffer the thread keeps between calls (unless a huge body made it grow past 1 MiB).
[[nodiscard]] std::optional<std::string_view> find_any_ignoring_case(std::string_view haystack, std::span<const std::string_view> needles);

// One word quoted for the shell: in single quotes (a ' becomes '\''), or, when it holds control
// bytes, in ANSI-C $'...' quoting (bash, zsh), so that a CR or LF never splits a curl
// reproduction into lines. Curl reproductions, and the command lines ssh hands to the instance.
[[nodiscard]] inline std::string shell_quote(std::string_view word) {
  const bool control = std::any_of(word.begin(), word.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  if (!control) {
    std::string out = "'";
    for (char c : word) {
      if (c == '\'') out += "'\\''";
      else
        out += c;
    }
    return out + "'";
  }
  // ANSI-C quoting (bash, zsh, ksh): control bytes escaped, so the word stays on one line.
  std::string out = "$'";
  for (char c : word) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace neograde
