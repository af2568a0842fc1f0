#include <neograde/core/redact.hpp>

#include <neograde/core/base64.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>

namespace neograde {
namespace {

void scrub_json(nlohmann::json& node, const redactor& r) {
  if (node.is_object()) {
    for (auto& [k, v] : node.items()) {
      if (redactor::is_secret_field(k) && !v.is_null()) v = redacted_marker;
      else
        scrub_json(v, r);
    }
  } else if (node.is_array()) {
    for (auto& v : node) scrub_json(v, r);
  } else if (node.is_string()) {
    node = r.text(node.get_ref<const std::string&>());
  }
}

// JSON member names whose values are always secret, in lower case (is_secret_field).
constexpr std::array<std::string_view, 10> secret_field_names{
    "private_key", "access_token", "refresh_token", "client_secret", "password", "api_key", "apikey", "secret", "token", "jupyter_token"};

// Whether the JSON scrub could change anything but the layout of a body: a secret field's name
// appears in it (ignoring case), or an escape (\u0041, \/) that could spell a secret a search of
// the raw text does not find.
bool may_hold_secret_fields(std::string_view s) {
  return s.find('\\') != std::string_view::npos || find_any_ignoring_case(s, secret_field_names).has_value();
}

}  // namespace

void redactor::add_secret(std::string value) {
  if (value.empty()) return;
  // A key also travels base64-encoded in Basic credentials ("key:" and "key:secret").
  secrets_.push_back(base64_encode(value + ":"));
  secrets_.push_back(std::move(value));
  // Longest first, so that a secret containing another is scrubbed whole.
  std::sort(secrets_.begin(), secrets_.end(), [](auto& a, auto& b) { return a.size() > b.size(); });
}

std::string redactor::text(std::string_view s) const {
  std::string out(s);
  for (const auto& secret : secrets_) {
    std::size_t pos = 0;
    while ((pos = out.find(secret, pos)) != std::string::npos) {
      out.replace(pos, secret.size(), redacted_marker);
      pos += redacted_marker.size();
    }
  }
  return out;
}

bool redactor::is_secret_header(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 8> names{"authorization", "proxy-authorization", "api-key",      "x-api-key",
                                                         "cookie",        "set-cookie",          "x-auth-token", "x-crusoe-signature"};
  return std::any_of(names.begin(), names.end(), [&](auto n) { return iequals(n, name); });
}

bool redactor::is_secret_field(std::string_view name) noexcept {
  return std::any_of(secret_field_names.begin(), secret_field_names.end(), [&](auto n) { return iequals(n, name); });
}

header_list redactor::headers(const header_list& h) const {
  header_list out;
  out.reserve(h.size());
  for (const auto& [name, value] : h) {
    // neograde's own made-up credentials (checks of invalid keys) are not secrets and are kept,
    // so that a reproduction sends the same invalid key.
    const bool made_up = value.find("neograde_invalid_") != std::string::npos;
    out.emplace_back(name, is_secret_header(name) && !made_up ? std::string(redacted_marker) : text(value));
  }
  return out;
}

std::string redactor::body(std::string_view s) const {
  // A body with nothing the scrub would touch is kept byte for byte, as it was sent (a
  // reproduction then sends what the fuzzer sent); only known secrets are replaced in it.
  if (!may_hold_secret_fields(s)) return text(s);
  if (auto doc = parse_json(s)) {
    scrub_json(*doc, *this);
    return doc->dump();
  }
  return text(s);
}

exchange redactor::apply(exchange e) const {
  e.url = text(e.url);
  e.request_headers = headers(e.request_headers);
  e.response_headers = headers(e.response_headers);
  e.request_body = body(e.request_body);
  e.response_body = body(e.response_body);
  e.error = text(e.error);
  return e;
}

}  // namespace neograde
