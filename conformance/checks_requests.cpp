// Checks that need one or a few requests and create nothing billable, and the validation checks
// that send (gated) launch requests meant to be refused.

#include "context.hpp"
#include "lifecycle_judges.hpp"

#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/supply.hpp>
#include <neograde/core/template.hpp>

#include <set>

namespace neograde::conformance::detail {
namespace {

// auth.credentials.*: "A request without (or with invalid or malformed) credentials MUST be
// rejected with 401 or 403 and the provider's error envelope." RFC 9110 §15.5.2, §15.5.4.
check_outcome credentials_rejected(context& ctx, const char* id, const call_result& r, const char* what, bool need_envelope = true) {
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (r.status() >= 200 && r.status() < 300)
    return make(id, outcome::fail, std::string("a request ") + what + " was served (HTTP " + std::to_string(r.status()) + ")",
                {r.evidence});
  if (r.status() != 401 && r.status() != 403)
    return make(id, outcome::fail, std::string("a request ") + what + " got HTTP " + std::to_string(r.status()) + ", expected 401 or 403",
                {r.evidence});
  if (need_envelope)
    if (auto problem = envelope_problem(r, ctx))
      return make(id, outcome::fail, "rejected with " + std::to_string(r.status()) + ", but " + *problem, {r.evidence});
  return make(id, outcome::pass, "rejected with HTTP " + std::to_string(r.status()), {r.evidence});
}

// schema.offers.matches_schema: "The offers listing MUST match its documented schema."
check_outcome offers_schema(context& ctx, const call_result& r) {
  const char* id = "schema.offers.matches_schema";
  if (auto c = provider_condition(r, ctx.spec)) return make(id, *c, r.describe(), {r.evidence});
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (!r.success) return make(id, outcome::fail, "listing offers failed: " + r.describe(), {r.evidence});
  if (!r.json) return make(id, outcome::fail, "the offers response is not JSON", {r.evidence});
  if (auto skip = ctx.unmet(id)) return *skip;
  auto violations = json_schema(*ctx.spec.operation(operation_id::list_offers)->response_schema).validate(*r.json);
  if (violations.empty()) return make(id, outcome::pass, "the response matches the schema", {r.evidence});
  std::string reason = std::to_string(violations.size()) + " schema violation(s); first at \"" + violations.front().pointer +
                       "\": " + violations.front().message;
  return make(id, outcome::fail, reason, {r.evidence});
}

// schema.offers.prices_valid and types_unique, over the walked offers.
void offers_content(context& ctx) {
  auto offers = ctx.client.list_offers();
  const char* prices = "schema.offers.prices_valid";
  const char* unique = "schema.offers.types_unique";
  if (!offers.value) {
    ctx.emit(make(prices, outcome::errored, "offers could not be listed: " + offers.call.describe(), {offers.call.evidence}));
    ctx.emit(make(unique, outcome::errored, "offers could not be listed: " + offers.call.describe(), {offers.call.evidence}));
    return;
  }
  // Who supplies the catalogue, where its rows name an underlying supplier: measured from this read
  // alone, graded in the scorecard against the spec's supply claim (reports/transparency.cpp).
  if (ctx.spec.offer_fields.contains("underlying_provider"))
    if (const auto supply = measure_supply(*offers.value)) ctx.measurements[measurement::supply_composition::key] = *supply;
  if (ctx.applies(prices)) {
    auto bad = std::find_if(offers.value->begin(), offers.value->end(),
                            [](const offer& o) { return !o.price_per_hour_usd || *o.price_per_hour_usd < 0; });
    if (bad == offers.value->end())
      ctx.emit(make(prices, outcome::pass, std::to_string(offers.value->size()) + " offers priced", {offers.call.evidence}));
    else
      ctx.emit(make(prices, outcome::fail,
                    "offer " + bad->key() + " has " +
                        (bad->price_per_hour_usd ? "price " + std::to_string(*bad->price_per_hour_usd) : std::string("no price")),
                    {offers.call.evidence}));
  }
  // Rows are judged by their full key: the same type in two regions, or with two templates, is
  // two offers; the same row twice is a duplicate.
  std::set<std::string> keys;
  for (const auto& o : *offers.value)
    if (!keys.insert(o.key()).second)
      return ctx.emit(make(unique, outcome::fail, "the offer " + o.key() + " is listed twice", {offers.call.evidence}));
  ctx.emit(make(unique, outcome::pass, std::to_string(keys.size()) + " distinct offer rows", {offers.call.evidence}));
}

// pagination.offers.walk_ends: the catalogue walked one row per page, each answer kept with its
// rows (their JSON text: a row is told by all it says).
void offers_walk(context& ctx) {
  if (!ctx.applies(lifecycle::offers_walk_id)) return;
  const auto& op = *ctx.spec.operation(operation_id::list_offers);
  offers_walk_record w;
  const auto from = ctx.seen.size();
  w.walked = ctx.client.walk(operation_id::list_offers, 1);
  for (auto i = from; i < ctx.seen.size(); ++i) {
    const auto& o = ctx.seen[i];
    if (o.op != operation_id::list_offers || !o.result.success || !o.result.json) continue;
    page_read p{.result = o.result, .ids = {}};
    for (const auto& row : ctx.client.collection(*o.result.json, op)) p.ids.push_back(row.dump());
    w.pages.push_back(std::move(p));
  }
  ctx.emit(lifecycle::judge_offers_walk(w, *op.pagination));
}

// errors.instance.unknown_id_is_404: "Reading an instance that does not exist MUST answer 404."
check_outcome unknown_id(const call_result& r) {
  const char* id = "errors.instance.unknown_id_is_404";
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (r.status() == 404 || r.status() == 410) return make(id, outcome::pass, "HTTP " + std::to_string(r.status()), {r.evidence});
  return make(id, outcome::fail, "an unknown instance id got HTTP " + std::to_string(r.status()) + ", expected 404", {r.evidence});
}

// errors.envelope.on_client_errors: "Every 4xx response MUST carry the provider's error
// envelope with a JSON content type."
check_outcome envelopes(context& ctx, const std::vector<call_result>& samples) {
  const char* id = "errors.envelope.on_client_errors";
  std::vector<exchange> seen;
  for (const auto& r : samples) {
    if (!is_client_error(r) || r.status() == 429) continue;
    seen.push_back(r.evidence);
    if (auto problem = envelope_problem(r, ctx))
      return make(id, outcome::fail,
                  r.evidence.method + " " + r.evidence.url + " got HTTP " + std::to_string(r.status()) + ", but " + *problem, {r.evidence});
  }
  if (seen.empty()) return not_applicable(id, "no client error was observed to inspect");
  auto reason = std::to_string(seen.size()) + " client errors carried the envelope";
  return make(id, outcome::pass, std::move(reason), std::move(seen));
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
  const auto path = ctx.path_of(*op);
  auto r = deliberately(ctx.client.raw("PATCH", path, "{}", "application/json"), "an unsupported method (PATCH)");
  if (!r.response) return make(id, outcome::errored, r.describe(), {r.evidence});
  if (r.status() == 405) {
    if (r.response->header("Allow").empty())
      return make(id, outcome::fail, "HTTP 405 without the Allow header RFC 9110 §15.5.6 requires", {r.evidence});
    return make(id, outcome::pass, "HTTP 405, Allow: " + r.response->header("Allow"), {r.evidence});
  }
  if (is_client_error(r)) {
    // Where the path is also another operation's with an id in its place (Hot Aisle's
    // .../virtual_machines/available/ reads as the VM named "available"), the server may route
    // PATCH there and answer for that resource: no verdict the provider could not refute.
    const auto route = path.substr(0, path.find('?'));
    for (const auto& [other_id, other] : ctx.spec.operations) {
      std::map<std::string, std::string> params;
      const auto tmpl = other.path.substr(0, other.path.find('?'));
      if (other_id != op->id && match_path(tmpl, route, params) &&
          std::any_of(params.begin(), params.end(), [&](const auto& p) { return !ctx.spec.variables.contains(p.first); }))
        return make(id, outcome::skipped,
                    "not judged: PATCH got HTTP " + std::to_string(r.status()) + ", but the path also matches " + other.method + " " +
                        tmpl + ", which a server may route PATCH to",
                    {r.evidence});
    }
    return make(id, outcome::warn, "an unsupported method got HTTP " + std::to_string(r.status()) + " instead of 405", {r.evidence});
  }
  return make(id, outcome::fail, "an unsupported method got HTTP " + std::to_string(r.status()), {r.evidence});
}

// http.method.head_supported: HEAD answered with GET's status, never a 5xx.
void head_supported(context& ctx, const std::string& path) {
  const char* id = "http.method.head_supported";
  auto get = ctx.client.raw("GET", path);
  auto head = ctx.client.raw("HEAD", path);
  if (!head.response) ctx.emit(make(id, outcome::errored, head.describe(), {head.evidence}));
  else if (head.status() >= 500)
    ctx.emit(make(id, outcome::fail, "HEAD got HTTP " + std::to_string(head.status()), {head.evidence}));
  else if (head.status() != get.status())
    ctx.emit(make(id, outcome::fail, "HEAD got HTTP " + std::to_string(head.status()) + " where GET got " + std::to_string(get.status()),
                  {head.evidence, get.evidence}));
  // A HEAD answer is read without a body whatever its length headers say (RFC 9110 §9.3.2), so a
  // body sent anyway shows only as a connection the client does not reuse.
  else
    ctx.emit(make(id, outcome::pass, "HTTP " + std::to_string(head.status()) + " as for GET", {head.evidence}));
}

// http.method.options_sane: an OPTIONS probe is never answered with a 5xx.
void options_sane(context& ctx, const std::string& path) {
  const char* id = "http.method.options_sane";
  auto options = deliberately(ctx.client.raw("OPTIONS", path), "an OPTIONS probe the API need not document");
  if (!options.response) ctx.emit(make(id, outcome::errored, options.describe(), {options.evidence}));
  else if (options.status() >= 500)
    ctx.emit(make(id, outcome::fail, "OPTIONS got HTTP " + std::to_string(options.status()), {options.evidence}));
  else
    ctx.emit(make(id, outcome::pass, "HTTP " + std::to_string(options.status()), {options.evidence}));
}

// The path HEAD is sent to: the instance list's or the catalogue's where it is a GET, else any
// declared GET's. HEAD is GET's: CloudRift's POST-only list and RunPod's GraphQL have no GET, and
// the check's need says so.
std::string head_path(const context& ctx) {
  for (auto id : {operation_id::list, operation_id::list_offers})
    if (const auto* op = ctx.spec.operation(id); op != nullptr && op->method == "GET") return ctx.path_of(*op);
  for (const auto& [id, op] : ctx.spec.operations)
    if (op.method == "GET") return ctx.path_of(op);
  return {};
}

void head_and_options(context& ctx) {
  if (ctx.applies("http.method.head_supported")) head_supported(ctx, head_path(ctx));
  options_sane(ctx, ctx.path_of(*ctx.spec.operation(operation_id::list)));
}

// auth.credentials.not_accepted_in_query: "Credentials MUST NOT be accepted in the query string."
check_outcome key_in_query(context& ctx, const std::string& key) {
  const char* id = "auth.credentials.not_accepted_in_query";
  if (auto skip = ctx.unmet(id)) return *skip;
  const auto path = ctx.path_of(*ctx.spec.operation(operation_id::list));
  auto r = deliberately(ctx.client.raw("GET", path + (path.find('?') == std::string::npos ? "?" : "&") + "api_key=" + key + "&token=" + key,
                                       {}, {}, auth_mode::none),
                        "the key in the query string instead of its documented place");
  return credentials_rejected(ctx, id, r, "with the key in the query string", false);
}

// auth.challenge.www_authenticate_on_401: "A 401 SHOULD carry WWW-Authenticate."
check_outcome challenge(const call_result& r) {
  const char* id = "auth.challenge.www_authenticate_on_401";
  if (r.status() != 401) return not_applicable(id, "missing credentials got HTTP " + std::to_string(r.status()) + ", not 401");
  if (r.response->header("WWW-Authenticate").empty())
    return make(id, outcome::fail, "the 401 carries no WWW-Authenticate challenge", {r.evidence});
  return make(id, outcome::pass, "WWW-Authenticate: " + r.response->header("WWW-Authenticate"), {r.evidence});
}

// auth.scheme.case_insensitive: "The auth scheme name SHOULD be matched case-insensitively."
check_outcome scheme_case(context& ctx) {
  const char* id = "auth.scheme.case_insensitive";
  if (auto skip = ctx.unmet(id)) return *skip;
  auto r = deliberately(ctx.client.call(operation_id::list, {}, auth_mode::lowercase_scheme), "a lower-case auth scheme name");
  if (r.success) return make(id, outcome::pass, "a lower-case scheme name is accepted", {r.evidence});
  return make(id, outcome::fail, "a lower-case scheme name got " + r.describe(), {r.evidence});
}

// errors.*.<op>_unknown_is_4xx: acting on an id that does not exist.
void unknown_targets(context& ctx) {
  const std::string none = "neograde-none-" + ctx.session.run_id();
  const std::tuple<const char*, operation_id, const char*> cases[] = {
      {"errors.instance.terminate_unknown_is_4xx", operation_id::terminate, "terminating an unknown instance"},
      {"errors.instance.restart_unknown_is_4xx", operation_id::restart, "restarting an unknown instance"},
      {"errors.ssh_key.delete_unknown_is_4xx", operation_id::ssh_keys_delete, "deleting an unknown SSH key"},
  };
  for (const auto& [id, op, what] : cases) {
    if (ctx.applies(id)) ctx.emit(expect_4xx(id, ctx.client.call(op, {{"id", none}}), what));
  }
}

// validation.*: launches meant to be refused. Anything one creates anyway is terminated at once
// (and swept by name at the end of the run).
void validation(context& ctx) {
  const char* ids[] = {"validation.launch.unknown_instance_type_rejected", "validation.launch.wrong_type_rejected",
                       "validation.launch.missing_required_rejected",      "validation.launch.long_name_no_5xx",
                       "validation.launch.non_ascii_name_no_5xx",          "validation.launch.unknown_region_rejected",
                       "validation.launch.unknown_image_rejected",         "validation.launch.unknown_ssh_key_rejected"};
  // Spending is the first need of each: without it nothing is sent, not even the offers read.
  if (!ctx.spend.allowed) {
    for (const char* id : ids) (void)ctx.applies(id);
    return;
  }
  auto target = launchable_offer(ctx);
  // A launch of the target row as the client sends it, with the case's own variables; `drop`
  // leaves one out (without a target, the instance type is the case's or none).
  auto launch = [&](const template_vars& own, const char* drop = nullptr) {
    auto vars = launch_vars_for(ctx, target);
    for (const auto& [k, v] : own) vars[k] = v;
    if (drop != nullptr) vars.erase(drop);
    auto r = ctx.client.call(operation_id::launch, vars);
    const auto client_id = vars.contains("client_id") ? vars.at("client_id").get<std::string>() : std::string();
    if (auto created = ctx.client.launched_id(r, client_id)) (void)ctx.client.terminate(*created);
    return r;
  };
  const auto name = ctx.prefix() + "val";
  // Where the launch names no instance type (Akash's SDL, a YAML string of its own), nothing to vary.
  if (ctx.applies(ids[0]))
    ctx.emit(expect_4xx(
        ids[0], launch({{"instance_type", "neograde-no-such-type-" + ctx.session.run_id()}, {"name", name}, {"client_id", name + "1"}}),
        "a launch of an unknown instance type"));
  if (ctx.applies(ids[1]))
    ctx.emit(expect_4xx(ids[1], launch({{"instance_type", 12345}, {"name", name}, {"client_id", name + "2"}}),
                        "a launch with a number for the instance type"));
  // Without the instance type: the template rendered with every other variable.
  if (ctx.applies(ids[2]))
    ctx.emit(expect_4xx(ids[2], launch({{"name", name}, {"client_id", name + "3"}}, "instance_type"), "a launch without an instance type"));
  auto no_5xx = [&](const char* id, const std::string& odd_name, const char* what) {
    // These launches are valid and create an instance: in live mode only with a spare one in the
    // budget, the first being the lifecycle's.
    const auto& ledger = ctx.client.ledger();
    if (ledger.live() && ledger.rules().budget.max_instances - ledger.launched() < 2)
      return ctx.emit(make(id, outcome::skipped,
                           "live mode: this launch would create a billed instance, and the budget (--max-instances " +
                               std::to_string(ledger.rules().budget.max_instances) + ") keeps it for the lifecycle"));
    auto r = deliberately(launch({{"name", odd_name}, {"client_id", odd_name}}), what);
    if (r.not_sent) return ctx.emit(make(id, outcome::skipped, r.describe()));
    if (!r.response) return ctx.emit(make(id, outcome::errored, r.describe(), {r.evidence}));
    if (r.status() == 429) return ctx.emit(make(id, outcome::rate_limited, r.describe(), {r.evidence}));
    if (r.status() >= 500) return ctx.emit(make(id, outcome::fail, std::string(what) + " got " + r.describe(), {r.evidence}));
    ctx.emit(make(id, outcome::pass, "HTTP " + std::to_string(r.status()), {r.evidence}));
  };
  no_5xx(ids[3], ctx.prefix() + std::string(300, 'n'), "a 300-character name");
  no_5xx(ids[4],
         ctx.prefix() +
             "\xc3\xb1"
             "ame-\xe6\x97\xa5\xe6\x9c\xac-\xf0\x9f\x9a\x80",
         "a non-ASCII name");
  if (ctx.applies(ids[5]))
    ctx.emit(expect_4xx(ids[5], launch({{"region", "neograde-nowhere-1"}, {"name", name}, {"client_id", name + "4"}}),
                        "a launch in a region that does not exist"));
  // References that name nothing, where the launch sends them and the provider documents
  // refusing them (operations.launch.refuses_unknown, with its source): an image silently
  // replaced, or an instance nobody can log in to, is worse than a 4xx.
  const std::tuple<const char*, const char*, const char*> references[] = {
      {ids[6], "image", "a launch naming an image that does not exist"},
      {ids[7], "ssh_key_name", "a launch naming an SSH key the account does not have"},
  };
  for (const auto& [id, var, what] : references)
    if (ctx.applies(id))
      ctx.emit(
          expect_4xx(id, launch({{var, "neograde-no-such-" + ctx.session.run_id()}, {"name", name}, {"client_id", name + var}}), what));
}

}  // namespace

void run_request_checks(context& ctx) {
  std::vector<call_result> client_errors;
  auto no_key = deliberately(ctx.client.call(operation_id::list, {}, auth_mode::none), "without credentials");
  client_errors.push_back(no_key);
  ctx.emit(credentials_rejected(ctx, "auth.credentials.missing_rejected", no_key, "without credentials"));
  auto bad_key = deliberately(ctx.client.call(operation_id::list, {}, auth_mode::invalid), "with an invalid key");
  client_errors.push_back(bad_key);
  ctx.emit(credentials_rejected(ctx, "auth.credentials.invalid_rejected", bad_key, "with an invalid key"));
  auto malformed = deliberately(ctx.client.call(operation_id::list, {}, auth_mode::malformed), "with a malformed credential");
  ctx.emit(credentials_rejected(ctx, "auth.credentials.malformed_rejected", malformed, "with a malformed credential", false));
  ctx.emit(key_in_query(ctx, ctx.session.options().api_key));
  ctx.emit(challenge(no_key));
  ctx.emit(scheme_case(ctx));

  ctx.emit(offers_schema(ctx, ctx.client.call(operation_id::list_offers)));
  offers_content(ctx);
  offers_walk(ctx);

  if (ctx.applies("errors.instance.unknown_id_is_404")) {
    auto missing = deliberately(ctx.client.call(operation_id::get, {{"id", "neograde-no-such-instance-" + ctx.session.run_id()}}),
                                "an instance id that names nothing");
    client_errors.push_back(missing);
    ctx.emit(unknown_id(missing));
  }

  // Not a sample of the envelope: the provider documents its envelope for the errors of its
  // operations, and a path no document lists may be answered by whatever routes in front of them.
  auto nowhere = deliberately(ctx.client.raw("GET", "/neograde-no-such-path-" + ctx.session.run_id()), "a path the API does not have");
  ctx.emit(unknown_path(nowhere));

  ctx.emit(wrong_method(ctx));
  head_and_options(ctx);
  broken_bodies(ctx, client_errors);
  unknown_targets(ctx);
  validation(ctx);
  schema_constraints(ctx);
  if (ctx.applies("errors.envelope.on_client_errors")) ctx.emit(envelopes(ctx, client_errors));
}

}  // namespace neograde::conformance::detail
