// The model's construction, where everything a request reads from the spec is read once, and
// the public class, which answers one request at a time under the lock.

#include "model_impl.hpp"

#include <neograde/core/base64.hpp>
#include <neograde/core/clock.hpp>
#include <neograde/core/provenance.hpp>
#include <neograde/core/schema_mutations.hpp>

#include <boost/url/parse.hpp>

#include <algorithm>
#include <thread>

namespace neograde::emulator {

namespace {

// Whether the request schema requires the member at `pointer` (every object on the way lists
// it as required); without a schema, every member the body template sends counts as required.
bool required_by_schema(const operation_spec& op, const std::string& pointer) {
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

// The literal strings and booleans of a body template, by pointer (its placeholders and numbers,
// which may be defaults, select nothing).
std::vector<std::pair<std::string, nlohmann::json>> selectors_of(const nlohmann::json& body) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  const auto flat = body.flatten();
  for (const auto& [ptr, value] : flat.items()) {
    if (value.is_string() && value.get_ref<const std::string&>().starts_with("{{")) continue;
    if (value.is_string() || value.is_boolean()) out.emplace_back(ptr, value);
  }
  return out;
}

// The quirks named in the options; a name no quirk has switches nothing on (the CLI refuses it).
std::bitset<quirk_count> resolve_quirks(const quirk_set& names) {
  std::bitset<quirk_count> on;
  for (const auto& name : names)
    if (const auto q = quirk_named(name)) on.set(static_cast<std::size_t>(*q));
  return on;
}

}  // namespace

provider_model::impl::impl(const provider_spec& s, model_options o)
    : spec(s), opts(std::move(o)), emu(parse_emulator_section(s)), quirks(resolve_quirks(opts.quirks)) {
  if (!opts.now) opts.now = [] { return clock::now(); };
  if (auto u = boost::urls::parse_uri(spec.base_url)) base_path = std::string(u->encoded_path());
  while (!base_path.empty() && base_path.back() == '/') base_path.pop_back();
  for (const auto& [id, op] : spec.operations) {
    if (op.request_schema) request_schemas.emplace(id, json_schema(*op.request_schema));
    if (op.request_schema && id == operation_id::launch && has(quirk::out_of_range_accepted))
      unbounded_launch_schema.emplace(without_keywords(*op.request_schema, {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}));
    if (op.graphql_operation) graphql_argument_variables.emplace(id, argument_variables(op));
    else if (op.body)
      body_selectors.emplace(id, selectors_of(*op.body));
  }
  if (const auto* launch = spec.operation(operation_id::launch); launch != nullptr)
    for (const auto& step : launch->then) {
      const auto path = step.path.substr(0, step.path.find('?'));
      const bool shared = std::any_of(spec.operations.begin(), spec.operations.end(), [&](const auto& o) {
        return o.second.method == step.method && o.second.path.substr(0, o.second.path.find('?')) == path;
      });
      step_selectors.push_back(shared && step.body ? selectors_of(*step.body) : std::vector<std::pair<std::string, nlohmann::json>>{});
      step_shares_path.push_back(shared);
    }
  if (const auto* launch = spec.operation(operation_id::launch); launch != nullptr && launch->body) {
    launch_placeholders = template_pointers(*launch->body);
    const auto region = launch_placeholders.find("region");
    launch_requires_region = region != launch_placeholders.end() && required_by_schema(*launch, region->second);
  }
  for (const auto& key : opts.api_keys) tenant_of_key.emplace(key, tenant_of_key.size());
  accounts.resize(std::max<std::size_t>(1, opts.api_keys.size()));
}

clock::duration provider_model::impl::scaled(double seconds) const {
  return std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds * opts.time_scale));
}

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
    else if (type == auth_scheme::oauth2_client_credentials)
      keys.push_back(id + ":" + prefix + "_secret_" + hex(24));
    else
      keys.push_back(id);
  }
  return keys;
}

provider_model::provider_model(const provider_spec& spec, model_options options)
    : impl_(std::make_unique<impl>(spec, std::move(options))) {}

provider_model::~provider_model() = default;

http::response provider_model::handle(const http::request& req) {
  std::lock_guard lock(impl_->mu);
  // Every fourth read is slow: enough to push p95 over the expectation. It is said in a header
  // too, which a run judges by (the loopback round trip measures the machine, not the emulator).
  std::chrono::milliseconds service{0};
  if (impl_->has(quirk::slow_responses) && (req.method == "GET" || req.method == "HEAD") && ++impl_->slow_counter % 4 == 0) {
    service = latency_threshold(impl_->spec, impl_->opts.time_scale) * 3 / 2;
    std::this_thread::sleep_for(service);
  }
  header_list advertised;
  auto r = impl_->dispatch(req, advertised);
  const bool success = r.status >= 200 && r.status < 300;
  if (r.status != 401 && !(success && impl_->has(quirk::no_rate_limit_headers_on_success)))
    r.headers.insert(r.headers.end(), advertised.begin(), advertised.end());
  if (req.method == "HEAD") {
    // The length GET's content would have, where a GET answer has content at all (never on 1xx,
    // 204 or 304: RFC 9110 §8.6); the emulator's transport keeps it as it is.
    if (impl_->opts.head_content_length && r.status >= 200 && r.status != 204 && r.status != 304)
      r.headers.emplace_back("Content-Length", std::to_string(r.body.size()));
    r.body.clear();
  }
  // An origin server with a clock MUST send Date (RFC 9110 §6.6.1).
  if (!impl_->has(quirk::no_date_header)) r.headers.emplace_back("Date", http_date_now());
  r.headers.emplace_back(emulator_header_name, impl_->spec.provider.id);
  r.headers.emplace_back(time_scale_header_name, std::to_string(impl_->opts.time_scale));
  r.headers.emplace_back(service_time_header_name, std::to_string(service.count()));
  return r;
}

const std::string& provider_model::base_path() const { return impl_->base_path; }

std::size_t provider_model::live_instances() const {
  std::lock_guard lock(impl_->mu);
  std::size_t n = 0;
  for (const auto& a : impl_->accounts)
    n += static_cast<std::size_t>(std::count_if(a.instances.begin(), a.instances.end(), [](const auto& i) { return !i.terminated_at; }));
  return n;
}

std::size_t provider_model::instances_created() const {
  std::lock_guard lock(impl_->mu);
  return impl_->created;
}

std::size_t provider_model::create_requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->create_requests;
}

std::size_t provider_model::ssh_keys_created() const {
  std::lock_guard lock(impl_->mu);
  return impl_->keys_created;
}

const provider_spec& provider_model::spec() const { return impl_->spec; }
const model_options& provider_model::options() const { return impl_->opts; }

}  // namespace neograde::emulator
