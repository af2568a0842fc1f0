#include <neograde/clients/url.hpp>

#include <boost/url/parse.hpp>

namespace neograde::http {
namespace {

// The authority as written: between "//" and the first '/', '?' or '#'. Boost.URL 1.81 reads
// "http://127.0.0.1.example.com/" as host 127.0.0.1 and path ".example.com/", so its answer
// is checked against this.
std::string_view written_authority(std::string_view url) {
  auto start = url.find("//");
  if (start == std::string_view::npos) return {};
  url.remove_prefix(start + 2);
  return url.substr(0, url.find_first_of("/?#"));
}

// The host within an authority, userinfo and port removed, IPv6 brackets stripped.
std::string written_host(std::string_view authority) {
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.starts_with('[')) {
    auto close = authority.find(']');
    return std::string(authority.substr(1, close == std::string_view::npos ? authority.npos : close - 1));
  }
  return std::string(authority.substr(0, authority.find(':')));
}

bool is_loopback_ipv4(const std::string& host) {
  int octets = 0;
  std::size_t start = 0;
  while (start <= host.size()) {
    auto dot = host.find('.', start);
    if (dot == std::string::npos) dot = host.size();
    const auto part = host.substr(start, dot - start);
    if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos || std::stoi(part) > 255 ||
        (octets == 0 && part != "127"))
      return false;
    ++octets;
    start = dot + 1;
  }
  return octets == 4;
}

}  // namespace

std::optional<url_parts> parse_url(std::string_view url) {
  auto u = boost::urls::parse_uri(url);
  if (!u || !u->has_authority()) return std::nullopt;
  url_parts out;
  const auto scheme = u->scheme();
  if (scheme == "https") out.tls = true;
  else if (scheme != "http")
    return std::nullopt;
  out.host = u->host_address();
  if (out.host.empty() || out.host != written_host(written_authority(url)) || u->encoded_authority() != written_authority(url))
    return std::nullopt;
  out.port = u->has_port() && !u->port().empty() ? std::string(u->port()) : (out.tls ? "443" : "80");
  // Port 0 cannot be connected to; digits beyond 65535 are not a port.
  if (out.port.size() > 5 || std::stoi(out.port) < 1 || std::stoi(out.port) > 65535) return std::nullopt;
  out.target = u->encoded_path().empty() ? "/" : std::string(u->encoded_path());
  if (u->has_query()) out.target += "?" + std::string(u->encoded_query());
  return out;
}

bool is_loopback(const url_parts& u) { return u.host == "localhost" || u.host == "::1" || is_loopback_ipv4(u.host); }

}  // namespace neograde::http
