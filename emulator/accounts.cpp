// Accounts: which one a request's credentials belong to, under every auth scheme the spec
// accepts (OAuth2 tokens issued here), and each account's SSH keys.

#include "model_impl.hpp"

#include <neograde/core/clock.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/signing.hpp>
#include <neograde/core/text.hpp>

#include <algorithm>
#include <cctype>

namespace neograde::emulator {

namespace {

// Signed requests carry their time; one more than five minutes off is refused (replay window).
// Any RFC 3339 date-time: "Z" or a numeric offset ("+00:00", what dstack and gpuhunt send to
// Crusoe), a fraction of a second, and "T", "t" or a space between date and time.
bool timestamp_fresh(const std::string& stamp) {
  if (stamp.size() < 20) return false;
  std::string base = stamp.substr(0, 19);
  if (base[10] == 't' || base[10] == ' ') base[10] = 'T';
  std::size_t i = 19;
  if (stamp[i] == '.') {
    while (++i < stamp.size() && std::isdigit(static_cast<unsigned char>(stamp[i])) != 0) {}
    if (i == 20) return false;
  }
  const auto zone = stamp.substr(i);
  long long offset = 0;
  auto digit = [&](std::size_t k) { return std::isdigit(static_cast<unsigned char>(zone[k])) != 0; };
  if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digit(1) && digit(2) && zone[3] == ':' && digit(4) && digit(5))
    offset = (zone[0] == '-' ? -1 : 1) * (std::stoll(zone.substr(1, 2)) * 3600 + std::stoll(zone.substr(4, 2)) * 60);
  else if (zone != "Z" && zone != "z")
    return false;
  const auto until = seconds_until_utc(base + "Z", "%Y-%m-%dT%H:%M:%SZ");
  return until && *until - offset > -300 && *until - offset < 300;
}

std::string decode_basic_user(const std::string& b64) {
  static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buf = 0;
  int bits = 0;
  for (char c : b64) {
    if (c == '=') break;
    auto pos = alphabet.find(c);
    if (pos == std::string::npos) return {};
    buf = (buf << 6) | static_cast<unsigned>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buf >> bits) & 0xff);
    }
  }
  auto colon = out.find(':');
  return colon == std::string::npos ? out : out.substr(0, colon);
}

}  // namespace

std::optional<std::size_t> provider_model::impl::tenant(const std::string& key) const {
  if (auto it = tenant_of_key.find(key); it != tenant_of_key.end() && !key.empty()) return it->second;
  return std::nullopt;
}

// The account a request's credentials belong to, under any scheme the spec accepts.
std::optional<std::size_t> provider_model::impl::credentials_of(const http::request& req, const std::string& rel_path,
                                                                const std::string& raw_query, clock::time_point now) const {
  const std::string auth = header_of(req, "Authorization");
  // Auth scheme names are case-insensitive (RFC 9110 §11.1).
  auto scheme_is = [&](std::string_view word) {
    if (auth.size() <= word.size() || auth[word.size()] != ' ') return false;
    if (has(quirk::scheme_case_sensitive)) return auth.starts_with(word);
    return iequals(std::string_view(auth).substr(0, word.size()), word);
  };
  for (const auto& m : spec.auth.schemes) {
    switch (m.type) {
      case auth_scheme::bearer:
        if (scheme_is("Bearer"))
          if (auto t = tenant(auth.substr(7))) return t;
        break;
      case auth_scheme::basic_username:
        if (scheme_is("Basic"))
          if (auto t = tenant(decode_basic_user(auth.substr(6)))) return t;
        break;
      case auth_scheme::query:
        for (const auto& [k, v] : parse_query(raw_query))
          if (k == m.param)
            if (auto t = tenant(v)) return t;
        break;
      case auth_scheme::header: {
        const auto value = header_of(req, m.header);
        if (!value.empty() && value.starts_with(m.prefix))
          if (auto t = tenant(value.substr(m.prefix.size()))) return t;
        break;
      }
      case auth_scheme::oauth2_client_credentials:
        if (scheme_is("Bearer"))
          if (auto it = tokens.find(auth.substr(7)); it != tokens.end() && now < it->second.second) return it->second.first;
        break;
      case auth_scheme::hmac_sha256: {
        const auto stamp = header_of(req, m.timestamp_header);
        if (stamp.empty() || auth.empty() || !timestamp_fresh(stamp)) break;
        for (const auto& [key, index] : tenant_of_key) {
          auto [access, secret] = split_credentials(key);
          if (hmac_authorization(m, access, secret, req.method, rel_path, raw_query, stamp) == auth) return index;
        }
        break;
      }
      case auth_scheme::unknown: break;
    }
  }
  return std::nullopt;
}

bool provider_model::impl::credentials_presented(const http::request& req, const std::string& raw_query) const {
  return !header_of(req, "Authorization").empty() || std::any_of(spec.auth.schemes.begin(), spec.auth.schemes.end(), [&](const auto& m) {
    return (m.type == auth_scheme::header && !header_of(req, m.header).empty()) ||
           (m.type == auth_scheme::query && raw_query.find(m.param + "=") != std::string::npos);
  });
}

// Account for the credentials of a request, or nullopt when they are missing or unknown.
std::optional<std::size_t> provider_model::impl::authenticate(const http::request& req, const std::string& rel_path,
                                                              const std::string& raw_query, clock::time_point now) const {
  if (!credentials_presented(req, raw_query)) {
    if (has(quirk::query_key_accepted))
      for (const auto& [k, v] : parse_query(raw_query))
        if (auto t = tenant(v); t && (k == "api_key" || k == "token")) return t;
    return has(quirk::auth_missing_accepted) ? std::optional<std::size_t>(0) : std::nullopt;
  }
  if (auto t = credentials_of(req, rel_path, raw_query, now)) return t;
  return has(quirk::invalid_key_accepted) ? std::optional<std::size_t>(0) : std::nullopt;
}

// OAuth2 client credentials grant (RFC 6749 §4.4): JSON or form-encoded body.
http::response provider_model::impl::issue_token(const http::request& req, clock::time_point now) {
  std::string id, secret;
  if (auto body = parse_json(req.body, 8); body && body->is_object()) {
    id = body->value("client_id", "");
    secret = body->value("client_secret", "");
  } else {
    for (const auto& [k, v] : parse_query(req.body)) {
      if (k == "client_id") id = v;
      if (k == "client_secret") secret = v;
    }
  }
  auto t = tenant(id + ":" + secret);
  if (!t) return error_response("unauthorized");
  // A lifetime, not a delay: it shrinks with the time scale, but never below a second, so
  // that with no delays at all a token still outlives the requests it was fetched for.
  const double lifetime = std::max(emu.token_lifetime_s * opts.time_scale, 1.0);
  std::string token = "emu_token_" + new_hex();
  tokens[token] = {*t, now + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(lifetime))};
  return json_response(200, {{"access_token", token},
                             {"token_type", "Bearer"},
                             {"expires_in", lifetime},
                             {"refresh_token", "emu_refresh_" + new_hex()},
                             {"scope", "cloud-api-v1"}});
}

http::response provider_model::impl::list_keys(const operation_spec& op, account& acct, const std::string& raw_query) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& a : accounts)
    if (&a == &acct || has(quirk::cross_tenant_keys))
      for (const auto& k : a.keys)
        if (!has(quirk::key_not_listed)) items.push_back(render_key(k, op.id));
  // Nothing to list answered as an error where the provider documents one (Vast.ai's 404).
  if (items.empty() && !op.empty_kind.empty()) return error_response(op.empty_kind, op.empty_message);
  return page_of(op, std::move(items), raw_query);
}

http::response provider_model::impl::add_key(const operation_spec& op, account& acct, const template_vars& vars) {
  // The whole set replaced (RunPod's PUT /v2/account/ssh-keys): each key is its own id, and the
  // answer is the set as it now is.
  if (op.replaces_key_set) {
    const auto it = vars.find("public_keys");
    if (it == vars.end() || !it->second.is_array()) return error_response("invalid_parameters", "The keys are required.");
    acct.keys.clear();
    auto items = nlohmann::json::array();
    for (const auto& k : it->second)
      if (k.is_string()) {
        acct.keys.push_back(emu_key{k.get<std::string>(), "", k.get<std::string>()});
        ++keys_created;
        items.push_back(render_key(acct.keys.back(), op.id));
      }
    nlohmann::json body = response_template(op);
    set_pointer(body, op.items.value_or(op.item.value_or("")), std::move(items));
    return json_response(op.success_status.front(), body);
  }
  // Keys without names (Vast.ai's): the name is neither required nor unique.
  const bool named = spec.ssh_key_fields_of(op.id).contains("name");
  const auto name = vars.contains("name") ? first_string(vars.at("name")) : std::string();
  if (named && name.empty() && !has(quirk::empty_key_name_accepted)) return error_response("invalid_parameters", "A key name is required.");
  if (named && std::any_of(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.name == name; }))
    return error_response("invalid_parameters", "An SSH key named " + name + " already exists.");
  emu_key k{emu.ids == id_style::integer || emu.ids == id_style::uuid ? new_instance_id() : new_hex(), name,
            vars.contains("public_key") ? first_string(vars.at("public_key")) : std::string()};
  bool generated = false;
  if (k.public_key.empty()) {
    // The provider generates a pair when no public key is given and returns the private half once.
    k.public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmulatedKeyEmulatedKeyEmulatedKeyEmulated " + name;
    generated = true;
  }
  acct.keys.push_back(k);
  ++keys_created;
  auto obj = render_key(k, op.id);
  if (generated)
    write_field(obj, spec.ssh_key_fields, "private_key",
                "-----BEGIN OPENSSH PRIVATE KEY-----\nemulated\n-----END OPENSSH PRIVATE KEY-----\n");
  if (op.text_response)  // the new key's id alone (Verda)
    return http::response{op.success_status.front(), {{"Content-Type", "text/plain"}}, k.id};
  nlohmann::json body = response_template(op);
  set_pointer(body, op.item.value_or(""), std::move(obj));
  return json_response(op.success_status.front(), body);
}

http::response provider_model::impl::delete_key(const operation_spec& op, account& acct, const std::string& id) {
  auto it = std::find_if(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.id == id; });
  if (it == acct.keys.end() && has(quirk::key_delete_unknown_200)) return json_response(200, nlohmann::json::object());
  if (it == acct.keys.end()) return error_response("not_found");
  if (!has(quirk::key_delete_ignored)) acct.keys.erase(it);
  if (op.success_status.front() == 204) return http::response{204, {}, {}};
  return json_response(op.success_status.front(), response_template(op));
}

}  // namespace neograde::emulator
