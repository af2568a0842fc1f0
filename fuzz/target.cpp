// The API under fuzz: budget, pacing, the oracles every response is held to, and teardown.

#include "engine.hpp"

#include <neograde/clients/spend.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <set>
#include <thread>

namespace neograde::fuzz::detail {

std::string violation::status_class() const {
  if (status == 0) return "no-response";
  return std::to_string(status / 100) + "xx";
}

target::target(neograde::session& s, const fuzz_options& options)
    : session_(s),
      spec_(s.spec()),
      opts_(options),
      errors_(std::make_shared<const error_oracle>(s.spec())),
      shared_(std::make_shared<shared_state>()),
      prefix_(s.prefix()) {
  loopback_ = !is_live_target(s.base_url(), false);
  const double rate = options.rate > 0 ? options.rate : (loopback_ ? 0.0 : 5.0);
  interval_s_ = rate > 0 ? 1.0 / rate : 0.0;
  // The hook of every client of the campaign, its lanes' included: they count and pace here.
  s.configure_http([this](http::client_options& http) {
    http.before_attempt = [this] { before_attempt(); };
    // Findings carry the exchange that decided them (last_exchange); a campaign of many thousand
    // requests keeps no transcript, so its memory does not grow with its length.
    http.transcript_limit = 0;
  });
  primary_ = &s.primary();
  second_ = s.second();
  auto schemas = std::make_shared<std::map<operation_id, json_schema>>();
  for (const auto& [id, op] : spec_.operations)
    if (op.response_schema) {
      try {
        schemas->emplace(id, json_schema(*op.response_schema));
      } catch (const std::exception&) {}
    }
  response_schemas_ = std::move(schemas);
}

target::target(target& main, int lane)
    : session_(main.session_),
      spec_(main.spec_),
      opts_(main.opts_),
      loopback_(main.loopback_),
      errors_(main.errors_),
      response_schemas_(main.response_schemas_),
      shared_(main.shared_),
      own_primary_(session_.connection(false)),
      own_second_(session_.connection(true)),
      primary_(own_primary_.get()),
      second_(own_second_.get()),
      prefix_(main.prefix_ + "c" + std::to_string(lane) + "-"),
      interval_s_(main.interval_s_) {
  offers = main.offers;
  ssh_key_name = main.ssh_key_name;
  ssh_key_id = main.ssh_key_id;
}

bool target::may_launch() const {
  const int cap = opts_.max_instances > 0 ? opts_.max_instances : (loopback_ ? 200 : 10);
  return session_.spend().allowed && shared_->launched < cap && spec_.operation(operation_id::launch) != nullptr &&
         !session_.ledger().would_refuse(offers.empty() ? std::string() : offers.front().instance_type);
}

bool target::spent() const {
  if (shared_->unlimited) return false;
  if (shared_->stopped || shared_->requests >= opts_.max_requests) return true;
  return opts_.duration.count() > 0 && std::chrono::steady_clock::now() - shared_->started >= opts_.duration;
}

void target::before_attempt() {
  if (spent()) throw budget_spent{};
  // Counted and checked at once: lanes racing for the last request send it once between them.
  if (++shared_->requests > opts_.max_requests && !shared_->unlimited) {
    --shared_->requests;
    throw budget_spent{};
  }
  if (interval_s_ <= 0) return;
  std::chrono::steady_clock::time_point slot;
  {
    std::lock_guard lock(shared_->pacing);
    const auto now = std::chrono::steady_clock::now();
    slot = std::max(now, shared_->next_slot);
    shared_->next_slot = slot + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(interval_s_));
  }
  std::this_thread::sleep_until(slot);
}

std::chrono::milliseconds target::scaled(double seconds) const {
  const double scale = session_.time_scale();
  return std::chrono::milliseconds(static_cast<long long>(seconds * scale * 1000));
}

namespace {
// A GraphQL-style error: a 2xx whose body carries errors where the spec says.
bool in_success_body_error(const provider_spec& spec, const call_result& r) {
  if (!spec.errors.in_success_body || !r.json || r.status() < 200 || r.status() >= 300) return false;
  const auto* errors = find_pointer(*r.json, *spec.errors.in_success_body);
  return errors != nullptr && !errors->is_null() && !(errors->is_array() && errors->empty());
}
}  // namespace

std::optional<violation> target::judge(const std::string& operation, operation_id op, const call_result& r, expectation expect) const {
  auto make = [&](std::string oracle, std::string message) {
    return violation{
        .oracle = std::move(oracle), .operation = operation, .status = r.status(), .message = std::move(message), .evidence = r.evidence};
  };
  if (r.not_sent) return std::nullopt;  // a launch the spend ledger refused: nothing was sent
  if (!r.response) {
    const auto code = r.transport->code;
    if (code == http::client_errc::bad_url || code == http::client_errc::unsupported_scheme) return std::nullopt;
    return make("no_response", "the request got no HTTP response: " + r.describe());
  }
  const int status = r.status();
  // 501 is what RFC 9110 §15.6.2 prescribes for a method the server does not recognise.
  if (status == 501 && operation == "wrong_method") return std::nullopt;
  // 503 is the server saying it cannot serve now (RFC 9110 §15.6.4): where the spec reads the
  // answer as a provider condition (Verda's 503 "Not enough resources to deploy ..."), it is one.
  if (status == 503 && provider_condition(r, spec_)) return std::nullopt;
  if (status >= 500)
    return make("server_error", "HTTP " + std::to_string(status) + " for a request the client got wrong or right, never the server");
  if (auto m = internal_detail(r.response->body)) return make("internal_details", "the body shows \"" + *m + "\"");
  if (status == 429) return std::nullopt;  // rate limited: not a verdict on the request
  const bool error = (status >= 400 && status < 500) || in_success_body_error(spec_, r);
  // HEAD answers carry no body; 405 often comes from the web server, before the API.
  if (error && status != 405 && r.evidence.method != "HEAD") {
    if (auto problem = errors_->envelope_problem(r)) return make("error_envelope", "an error response " + *problem);
    if (auto code = errors_->undocumented_code(r)) return make("undocumented_code", "error code \"" + *code + "\" is not documented");
  }
  if (r.success) {
    // A read answering "nothing here" with a null object (Vast.ai's {"instances": null}) refuses.
    if (expect == expectation::reject && !(op == operation_id::get && answers_gone(spec_, r)))
      return make("negative_accepted", "a request the API must refuse was accepted: " + r.describe());
    const auto* declared = spec_.operation(op);
    if (declared != nullptr && !declared->text_response && !r.response->body.empty() && !is_json_media(r.content_type(), spec_))
      return make("content_type", "a successful response is labelled \"" + r.content_type() + "\"");
    if (auto it = response_schemas_->find(op); it != response_schemas_->end() && r.json) {
      auto v = it->second.validate(*r.json);
      if (!v.empty()) return make("response_schema", "at \"" + v.front().pointer + "\": " + v.front().message);
    }
    return std::nullopt;
  }
  // A list answering "nothing to list" as the error its spec declares (Vast.ai's 404 for no keys).
  if (expect == expectation::accept && error && !provider_condition(r, spec_) && !answers_empty(spec_, op, r))
    return make("positive_rejected", "a documented request with listed values was refused: " + r.describe());
  return std::nullopt;
}

std::pair<call_result, std::optional<violation>> target::send(const request_case& c) {
  std::string path = c.path;
  if (auto at = path.find("{{api_key}}"); at != std::string::npos) path.replace(at, 11, session_.options().api_key);
  auto r = primary().raw(c.method, path, c.body, c.content_type, c.auth, c.op);
  tally(r, c.generator);
  auto v = judge(c.operation, c.op, r, c.expect);
  if (v && v->oracle == "negative_accepted" && (c.auth != auth_mode::key || c.generator == "credentials_in_query")) {
    v->oracle = "auth_bypass";
    v->message = "a request with " + c.note + " was served: " + r.describe();
  }
  return {std::move(r), std::move(v)};
}

void target::waiting(const std::string& what) {
  if (!opts_.on_progress) return;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(shared_->progress);
    if (shared_->last_progress && now - *shared_->last_progress < std::chrono::minutes(1)) return;
    shared_->last_progress = now;
  }
  opts_.on_progress(std::to_string(requests()) + " requests; waiting " + what);
}

void target::tally(const call_result& r, const std::string& generator) {
  if (r.not_sent) return;  // a launch the spend ledger refused: no request to count
  ++tally_["judged"];
  const int s = r.status();
  // Refused before any business logic ran: transport failures, malformed or unauthenticated
  // requests, unsupported methods and media types, validation failures.
  static const std::set<int> at_door{400, 401, 403, 405, 406, 411, 413, 414, 415, 422, 431};
  const bool door = s == 0 || at_door.contains(s) || (s == 404 && generator == "unknown_path") ||
                    (in_success_body_error(spec_, r) && generator != "valid_request" && generator != "unknown_id");
  ++tally_[door ? "rejected_at_door" : "reached_logic"];
  if (r.success) ++tally_["accepted"];
}

void target::absorb(const target& lane) {
  for (const auto& [k, n] : lane.tally_) tally_[k] += n;
  created.insert(created.end(), lane.created.begin(), lane.created.end());
}

nlohmann::json target::tallies() const {
  auto get = [&](const char* k) {
    auto it = tally_.find(k);
    return it == tally_.end() ? 0L : it->second;
  };
  const long judged = get("judged");
  auto effects = nlohmann::json::object();
  for (const auto& [k, n] : tally_)
    if (k.starts_with("effect:")) effects[k.substr(7)] = n;
  return {{"requests", requests()},
          {"effects_seen", std::move(effects)},
          {"responses_judged", judged},
          {"accepted", get("accepted")},
          {"rejected_at_door", get("rejected_at_door")},
          {"reached_logic", get("reached_logic")},
          {"reached_logic_share", judged == 0 ? 0.0 : static_cast<double>(get("reached_logic")) / static_cast<double>(judged)}};
}

std::vector<std::string> teardown(target& t) {
  teardown_scope no_stopping;
  t.unlimited();
  std::vector<std::string> left;
  auto& c = t.primary();
  const auto prefix = t.session().prefix();  // every lane's names start with the run's prefix
  std::vector<teardown_target> known;
  for (const auto& id : t.created) known.push_back({id, ""});
  for (const auto& i : c.ledger().instances())
    if (!i.deleted) known.push_back({i.id, i.name});
  teardown_options o;
  o.confirm_within = std::max(std::chrono::milliseconds(1000), t.scaled(t.spec().timing.time_to_gone_s));
  o.poll = std::max(std::chrono::milliseconds(10), t.scaled(t.spec().timing.poll_interval_s));
  o.clock = &t.clock();
  auto r = terminate_and_confirm(
      c, known, [&](const instance& i) { return i.name.starts_with(prefix); }, o);
  for (const auto& l : r.leftovers) left.push_back((l.id.empty() ? l.name : l.id) + " (" + l.status + ")");
  if (t.spec().operation(operation_id::ssh_keys_list) != nullptr && t.spec().operation(operation_id::ssh_keys_delete) != nullptr) {
    if (auto keys = c.list_ssh_keys(); keys.value)
      for (const auto& k : *keys.value)
        if (k.name.starts_with(prefix) && !c.delete_ssh_key(k.id).success) left.push_back("ssh key " + k.id);
  }
  return left;
}

}  // namespace neograde::fuzz::detail
