// Checks that need one or a few requests and create nothing billable (except the unknown-type
// launch, which is gated like every launch).

#include "context.hpp"

#include <neograde/core/json_schema.hpp>

namespace neograde::conformance::detail {
namespace {

// auth.credentials.*: "A request without (or with invalid) credentials MUST be rejected with
// 401 or 403 and the provider's error envelope." RFC 9110 §15.5.2, §15.5.4.
check_outcome credentials_rejected(context& ctx, const char* id, const call_result& r, const char* what) {
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (r.status() >= 200 && r.status() < 300)
    return make(id, outcome::fail, std::string("a request ") + what + " was served (HTTP " + std::to_string(r.status()) + ")",
                {r.evidence});
  if (r.status() != 401 && r.status() != 403)
    return make(id, outcome::fail, std::string("a request ") + what + " got HTTP " + std::to_string(r.status()) +
                                       ", expected 401 or 403", {r.evidence});
  if (auto problem = envelope_problem(r, ctx))
    return make(id, outcome::fail, "rejected with " + std::to_string(r.status()) + ", but " + *problem, {r.evidence});
  return make(id, outcome::pass, "rejected with HTTP " + std::to_string(r.status()), {r.evidence});
}

// schema.offers.matches_schema: "The offers listing MUST match its documented schema."
check_outcome offers_schema(context& ctx) {
  const char* id = "schema.offers.matches_schema";
  const auto* op = ctx.spec.operation(operation_id::list_offers);
  auto r = ctx.client.call(operation_id::list_offers);
  if (auto c = provider_condition(r, ctx.spec)) return make(id, *c, r.describe(), {r.evidence});
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (!r.success) return make(id, outcome::fail, "listing offers failed: " + r.describe(), {r.evidence});
  if (!r.json) return make(id, outcome::fail, "the offers response is not JSON", {r.evidence});
  if (!op->response_schema) return make(id, outcome::skipped, "the spec declares no response schema for list_offers");
  auto violations = json_schema(*op->response_schema).validate(*r.json);
  if (violations.empty()) return make(id, outcome::pass, "the response matches the schema", {r.evidence});
  std::string reason = std::to_string(violations.size()) + " schema violation(s); first at \"" +
                       violations.front().pointer + "\": " + violations.front().message;
  return make(id, outcome::fail, reason, {r.evidence});
}

// errors.instance.unknown_id_is_404: "Reading an instance that does not exist MUST answer 404."
check_outcome unknown_id(const call_result& r) {
  const char* id = "errors.instance.unknown_id_is_404";
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (r.status() == 404 || r.status() == 410) return make(id, outcome::pass, "HTTP " + std::to_string(r.status()), {r.evidence});
  return make(id, outcome::fail, "an unknown instance id got HTTP " + std::to_string(r.status()) + ", expected 404",
              {r.evidence});
}

// errors.envelope.on_client_errors: "Every 4xx response MUST carry the provider's error
// envelope with a JSON content type."
check_outcome envelopes(context& ctx, const std::vector<call_result>& samples) {
  const char* id = "errors.envelope.on_client_errors";
  std::vector<exchange> seen;
  for (const auto& r : samples) {
    if (!is_client_error(r)) continue;
    seen.push_back(r.evidence);
    if (auto problem = envelope_problem(r, ctx))
      return make(id, outcome::fail, r.evidence.method + " " + r.evidence.url + " got HTTP " +
                                         std::to_string(r.status()) + ", but " + *problem, {r.evidence});
  }
  if (seen.empty()) return make(id, outcome::skipped, "no client error was observed to inspect");
  auto reason = std::to_string(seen.size()) + " client errors carried the envelope";
  return make(id, outcome::pass, std::move(reason), std::move(seen));
}

// errors.request.malformed_json_is_4xx: "A malformed request body MUST be answered with 4xx."
check_outcome malformed_json(context& ctx, std::vector<call_result>& samples) {
  const char* id = "errors.request.malformed_json_is_4xx";
  // Prefer operations that cannot spend money even on a broken provider; ids in paths name
  // nothing that exists.
  const operation_spec* target = nullptr;
  for (auto op_id : {operation_id::list_offers, operation_id::ssh_keys_add, operation_id::terminate,
                     operation_id::restart, operation_id::launch}) {
    const auto* op = ctx.spec.operation(op_id);
    if (op == nullptr || !op->body) continue;
    if (op_id == operation_id::launch && !ctx.opts.allow_spend) continue;
    target = op;
    break;
  }
  if (target == nullptr) return make(id, outcome::skipped, "the API has no operation with a JSON body that is safe to use here");
  auto r = ctx.client.raw(target->method, ctx.path_of(*target), R"({"name": "neograde", "truncated": )", "application/json");
  samples.push_back(r);
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (is_client_error(r)) return make(id, outcome::pass, "HTTP " + std::to_string(r.status()), {r.evidence});
  return make(id, outcome::fail, "a malformed JSON body got HTTP " + std::to_string(r.status()) + ", expected 4xx",
              {r.evidence});
}

// validation.launch.unknown_instance_type_rejected: "A launch for an instance type that does
// not exist MUST be rejected with 4xx."
check_outcome unknown_type(context& ctx) {
  const char* id = "validation.launch.unknown_instance_type_rejected";
  if (!ctx.opts.allow_spend)
    return make(id, outcome::skipped, "sends a launch request: needs --allow-spend against a non-loopback host");
  std::string region;
  if (auto offers = ctx.client.list_offers(); offers.value)
    for (const auto& o : *offers.value)
      if (!o.regions_available.empty()) {
        region = o.regions_available.front();
        break;
      }
  auto r = ctx.client.launch({"neograde-no-such-type-" + ctx.opts.run_id, region, "", ctx.prefix() + "bogus"});
  if (r.value) (void)ctx.client.terminate(*r.value);  // it should not exist; if it does, it must not leak
  const auto& c = r.call;
  if (!c.response) return make(id, outcome::errored, c.describe(), {c.evidence});
  if (c.status() == 429) return make(id, outcome::rate_limited, c.describe(), {c.evidence});
  if (is_client_error(c)) return make(id, outcome::pass, c.describe(), {c.evidence});
  return make(id, outcome::fail, "a launch of an unknown instance type got " + c.describe() + ", expected 4xx",
              {c.evidence});
}

// http.path.unknown_is_404: "A request for an unknown path SHOULD get 404."
check_outcome unknown_path(const call_result& r) {
  const char* id = "http.path.unknown_is_404";
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (r.status() == 404) return make(id, outcome::pass, "HTTP 404", {r.evidence});
  return make(id, outcome::fail, "an unknown path got HTTP " + std::to_string(r.status()) + ", expected 404", {r.evidence});
}

// http.method.unsupported_is_405_with_allow: "An unsupported method SHOULD get 405, and a 405
// MUST carry an Allow header." RFC 9110 §15.5.6.
check_outcome wrong_method(context& ctx) {
  const char* id = "http.method.unsupported_is_405_with_allow";
  const auto* op = ctx.spec.operation(operation_id::list_offers);
  // PATCH on a read-only catalogue: the least harmful unsupported method on the safest path.
  auto r = ctx.client.raw("PATCH", ctx.path_of(*op), "{}", "application/json");
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (r.status() == 405) {
    if (r.response->header("Allow").empty())
      return make(id, outcome::fail, "HTTP 405 without the Allow header RFC 9110 §15.5.6 requires", {r.evidence});
    return make(id, outcome::pass, "HTTP 405, Allow: " + r.response->header("Allow"), {r.evidence});
  }
  if (is_client_error(r))
    return make(id, outcome::warn, "an unsupported method got HTTP " + std::to_string(r.status()) + " instead of 405",
                {r.evidence});
  return make(id, outcome::fail, "an unsupported method got HTTP " + std::to_string(r.status()), {r.evidence});
}

}  // namespace

void run_request_checks(context& ctx) {
  std::vector<call_result> client_errors;
  auto no_key = ctx.client.call(operation_id::list, {}, auth_mode::none);
  client_errors.push_back(no_key);
  ctx.emit(credentials_rejected(ctx, "auth.credentials.missing_rejected", no_key, "without credentials"));
  auto bad_key = ctx.client.call(operation_id::list, {}, auth_mode::invalid);
  client_errors.push_back(bad_key);
  ctx.emit(credentials_rejected(ctx, "auth.credentials.invalid_rejected", bad_key, "with an invalid key"));
  ctx.emit(offers_schema(ctx));

  if (ctx.spec.operation(operation_id::get) != nullptr) {
    auto missing = ctx.client.call(operation_id::get, {{"id", "neograde-no-such-instance-" + ctx.opts.run_id}});
    client_errors.push_back(missing);
    ctx.emit(unknown_id(missing));
  } else {
    ctx.emit(make("errors.instance.unknown_id_is_404", outcome::skipped, "the API has no get-by-id operation"));
  }

  auto nowhere = ctx.client.raw("GET", "/neograde-no-such-path-" + ctx.opts.run_id);
  client_errors.push_back(nowhere);
  ctx.emit(unknown_path(nowhere));

  ctx.emit(wrong_method(ctx));
  ctx.emit(malformed_json(ctx, client_errors));
  ctx.emit(unknown_type(ctx));
  ctx.emit(envelopes(ctx, client_errors));
}

}  // namespace neograde::conformance::detail
