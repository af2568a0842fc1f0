#include <neograde/emulator/model.hpp>

#include <neograde/core/base64.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/core/graphql.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/provenance.hpp>
#include <neograde/core/signing.hpp>
#include <neograde/core/text.hpp>
#include <neograde/core/template.hpp>

#include <boost/url/parse.hpp>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <ctime>

namespace neograde::emulator {

namespace {

struct emu_instance {
  std::string id;
  std::string name;
  std::string type;
  std::string region;
  std::vector<std::string> ssh_keys;
  std::string ip;
  std::vector<std::string> ports;  // container ports the launch asked to publish: "10022/tcp"
  clock::time_point boot_done;
  std::optional<clock::time_point> terminated_at;
  std::optional<clock::time_point> restart_until;
  mutable unsigned long running_reads = 0;  // for the flapping quirk
};

struct emu_key {
  std::string id;
  std::string name;
  std::string public_key;
};

struct account {
  std::vector<emu_instance> instances;  // in creation order
  std::vector<emu_key> keys;
};

struct bucket {
  double tokens = 0;
  clock::time_point last;
};

enum class phase { booting, running, restarting, terminating, terminated, gone };

// An OpenSSH public key's MD5 fingerprint, "aa:bb:...": the digest of the key blob (the
// base64 part of "type blob comment"), as DigitalOcean reports a key's fingerprint.
std::string md5_fingerprint(const std::string& public_key) {
  const auto start = public_key.find(' ');
  std::string blob = start == std::string::npos ? public_key : public_key.substr(start + 1);
  blob = blob.substr(0, blob.find(' '));
  std::string raw(blob.size(), '\0');
  int n = blob.size() % 4 == 0 ? EVP_DecodeBlock(reinterpret_cast<unsigned char*>(raw.data()),
                                                 reinterpret_cast<const unsigned char*>(blob.data()),
                                                 static_cast<int>(blob.size()))
                                : -1;
  if (n < 0) {
    raw = public_key;  // not base64: the digest of the text, still a well-formed fingerprint
  } else {
    std::size_t pad = 0;  // EVP_DecodeBlock counts the padding as zero bytes
    for (auto it = blob.rbegin(); it != blob.rend() && *it == '=' && pad < 2; ++it) ++pad;
    raw.resize(static_cast<std::size_t>(n) - pad);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(raw.data(), raw.size(), digest, &len, EVP_md5(), nullptr);
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    static constexpr char hex[] = "0123456789abcdef";
    if (i > 0) out += ':';
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

std::string first_string(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();  // a count or an id some clients send as a number
  if (v.is_array() && !v.empty() && v.front().is_string()) return v.front().get<std::string>();
  return {};
}

std::vector<std::string> all_strings(const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_string() || v.is_number_integer()) out.push_back(first_string(v));
  if (v.is_array())
    for (const auto& e : v)
      if (e.is_string() || e.is_number_integer()) out.push_back(first_string(e));
  return out;
}

std::string parent_pointer(const std::string& ptr) {
  auto slash = ptr.rfind('/');
  return slash == std::string::npos ? std::string() : ptr.substr(0, slash);
}

}  // namespace

struct provider_model::impl {
  const provider_spec& spec;
  model_options opts;
  std::string base_path;
  std::map<operation_id, json_schema> request_schemas;
  // GraphQL operations: which variable the spec's own query passes as each argument of its root
  // field (`pod(input: $input)`: input -> input), read once from the spec.
  std::map<operation_id, std::map<std::string, std::string>> graphql_argument_variables;
  std::map<std::string, std::size_t> tenant_of_key;
  mutable std::mutex mu;
  std::vector<account> accounts;
  std::map<std::string, bucket> buckets;
  std::mt19937_64 rng{0x6e656f67726164ULL};  // deterministic ids for reproducible runs
  unsigned next_ip = 10;
  std::size_t created = 0;  // instances ever launched, over all accounts
  unsigned long slow_counter = 0;
  long long next_integer_id = 31'415'900;
  // Actions that complete later (an operation's `action`): the account, the completion time and
  // the answer that started it (a read renders that answer with the status of the moment).
  struct emu_action {
    std::size_t account = 0;
    clock::time_point done;
    nlohmann::json answer;
  };
  std::map<std::string, emu_action> actions;
  long long next_action_id = 2'718'281'900;
  std::map<std::string, std::pair<std::size_t, clock::time_point>> tokens;  // OAuth2 access tokens

  impl(const provider_spec& s, model_options o) : spec(s), opts(std::move(o)) {
    if (!opts.now) opts.now = [] { return clock::now(); };
    if (auto u = boost::urls::parse_uri(spec.base_url)) base_path = std::string(u->encoded_path());
    while (!base_path.empty() && base_path.back() == '/') base_path.pop_back();
    for (const auto& [id, op] : spec.operations) {
      if (op.request_schema) request_schemas.emplace(id, json_schema(*op.request_schema));
      if (op.graphql_operation) graphql_argument_variables.emplace(id, argument_variables(op));
    }
    for (const auto& key : opts.api_keys) tenant_of_key.emplace(key, tenant_of_key.size());
    accounts.resize(std::max<std::size_t>(1, opts.api_keys.size()));
  }

  [[nodiscard]] bool quirk(std::string_view name) const { return opts.quirks.contains(name); }

  [[nodiscard]] clock::duration scaled(double seconds) const {
    return std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds * opts.time_scale));
  }

  [[nodiscard]] double emu_number(const char* key, double fallback) const {
    return spec.emulator.contains(key) ? spec.emulator.at(key).get<double>() : fallback;
  }

  // ---- responses ----------------------------------------------------------------------

  http::response json_response(int status, const nlohmann::json& body) const {
    http::response r;
    r.status = status;
    r.headers.emplace_back("Content-Type", quirk("success_text_plain") && status < 300 ? "text/plain" : "application/json");
    r.body = dump_json(body);
    return r;
  }

  http::response error_response(const std::string& kind, const std::string& message = {}) const {
    error_kind k{500, "", "Internal error"};
    std::string text = message;
    if (auto it = spec.errors.kinds.find(kind); it != spec.errors.kinds.end()) {
      k = it->second;
    } else if (kind == "insufficient_capacity" && spec.errors.kinds.contains("invalid_parameters")) {
      // A spec that documents no capacity error: refuse as a client error, never a 500.
      k = spec.errors.kinds.at("invalid_parameters");
      if (text.empty()) text = "Not enough capacity for the requested instance type.";
    }
    if (text.empty()) text = k.message;
    if (quirk("stack_traces"))
      text += "\nTraceback (most recent call last):\n  File \"/srv/api/handlers.py\", line 212, in dispatch\n"
              "psycopg2.errors.UndefinedTable: relation \"instances\" does not exist";
    if (quirk("undocumented_error_code")) k.code = "E_UNDOCUMENTED_42";
    http::response r;
    r.status = k.status;
    if (quirk("html_errors")) {
      r.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
      r.body = "<html><head><title>" + std::to_string(k.status) + "</title></head><body><h1>Error</h1><p>" +
               text + "</p></body></html>";
      return r;
    }
    template_vars vars{{"code", k.code}, {"message", text}, {"status", k.status}};
    // Providers whose codes are numbers (gRPC status codes) render {{code_number}}.
    if (!k.code.empty() && k.code.find_first_not_of("0123456789") == std::string::npos) vars["code_number"] = std::stoll(k.code);
    r.headers.emplace_back("Content-Type", spec.errors.content_type);
    r.body = dump_json(render_body(spec.errors.body_template, vars));
    return r;
  }

  // ---- rendering provider objects ---------------------------------------------------------

  // Writes a canonical value where the spec says the provider keeps it. Regions known to the
  // emulator are written as the provider's region object at the parent of a nested pointer.
  void write_field(nlohmann::json& obj, const std::map<std::string, field_path>& fields, const std::string& name,
                   const nlohmann::json& value) const {
    auto it = fields.find(name);
    if (it == fields.end()) return;
    const auto& f = it->second;
    const auto& regions = spec.emulator.value("regions", nlohmann::json::object());
    auto region_object = [&](const std::string& r) -> const nlohmann::json* {
      return regions.contains(r) ? &regions.at(r) : nullptr;
    };
    if (f.each) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& v : value) {
        if (f.each->empty()) {
          arr.push_back(v);
        } else if (const auto* ro = name.starts_with("region") ? region_object(v.get<std::string>()) : nullptr) {
          arr.push_back(*ro);
        } else {
          nlohmann::json e = nlohmann::json::object();
          set_pointer(e, *f.each, v);
          arr.push_back(std::move(e));
        }
      }
      set_pointer(obj, f.pointer, std::move(arr));
      return;
    }
    if (name == "region" && value.is_string()) {
      const auto parent = parent_pointer(f.pointer);
      if (const auto* ro = region_object(value.get<std::string>()); ro != nullptr && !parent.empty()) {
        set_pointer(obj, parent, *ro);
        return;
      }
    }
    if (f.as_integer && value.is_string()) {
      const auto& text = value.get_ref<const std::string&>();
      if (!text.empty() && text.size() < 19 && text.find_first_not_of("0123456789") == std::string::npos) {
        set_pointer(obj, f.pointer, std::stoll(text));
        return;
      }
    }
    if (value.is_number() && f.as_string) {
      set_pointer(obj, f.pointer, std::to_string(value.get<double>() / f.scale));
      return;
    }
    if (value.is_number() && f.scale != 1) {
      const double raw = value.get<double>() / f.scale;
      if (std::abs(raw - std::round(raw)) < 1e-6) set_pointer(obj, f.pointer, static_cast<long long>(std::llround(raw)));
      else set_pointer(obj, f.pointer, raw);
      return;
    }
    if (value.is_null() && f.omit_null) return;  // the provider leaves the member out (or its list empty)
    set_pointer(obj, f.pointer, value);
  }

  [[nodiscard]] phase phase_of(const emu_instance& i, clock::time_point now) const {
    if (i.terminated_at) {
      const auto done = *i.terminated_at + scaled(emu_number("terminate_s", 0));
      if (now >= done + scaled(emu_number("gone_after_s", 60))) return phase::gone;
      return now >= done ? phase::terminated : phase::terminating;
    }
    if (quirk("stuck_booting") || now < i.boot_done) return phase::booting;
    if (i.restart_until && now < *i.restart_until) return phase::restarting;
    return phase::running;
  }

  [[nodiscard]] std::string phase_word(phase p) const {
    auto word = documented_phase_word(p);
    if (quirk("status_words_upper_case"))
      std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return word;
  }

  [[nodiscard]] std::string documented_phase_word(phase p) const {
    const auto& phases = spec.emulator.at("phases");
    switch (p) {
      case phase::booting: return quirk("unknown_status_word") ? "initializing_hw" : phases.at("booting").get<std::string>();
      case phase::running: return phases.at("running");
      case phase::restarting: return phases.value("restarting", phases.at("booting").get<std::string>());
      case phase::terminating: return phases.at("terminating");
      case phase::terminated:
      case phase::gone: return phases.at("terminated");
    }
    return {};
  }

  // `from`: the operation that returns the object (its own fields override the spec's).
  nlohmann::json render_instance(const emu_instance& i, phase p, operation_id from = operation_id::get) {
    // flapping: a running instance reads as booting on every other read of it (get or list),
    // without a restart: counted per instance, so what one client sees does not depend on what
    // others read in between.
    if (p == phase::running && quirk("flapping") && (++i.running_reads % 2 == 0)) p = phase::booting;
    nlohmann::json obj = spec.emulator.value("instance_template", nlohmann::json::object());
    const auto f = spec.instance_fields_of(from);
    write_field(obj, f, "id", i.id);
    write_field(obj, f, "name", i.name);
    write_field(obj, f, "status", phase_word(p));
    const bool addressed = (p == phase::running || p == phase::restarting) && !quirk("no_address");
    // Before it has one: null, or what the spec says the document requires there (Crusoe: a string).
    write_field(obj, f, "ip", addressed ? nlohmann::json(i.ip) : spec.emulator.value("unaddressed", nlohmann::json(nullptr)));
    if (addressed && quirk("instance_schema_drift"))
      if (auto it = f.find("ip"); it != f.end()) set_pointer(obj, it->second.pointer, 3325256714LL);  // an address as a number
    // A private address (the public one's last octet in 10.0.0.0/24) where clients index one.
    const auto private_ip = "10.0.0." + i.ip.substr(i.ip.rfind('.') + 1);
    write_field(obj, f, "private_ip", addressed ? nlohmann::json(private_ip) : nlohmann::json(nullptr));
    write_field(obj, f, "region", i.region);
    write_field(obj, f, "instance_type", quirk("wrong_type_delivered") ? other_type(i.type) : i.type);
    write_field(obj, f, "ssh_key_names", i.ssh_keys);
    // Published ports beside the template's, Docker-style: {"10022/tcp": [{"HostIp", "HostPort"}]},
    // each on a host port of its own.
    if (const auto* ports = find_pointer(spec.emulator, "/published_ports"); ports != nullptr && !i.ports.empty()) {
      const auto into = ports->at("into").get<std::string>();
      const auto* templated = find_pointer(obj, into);
      auto map = templated != nullptr ? *templated : nlohmann::json::object();
      long host = ports->value("first_host_port", 41235L);
      for (const auto& port : i.ports)
        map[port] = nlohmann::json::array({{{"HostIp", "0.0.0.0"}, {"HostPort", std::to_string(host++)}}});
      set_pointer(obj, into, std::move(map));
    }
    return obj;
  }

  // The container ports a launch body asks to publish, as Docker's `-p [host:]container[/proto]`
  // options in the spec's emulator.published_ports.from (Vast.ai's env: an object whose keys are
  // the options, as the official CLI and dstack send it, or one string of them).
  [[nodiscard]] std::vector<std::string> requested_ports(const nlohmann::json& body) const {
    std::vector<std::string> out;
    const auto* ports = find_pointer(spec.emulator, "/published_ports");
    const auto* from = ports != nullptr ? find_pointer(body, ports->at("from").get<std::string>()) : nullptr;
    if (from == nullptr) return out;
    std::string options;
    if (from->is_string()) options = from->get<std::string>();
    else if (from->is_object())
      for (const auto& [key, _] : from->items()) options += " " + key;
    std::istringstream words(options);
    for (std::string word; words >> word;) {
      if (word != "-p" || !(words >> word)) continue;
      const auto colon = word.rfind(':');
      auto port = colon == std::string::npos ? word : word.substr(colon + 1);
      if (port.empty() || !std::isdigit(static_cast<unsigned char>(port.front()))) continue;
      if (port.find('/') == std::string::npos) port += "/tcp";
      if (std::find(out.begin(), out.end(), port) == out.end()) out.push_back(port);
    }
    return out;
  }

  nlohmann::json render_key(const emu_key& k) const {
    nlohmann::json obj = nlohmann::json::object();
    write_field(obj, spec.ssh_key_fields, "id", k.id);
    write_field(obj, spec.ssh_key_fields, "name", k.name);
    write_field(obj, spec.ssh_key_fields, "public_key", k.public_key);
    write_field(obj, spec.ssh_key_fields, "fingerprint", md5_fingerprint(k.public_key));
    return obj;
  }

  // ---- capacity -------------------------------------------------------------------------

  // Another instance type than the one ordered (what a bait-and-switch delivers).
  [[nodiscard]] std::string other_type(const std::string& ordered) const {
    for (const auto& t : spec.emulator.at("instance_types"))
      if (t.at("name") != ordered) return t.at("name");
    return ordered + "_throttled";
  }

  [[nodiscard]] const nlohmann::json* find_type(const std::string& name) const {
    for (const auto& t : spec.emulator.at("instance_types"))
      if (t.at("name") == name) return &t;
    return nullptr;
  }

  [[nodiscard]] long remaining(const nlohmann::json& type, const std::string& region, clock::time_point now) const {
    const auto& cap = type.at("capacity");
    long left = cap.contains(region) ? cap.at(region).get<long>() : 0;
    for (const auto& a : accounts)
      for (const auto& i : a.instances)
        if (i.type == type.at("name") && i.region == region && phase_of(i, now) != phase::gone &&
            phase_of(i, now) != phase::terminated)
          --left;
    return left;
  }

  // ---- request plumbing ------------------------------------------------------------------

  [[nodiscard]] static std::string header_of(const http::request& req, std::string_view name) {
    for (const auto& [k, v] : req.headers)
      if (iequals(k, name)) return v;
    return {};
  }

  [[nodiscard]] std::optional<std::size_t> tenant(const std::string& key) const {
    if (auto it = tenant_of_key.find(key); it != tenant_of_key.end() && !key.empty()) return it->second;
    return std::nullopt;
  }

  // The account a request's credentials belong to, under any scheme the spec accepts.
  [[nodiscard]] std::optional<std::size_t> credentials_of(const http::request& req, const std::string& rel_path,
                                                          const std::string& raw_query, clock::time_point now) const {
    const std::string auth = header_of(req, "Authorization");
    // Auth scheme names are case-insensitive (RFC 9110 §11.1).
    auto scheme_is = [&](std::string_view word) {
      if (auth.size() <= word.size() || auth[word.size()] != ' ') return false;
      if (quirk("scheme_case_sensitive")) return auth.starts_with(word);
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

  // Signed requests carry their time; one more than five minutes off is refused (replay window).
  // Any RFC 3339 date-time: "Z" or a numeric offset ("+00:00", what dstack and gpuhunt send to
  // Crusoe), a fraction of a second, and "T", "t" or a space between date and time.
  static bool timestamp_fresh(const std::string& stamp) {
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

  [[nodiscard]] bool credentials_presented(const http::request& req, const std::string& raw_query) const {
    return !header_of(req, "Authorization").empty() ||
           std::any_of(spec.auth.schemes.begin(), spec.auth.schemes.end(), [&](const auto& m) {
             return (m.type == auth_scheme::header && !header_of(req, m.header).empty()) ||
                    (m.type == auth_scheme::query && raw_query.find(m.param + "=") != std::string::npos);
           });
  }

  // A request path against a path template; with emulator.trailing_slash_optional, a trailing
  // slash on either side does not matter (Vast.ai's own CLI adds one its document does not).
  // Fixed variables (a project id) must be the spec's: any other value is an unknown path.
  [[nodiscard]] bool matches(const std::string& tmpl, const std::string& rel, std::map<std::string, std::string>& params) const {
    auto trim = [](std::string p) {
      if (p.size() > 1 && p.back() == '/') p.pop_back();
      return p;
    };
    if (!match_path(tmpl, rel, params) &&
        !(spec.emulator.value("trailing_slash_optional", false) && match_path(trim(tmpl), trim(rel), params)))
      return false;
    return std::all_of(params.begin(), params.end(), [&](const auto& p) {
      auto it = spec.variables.find(p.first);
      return it == spec.variables.end() || it->second == p.second;
    });
  }

  // Whether a request names an operation the live API serves without credentials (for GraphQL,
  // the operation its query names: RunPod serves gpuTypes, and only that, to anyone).
  [[nodiscard]] bool anonymous_operation(const http::request& req, const std::string& rel) const {
    const std::string m = req.method == "HEAD" ? "GET" : req.method;
    return std::any_of(spec.operations.begin(), spec.operations.end(), [&](const auto& entry) {
      const auto& op = entry.second;
      std::map<std::string, std::string> p;
      return op.anonymous && op.method == m && matches(op.path.substr(0, op.path.find('?')), rel, p) &&
             (!op.graphql_operation || body_selects(op, parse_json(req.body, 64)));
    });
  }

  // Account for the credentials of a request, or nullopt when they are missing or unknown.
  [[nodiscard]] std::optional<std::size_t> authenticate(const http::request& req, const std::string& rel_path,
                                                        const std::string& raw_query, clock::time_point now) const {
    if (!credentials_presented(req, raw_query)) {
      if (quirk("query_key_accepted"))
        for (const auto& [k, v] : parse_query(raw_query))
          if (auto t = tenant(v); t && (k == "api_key" || k == "token")) return t;
      return quirk("auth_missing_accepted") ? std::optional<std::size_t>(0) : std::nullopt;
    }
    if (auto t = credentials_of(req, rel_path, raw_query, now)) return t;
    return quirk("invalid_key_accepted") ? std::optional<std::size_t>(0) : std::nullopt;
  }

  // OAuth2 client credentials grant (RFC 6749 §4.4): JSON or form-encoded body.
  http::response issue_token(const http::request& req, clock::time_point now) {
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
    const double lifetime = std::max(emu_number("token_lifetime_s", 3600) * opts.time_scale, 1.0);
    std::string token = "emu_token_" + new_hex();
    tokens[token] = {*t, now + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(lifetime))};
    return json_response(200, {{"access_token", token},
                               {"token_type", "Bearer"},
                               {"expires_in", lifetime},
                               {"refresh_token", "emu_refresh_" + new_hex()},
                               {"scope", "cloud-api-v1"}});
  }

  static std::vector<std::pair<std::string, std::string>> parse_query(const std::string& q) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t start = 0;
    while (start < q.size()) {
      auto amp = q.find('&', start);
      if (amp == std::string::npos) amp = q.size();
      auto pair = q.substr(start, amp - start);
      auto eq = pair.find('=');
      if (!pair.empty()) out.emplace_back(pair.substr(0, eq), eq == std::string::npos ? "" : pair.substr(eq + 1));
      start = amp + 1;
    }
    return out;
  }

  static std::string decode_basic_user(const std::string& b64) {
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

  // Requests per second a bucket refills with: the spec's, sped up with the time scale but at
  // most 20-fold, so that a burst can still be probed.
  [[nodiscard]] double refill_rate() const {
    return spec.emulator.at("rate_limit").at("per_second").get<double>() / std::max(opts.time_scale, 0.05);
  }

  // The rate-limit headers the spec declares, for a bucket with `remaining` requests left that
  // is full again in `reset_s` seconds: RateLimit and RateLimit-Policy
  // (draft-ietf-httpapi-ratelimit-headers, as RunPod sends them on every authenticated
  // response), ratelimit-limit/-remaining/-reset (an epoch second, as DigitalOcean sends them).
  // Retry-After belongs to the 429 alone.
  [[nodiscard]] header_list rate_headers(long remaining, long reset_s) const {
    const auto& rl = spec.emulator.at("rate_limit");
    const auto declared = rl.value("headers", std::vector<std::string>{});
    auto has = [&](const char* h) { return std::find(declared.begin(), declared.end(), h) != declared.end(); };
    const double burst = rl.at("burst").get<double>();
    const auto limit = std::to_string(static_cast<long>(burst));
    header_list h;
    if (has("ratelimit")) h.emplace_back("RateLimit", "\"burst\";r=" + std::to_string(remaining) + ";t=" + std::to_string(reset_s));
    if (has("ratelimit-policy"))
      h.emplace_back("RateLimit-Policy", "\"burst\";q=" + limit + ";w=" + std::to_string(static_cast<long>(std::ceil(burst / refill_rate()))));
    if (has("ratelimit-x")) {
      const auto epoch = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
      h.emplace_back("ratelimit-limit", limit);
      h.emplace_back("ratelimit-remaining", std::to_string(remaining));
      h.emplace_back("ratelimit-reset", std::to_string(epoch + reset_s));
    }
    return h;
  }

  // Token bucket per credential: nullopt when allowed (`advertised` then holds the headers that
  // tell the client where its bucket stands), else the 429 to send. With the rate limit off the
  // bucket is always full.
  std::optional<http::response> throttle(const http::request& req, clock::time_point now, header_list& advertised) {
    if (!spec.emulator.contains("rate_limit")) return std::nullopt;
    const auto& rl = spec.emulator.at("rate_limit");
    const double burst = rl.at("burst").get<double>();
    if (!opts.rate_limit) {
      advertised = rate_headers(static_cast<long>(burst), 0);
      return std::nullopt;
    }
    const double rate = refill_rate();
    const std::string who = header_of(req, "Authorization");
    auto [it, fresh] = buckets.try_emplace(who, bucket{burst, now});
    auto& b = it->second;
    b.tokens = std::min(burst, b.tokens + std::chrono::duration<double>(now - b.last).count() * rate);
    b.last = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      advertised = rate_headers(static_cast<long>(b.tokens), static_cast<long>(std::ceil((burst - b.tokens) / rate)));
      return std::nullopt;
    }
    const long wait_s = static_cast<long>(std::ceil((1 - b.tokens) / rate));
    http::response r;
    if (rl.contains("text_body") || quirk("rate_limit_text")) {
      r.status = spec.errors.kinds.contains("rate_limited") ? spec.errors.kinds.at("rate_limited").status : 429;
      r.headers.emplace_back("Content-Type", "text/plain");
      r.body = rl.value("text_body", "Too many requests");
    } else {
      r = error_response("rate_limited");
    }
    if (quirk("no_retry_after_header")) return r;
    const auto declared = rl.value("headers", std::vector<std::string>{});
    if (std::find(declared.begin(), declared.end(), "retry-after") != declared.end())
      r.headers.emplace_back("Retry-After", std::to_string(wait_s));
    for (auto& h : rate_headers(0, wait_s)) r.headers.push_back(std::move(h));
    return r;
  }

  // Binds template variables from a request body: the value at each placeholder's pointer, or
  // the whole array when the placeholder is the single element of an array.
  static template_vars vars_from_body(const nlohmann::json& tmpl, const nlohmann::json& body) {
    template_vars vars;
    for (const auto& [name, ptr] : template_pointers(tmpl)) {
      const auto parent = parent_pointer(ptr);
      if (ptr.ends_with("}}") && ptr.substr(parent.size() + 1).starts_with("{{")) {
        // A key placeholder: the key of the body's object there (when it has exactly one).
        if (const auto* obj = find_pointer(body, parent); obj != nullptr && obj->is_object() && obj->size() == 1)
          vars[name] = obj->begin().key();
        continue;
      }
      const auto* tparent = find_pointer(tmpl, parent);
      if (tparent != nullptr && tparent->is_array() && tparent->size() == 1) {
        if (const auto* v = find_pointer(body, parent)) vars[name] = *v;
      } else if (const auto* v = find_pointer(body, ptr)) {
        vars[name] = *v;
      }
    }
    return vars;
  }

  std::string new_hex(int n = 32) {
    std::string id;
    for (int i = 0; i < n; ++i) id += "0123456789abcdef"[rng() % 16];
    return id;
  }

  // An instance id in the provider's style.
  std::string new_instance_id() {
    const auto style = spec.emulator.value("id_style", "hex32");
    if (style == "integer") return std::to_string(next_integer_id++);
    if (style == "uuid") {
      auto h = new_hex(32);
      return h.substr(0, 8) + "-" + h.substr(8, 4) + "-4" + h.substr(13, 3) + "-a" + h.substr(17, 3) + "-" + h.substr(20, 12);
    }
    return new_hex(32);
  }

  // ---- operations ------------------------------------------------------------------------

  // One offer row as the emulator renders it, with the enclosing item's fields (`^` pointers).
  struct emu_row {
    std::map<std::string, nlohmann::json> parent;
    nlohmann::json object;
  };

  // The offer rows of one instance type: one with the regions that have capacity, or, where the
  // spec reads one region per row, one per region the type is sold in (available or not).
  std::vector<emu_row> offer_rows(const nlohmann::json& t, clock::time_point now) {
    const auto& regions = spec.emulator.at("regions");
    const auto name = t.at("name").get<std::string>();
    const auto& f = spec.offer_fields;
    emu_row base{{}, t.value("object", nlohmann::json::object())};
    auto write = [&](emu_row& row, const std::string& field, const nlohmann::json& value) {
      auto it = f.find(field);
      if (it == f.end()) return;
      if (it->second.pointer.starts_with('^')) row.parent[field] = value;  // the enclosing item's
      else write_field(row.object, f, field, value);
    };
    write(base, "instance_type", name);
    if (t.contains("description")) write(base, "description", t.at("description"));
    nlohmann::json price = t.at("price_per_hour_usd");
    if (auto it = f.find("price_per_hour_usd"); it != f.end() && !it->second.plus.empty()) {
      // A summed price: the terms keep the type's own unit prices (or zero); the first number
      // takes the rest, so that the sum is the type's price.
      double rest = price.get<double>() / it->second.scale;
      for (const auto& term : it->second.plus) {
        const auto* v = find_pointer(base.object, term.pointer);
        const double unit = v != nullptr && v->is_string() ? std::stod(v->get<std::string>()) : v != nullptr && v->is_number() ? v->get<double>() : 0;
        if (v == nullptr) set_pointer(base.object, term.pointer, it->second.as_string ? nlohmann::json("0") : nlohmann::json(0));
        rest -= unit * term.times;
      }
      price = rest * it->second.scale;
    }
    write(base, "price_per_hour_usd", price);
    if (quirk("offers_schema_drift"))
      if (auto it = f.find("price_per_hour_usd"); it != f.end() && !it->second.pointer.starts_with('^'))
        set_pointer(base.object, it->second.pointer, find_pointer(base.object, it->second.pointer)->dump());
    if (quirk("negative_price")) write(base, "price_per_hour_usd", -price.get<double>());
    const auto params = t.value("params", nlohmann::json::object());
    for (const auto& [param, value] : params.items()) write(base, param, value);
    // "available": a count where the provider writes one (type integer), else a boolean.
    // With `levels`, the word for the count (the first for none, the last for plenty).
    auto availability = [&](long left) {
      auto it = f.find("available");
      if (it != f.end() && !it->second.levels.empty()) {
        const auto& l = it->second.levels;
        return nlohmann::json(l[static_cast<std::size_t>(std::clamp(left, 0L, static_cast<long>(l.size()) - 1))]);
      }
      return it != f.end() && it->second.as_integer ? nlohmann::json(std::max(left, 0L)) : nlohmann::json(left > 0);
    };
    std::vector<emu_row> rows;
    if (f.contains("region")) {
      for (const auto& [r, _] : regions.items()) {
        if (!t.at("capacity").contains(r)) continue;
        auto row = base;
        // A row that is the region's own entry (RunPod's dataCenters) starts as its object.
        if (const auto& rp = f.at("region").pointer; !rp.starts_with('^') && parent_pointer(rp).empty() && regions.at(r).is_object())
          row.object.update(regions.at(r));
        write(row, "region", r);
        write(row, "available", availability(remaining(t, r, now)));
        rows.push_back(std::move(row));
      }
      return rows;
    }
    std::vector<std::string> available;
    long total = 0;
    for (const auto& [r, _] : regions.items())
      if (const long left = remaining(t, r, now); left > 0) {
        available.push_back(r);
        total += left;
      }
    write(base, "regions_available", available);
    write(base, "available", availability(total));
    rows.push_back(std::move(base));
    return rows;
  }

  http::response list_offers(const operation_spec& op, clock::time_point now, const std::string& raw_query) {
    nlohmann::json collection = op.items_are_object_values ? nlohmann::json::object() : nlohmann::json::array();
    const auto rows_field = spec.offer_fields.find("rows");
    const auto& regions = spec.emulator.at("regions");
    // With `rows`, catalogue items enclose their rows, grouped by the enclosing item's fields
    // (Paperspace's OS templates enclose machine types; TensorDock's locations enclose GPUs).
    std::vector<std::pair<std::map<std::string, nlohmann::json>, nlohmann::json>> groups;
    auto add = [&](nlohmann::json item, const std::string& name) {
      if (op.items_are_object_values) {
        if (quirk("duplicate_offers")) collection[name + "_again"] = item;  // a second key, the same type
        collection[name] = std::move(item);
      } else {
        if (quirk("duplicate_offers")) collection.push_back(item);
        collection.push_back(std::move(item));
      }
    };
    for (const auto& t : spec.emulator.at("instance_types")) {
      for (auto& row : offer_rows(t, now)) {
        if (rows_field == spec.offer_fields.end()) {
          add(std::move(row.object), t.at("name").get<std::string>());
          continue;
        }
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == row.parent; });
        if (it == groups.end()) {
          // The enclosing item: the type's parent_object, or the region's object when rows are
          // grouped by region (TensorDock's locations).
          nlohmann::json item = t.value("parent_object", nlohmann::json::object());
          if (auto r = row.parent.find("region"); r != row.parent.end() && r->second.is_string() &&
                                                  regions.contains(r->second.get<std::string>()))
            item.update(regions.at(r->second.get<std::string>()));
          for (const auto& [field, value] : row.parent)
            set_pointer(item, spec.offer_fields.at(field).pointer.substr(1), value);
          set_pointer(item, rows_field->second.pointer, nlohmann::json::array());
          groups.emplace_back(row.parent, std::move(item));
          it = std::prev(groups.end());
        }
        auto& arr = it->second[nlohmann::json::json_pointer(rows_field->second.pointer)];
        if (quirk("duplicate_offers")) arr.push_back(row.object);
        arr.push_back(std::move(row.object));
      }
    }
    for (auto& [key, item] : groups) {
      (void)key;
      if (op.items_are_object_values) collection[std::to_string(collection.size())] = std::move(item);
      else collection.push_back(std::move(item));
    }
    if (!op.items_are_object_values) return page_of(op, std::move(collection), raw_query);
    nlohmann::json body = response_template(op);
    set_pointer(body, op.items.value_or(""), std::move(collection));
    return json_response(op.success_status.front(), body);
  }

  // Whether the request schema requires the member at `pointer` (every object on the way lists
  // it as required); without a schema, every member the body template sends counts as required.
  static bool required_by_schema(const operation_spec& op, const std::string& pointer) {
    if (!op.request_schema) return true;
    const nlohmann::json* schema = &*op.request_schema;
    std::string rest = pointer;
    while (!rest.empty() && schema != nullptr) {
      const auto next = rest.find('/', 1);
      const auto token = rest.substr(1, next == std::string::npos ? std::string::npos : next - 1);
      rest = next == std::string::npos ? std::string() : rest.substr(next);
      if (schema->contains("type") && schema->at("type") == "array") {
        schema = schema->contains("items") ? &schema->at("items") : nullptr;
        continue;
      }
      const auto* required = schema->contains("required") ? &schema->at("required") : nullptr;
      if (required == nullptr || !required->is_array() ||
          std::find(required->begin(), required->end(), nlohmann::json(token)) == required->end())
        return false;
      const auto* props = schema->contains("properties") ? &schema->at("properties") : nullptr;
      schema = props != nullptr && props->contains(token) ? &props->at(token) : nullptr;
    }
    return true;
  }

  http::response launch(const operation_spec& op, account& acct, const template_vars& vars, clock::time_point now) {
    auto var = [&](const char* n) { return vars.contains(n) ? first_string(vars.at(n)) : std::string(); };
    auto type_name = var("instance_type");
    auto region = var("region");
    const auto key_name = var("ssh_key_name");
    const auto name = var("name");
    if (quirk("phantom_capacity")) return error_response("insufficient_capacity");
    if (quirk("missing_field_accepted") && type_name.empty()) type_name = spec.emulator.at("instance_types").front().at("name");
    if ((quirk("missing_field_accepted") || quirk("unknown_region_accepted")) && !spec.emulator.at("regions").contains(region))
      region.clear();
    const auto* type = find_type(type_name);
    if (type == nullptr && !quirk("unknown_type_accepted"))
      return error_response("invalid_parameters", "Invalid instance type: " + type_name);
    // Providers whose launch names no region (Vast.ai buys a machine, not a region) get the
    // first region that has capacity (any region for a type only unknown_type_accepted takes).
    const bool any_region = quirk("missing_field_accepted") || quirk("unknown_region_accepted");
    if (region.empty() && (any_region || !(op.body && template_pointers(*op.body).contains("region")) ||
                           !required_by_schema(op, template_pointers(*op.body).at("region")))) {
      for (const auto& [r, _] : spec.emulator.at("regions").items())
        if (type == nullptr || remaining(*type, r, now) > 0) {
          region = r;
          break;
        }
      if (region.empty()) return error_response("insufficient_capacity");
    }
    if (!spec.emulator.at("regions").contains(region))
      return error_response("invalid_parameters", "Invalid region: " + region);
    if (!key_name.empty() && spec.operation(operation_id::ssh_keys_add) != nullptr &&
        std::none_of(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.name == key_name; }))
      return error_response("invalid_parameters", "Unknown SSH key: " + key_name);
    // A type sold with launch parameters of its own (a template, a data centre) is launched with
    // them: another template for this machine type is refused, as the real API refuses it.
    if (type != nullptr && op.body) {
      const auto sent = template_pointers(*op.body);
      const auto params = type->value("params", nlohmann::json::object());
      for (const auto& [param, value] : params.items())
        if (sent.contains(param) && var(param.c_str()) != first_string(value))
          return error_response("invalid_parameters", "Invalid " + param + " for " + type_name + ": " + var(param.c_str()));
    }
    if (type != nullptr && remaining(*type, region, now) <= 0) return error_response("insufficient_capacity");

    emu_instance inst;
    if (spec.emulator.value("id_style", "hex32") == "client") {
      inst.id = var("client_id");
      if (inst.id.empty()) return error_response("invalid_parameters", "An instance id is required.");
      for (const auto& a : accounts)
        for (const auto& other : a.instances)
          if (other.id == inst.id) return error_response(spec.errors.kinds.contains("conflict") ? "conflict" : "invalid_parameters",
                                                         "An instance with id " + inst.id + " already exists.");
    } else {
      inst.id = new_instance_id();
    }
    inst.name = name;
    inst.type = type_name;
    inst.region = region;
    if (!key_name.empty()) inst.ssh_keys.push_back(key_name);
    if (vars.contains("published_ports"))
      for (const auto& p : vars.at("published_ports")) inst.ports.push_back(p.get<std::string>());
    inst.ip = opts.instance_address.empty() ? "198.51.100." + std::to_string(next_ip++ % 250 + 1)  // RFC 5737
                                                 : opts.instance_address;
    inst.boot_done = now + scaled(emu_number("boot_s", 0));
    acct.instances.push_back(inst);
    ++created;

    if (op.text_response) {
      http::response r{op.success_status.front(), {{"Content-Type", "text/plain"}}, quirk("launch_without_id") ? "" : inst.id};
      return r;
    }
    nlohmann::json body = response_template(op);
    if (auto it = op.fields.find("instance_id"); it != op.fields.end()) {
      if (quirk("launch_without_id")) set_pointer(body, parent_pointer(it->second.pointer), nlohmann::json::array());
      else if (quirk("launch_schema_drift")) set_pointer(body, it->second.pointer, nlohmann::json{{"id", inst.id}});
      else write_field(body, op.fields, "instance_id", inst.id);
    }
    if (op.item) {
      auto obj = render_instance(inst, phase_of(inst, now));
      if (quirk("launch_without_id")) obj.erase("id");
      if (quirk("launch_schema_drift")) obj = nlohmann::json::array({obj});
      set_pointer(body, *op.item, std::move(obj));
    }
    if (op.action) start_action(body, op, acct, inst.boot_done);
    return json_response(op.success_status.front(), body);
  }

  // Static parts of a response the spec's emulator section declares (e.g. DigitalOcean's action
  // links), which the rendered fields are written into.
  [[nodiscard]] nlohmann::json response_template(const operation_spec& op) const {
    const auto& templates = spec.emulator.value("response_templates", nlohmann::json::object());
    const auto name = nlohmann::json(op.id).get<std::string>();
    return templates.contains(name) ? templates.at(name) : nlohmann::json::object();
  }

  // Writes one page of `items` into a list response as the operation's pagination declares.
  http::response page_of(const operation_spec& op, nlohmann::json items, const std::string& raw_query) {
    nlohmann::json body = response_template(op);
    if (op.pagination) {
      const auto& pg = *op.pagination;
      std::map<std::string, std::string> q;
      for (auto& [k, v] : parse_query(raw_query)) q[k] = v;
      auto number = [&](const std::string& name, long fallback) -> std::optional<long> {
        if (name.empty() || !q.contains(name)) return fallback;
        try {
          std::size_t used = 0;
          long v = std::stol(q.at(name), &used);
          if (used != q.at(name).size() || v < 0) return std::nullopt;
          return v;
        } catch (const std::exception&) {
          return std::nullopt;
        }
      };
      auto size = quirk("page_size_ignored") ? std::optional<long>(1000) : number(pg.size_param, pg.size);
      if (!size || *size < 1 || *size > 1000) return error_response("invalid_parameters", "Invalid page size.");
      long start = 0;
      if (pg.style == "page") {
        auto page = number(pg.page_param, pg.first_page);
        if (!page || *page < pg.first_page) return error_response("invalid_parameters", "Invalid page.");
        start = (*page - pg.first_page) * *size;
      } else if (pg.style == "offset") {
        auto offset = number(pg.offset_param, 0);
        if (!offset) return error_response("invalid_parameters", "Invalid offset.");
        start = *offset;
      } else if (q.contains(pg.token_param)) {
        const auto& token = q.at(pg.token_param);
        if (!token.starts_with("cursor-")) return error_response("invalid_parameters", "Invalid page token.");
        try {
          start = std::stol(token.substr(7));
        } catch (const std::exception&) {
          return error_response("invalid_parameters", "Invalid page token.");
        }
      }
      if (quirk("page_repeats")) start = 0;  // every page is the first page again
      const long total = static_cast<long>(items.size());
      nlohmann::json slice = nlohmann::json::array();
      for (long i = start; i < std::min(total, start + *size); ++i) slice.push_back(items[static_cast<std::size_t>(i)]);
      const bool more = start + *size < total;
      if (!pg.more_pointer.empty()) set_pointer(body, pg.more_pointer, more);
      if (!pg.total_pointer.empty()) set_pointer(body, pg.total_pointer, total);
      if (!pg.previous_pointer.empty()) set_pointer(body, pg.previous_pointer, start > 0);
      if (pg.style == "token") set_pointer(body, pg.next_pointer, more ? nlohmann::json("cursor-" + std::to_string(start + *size)) : pg.end_token);
      items = std::move(slice);
    }
    set_pointer(body, op.items.value_or(""), std::move(items));
    return json_response(op.success_status.front(), body);
  }

  emu_instance* find_instance(account& acct, const std::string& id, clock::time_point now, bool cross_tenant = false) {
    for (auto& i : acct.instances)
      if (i.id == id && phase_of(i, now) != phase::gone) return &i;
    if (cross_tenant)
      for (auto& other : accounts)
        for (auto& i : other.instances)
          if (i.id == id && phase_of(i, now) != phase::gone) return &i;
    return nullptr;
  }

  // Whether another account has this instance (for the existence-leak quirk).
  bool exists_elsewhere(const std::string& id, clock::time_point now) {
    for (auto& a : accounts)
      for (auto& i : a.instances)
        if (i.id == id && phase_of(i, now) != phase::gone) return true;
    return false;
  }

  // A refusal of an id the provider could never have issued (`emulator.malformed_id`: Vast.ai
  // answers a non-integer instance id with 400 invalid_args), if the spec declares one.
  std::optional<http::response> malformed(const std::string& id) const {
    const auto it = spec.emulator.find("malformed_id");
    if (it == spec.emulator.end() || spec.emulator.value("id_style", "hex32") != "integer") return std::nullopt;
    if (!id.empty() && std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
      return std::nullopt;
    return error_response(it->value("kind", "invalid_parameters"), it->value("message", ""));
  }

  http::response get(const operation_spec& op, account& acct, const std::string& id, clock::time_point now) {
    if (auto refusal = malformed(id)) return *refusal;
    auto* inst = find_instance(acct, id, now, quirk("cross_tenant_read"));
    if (inst == nullptr && quirk("existence_leak_403") && exists_elsewhere(id, now)) return error_response("forbidden");
    if (inst == nullptr || quirk("get_not_found")) {
      if (inst == nullptr && quirk("unknown_id_200")) {
        nlohmann::json body = nlohmann::json::object();
        set_pointer(body, op.item.value_or(""), nlohmann::json::object());
        return json_response(200, body);
      }
      // Providers that read an absent instance as 200 with a null object (Vast.ai).
      if (spec.emulator.value("absent_as_null", false)) {
        nlohmann::json body = response_template(op);
        set_pointer(body, op.item.value_or(""), nullptr);
        return json_response(op.success_status.front(), body);
      }
      return error_response("not_found");
    }
    nlohmann::json body = response_template(op);
    set_pointer(body, op.item.value_or(""), render_instance(*inst, phase_of(*inst, now)));
    return json_response(op.success_status.front(), body);
  }

  http::response list(const operation_spec& op, account& acct, clock::time_point now, const std::string& raw_query) {
    nlohmann::json items = nlohmann::json::array();
    std::vector<const emu_instance*> visible;
    for (const auto& a : accounts)
      if (&a == &acct || quirk("cross_tenant_list"))
        for (const auto& i : a.instances) visible.push_back(&i);
    if (!quirk("list_omits_instances")) {
      for (const auto* ip : visible) {
        const auto& i = *ip;
        auto p = phase_of(i, now);
        if (p == phase::gone || p == phase::terminated) {
          if (!quirk("ghost_after_terminate")) continue;
          p = phase::running;  // the ghost: still listed, still "running", still billed
        }
        if (p == phase::terminating && quirk("ghost_after_terminate")) p = phase::running;
        auto obj = render_instance(i, p, operation_id::list);
        if (quirk("list_get_disagree"))
          if (auto it = spec.instance_fields.find("instance_type"); it != spec.instance_fields.end())
            set_pointer(obj, it->second.pointer, other_type(i.type));
        items.push_back(std::move(obj));
      }
    }
    return page_of(op, std::move(items), raw_query);
  }

  // terminate and restart share the shape: ids from the body or the path, all must exist.
  http::response act(const operation_spec& op, account& acct, const std::vector<std::string>& ids, bool terminate,
                     clock::time_point now) {
    if (ids.empty()) return error_response("invalid_parameters", "No instance ids given.");
    std::vector<emu_instance*> targets;
    for (const auto& id : ids) {
      if (auto refusal = malformed(id)) return *refusal;
      auto* inst = find_instance(acct, id, now, quirk("cross_tenant_actions"));
      if (inst == nullptr && quirk(terminate ? "terminate_unknown_500" : "restart_unknown_500")) return error_response("internal");
      if (inst == nullptr && quirk("existence_leak_403") && exists_elsewhere(id, now)) return error_response("forbidden");
      if (inst == nullptr) return error_response("not_found");
      if (terminate && inst->terminated_at && quirk("double_terminate_500")) return error_response("internal");
      if (!terminate && phase_of(*inst, now) != phase::running)
        return error_response(spec.errors.kinds.contains("invalid_state") ? "invalid_state" : "invalid_parameters",
                              "Instance " + id + " is not running.");
      targets.push_back(inst);
    }
    if (terminate && quirk("terminate_500")) return error_response("internal");
    nlohmann::json items = nlohmann::json::array();
    if (terminate && quirk("terminate_first_only") && targets.size() > 1) targets.erase(targets.begin() + 1, targets.end());
    for (auto* inst : targets) {
      if (terminate) {
        if (!inst->terminated_at) inst->terminated_at = now;
      } else {
        inst->restart_until = now + (quirk("restart_stuck") ? std::chrono::hours(24 * 365) : scaled(emu_number("boot_s", 0)));
      }
      items.push_back(render_instance(*inst, phase_of(*inst, now)));
    }
    if (op.success_status.front() == 204) return http::response{204, {}, {}};
    nlohmann::json body = response_template(op);
    if (quirk("terminate_schema_drift")) return json_response(op.success_status.front(), nlohmann::json::object());
    if (op.item && !items.empty()) set_pointer(body, *op.item, items.front());
    if (op.items) set_pointer(body, *op.items, std::move(items));
    if (op.action) {
      // One action for the request; it completes when the last target is back (or gone).
      auto done = now;
      for (const auto* inst : targets)
        done = std::max(done, inst->restart_until.value_or(inst->terminated_at ? *inst->terminated_at + scaled(emu_number("terminate_s", 0)) : now));
      start_action(body, op, acct, done);
    }
    return json_response(op.success_status.front(), body);
  }

  // Answers `op` with a new action of `acct`, complete at `done` (never, under the quirk).
  void start_action(nlohmann::json& body, const operation_spec& op, const account& acct, clock::time_point done) {
    if (quirk("action_never_completes")) done = clock::time_point::max();
    const auto id = std::to_string(next_action_id++);
    write_action(body, *op.action, id, op.action->in_progress.front());
    actions[id] = {static_cast<std::size_t>(&acct - accounts.data()), done, body};
  }

  void write_action(nlohmann::json& body, const action_spec& a, const std::string& id, const std::string& status) const {
    set_pointer(body, a.id_pointer, a.id_is_integer ? nlohmann::json(std::stoll(id)) : nlohmann::json(id));
    set_pointer(body, a.status_pointer, status);
  }

  // A documented endpoint that clients call and checks do not (emulator.routes): its static
  // answer. `anonymous`: only the routes the real API serves without credentials. A declared
  // operation always comes first.
  std::optional<http::response> static_route(const std::string& method, const std::string& rel, bool anonymous) const {
    const std::string m = method == "HEAD" ? "GET" : method;
    for (const auto& route : spec.emulator.value("routes", nlohmann::json::array())) {
      if (route.value("anonymous", false) != anonymous || route.at("method").get<std::string>() != m) continue;
      std::map<std::string, std::string> params;
      if (!matches(route.at("path").get<std::string>(), rel, params)) continue;
      const int status = route.value("status", 200);
      if (!route.contains("body")) return http::response{status, {}, {}};
      if (route.at("body").is_string())  // a plain-text answer
        return http::response{status, {{"Content-Type", "text/plain"}}, route.at("body").get<std::string>()};
      return json_response(status, route.at("body"));
    }
    return std::nullopt;
  }

  // The capacity published apart from the catalogue (spec offer_availability): per region, the
  // types that have some left there now.
  http::response availability(clock::time_point now) const {
    const auto& a = *spec.offer_availability;
    nlohmann::json items = nlohmann::json::array();
    for (const auto& [region, _] : spec.emulator.at("regions").items()) {
      nlohmann::json types = nlohmann::json::array();
      for (const auto& t : spec.emulator.at("instance_types"))
        if (remaining(t, region, now) > 0) types.push_back(t.at("name"));
      nlohmann::json item = nlohmann::json::object();
      set_pointer(item, a.region, region);
      set_pointer(item, a.types, std::move(types));
      items.push_back(std::move(item));
    }
    nlohmann::json body = nlohmann::json::object();
    if (a.items.empty()) body = std::move(items);
    else set_pointer(body, a.items, std::move(items));
    return json_response(200, body);
  }

  // GET of an action: in progress until its completion time, then done; another account's or an
  // unknown id is not found.
  http::response read_action(const operation_spec& op, std::size_t account_index, const std::string& id, clock::time_point now) {
    auto it = actions.find(id);
    if (it == actions.end() || it->second.account != account_index) return error_response("not_found");
    nlohmann::json body = it->second.answer;
    const auto& a = *op.action;
    write_action(body, a, id, now >= it->second.done ? a.done.front() : a.in_progress.front());
    if (!a.read_item.empty()) {  // the read answers the action object alone
      const auto* item = find_pointer(body, a.read_item);
      body = item != nullptr ? *item : nlohmann::json::object();
    }
    return json_response(200, body);
  }

  http::response list_keys(const operation_spec& op, account& acct, const std::string& raw_query) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& a : accounts)
      if (&a == &acct || quirk("cross_tenant_keys"))
        for (const auto& k : a.keys)
          if (!quirk("key_not_listed")) items.push_back(render_key(k));
    return page_of(op, std::move(items), raw_query);
  }

  http::response add_key(const operation_spec& op, account& acct, const template_vars& vars) {
    const auto name = vars.contains("name") ? first_string(vars.at("name")) : std::string();
    if (name.empty() && !quirk("empty_key_name_accepted")) return error_response("invalid_parameters", "A key name is required.");
    if (std::any_of(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.name == name; }))
      return error_response("invalid_parameters", "An SSH key named " + name + " already exists.");
    const auto style = spec.emulator.value("id_style", "hex32");
    emu_key k{style == "integer" || style == "uuid" ? new_instance_id() : new_hex(), name,
              vars.contains("public_key") ? first_string(vars.at("public_key")) : std::string()};
    bool generated = false;
    if (k.public_key.empty()) {
      // The provider generates a pair when no public key is given and returns the private half once.
      k.public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmulatedKeyEmulatedKeyEmulatedKeyEmulated " + name;
      generated = true;
    }
    acct.keys.push_back(k);
    auto obj = render_key(k);
    if (generated)
      write_field(obj, spec.ssh_key_fields, "private_key",
                  "-----BEGIN OPENSSH PRIVATE KEY-----\nemulated\n-----END OPENSSH PRIVATE KEY-----\n");
    if (op.text_response)  // the new key's id alone (Verda)
      return http::response{op.success_status.front(), {{"Content-Type", "text/plain"}}, k.id};
    nlohmann::json body = response_template(op);
    set_pointer(body, op.item.value_or(""), std::move(obj));
    return json_response(op.success_status.front(), body);
  }

  http::response delete_key(const operation_spec& op, account& acct, const std::string& id) {
    auto it = std::find_if(acct.keys.begin(), acct.keys.end(), [&](const auto& k) { return k.id == id; });
    if (it == acct.keys.end() && quirk("key_delete_unknown_200")) return json_response(200, nlohmann::json::object());
    if (it == acct.keys.end()) return error_response("not_found");
    if (!quirk("key_delete_ignored")) acct.keys.erase(it);
    if (op.success_status.front() == 204) return http::response{204, {}, {}};
    return json_response(op.success_status.front(), nlohmann::json::object());
  }

  // Among operations sharing a method and path, the one the body selects: a GraphQL operation by
  // its name in the query, otherwise by the literal values of its body template (RunPod's
  // {"action": "terminate"} versus {"action": "restart"}).
  static bool body_selects(const operation_spec& op, const std::optional<nlohmann::json>& body) {
    if (op.graphql_operation) {
      const auto* q = body ? find_pointer(*body, "/query") : nullptr;
      if (q == nullptr || !q->is_string()) return false;
      const auto& text = q->get_ref<const std::string&>();
      const auto& name = *op.graphql_operation;
      for (auto pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
        const auto end = pos + name.size();
        const bool word_start = pos == 0 || !(std::isalnum(static_cast<unsigned char>(text[pos - 1])) || text[pos - 1] == '_');
        const bool word_end = end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
        if (word_start && word_end) return true;
      }
      return false;
    }
    if (!op.body) return true;
    const auto flat = op.body->flatten();
    for (const auto& [ptr, value] : flat.items()) {
      if (value.is_string() && value.get_ref<const std::string&>().starts_with("{{")) continue;
      if (!value.is_string() && !value.is_boolean()) continue;  // numbers may be defaults, not selectors
      const auto* got = body ? find_pointer(*body, ptr) : nullptr;
      if (got == nullptr || *got != value) return false;
    }
    return true;
  }

  // `advertised`: the rate-limit headers every authenticated answer carries.
  http::response dispatch(const http::request& req, header_list& advertised) {
    const auto now = opts.now();
    const auto qpos = req.url.find('?');
    const std::string path = req.url.substr(0, qpos);
    const std::string raw_query = qpos == std::string::npos ? std::string() : req.url.substr(qpos + 1);
    if (auto limited = throttle(req, now, advertised)) return *limited;
    if (!path.starts_with(base_path)) return unknown_path();
    std::string rel = path.substr(base_path.size());
    if (rel.empty()) rel = "/";

    for (const auto& m : spec.auth.schemes)
      if (m.type == auth_scheme::oauth2_client_credentials && rel == m.token_path && req.method == "POST")
        return issue_token(req, now);

    if (auto r = static_route(req.method, rel, true)) return *r;
    if (auto r = static_graphql(req, rel)) return *r;
    auto tenant_index = authenticate(req, rel, raw_query, now);
    // A public catalogue is served to a request without credentials (it reads no account's data).
    if (!tenant_index && !credentials_presented(req, raw_query) && anonymous_operation(req, rel)) tenant_index = 0;
    if (!tenant_index) {
      // A credential header that is not even well-formed ("Bearer" with no token).
      const auto auth = header_of(req, "Authorization");
      if (quirk("malformed_auth_500") && !auth.empty() && auth.find(' ') == std::string::npos) return error_response("internal");
      auto r = error_response("unauthorized");
      if (!quirk("no_www_authenticate")) r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"api\"");
      return r;
    }
    auto& acct = accounts.at(*tenant_index);
    if (std::map<std::string, std::string> p; spec.offer_availability && (req.method == "GET" || req.method == "HEAD") &&
                                              matches(spec.offer_availability->path, rel, p))
      return availability(now);
    if (req.method == "GET" || req.method == "HEAD")
      for (const auto& [id, o] : spec.operations) {
        std::map<std::string, std::string> p;
        if (o.action && matches(o.action->path, rel, p) && p.contains("action_id"))
          return read_action(o, *tenant_index, p.at("action_id"), now);
      }
    // HEAD is GET without the body (RFC 9110 §9.3.2); OPTIONS lists the methods of a path.
    const bool head = req.method == "HEAD";
    if (head && quirk("head_500")) return error_response("internal");
    if (req.method == "OPTIONS" && quirk("options_500")) return error_response("internal");
    const std::string method = head ? "GET" : req.method;

    // Candidate operations by path (a template's own query part is not matched), then method.
    std::vector<std::pair<const operation_spec*, std::map<std::string, std::string>>> candidates;
    std::set<std::string> allowed;
    for (const auto& [id, candidate] : spec.operations) {
      std::map<std::string, std::string> p;
      if (!matches(candidate.path.substr(0, candidate.path.find('?')), rel, p)) continue;
      allowed.insert(candidate.method);
      if (candidate.method == method) candidates.emplace_back(&candidate, std::move(p));
    }
    // A path or method no operation serves may be a documented endpoint served statically.
    if (candidates.empty() && req.method != "OPTIONS")
      if (auto r = static_route(req.method, rel, false)) return *r;
    if (candidates.empty() && allowed.empty()) return unknown_path();
    if (req.method == "OPTIONS") {
      std::string allow = "OPTIONS";
      for (const auto& m : allowed) allow += ", " + m;
      if (allowed.contains("GET")) allow += ", HEAD";
      return http::response{204, {{"Allow", allow}}, {}};
    }
    if (candidates.empty()) {
      auto r = error_response("method_not_allowed");
      if (!quirk("no_allow_header")) {
        std::string allow;
        for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
        r.headers.emplace_back("Allow", allow);
      }
      return r;
    }

    const bool wants_body = std::any_of(candidates.begin(), candidates.end(), [](const auto& c) {
      return c.first->body || c.first->request_schema;
    });
    std::optional<nlohmann::json> body;
    if (wants_body) {
      if (req.body.empty() && quirk("empty_body_500")) return error_response("internal");
      body = parse_json(req.body, 64);
      if (!body) {
        if (quirk("malformed_json_500")) return error_response("internal");
        return error_response("invalid_parameters", "The request body is not valid JSON.");
      }
      if (!body->is_object() && quirk("non_object_body_500")) return error_response("internal");
    }
    const operation_spec* op = nullptr;
    std::map<std::string, std::string> params;
    for (auto& [candidate, p] : candidates)
      if (candidates.size() == 1 || body_selects(*candidate, body)) {
        op = candidate;
        params = std::move(p);
        break;
      }
    if (op == nullptr) return error_response("invalid_parameters", "The request does not name a known operation.");
    // GraphQL: the client's own query gives the arguments (inline or as variables) and the
    // fields it gets back (runpod-python and dstack write arguments inline).
    std::optional<graphql::operation> graphql_op;
    std::optional<graphql::field> graphql_root;
    if (op->graphql_operation && body && body->is_object()) {
      graphql_op = client_operation(*body);
      if (graphql_op) graphql_root = root_field(*op, *graphql_op);
      if (!graphql_root) return error_response("invalid_parameters", "The query does not parse or names no " + *op->graphql_operation + ".");
      (*body)["variables"] = variables_for(*op, *graphql_root, body->value("variables", nlohmann::json::object()));
    }

    template_vars vars;
    for (const auto& [k, v] : params) vars[k] = v;
    if (body && op->id == operation_id::launch && op->body) {
      // Quirks of the name handling fire before validation, as a broken backend's would.
      auto named = vars_from_body(*op->body, *body);
      const auto name = named.contains("name") ? first_string(named.at("name")) : std::string();
      if (quirk("long_name_500") && name.size() > 64) return error_response("internal");
      if (quirk("unicode_500") && std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
        return error_response("internal");
    }
    if (body) {
      const bool lenient = (op->id == operation_id::launch &&
                            (quirk("unknown_type_accepted") || quirk("missing_field_accepted"))) ||
                           (op->id == operation_id::ssh_keys_add && quirk("empty_key_name_accepted"));
      if (auto it = request_schemas.find(op->id); it != request_schemas.end() && !lenient) {
        auto violations = it->second.validate(*body);
        if (!violations.empty()) {
          if (quirk("validation_500")) return error_response("internal");
          return error_response("invalid_parameters",
                                (violations.front().pointer.empty() ? "body" : violations.front().pointer) + ": " +
                                    violations.front().message);
        }
      }
      if (op->body)
        for (auto& [k, v] : vars_from_body(*op->body, *body)) vars.emplace(k, v);
      if (op->id == operation_id::launch) vars["published_ports"] = requested_ports(*body);
    }

    auto r = serve(*op, acct, vars, now, raw_query);
    if (graphql_root)
      r = selected(filtered(std::move(r), *op, *graphql_root, body->value("variables", nlohmann::json::object())), *graphql_root,
                   *graphql_op);
    return r;
  }

  // A GraphQL list answer cut down to the items the client's arguments ask for, as the spec's
  // graphql.filters declare them (gpuTypes(input: {id}) answers that type alone).
  http::response filtered(http::response r, const operation_spec& op, const graphql::field& root, const nlohmann::json& variables) const {
    const auto* filters = find_pointer(spec.raw, "/operations/" + nlohmann::json(op.id).get<std::string>() + "/graphql/filters");
    if (filters == nullptr || !filters->is_object() || r.status != 200) return r;
    auto doc = nlohmann::json::parse(r.body, nullptr, false);
    auto* list = doc.is_object() && doc.contains("data") && doc["data"].is_object() && doc["data"].contains(root.name)
                     ? &doc["data"][root.name] : nullptr;
    if (list == nullptr || !list->is_array()) return r;
    const auto arguments = graphql::resolve(root.arguments, variables);
    for (const auto& [path, pointer] : filters->items()) {
      const nlohmann::json* want = &arguments;
      for (std::size_t start = 0; want != nullptr && start <= path.size();) {
        const auto dot = std::min(path.find('.', start), path.size());
        const auto key = path.substr(start, dot - start);
        want = want->is_object() && want->contains(key) ? &want->at(key) : nullptr;
        start = dot + 1;
      }
      if (want == nullptr || want->is_null()) continue;
      nlohmann::json kept = nlohmann::json::array();
      for (auto& item : *list)
        if (const auto* v = find_pointer(item, pointer.get<std::string>()); v != nullptr && *v == *want) kept.push_back(std::move(item));
      *list = std::move(kept);
    }
    r.body = doc.dump();
    return r;
  }

  // The GraphQL operation a client's request runs (by operationName, else its only one).
  static std::optional<graphql::operation> client_operation(const nlohmann::json& body) {
    const auto* q = find_pointer(body, "/query");
    if (q == nullptr || !q->is_string()) return std::nullopt;
    auto parsed = graphql::parse(q->get_ref<const std::string&>());
    if (!parsed.doc) return std::nullopt;
    const auto* name = find_pointer(body, "/operationName");
    const auto* operation = parsed.doc->find(name != nullptr && name->is_string() ? name->get<std::string>() : std::string());
    if (operation == nullptr) return std::nullopt;
    return *operation;
  }

  // The root field of the client's operation that asks for the spec's operation, by its name.
  static std::optional<graphql::field> root_field(const operation_spec& op, const graphql::operation& operation) {
    for (const auto& f : operation.selections)
      if (f.name == *op.graphql_operation) return f;
    return std::nullopt;
  }

  // The root fields of `operation` that emulator.graphql_roots serves from static catalogue data
  // (RunPod's countryCodes, dataCenters and cpuFlavors), written into `data` as selected.
  void add_static_roots(nlohmann::json& data, const graphql::operation& operation) const {
    const auto* roots = find_pointer(spec.emulator, "/graphql_roots");
    if (roots == nullptr) return;
    for (const auto& f : operation.selections)
      if (roots->contains(f.name)) data[f.response_key()] = graphql::select(roots->at(f.name), f.selections);
  }

  // A GraphQL request for static catalogue roots alone (gpuhunt's `query CpuDataCenters {
  // dataCenters { id listed } }`): answered as a public catalogue is, with or without a key.
  [[nodiscard]] std::optional<http::response> static_graphql(const http::request& req, const std::string& rel) const {
    const auto* roots = find_pointer(spec.emulator, "/graphql_roots");
    if (roots == nullptr || req.method != "POST") return std::nullopt;
    const bool graphql_path = std::any_of(spec.operations.begin(), spec.operations.end(), [&](const auto& entry) {
      std::map<std::string, std::string> p;
      return entry.second.graphql_operation && entry.second.method == "POST" && matches(entry.second.path, rel, p);
    });
    if (!graphql_path) return std::nullopt;
    const auto body = parse_json(req.body, 64);
    const auto operation = body && body->is_object() ? client_operation(*body) : std::nullopt;
    if (!operation || operation->type != "query" || operation->selections.empty()) return std::nullopt;
    for (const auto& f : operation->selections)
      if (!roots->contains(f.name)) return std::nullopt;
    nlohmann::json data = nlohmann::json::object();
    add_static_roots(data, *operation);
    return json_response(200, nlohmann::json{{"data", std::move(data)}});
  }

  // The variable the spec's own query passes as each argument of the operation's root field.
  static std::map<std::string, std::string> argument_variables(const operation_spec& op) {
    std::map<std::string, std::string> out;
    const auto* q = op.body ? find_pointer(*op.body, "/query") : nullptr;
    auto own = q != nullptr && q->is_string() ? graphql::parse(q->get_ref<const std::string&>()) : graphql::parse_result{};
    if (!own.doc) return out;
    for (const auto& operation : own.doc->operations)
      for (const auto& f : operation.selections)
        if (f.name == *op.graphql_operation)
          for (const auto& [arg, value] : f.arguments.items())
            if (value.is_object() && value.contains("$variable")) out[arg] = value.at("$variable").get<std::string>();
    return out;
  }

  // The request's variables, with the arguments the client wrote inline put where the spec's own
  // query takes them from variables (`pod(input: $input)`: the client's inline input becomes
  // variables.input).
  nlohmann::json variables_for(const operation_spec& op, const graphql::field& client, nlohmann::json variables) const {
    if (!variables.is_object()) variables = nlohmann::json::object();
    const auto resolved = graphql::resolve(client.arguments, variables);
    for (const auto& [arg, variable] : graphql_argument_variables.at(op.id))
      if (resolved.contains(arg)) variables[variable] = resolved.at(arg);
    return variables;
  }

  // A GraphQL answer cut down to the fields the client selected for the operation's root, under
  // its aliases, with the static roots it asked for beside it (read and written once).
  http::response selected(http::response r, const graphql::field& root, const graphql::operation& operation) const {
    if (r.status != 200) return r;
    auto doc = nlohmann::json::parse(r.body, nullptr, false);
    if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_object()) return r;
    auto& data = doc["data"];
    if (!root.selections.empty() && data.contains(root.name)) {
      auto value = graphql::select(data[root.name], root.selections);
      data.erase(root.name);
      data[root.response_key()] = std::move(value);
    }
    add_static_roots(data, operation);
    r.body = doc.dump();
    return r;
  }

  http::response serve(const operation_spec& operation, account& acct, template_vars& vars, clock::time_point now,
                       const std::string& raw_query) {
    const auto* op = &operation;
    switch (op->id) {
      case operation_id::list_offers: return list_offers(*op, now, raw_query);
      case operation_id::launch: return launch(*op, acct, vars, now);
      case operation_id::get: return get(*op, acct, first_string(vars["id"]), now);
      case operation_id::list: return list(*op, acct, now, raw_query);
      case operation_id::terminate: return act(*op, acct, all_strings(vars["id"]), true, now);
      case operation_id::restart: return act(*op, acct, all_strings(vars["id"]), false, now);
      case operation_id::ssh_keys_list: return list_keys(*op, acct, raw_query);
      case operation_id::ssh_keys_add: return add_key(*op, acct, vars);
      case operation_id::ssh_keys_delete: return delete_key(*op, acct, first_string(vars["id"]));
      case operation_id::unknown: break;
    }
    return error_response("internal");
  }

  http::response unknown_path() const {
    if (quirk("unknown_path_200")) return json_response(200, nlohmann::json::object());
    return error_response("not_found", "Not found.");
  }
};


std::vector<std::string> make_api_keys(const provider_spec& spec, std::size_t n, const std::string& prefix) {
  std::random_device rd;
  auto hex = [&](int len) {
    std::string h;
    for (int i = 0; i < len; ++i) h += "0123456789abcdef"[rd() % 16];
    return h;
  };
  const auto type = spec.auth.schemes.empty() ? auth_scheme::bearer : spec.auth.schemes.front().type;
  std::vector<std::string> keys;
  for (std::size_t i = 1; i <= n; ++i) {
    const auto id = prefix + "_" + std::to_string(i) + "_" + hex(12);
    if (type == auth_scheme::hmac_sha256) keys.push_back(id + ":" + base64url_encode(hex(32)));
    else if (type == auth_scheme::oauth2_client_credentials) keys.push_back(id + ":" + prefix + "_secret_" + hex(24));
    else keys.push_back(id);
  }
  return keys;
}

provider_model::provider_model(const provider_spec& spec, model_options options)
    : impl_(std::make_unique<impl>(spec, std::move(options))) {}

provider_model::~provider_model() = default;

http::response provider_model::handle(const http::request& req) {
  std::lock_guard lock(impl_->mu);
  // Every fourth read is slow: enough to push p95 over the expectation.
  if (impl_->quirk("slow_responses") && (req.method == "GET" || req.method == "HEAD") && ++impl_->slow_counter % 4 == 0)
    std::this_thread::sleep_for(latency_threshold(impl_->spec, impl_->opts.time_scale) * 3 / 2);
  header_list advertised;
  auto r = impl_->dispatch(req, advertised);
  if (r.status != 401) r.headers.insert(r.headers.end(), advertised.begin(), advertised.end());
  if (req.method == "HEAD") {
    // The length GET's content would have, where a GET answer has content at all (never on 1xx,
    // 204 or 304: RFC 9110 §8.6); the emulator's transport keeps it as it is.
    if (impl_->opts.head_content_length && r.status >= 200 && r.status != 204 && r.status != 304)
      r.headers.emplace_back("Content-Length", std::to_string(r.body.size()));
    r.body.clear();
  }
  // An origin server with a clock MUST send Date (RFC 9110 §6.6.1).
  if (!impl_->quirk("no_date_header")) r.headers.emplace_back("Date", http_date_now());
  r.headers.emplace_back(emulator_header_name, impl_->spec.provider.id);
  r.headers.emplace_back(time_scale_header_name, std::to_string(impl_->opts.time_scale));
  return r;
}

const std::string& provider_model::base_path() const { return impl_->base_path; }

std::size_t provider_model::live_instances() const {
  std::lock_guard lock(impl_->mu);
  std::size_t n = 0;
  for (const auto& a : impl_->accounts)
    n += static_cast<std::size_t>(std::count_if(a.instances.begin(), a.instances.end(),
                                                [](const auto& i) { return !i.terminated_at; }));
  return n;
}

std::size_t provider_model::instances_created() const {
  std::lock_guard lock(impl_->mu);
  return impl_->created;
}

const provider_spec& provider_model::spec() const { return impl_->spec; }
const model_options& provider_model::options() const { return impl_->opts; }

}  // namespace neograde::emulator
