#include <neograde/clients/provider_client.hpp>

#include <neograde/clients/endpoint.hpp>
#include <neograde/clients/oracles.hpp>
#include <neograde/clients/run_names.hpp>

#include <neograde/core/base64.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/poll.hpp>
#include <neograde/core/provenance.hpp>
#include <neograde/core/signing.hpp>
#include <neograde/core/text.hpp>
#include <neograde/clients/url.hpp>
#include <neograde/clients/stop.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <variant>

namespace neograde {
namespace {

std::string random_hex(int n) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string k;
  for (int i = 0; i < n; ++i) k += "0123456789abcdef"[rng() % 16];
  return k;
}

// A made-up credential, shaped like a real one of the scheme so that a server cannot reject it
// for its form. Random per process; redacted like a real key (so that a recorded run replays).
const std::string& invalid_key_id() {
  static const std::string id = "neograde_invalid_" + random_hex(24);
  return id;
}
const std::string& invalid_key_secret() {
  static const std::string secret = base64url_encode(random_hex(32));
  return secret;
}
std::string invalid_key(auth_scheme scheme) {
  if (scheme == auth_scheme::oauth2_client_credentials || scheme == auth_scheme::hmac_sha256)
    return invalid_key_id() + ":" + invalid_key_secret();
  return invalid_key_id();
}

redactor redactor_for(const std::string& key) {
  redactor r;
  r.add_secret(key);
  auto [id, secret] = split_credentials(key);
  // Each half of a composite key travels alone (the secret signs, the id names the account in a
  // token request): both are redacted. A very short id would blank out unrelated text.
  if (!secret.empty()) r.add_secret(secret);
  if (!secret.empty() && id.size() >= 4) r.add_secret(id);
  r.add_secret(invalid_key_id());
  r.add_secret(invalid_key_secret());
  return r;
}

// Where launches have no ledger of their own: free on loopback, refused anywhere else.
std::shared_ptr<spend_ledger> default_ledger(const std::string& base_url, const provider_spec& spec) {
  auto u = http::parse_url(base_url);
  const bool loopback = u && http::is_loopback(*u);
  return std::make_shared<spend_ledger>(
      spend_permission{loopback, loopback ? "" : "this client was given no spend ledger (see clients/spend.hpp)"}, live_rules{}, "",
      spec.provider.id, base_url);
}

// Whether method and path (with a query, perhaps) address the spec's launch operation: the same
// method, and the path template's {placeholders} matching any one segment.
bool is_launch_request(const provider_spec& spec, const std::string& method, const std::string& path) {
  const auto* op = spec.operation(operation_id::launch);
  if (op == nullptr || !iequals(op->method, method)) return false;
  auto split = [](std::string_view p) {
    std::vector<std::string_view> out;
    p = p.substr(0, p.find_first_of("?#"));
    for (std::size_t at = 0; at <= p.size();) {
      auto next = p.find('/', at);
      if (next == std::string_view::npos) next = p.size();
      if (next > at) out.push_back(p.substr(at, next - at));
      at = next + 1;
    }
    return out;
  };
  const auto want = split(op->path), got = split(path);
  if (want.size() != got.size()) return false;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(want[i].starts_with('{') && want[i].ends_with('}')) && want[i] != got[i]) return false;
  return true;
}

// A GraphQL launch shares its path with every other operation: a well-formed request whose query
// does not name the launch's field (a billing read of `myself`) creates nothing. Anything else
// sent there, however broken, is admitted as a launch.
bool graphql_not_launch(const provider_spec& spec, const std::string& body) {
  const auto* op = spec.operation(operation_id::launch);
  if (op == nullptr || !op->graphql_operation) return false;
  const auto doc = parse_json(body, 64);
  const auto* q = doc ? find_pointer(*doc, "/query") : nullptr;
  return q != nullptr && q->is_string() && q->get_ref<const std::string&>().find(*op->graphql_operation) == std::string::npos;
}

std::string var_text(const template_vars& vars, const char* name) {
  auto it = vars.find(name);
  if (it == vars.end()) return {};
  return it->second.is_string() ? it->second.get<std::string>() : it->second.dump();
}

std::vector<std::string> strings_at(const nlohmann::json& obj, const field_path& f) {
  std::vector<std::string> out;
  const auto* v = find_pointer(obj, f.pointer);
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : *v)
    if (auto s = string_at(e, f.each.value_or(""))) out.push_back(*s);
  return out;
}

// Offer field names with a meaning of their own; any other name is a launch parameter.
bool is_offer_attribute(const std::string& name) {
  static const std::set<std::string> names{"rows",   "instance_type", "description", "price_per_hour_usd", "regions_available",
                                           "region", "gpu",           "available"};
  return names.contains(name);
}

// A number at a value: JSON numbers, or decimal strings; NaN and infinities are no number.
std::optional<double> number_of(const nlohmann::json* v, double scale) {
  if (v == nullptr) return std::nullopt;
  auto finite = [](double x) { return std::isfinite(x) ? std::optional<double>(x) : std::nullopt; };
  if (v->is_number()) return finite(v->get<double>() * scale);
  if (v->is_string()) {
    try {
      return finite(std::stod(v->get<std::string>()) * scale);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// A scalar as text (string_at's reading), "" for anything else or nothing.
std::string text_of(const nlohmann::json* v) { return v == nullptr ? std::string() : string_at(*v, "").value_or(""); }

// Whether a value says "yes": true, a positive number, or a non-empty string other than a
// number <= 0 or "false".
bool truthy(const nlohmann::json* v) {
  if (v == nullptr || v->is_null()) return false;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_number()) return v->get<double>() > 0;
  if (v->is_string()) {
    const auto& t = v->get_ref<const std::string&>();
    if (t.empty() || iequals(t, "false")) return false;
    if (auto n = number_of(v, 1)) return *n > 0;
    return true;
  }
  return !v->empty();
}

// A field's number: its value (the first of its places that holds one), plus each term's value
// times its factor, times the scale. Any missing part: no number.
template <class At>
std::optional<double> number_field(const field_path& fp, const At& at) {
  auto n = number_of(fp.read(at), 1);
  for (const auto& t : fp.plus) {
    if (!n) break;
    auto term = number_of(at(t.pointer), 1);
    n = term ? std::optional<double>(*n + *term * t.times) : std::nullopt;
  }
  if (n) *n *= fp.scale;
  return n;
}

std::string text_field(const nlohmann::json& obj, const std::map<std::string, field_path>& fields, const std::string& name) {
  auto it = fields.find(name);
  if (it == fields.end()) return {};
  const auto* v = it->second.read([&](const std::string& p) { return find_pointer(obj, p); });
  return v == nullptr ? std::string() : string_at(*v, "").value_or("");
}

}  // namespace

std::string call_result::content_type() const { return response ? response->header("Content-Type") : std::string(); }

std::string call_result::describe() const {
  if (not_sent) return "not sent: " + *not_sent;
  if (transport) return transport->message();
  if (!response) return "no response";
  std::string out = "HTTP " + std::to_string(response->status);
  if (error && !error->code.empty()) out += " " + error->code;
  if (error && !error->message.empty()) out += ": " + error->message;
  return out;
}

call_result interpret_response(const provider_spec& spec, const operation_spec* op, http::response r) {
  call_result out;
  out.response = std::move(r);
  out.json = parse_json(out.response->body);
  const auto& ok = op != nullptr ? op->success_status : std::vector<int>{200};
  out.success = std::find(ok.begin(), ok.end(), out.response->status) != ok.end();
  // GraphQL-style APIs report errors inside a 2xx body.
  if (out.success && out.json && spec.errors.in_success_body) {
    const auto* errors = find_pointer(*out.json, *spec.errors.in_success_body);
    if (errors != nullptr && !errors->is_null() && !(errors->is_array() && errors->empty())) out.success = false;
  }
  if (!out.success) {
    api_error e;
    e.http_status = out.response->status;
    if (out.json) {
      e.code = string_at(*out.json, spec.errors.code_pointer).value_or("");
      e.message = string_at(*out.json, spec.errors.message_pointer).value_or("");
    }
    out.error = std::move(e);
  }
  return out;
}

namespace {

// A decimal string as a JSON integer ("18026" -> 18026); any other text stays a string.
nlohmann::json as_json_integer(const std::string& text) {
  if (text.empty() || text.size() >= 19 || text.find_first_not_of("0123456789") != std::string::npos) return text;
  return std::stoll(text);
}

// Options that do not retry a 503 the spec reads as a provider condition: Verda answers "Not
// enough resources to deploy ..." with 503, and a retry half a second later finds no more
// capacity (the caller decides what a capacity refusal means). Every other 429 and 503 is retried.
http::client_options without_condition_retries(http::client_options o, const provider_spec& spec) {
  if (!o.retryable)
    o.retryable = [&spec](const http::response& r) {
      return r.status != 503 || !provider_condition(interpret_response(spec, nullptr, r), spec);
    };
  return o;
}

}  // namespace

namespace {

// The client's transport: on `loop` when given, else with a private loop.
http::client transport_for(http::event_loop* loop, http::client_options options, const provider_spec& spec, redactor redact) {
  if (loop != nullptr) return http::client(*loop, without_condition_retries(std::move(options), spec), std::move(redact));
  return http::client(without_condition_retries(std::move(options), spec), std::move(redact));
}

}  // namespace

provider_client::provider_client(const provider_spec& spec, std::string base_url, std::string api_key, http::client_options options)
    : provider_client(nullptr, spec, std::move(base_url), std::move(api_key), std::move(options)) {}

provider_client::provider_client(http::event_loop& loop, const provider_spec& spec, std::string base_url, std::string api_key,
                                 http::client_options options)
    : provider_client(&loop, spec, std::move(base_url), std::move(api_key), std::move(options)) {}

provider_client::provider_client(http::event_loop* loop, const provider_spec& spec, std::string base_url, std::string api_key,
                                 http::client_options options)
    : spec_(spec),
      base_url_(std::move(base_url)),
      api_key_(std::move(api_key)),
      loop_(loop),
      http_(transport_for(loop, std::move(options), spec, redactor_for(api_key_))) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
  ledger_ = default_ledger(base_url_, spec_);
}

void provider_client::set_spend_ledger(std::shared_ptr<spend_ledger> ledger) {
  ledger_ = ledger ? std::move(ledger) : default_ledger(base_url_, spec_);
}

std::optional<std::string> provider_client::access_token(bool refresh) {
  if (!refresh && token_ && std::chrono::steady_clock::now() < token_expiry_) return token_;
  token_.reset();
  const auto& m = spec_.auth.schemes.front();
  auto [id, secret] = split_credentials(api_key_);
  http::request req{"POST",
                    base_url_ + m.token_path,
                    {{"Content-Type", "application/json"}},
                    dump_json({{"grant_type", "client_credentials"}, {"client_id", id}, {"client_secret", secret}})};
  // On a shared loop the token is fetched on a private one: this may run in the loop's handlers.
  std::optional<http::client> own;
  if (loop_ != nullptr) own.emplace(http_.options(), http_.redaction());
  auto res = (own ? *own : http_).send(req);
  if (!res || res->status != 200) return std::nullopt;
  auto doc = parse_json(res->body);
  auto token = doc ? string_at(*doc, "/access_token") : std::nullopt;
  if (!token || token->empty()) return std::nullopt;
  http_.add_secret(*token);
  if (auto refresh_token = string_at(*doc, "/refresh_token")) http_.add_secret(*refresh_token);
  // A lifetime that is missing, not a number or absurd is taken as an hour.
  const auto* given = find_pointer(*doc, "/expires_in");
  double lifetime = given != nullptr && given->is_number() ? given->get<double>() : 3600.0;
  if (!(lifetime > 0 && lifetime < 86400.0 * 365)) lifetime = 3600.0;
  // Renew a little early, so that a token never expires between check and use.
  token_expiry_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(lifetime * 900));
  token_ = *token;
  return token_;
}

header_list provider_client::auth_headers(auth_mode auth, const http::request& req) {
  if (auth == auth_mode::none || spec_.auth.schemes.empty()) return {};
  const auto& m = spec_.auth.schemes.front();
  if (auth == auth_mode::malformed) {
    if (m.type == auth_scheme::header) return {{m.header, "Bearer"}};  // a scheme word where a bare key belongs
    if (m.type == auth_scheme::query) return {};
    return {{"Authorization", m.type == auth_scheme::basic_username ? "Basic" : "Bearer"}};
  }
  const std::string key = auth == auth_mode::invalid ? invalid_key(m.type) : api_key_;
  const bool lower = auth == auth_mode::lowercase_scheme;
  switch (m.type) {
    case auth_scheme::bearer: return {{"Authorization", (lower ? "bearer " : "Bearer ") + key}};
    case auth_scheme::basic_username: return {{"Authorization", (lower ? "basic " : "Basic ") + base64_encode(key + ":")}};
    case auth_scheme::header: return {{m.header, m.prefix + key}};
    case auth_scheme::query: return {};  // added to the URL by send()
    case auth_scheme::oauth2_client_credentials: {
      if (auth == auth_mode::invalid) return {{"Authorization", "Bearer " + split_credentials(key).second}};
      auto token = access_token(false);
      if (!token) return {};
      return {{"Authorization", (lower ? "bearer " : "Bearer ") + *token}};
    }
    case auth_scheme::hmac_sha256: {
      auto u = http::parse_url(req.url);
      if (!u) return {};
      const auto q = u->target.find('?');
      std::string path = u->target.substr(0, q);
      // The signed path is relative to the API root that path_prefix names.
      if (auto base = http::parse_url(base_url_)) {
        const auto root = base->target == "/" ? std::string() : base->target;
        if (!root.empty() && path.starts_with(root)) path = path.substr(root.size());
      }
      const std::string query = q == std::string::npos ? std::string() : u->target.substr(q + 1);
      const auto timestamp = utc_now_iso8601();
      auto [access, secret] = split_credentials(key);
      auto value = hmac_authorization(m, access, secret, req.method, path, query, timestamp);
      if (!value) return {};
      return {{m.timestamp_header, timestamp}, {"Authorization", *value}};
    }
    case auth_scheme::unknown: break;
  }
  return {};
}

http::request provider_client::authorize(http::request req, auth_mode auth) {
  if (const auto& m = spec_.auth.schemes.front(); m.type == auth_scheme::query && auth != auth_mode::none)
    req.url += (req.url.find('?') == std::string::npos ? "?" : "&") + m.param + "=" +
               (auth == auth_mode::invalid     ? invalid_key(m.type)
                : auth == auth_mode::malformed ? "%01"
                                               : api_key_);
  auto headers = auth_headers(auth, req);
  headers.insert(headers.end(), req.headers.begin(), req.headers.end());
  req.headers = std::move(headers);
  return req;
}

call_result provider_client::send(http::request req, const operation_spec* op, auth_mode auth) {
  throw_if_stop_requested();
  auto out = finish(http_.send(authorize(req, auth)), op);
  // An OAuth2 token can be revoked or expire early: fetch a new one once and retry.
  if (out.status() == 401 && auth == auth_mode::key && spec_.auth.schemes.front().type == auth_scheme::oauth2_client_credentials &&
      access_token(true))
    out = finish(http_.send(authorize(std::move(req), auth)), op);
  return out;
}

call_result provider_client::finish(boost::system::result<http::response, http::transport_error> res, const operation_spec* op) {
  call_result out;
  out.evidence = http_.last_exchange();
  if (!res) {
    out.transport = res.error();
    return out;
  }
  if (auto tag = res->header(emulator_header_name); !tag.empty()) {
    emulator_ = true;
    try {
      // A scale that is not a sane number (a hostile server can send this header too) is ignored.
      if (auto scale = res->header(time_scale_header_name); !scale.empty())
        if (const double x = std::stod(scale); std::isfinite(x) && x >= 0 && x <= 1000) time_scale_ = x;
    } catch (const std::exception&) {}
  }
  auto evidence = std::move(out.evidence);
  out = interpret_response(spec_, op, std::move(*res));
  out.evidence = std::move(evidence);
  return out;
}

std::variant<provider_client::pending_call, call_result> provider_client::begin_call(operation_id id, const template_vars& given,
                                                                                     const std::string& query) {
  const auto* op = spec_.operation(id);
  if (op == nullptr) {
    call_result out;
    out.transport = http::transport_error{make_error_code(http::client_errc::bad_url), "the spec declares no such operation"};
    return out;
  }
  pending_call p{.id = id, .op = op, .vars = call_vars(id, given), .req = {}};
  p.req.method = op->method;
  p.req.url = base_url_ + render_path(op->path, p.vars);
  if (!query.empty()) p.req.url += (p.req.url.find('?') == std::string::npos ? "?" : "&") + query;
  if (auto body = request_body(id, p.vars)) {
    p.req.body = dump_json(*body);
    p.req.headers.emplace_back("Content-Type", "application/json");
  }
  // A create: admitted by the ledger (permission, budget, journal) before anything is sent.
  if (id == operation_id::launch)
    if (auto no = ledger_->admit(var_text(p.vars, "name"), var_text(p.vars, "instance_type"))) {
      call_result out;
      out.not_sent = std::move(no);
      return out;
    }
  return p;
}

call_result provider_client::end_call(const pending_call& p, call_result out) {
  if (p.id == operation_id::launch) {
    const auto name = var_text(p.vars, "name");
    if (out.transport) ledger_->unanswered(name, out.describe());
    else if (out.success)
      ledger_->created(name, launched_id(out, var_text(p.vars, "client_id")).value_or(""));
    else
      ledger_->refused(name, out.describe());
  }
  // When each terminate was first accepted, for the teardown (terminate_accepted_at).
  if (p.id == operation_id::terminate && out.success)
    if (const auto ids = p.vars.find("id"); ids != p.vars.end()) {
      const auto now = (clock != nullptr ? *clock : real_clock()).now();
      for (const auto& id : ids->second.is_array() ? ids->second : nlohmann::json::array({ids->second}))
        if (id.is_string()) terminate_accepted_.emplace(id.get<std::string>(), now);
    }
  if (observer) observer(p.id, out);
  return out;
}

std::optional<run_clock::time_point> provider_client::terminate_accepted_at(const std::string& id) const {
  const auto it = terminate_accepted_.find(id);
  return it != terminate_accepted_.end() ? std::optional(it->second) : std::nullopt;
}

call_result provider_client::call(operation_id id, const template_vars& given, auth_mode auth, const std::string& query) {
  auto begun = begin_call(id, given, query);
  if (auto* early = std::get_if<call_result>(&begun)) return std::move(*early);
  auto& p = std::get<pending_call>(begun);
  auto out = send(p.req, p.op, auth);
  return end_call(p, std::move(out));
}

void provider_client::async_call(operation_id id, std::function<void(call_result)> done, const template_vars& given, auth_mode auth,
                                 const std::string& query) {
  if (loop_ == nullptr) throw std::logic_error("provider_client::async_call needs a client made on an event loop");
  auto begun = begin_call(id, given, query);
  if (auto* early = std::get_if<call_result>(&begun)) {
    loop_->after(std::chrono::milliseconds(0), [done = std::move(done), out = std::move(*early)]() mutable { done(std::move(out)); });
    return;
  }
  throw_if_stop_requested();
  auto p = std::make_shared<pending_call>(std::move(std::get<pending_call>(begun)));
  auto req = authorize(p->req, auth);
  http_.async_send(std::move(req),
                   [this, p, done = std::move(done)](http::send_result res) { done(end_call(*p, finish(std::move(res), p->op))); });
}

template_vars provider_client::call_vars(operation_id id, const template_vars& given) const {
  template_vars vars = given;
  for (const auto& [k, v] : spec_.variables) vars.emplace(k, v);
  // Providers with tags get the run's name prefix as one ("neograde-<run-id>"): sweeps and
  // billing views can find a run's instances by it.
  if (id == operation_id::launch && !vars.contains("run_tag")) vars["run_tag"] = run_tag_of(var_text(vars, "name"));
  return vars;
}

std::optional<nlohmann::json> provider_client::request_body(operation_id id, const template_vars& vars) const {
  const auto* op = spec_.operation(id);
  if (op == nullptr || !op->body) return std::nullopt;
  // An id the provider writes as a JSON integer goes back as one (Hyperbolic's rentalId).
  auto body_vars = vars;
  if (const auto f = spec_.instance_fields.find("id"); f != spec_.instance_fields.end() && f->second.as_integer)
    if (const auto it = body_vars.find("id"); it != body_vars.end() && it->second.is_string())
      it->second = as_json_integer(it->second.get<std::string>());
  return render_body(*op->body, body_vars);
}

call_result provider_client::raw(const std::string& method, const std::string& path, const std::string& body,
                                 const std::string& content_type, auth_mode auth, operation_id as) {
  http::request req;
  req.method = method;
  req.url = base_url_ + path;
  req.body = body;
  if (!content_type.empty()) req.headers.emplace_back("Content-Type", content_type);
  if (!is_launch_request(spec_, method, path) || graphql_not_launch(spec_, body)) return send(std::move(req), spec_.operation(as), auth);
  // A request to the launch operation, however broken, may create an instance on a broken
  // provider: the ledger admits it like any create.
  const std::string name = "(a raw request to the launch operation)";
  if (auto no = ledger_->admit(name, "")) {
    call_result out;
    out.not_sent = std::move(no);
    return out;
  }
  auto out = send(std::move(req), spec_.operation(as), auth);
  if (out.transport) ledger_->unanswered(name, out.describe());
  else if (out.response && out.status() >= 200 && out.status() < 300)
    ledger_->created(name, "");
  else
    ledger_->refused(name, out.describe());
  return out;
}

std::vector<nlohmann::json> provider_client::collection(const nlohmann::json& doc, const std::string& pointer, bool object_values) const {
  std::vector<nlohmann::json> out;
  const auto* v = find_pointer(doc, pointer);
  if (v == nullptr) return out;
  if (v->is_array() || (object_values && v->is_object()))
    for (const auto& e : *v) out.push_back(e);
  return out;
}

std::vector<nlohmann::json> provider_client::collection(const nlohmann::json& doc, const operation_spec& op) const {
  if (!op.keys_are) return collection(doc, op.items.value_or(""), op.items_are_object_values);
  // Keyed by a field the items may leave out (Thunder Compute's "id: Populated from map key by
  // client"): the key is written where the spec reads that field.
  const auto fields = spec_.item_fields_of(op.id);
  const auto field = fields.find(*op.keys_are);
  std::vector<nlohmann::json> out;
  const auto* v = find_pointer(doc, op.items.value_or(""));
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& [key, item] : v->items()) {
    auto e = item;
    // An item that leaves the field out, null or empty is given its key (Thunder Compute's official
    // clients always write it); one that carries a value keeps it.
    const auto* have = field != fields.end() && e.is_object() ? find_pointer(e, field->second.pointer) : nullptr;
    if (field != fields.end() && e.is_object() && (have == nullptr || have->is_null() || *have == ""))
      set_pointer(e, field->second.pointer, key);
    out.push_back(std::move(e));
  }
  return out;
}

instance provider_client::to_instance(const nlohmann::json& obj, operation_id from) const {
  const auto f = spec_.instance_fields_of(from);
  instance i;
  i.id = text_field(obj, f, "id");
  i.name = text_field(obj, f, "name");
  i.provider_status = text_field(obj, f, "status");
  i.state = spec_.canonical_state(i.provider_status);
  // The address: one pointer, or (with `each`) every address listed, the public one chosen.
  if (auto it = f.find("ip"); it != f.end()) {
    std::vector<address_candidate> listed;
    if (const auto& fp = it->second; fp.each) {
      if (const auto* arr = find_pointer(obj, fp.pointer); arr != nullptr && arr->is_array())
        for (const auto& e : *arr) {
          const auto* flag = fp.public_flag.empty() ? nullptr : find_pointer(e, fp.public_flag);
          listed.push_back({string_at(e, *fp.each).value_or(""),
                            flag != nullptr && flag->is_boolean() ? std::optional<bool>(flag->get<bool>()) : std::nullopt});
        }
    } else if (auto ip = string_at(obj, it->second.pointer)) {
      listed.push_back({*ip, std::nullopt});
    }
    if (auto chosen = select_address(listed)) {
      i.ip = listed[chosen->index].address;
      if (listed.size() > 1) i.address_choice = chosen->why;
    }
  }
  if (spec_.ssh) i.ssh = read_ssh_endpoint(*spec_.ssh, obj, i.ip);
  i.region = text_field(obj, f, "region");
  i.instance_type = text_field(obj, f, "instance_type");
  i.underlying_provider = text_field(obj, f, "underlying_provider");
  if (auto it = f.find("price_per_hour_usd"); it != f.end())
    i.price_per_hour_usd = number_field(it->second, [&](const std::string& p) { return find_pointer(obj, p); });
  // The launch parameters it shows: fields named as the offers' (the underlying provider has a
  // check of its own).
  for (const auto& [name, fp] : f)
    if (spec_.offer_fields.contains(name) && !is_offer_attribute(name) && name != "underlying_provider")
      if (auto v = text_field(obj, f, name); !v.empty()) i.params[name] = std::move(v);
  if (auto it = f.find("ssh_key_names"); it != f.end()) i.ssh_key_names = strings_at(obj, it->second);
  return i;
}

namespace {

// Whether a quantity says "some": a level word past the first (with `levels`), else truthy.
bool available_at(const field_path& fp, const nlohmann::json* v) {
  if (fp.levels.empty()) return truthy(v);
  const auto word = text_of(v);
  auto it = std::find_if(fp.levels.begin(), fp.levels.end(), [&](const auto& l) { return iequals(l, word); });
  return it != fp.levels.end() && it != fp.levels.begin();
}

}  // namespace

std::vector<offer> provider_client::to_offers(const nlohmann::json& item) const {
  const auto& f = spec_.offer_fields;
  std::vector<const nlohmann::json*> elements;
  if (auto rows = f.find("rows"); rows != f.end()) {
    if (const auto* arr = find_pointer(item, rows->second.pointer); arr != nullptr && arr->is_array())
      for (const auto& e : *arr) elements.push_back(&e);
  } else {
    elements.push_back(&item);
  }
  auto field = [&](const char* name) -> const field_path* {
    auto it = f.find(name);
    return it == f.end() ? nullptr : &it->second;
  };
  std::vector<offer> out;
  for (const auto* element : elements) {
    // A pointer starting with "^" reads the enclosing item, any other the row's element.
    auto at_pointer = [&](const std::string& p) {
      return p.starts_with('^') ? find_pointer(item, std::string_view(p).substr(1)) : find_pointer(*element, p);
    };
    auto at = [&](const field_path& fp) { return fp.read(at_pointer); };
    offer o;
    if (const auto* fp = field("instance_type")) o.instance_type = text_of(at(*fp));
    if (const auto* fp = field("description")) o.description = text_of(at(*fp));
    if (const auto* fp = field("price_per_hour_usd")) o.price_per_hour_usd = number_field(*fp, at_pointer);
    if (const auto* fp = field("gpu")) o.gpu = truthy(at(*fp));
    if (const auto* fp = field("available")) o.available = available_at(*fp, at(*fp));
    if (const auto* fp = field("underlying_provider")) o.underlying_provider = text_of(at(*fp));
    for (const auto& req : spec_.offer_requirements) {
      if (!o.misfit.empty()) break;
      if (req.equals) {
        // Not stated: not excluded, as for a number.
        if (const auto* v = at(req.at); v != nullptr && !v->is_null() && *v != *req.equals)
          o.misfit = req.at.pointer + " is " + v->dump() + ", not " + req.equals->dump() + " (" + req.why + ")";
        continue;
      }
      const auto n = number_field(req.at, at_pointer);
      char buf[96];
      if (!n) continue;  // not stated: the row cannot be judged, so it is not excluded
      if (req.at_least && *n < *req.at_least)
        std::snprintf(buf, sizeof buf, "%s is %g, under %g", req.at.pointer.c_str(), *n, *req.at_least);
      else if (req.at_most && *n > *req.at_most)
        std::snprintf(buf, sizeof buf, "%s is %g, over %g", req.at.pointer.c_str(), *n, *req.at_most);
      else
        continue;
      o.misfit = std::string(buf) + " (" + req.why + ")";
    }
    for (const auto& [name, fp] : f)
      if (!is_offer_attribute(name))
        if (auto v = text_of(at(fp)); !v.empty()) o.params[name] = v;
    if (const auto* fp = field("region")) {
      o.region = text_of(at(*fp));
      out.push_back(std::move(o));
    } else if (const auto* fp = field("regions_available")) {
      // One row per region listed with capacity; none listed: a row without capacity.
      std::vector<std::string> regions;
      if (const auto* v = at(*fp); v != nullptr && v->is_array())
        for (const auto& e : *v)
          if (auto r = text_of(find_pointer(e, fp->each.value_or(""))); !r.empty()) regions.push_back(r);
      if (regions.empty()) {
        o.available = false;
        out.push_back(std::move(o));
      }
      for (const auto& r : regions) {
        auto row = o;
        row.region = r;
        out.push_back(std::move(row));
      }
    } else {
      out.push_back(std::move(o));
    }
  }
  return out;
}

measurement::offer_selection offer_selection::record() const {
  measurement::offer_selection m{.explanation = explanation,
                                 .rows = rows,
                                 .not_gpu = not_gpu,
                                 .unavailable = unavailable,
                                 .unpriced = unpriced,
                                 .not_pinned = unpinned,
                                 .refused = refused,
                                 .not_fitting = misfit,
                                 .chosen = std::nullopt};
  if (chosen)
    m.chosen = measurement::chosen_offer{.instance_type = chosen->instance_type,
                                         .region = chosen->region,
                                         .price_per_hour_usd = chosen->price_per_hour_usd,
                                         .params = chosen->params};
  return m;
}

namespace {

// A row as a launch orders it: a row that names no region launches where the spec's region
// variable says (or wherever the provider places it).
offer placed(const provider_spec& spec, offer row) {
  const bool rows_have_regions = spec.offer_fields.contains("region") || spec.offer_fields.contains("regions_available");
  if (!rows_have_regions && row.region.empty() && spec.variables.contains("region")) row.region = spec.variables.at("region");
  return row;
}

}  // namespace

std::optional<offer> listed_row(const provider_spec& spec, const std::vector<offer>& rows, const offer& row) {
  std::optional<offer> out;
  for (const auto& r : rows)
    if (auto p = placed(spec, r); p.key() == row.key() && (!out || (p.available && !out->available))) out = std::move(p);
  return out;
}

offer_selection select_offer(const provider_spec& spec, const std::vector<offer>& rows, const offer_pins& pins,
                             const std::vector<std::string>& refused_keys) {
  offer_selection s;
  const bool priced = spec.offer_fields.contains("price_per_hour_usd");
  std::size_t candidates = 0;
  for (auto row : rows) {
    ++s.rows;
    if (row.gpu && !*row.gpu) {
      ++s.not_gpu;
      continue;
    }
    if (!row.available) {
      ++s.unavailable;
      continue;
    }
    if (!row.misfit.empty()) {
      ++s.misfit;
      continue;
    }
    row = placed(spec, std::move(row));
    if ((!pins.instance_type.empty() && row.instance_type != pins.instance_type) || (!pins.region.empty() && row.region != pins.region)) {
      ++s.unpinned;
      continue;
    }
    if (priced && !row.price_per_hour_usd) {
      ++s.unpriced;
      continue;
    }
    if (std::find(refused_keys.begin(), refused_keys.end(), row.key()) != refused_keys.end()) {
      ++s.refused;
      continue;
    }
    ++candidates;
    if (!s.chosen || (row.price_per_hour_usd && (!s.chosen->price_per_hour_usd || *row.price_per_hour_usd < *s.chosen->price_per_hour_usd)))
      s.chosen = std::move(row);
  }
  std::string excluded;
  auto part = [&](std::size_t n, const char* what) {
    if (n > 0) excluded += (excluded.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  part(s.not_gpu, "not GPU offers");
  part(s.unavailable, "without capacity");
  part(s.misfit, "that the launch body does not fit");
  part(s.unpinned, "not matching --instance-type/--region");
  part(s.unpriced, "without a price");
  part(s.refused, "already refused for capacity");
  const std::string of = "of " + std::to_string(s.rows) + " offer row(s) listed" + (excluded.empty() ? "" : ", " + excluded);
  if (!s.chosen) {
    s.explanation = "no offer row can be launched (" + of + ")";
    return s;
  }
  std::string price;
  if (s.chosen->price_per_hour_usd) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", *s.chosen->price_per_hour_usd);
    price = " at $" + std::string(buf) + "/h";
  }
  s.explanation = s.chosen->key() + price + ": " + (priced ? "the cheapest" : "the first (the catalogue has no prices)") + " of " +
                  std::to_string(candidates) + " launchable row(s) (" + of + ")";
  return s;
}

ssh_key provider_client::to_ssh_key(const nlohmann::json& obj, operation_id from) const {
  const auto f = spec_.ssh_key_fields_of(from);
  return {text_field(obj, f, "id"), text_field(obj, f, "name"), text_field(obj, f, "public_key")};
}

bool answers_empty(const provider_spec& spec, operation_id op, const call_result& r) {
  const auto* o = spec.operation(op);
  return o != nullptr && !o->empty_kind.empty() && !r.success && r.response && r.status() == spec.errors.kinds.at(o->empty_kind).status;
}

typed_result<std::vector<nlohmann::json>> provider_client::walk(operation_id id, int page_size, std::vector<std::size_t>* page_sizes,
                                                                std::vector<call_result>* answers) {
  const auto& op = *spec_.operation(id);
  typed_result<std::vector<nlohmann::json>> out;
  std::vector<nlohmann::json> items;
  std::string token;
  std::set<std::string> seen_tokens;
  std::optional<nlohmann::json> previous_page;
  const int size = op.pagination && page_size > 0 ? page_size : op.pagination ? op.pagination->size : 0;
  // A bound on pages, so that a provider that never says "last page" cannot loop us forever: a walk
  // that reaches it is a problem, not a catalogue cut short.
  constexpr int max_pages = 1000;
  for (int page = 0; page < max_pages; ++page) {
    std::string query;
    if (const auto& pg = op.pagination) {
      // Names and values encoded: Latitude.sh's page[number], a provider's base64 cursor ("+", "=").
      auto add = [&](const std::string& k, const std::string& v) {
        query += (query.empty() ? "" : "&") + query_encode(k) + "=" + query_encode(v);
      };
      if (!pg->size_param.empty()) add(pg->size_param, std::to_string(size));
      if (pg->style == "page") add(pg->page_param, std::to_string(pg->first_page + page));
      else if (pg->style == "offset")
        add(pg->offset_param, std::to_string(page * size));
      else if (pg->style == "token" && page > 0)
        add(pg->token_param, token);
    }
    out.call = call(id, {}, auth_mode::key, query);
    if (answers != nullptr) answers->push_back(out.call);
    // An empty collection answered as the error the provider documents for it (Vast.ai's 404
    // "No SSH keys found"): nothing to list, not a failure.
    if (page == 0 && answers_empty(spec_, id, out.call)) {
      out.value.emplace();
      return out;
    }
    if (!out.call.success) return out;
    if (!out.call.json) {
      out.problem = "the response is not JSON";
      return out;
    }
    auto batch = collection(*out.call.json, op);
    const auto batch_size = batch.size();
    if (page_sizes != nullptr) page_sizes->push_back(batch_size);
    // A provider that serves the same non-empty page again would loop us forever.
    if (page > 0 && batch_size > 0 && previous_page && *previous_page == nlohmann::json(batch)) {
      out.problem = "the provider served the same page twice";
      return out;
    }
    previous_page = nlohmann::json(batch);
    for (auto& item : batch) items.push_back(std::move(item));
    if (!op.pagination) break;
    const auto& pg = *op.pagination;
    if (!pg.more_pointer.empty()) {
      const auto* more = find_pointer(*out.call.json, pg.more_pointer);
      if (more == nullptr || !more->is_boolean() || !more->get<bool>()) break;
    }
    if (pg.style == "token") {
      token = string_at(*out.call.json, pg.next_pointer).value_or("");
      if (token.empty()) break;
      if (!seen_tokens.insert(token).second) {
        out.problem = "the provider repeated a page token (" + token + ")";
        return out;
      }
    } else if (pg.more_pointer.empty() && static_cast<int>(batch_size) < size) {
      break;
    }
    if (batch_size == 0) break;
    if (page + 1 == max_pages) {
      out.problem = "the walk did not end within " + std::to_string(max_pages) + " pages";
      return out;
    }
  }
  out.value = std::move(items);
  return out;
}

// Walks a collection and maps each item onto a canonical type.
template <class T, class Map>
typed_result<std::vector<T>> mapped_walk(provider_client& c, operation_id id, Map map) {
  auto all = c.walk(id);
  typed_result<std::vector<T>> out{std::move(all.call), std::nullopt, std::move(all.problem)};
  if (all.value) {
    std::vector<T> mapped;
    for (const auto& item : *all.value) mapped.push_back(map(item));
    out.value = std::move(mapped);
  }
  return out;
}

typed_result<std::vector<offer>> provider_client::list_offers() {
  auto all = walk(operation_id::list_offers);
  typed_result<std::vector<offer>> out{std::move(all.call), std::nullopt, std::move(all.problem)};
  if (!all.value) return out;
  std::vector<offer> rows;
  for (const auto& item : *all.value)
    for (auto& row : to_offers(item)) {
      if (row.price_per_hour_usd) ledger_->note_price(row.instance_type, *row.price_per_hour_usd);
      rows.push_back(std::move(row));
    }
  if (spec_.offer_availability) {
    auto joined = join_availability(std::move(rows));
    if (!joined.value) {
      out.call = std::move(joined.call);
      out.problem = "the availability could not be read: " + (joined.problem.empty() ? out.call.describe() : joined.problem);
      return out;
    }
    rows = std::move(*joined.value);
  }
  out.value = std::move(rows);
  return out;
}

typed_result<std::vector<offer>> provider_client::join_availability(std::vector<offer> rows) {
  const auto& a = *spec_.offer_availability;
  typed_result<std::vector<offer>> out{raw("GET", a.path, {}, {}, auth_mode::key, operation_id::list_offers)};
  if (!out.call.success) return out;
  const auto* items = out.call.json ? find_pointer(*out.call.json, a.items) : nullptr;
  if (items == nullptr || !items->is_array()) {
    out.problem = "the response carries no availability list at \"" + a.items + "\"";
    return out;
  }
  std::map<std::string, std::vector<std::string>> regions_of;  // type -> regions, in the answer's order
  for (const auto& item : *items) {
    const auto region = string_at(item, a.region).value_or("");
    if (const auto* types = find_pointer(item, a.types); !region.empty() && types != nullptr && types->is_array())
      for (const auto& t : *types)
        if (t.is_string()) regions_of[t.get<std::string>()].push_back(region);
  }
  std::vector<offer> joined;
  for (auto& row : rows) {
    const auto& where = regions_of[row.instance_type];
    if (!row.region.empty()) {  // a row of its own region: available only where listed
      row.available = row.available && std::find(where.begin(), where.end(), row.region) != where.end();
      joined.push_back(std::move(row));
    } else if (where.empty()) {  // listed nowhere: one row without capacity
      row.available = false;
      joined.push_back(std::move(row));
    } else {
      for (const auto& r : where) {
        auto copy = row;
        copy.region = r;
        joined.push_back(std::move(copy));
      }
    }
  }
  out.value = std::move(joined);
  return out;
}

offer_selection provider_client::choose_offer(const std::vector<std::string>& refused) {
  auto offers = list_offers();
  if (!offers.value) {
    offer_selection s;
    s.explanation = "the offers could not be listed: " + (offers.problem.empty() ? offers.call.describe() : offers.problem);
    return s;
  }
  auto s = select_offer(spec_, *offers.value, pins, refused);
  s.listed = std::move(*offers.value);
  return s;
}

namespace {

// The id of an answer that is the bare id as text (Verda's creates), perhaps quoted or followed
// by a newline; nullopt when the operation answers JSON (or text_or_json answered an object).
std::optional<std::string> bare_text_id(const operation_spec& op, const call_result& r) {
  if (!op.text_response || (op.text_or_json && r.json && r.json->is_object())) return std::nullopt;
  std::string body = r.response->body;
  body.erase(0, body.find_first_not_of(" \t\r\n\""));
  body.erase(body.find_last_not_of(" \t\r\n\"") + 1);
  return body;
}

}  // namespace

std::optional<std::string> provider_client::launched_id(const call_result& r, const std::string& client_id) const {
  if (!r.success || !r.response) return std::nullopt;
  const auto& op = *spec_.operation(operation_id::launch);
  std::optional<std::string> id;
  if (auto text = bare_text_id(op, r)) {
    if (!text->empty()) id = *text;
  } else if (!r.json) {
    return std::nullopt;
  } else if (auto it = op.fields.find("instance_id"); it != op.fields.end()) {
    id = string_at(*r.json, it->second.pointer);
  } else if (op.item) {
    id = string_at(*r.json, *op.item + spec_.instance_fields.at("id").pointer);
  }
  // With client-chosen ids (Cudo's vmId) the id is the one we sent.
  if ((!id || id->empty()) && op.body && template_pointers(*op.body).contains("client_id")) id = client_id;
  if (id && id->empty()) id.reset();
  return id;
}

template_vars provider_client::launch_vars(const launch_request& req) const {
  template_vars vars;
  // The offer row's own parameters (a template id, a data centre) go first; the named ones win.
  // One the catalogue types as an integer (Hyperbolic's gpuCount) is sent as one.
  for (const auto& [k, v] : req.params) {
    const auto f = spec_.offer_fields.find(k);
    vars[k] = f != spec_.offer_fields.end() && f->second.as_integer ? as_json_integer(v) : nlohmann::json(v);
  }
  vars["instance_type"] = req.instance_type;
  vars["name"] = req.name;
  vars["client_id"] = req.name;
  if (!req.public_key.empty()) vars["public_key"] = req.public_key;
  if (!req.region.empty()) vars["region"] = req.region;
  if (!req.ssh_key_name.empty()) vars["ssh_key_name"] = req.ssh_key_name;
  if (!req.ssh_key_id.empty()) vars["ssh_key_id"] = req.ssh_key_id;
  return vars;
}

typed_result<std::string> provider_client::launch(const launch_request& req) {
  const auto vars = launch_vars(req);
  typed_result<std::string> out{call(operation_id::launch, vars)};
  if (!out.call.success) return out;
  out.value = launched_id(out.call, req.name);
  if (!out.value && spec_.operation(operation_id::launch)->id_from_list_reads > 0) return id_by_name(std::move(out), req.name);
  if (!out.value)
    out.problem = out.call.json || spec_.operation(operation_id::launch)->text_response ? "the response carries no instance id"
                                                                                        : "the response is not JSON";
  else if (!spec_.operation(operation_id::launch)->then.empty())
    follow_launch_steps(out, call_vars(operation_id::launch, vars));
  return out;
}

typed_result<std::string> provider_client::id_by_name(typed_result<std::string> launched, const std::string& name) {
  const int reads = spec_.operation(operation_id::launch)->id_from_list_reads;
  // A poll interval between reads: a list may lag the launch by seconds (issue 36).
  const auto poll = provider_time(spec_.timing.poll_interval_s, target_time_scale(), std::chrono::milliseconds(1));
  std::string last;
  auto& clk = clock != nullptr ? *clock : real_clock();
  if (reads > 0 && !launched.value)
    (void)poll_until(
        clk, poll_limits{.max_looks = reads},
        [&](poll_look&) -> std::optional<bool> {
          auto listed = list();
          if (!listed.value) {
            last = listed.call.describe() + (listed.problem.empty() ? "" : ": " + listed.problem);
            return std::nullopt;
          }
          std::vector<std::string> ids;
          for (const auto& inst : *listed.value)
            if (!name.empty() && inst.name == name && !inst.id.empty()) ids.push_back(inst.id);
          if (ids.size() == 1) launched.value = ids.front();
          last = ids.empty() ? "not in the list" : std::to_string(ids.size()) + " listed instances carry the name";
          return launched.value ? std::optional(true) : std::nullopt;
        },
        [&] { sleep_unless_stopped(clk, poll); });
  if (launched.value) ledger_->identified(name, *launched.value);
  else
    launched.problem = "the response names no instance (as the spec declares) and the instance named " + name + " was not found in " +
                       std::to_string(reads) + " list read(s): " + last;
  return launched;
}

namespace {

// "gseq=1, provider=akash1..." for the journal and the evidence; long values (a manifest) cut.
std::string bound_text(const std::map<std::string, std::string>& bind, const template_vars& vars) {
  std::string out;
  for (const auto& [name, _] : bind) {
    auto it = vars.find(name);
    if (it == vars.end()) continue;
    auto v = it->second.is_string() ? it->second.get<std::string>() : it->second.dump();
    if (v.size() > 48) v = v.substr(0, 45) + "...";
    out += (out.empty() ? "" : ", ") + name + "=" + v;
  }
  return out;
}

// Reads each bound variable at its pointer in `doc`; the name of the first one missing, if any.
std::optional<std::string> bind_from(const std::map<std::string, std::string>& bind, const nlohmann::json& doc, template_vars& vars) {
  for (const auto& [name, pointer] : bind) {
    const auto* v = find_pointer(doc, pointer);
    if (v == nullptr || v->is_null()) return name + " (nothing at " + pointer + ")";
    vars[name] = *v;
  }
  return std::nullopt;
}

// The element a wait step takes: the first, or the cheapest by the number at `price` (elements
// without one are never the cheapest).
const nlohmann::json* chosen_element(const launch_step::wait_spec& w, const std::vector<nlohmann::json>& elements) {
  if (!w.cheapest) return &elements.front();
  const nlohmann::json* best = nullptr;
  std::optional<double> best_price;
  for (const auto& e : elements) {
    const auto price = number_of(find_pointer(e, w.price), 1);
    if (price && (!best_price || *price < *best_price)) best = &e, best_price = price;
  }
  return best;
}

}  // namespace

call_result provider_client::send_step(const launch_step& step, const template_vars& vars) {
  http::request req;
  req.method = step.method;
  req.url = base_url_ + render_path(step.path, vars);
  if (step.body) {
    req.body = dump_json(render_body(*step.body, vars));
    req.headers.emplace_back("Content-Type", "application/json");
  }
  operation_spec as;
  as.success_status = step.success_status;
  return send(std::move(req), &as, auth_mode::key);
}

void provider_client::follow_launch_steps(typed_result<std::string>& out, template_vars vars) {
  const auto& launch_op = *spec_.operation(operation_id::launch);
  const auto& id = *out.value;
  const auto name = var_text(vars, "name");
  vars["id"] = id;
  // The step's failure fails the launch: its own error answer where it has one (a provider
  // condition stays one), else the create's answer marked failed; the id stays known.
  auto fail = [&](const launch_step* step, std::optional<call_result> answer, const std::string& why) {
    const auto what = (step != nullptr ? "step " + step->name + ": " : std::string("the create's answer: ")) + why;
    out.problem = what;
    if (answer && answer->response && !answer->success) {
      // The failing answer becomes the launch's; the create's exchange goes with the steps'.
      out.steps.insert(out.steps.begin(), std::move(out.call.evidence));
      out.call = std::move(*answer);
      if (!out.call.error) out.call.error = api_error{.http_status = out.call.status(), .code = "", .message = ""};
      out.call.error->message = (step != nullptr ? "step " + step->name + ": " : std::string()) + out.call.error->message;
    } else {
      out.call.success = false;
      out.call.error = api_error{.http_status = out.call.status(), .code = "", .message = what};
    }
  };
  if (out.call.json)
    if (auto missing = bind_from(launch_op.bind, *out.call.json, vars)) return fail(nullptr, std::nullopt, "it binds no " + *missing);
  if (!launch_op.bind.empty() && !out.call.json) return fail(nullptr, std::nullopt, "it is not JSON, so nothing can be bound");
  auto& clk = clock != nullptr ? *clock : real_clock();
  const double scale = target_time_scale();
  for (const auto& step : launch_op.then) {
    auto r = send_step(step, vars);
    if (step.wait_for) {
      // Read again until the collection has an element, within the spec's time to running.
      const auto deadline = clk.now() + provider_time(spec_.timing.time_to_running_s, scale);
      const auto poll = provider_time(spec_.timing.poll_interval_s, scale, std::chrono::milliseconds(1));
      (void)poll_until(
          clk, poll_limits{.deadline = deadline},
          [&](poll_look&) -> std::optional<bool> {
            if (!r.success || !r.json || !collection(*r.json, step.wait_for->items, false).empty()) return true;
            return std::nullopt;
          },
          [&] {
            sleep_unless_stopped(clk, poll);
            r = send_step(step, vars);
          });
    }
    std::string detail = "step " + step.name + " (" + step.method + " " + render_path(step.path, vars) + "): " + r.describe();
    if (r.success) out.steps.push_back(r.evidence);
    else {
      ledger_->step(id, name, detail);
      const auto why = r.describe();
      return fail(&step, std::move(r), why);
    }
    std::optional<std::string> missing;
    if (!r.json) missing = "the answer is not JSON";
    else if (step.wait_for) {
      const auto elements = collection(*r.json, step.wait_for->items, false);
      const auto* chosen = elements.empty() ? nullptr : chosen_element(*step.wait_for, elements);
      if (elements.empty())
        missing = "no element at " + step.wait_for->items + " within " + std::to_string(spec_.timing.time_to_running_s * scale) + " s";
      else if (chosen == nullptr)
        missing = "no element states a price at " + step.wait_for->price;
      else if (auto m = bind_from(step.bind, *chosen, vars))
        missing = "the chosen element binds no " + *m;
    } else if (auto m = bind_from(step.bind, *r.json, vars)) {
      missing = "the answer binds no " + *m;
    }
    if (!missing && !step.bind.empty()) detail += "; bound " + bound_text(step.bind, vars);
    ledger_->step(id, name, missing ? detail + "; " + *missing : detail);
    if (missing) return fail(&step, std::nullopt, *missing);
  }
}

typed_result<instance> provider_client::get(const std::string& id) {
  if (spec_.operation(operation_id::get) == nullptr) {
    auto all = list();
    typed_result<instance> out{std::move(all.call), std::nullopt, std::move(all.problem)};
    if (all.value)
      for (auto& i : *all.value)
        if (i.id == id) out.value = std::move(i);
    if (all.value && !out.value) out.problem = "not in the instance list";
    return out;
  }
  typed_result<instance> out{call(operation_id::get, {{"id", id}})};
  if (!out.call.success) return out;
  const auto& op = *spec_.operation(operation_id::get);
  const auto* obj = out.call.json ? find_pointer(*out.call.json, op.item.value_or("")) : nullptr;
  if (obj == nullptr || !obj->is_object()) out.problem = "the response carries no instance object";
  else
    out.value = to_instance(*obj, operation_id::get);
  return out;
}

typed_result<std::vector<instance>> provider_client::list() {
  return mapped_walk<instance>(*this, operation_id::list, [this](const auto& i) { return to_instance(i, operation_id::list); });
}

call_result provider_client::terminate(const std::string& id) {
  for (const auto& c : ledger_->instances())
    if (c.id == id && !c.deleted) ledger_->terminating(id, c.name);
  return call(operation_id::terminate, {{"id", id}});
}

call_result provider_client::restart(const std::string& id) { return call(operation_id::restart, {{"id", id}}); }
call_result provider_client::stop(const std::string& id) { return call(operation_id::stop, {{"id", id}}); }
call_result provider_client::start(const std::string& id) { return call(operation_id::start, {{"id", id}}); }
call_result provider_client::terminate_tagged(const std::string& tag) { return call(operation_id::terminate_tagged, {{"tag", tag}}); }

std::optional<std::string> provider_client::action_id(operation_id op, const call_result& accepted) const {
  const auto* o = spec_.operation(op);
  if (o == nullptr || !o->action || !accepted.json) return std::nullopt;
  auto id = string_at(*accepted.json, o->action->id_pointer);
  if (id && id->empty()) id.reset();
  return id;
}

typed_result<std::string> provider_client::action_status(operation_id op, const std::string& id) {
  const auto& a = *spec_.operation(op)->action;
  template_vars vars{{"action_id", id}};
  for (const auto& [k, v] : spec_.variables) vars.emplace(k, v);
  typed_result<std::string> out{raw("GET", render_path(a.path, vars))};
  if (!out.call.success) return out;
  // The read answers the action object alone when the spec says where it sat in the answer.
  const auto pointer = a.status_pointer.substr(a.read_item.size());
  if (auto status = out.call.json ? string_at(*out.call.json, pointer) : std::nullopt; status && !status->empty()) out.value = *status;
  else
    out.problem = "the action carries no status at " + pointer;
  return out;
}

typed_result<std::vector<ssh_key>> provider_client::list_ssh_keys() {
  return mapped_walk<ssh_key>(*this, operation_id::ssh_keys_list,
                              [this](const auto& i) { return to_ssh_key(i, operation_id::ssh_keys_list); });
}

namespace {

// The account's keys as one set replaced whole, with `add` added or `remove` removed; nullopt
// (and `out` the failed list) when the set cannot be read, as sending a partial set would
// remove the keys left out.
std::optional<nlohmann::json> key_set(provider_client& c, call_result& out, const std::string& add, const std::string& remove) {
  auto listed = c.list_ssh_keys();
  if (!listed.value) {
    out = listed.call;
    out.success = false;
    return std::nullopt;
  }
  auto keys = nlohmann::json::array();
  bool present = false;
  for (const auto& k : *listed.value) {
    if (!remove.empty() && (k.id == remove || k.public_key == remove)) continue;
    present = present || k.public_key == add;
    keys.push_back(k.public_key);
  }
  if (!add.empty() && !present) keys.push_back(add);
  return keys;
}

}  // namespace

bool provider_client::deletes_ssh_keys() const {
  const auto* add = spec_.operation(operation_id::ssh_keys_add);
  return spec_.operation(operation_id::ssh_keys_delete) != nullptr ||
         (add != nullptr && add->replaces_key_set && spec_.operation(operation_id::ssh_keys_list) != nullptr);
}

typed_result<ssh_key> provider_client::add_ssh_key(const std::string& name, const std::string& public_key) {
  const auto* add = spec_.operation(operation_id::ssh_keys_add);
  if (add != nullptr && add->replaces_key_set) {
    // The set listed, with this key: the key is its own id (RunPod's keys have no name or id).
    typed_result<ssh_key> out;
    auto keys = key_set(*this, out.call, public_key, "");
    if (!keys) {
      out.problem = "the account's SSH keys could not be read, so the set that replaces them was not sent";
      return out;
    }
    out.call = call(operation_id::ssh_keys_add, {{"name", name}, {"public_key", public_key}, {"public_keys", *keys}});
    if (out.call.success) out.value = ssh_key{public_key, "", public_key};
    return out;
  }
  typed_result<ssh_key> out{call(operation_id::ssh_keys_add, {{"name", name}, {"public_key", public_key}})};
  if (!out.call.success) return out;
  const auto& op = *spec_.operation(operation_id::ssh_keys_add);
  if (auto id = bare_text_id(op, out.call)) {
    // The answer is the new key's id alone: the key is what was sent.
    if (id->empty()) out.problem = "the response carries no key id";
    else
      out.value = ssh_key{*id, name, public_key};
    return out;
  }
  const auto* obj = out.call.json ? find_pointer(*out.call.json, op.item.value_or("")) : nullptr;
  if (obj == nullptr || !obj->is_object()) out.problem = "the response carries no key object";
  else
    out.value = to_ssh_key(*obj, operation_id::ssh_keys_add);
  return out;
}

call_result provider_client::delete_ssh_key(const std::string& id) {
  const auto* add = spec_.operation(operation_id::ssh_keys_add);
  if (spec_.operation(operation_id::ssh_keys_delete) == nullptr && add != nullptr && add->replaces_key_set) {
    call_result out;
    auto keys = key_set(*this, out, "", id);
    if (!keys) return out;
    return call(operation_id::ssh_keys_add, {{"public_keys", *keys}});
  }
  return call(operation_id::ssh_keys_delete, {{"id", id}});
}

}  // namespace neograde
