#include <neograde/clients/curl.hpp>

#include <neograde/core/redact.hpp>
#include <neograde/core/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace neograde {
namespace {

// Inside double quotes only these are special to the shell. Control bytes, which no URL may
// hold raw, are percent-encoded: the reproduction stays one line.
std::string double_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      constexpr char hex[] = "0123456789ABCDEF";
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
      continue;
    }
    if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Headers curl sets itself, or that only describe this one transfer.
bool transport_header(std::string_view name) {
  static constexpr std::array<std::string_view, 4> names{"host", "content-length", "user-agent", "connection"};
  return std::any_of(names.begin(), names.end(), [&](auto n) { return iequals(n, name); });
}

}  // namespace

std::string curl_command(const exchange& e, const provider_spec& spec) {
  const std::string env = "$" + spec.auth.env;
  const auto& m = spec.auth.schemes.front();
  std::string url = e.url;
  const std::string marker(redacted_marker);
  std::string line = "curl -sS -i -X " + e.method + " ";
  // A redacted credential in the URL (query-string auth) becomes the variable.
  std::string quoted_url = double_quoted(url);
  for (std::size_t pos; (pos = quoted_url.find(marker)) != std::string::npos;) quoted_url.replace(pos, marker.size(), env);
  line += quoted_url;
  for (const auto& [name, value] : e.request_headers) {
    if (transport_header(name)) continue;
    if (value != marker) {
      line += " -H " + shell_quote(name + ": " + value);
      continue;
    }
    switch (m.type) {
      case auth_scheme::basic_username: line += " -u \"" + env + ":\""; break;
      case auth_scheme::header: line += " -H \"" + name + ": " + m.prefix + env + "\""; break;
      case auth_scheme::oauth2_client_credentials:
        line += " -H \"" + name + ": Bearer $" + spec.auth.env + "_ACCESS_TOKEN\"";  // a token from the token endpoint
        break;
      case auth_scheme::hmac_sha256: line += " -H \"" + name + ": <HMAC signature over this request with " + env + ">\""; break;
      default: line += " -H \"" + name + ": Bearer " + env + "\""; break;
    }
  }
  if (!e.request_body.empty()) line += " --data-raw " + shell_quote(e.request_body);
  return line;
}

}  // namespace neograde
