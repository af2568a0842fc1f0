#pragma once
// Absolute http(s) URLs, split into what a client connects to.

#include <optional>
#include <string>
#include <string_view>

namespace neograde::http {

struct url_parts {
  bool tls = false;
  std::string host;    // without brackets for IPv6
  std::string port;    // explicit, or the scheme's default
  std::string target;  // origin-form: path and query, at least "/"
};

// nullopt for anything but a well-formed absolute http or https URL with a host.
[[nodiscard]] std::optional<url_parts> parse_url(std::string_view url);

// True for localhost, 127.0.0.0/8 and ::1: targets where nothing can cost money.
[[nodiscard]] bool is_loopback(const url_parts& u);

}  // namespace neograde::http
