// Routing: a request to the operation that serves it, by path, method and (where operations
// share both) body; static routes, token and action endpoints, credentials, and the body's
// validation on the way.

#include "model_impl.hpp"

#include <neograde/core/json_util.hpp>
#include <neograde/core/text.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace neograde::emulator {

std::map<std::string, std::string> query_bindings(const std::string& path_template, const std::string& raw_query) {
  std::map<std::string, std::string> out;
  const auto q = path_template.find('?');
  if (q == std::string::npos) return out;
  const auto given = parse_query(raw_query);
  for (const auto& wanted : parse_query(path_template.substr(q + 1))) {
    const auto& v = wanted.second;
    if (v.size() < 3 || v.front() != '{' || v.back() != '}') continue;
    const auto it = std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first == wanted.first; });
    if (it != given.end()) out.emplace(v.substr(1, v.size() - 2), it->second);
  }
  return out;
}

std::string header_of(const http::request& req, std::string_view name) {
  for (const auto& [k, v] : req.headers)
    if (iequals(k, name)) return v;
  return {};
}

// A request path against a path template; with emulator.trailing_slash_optional, a trailing
// slash on either side does not matter (Vast.ai's own CLI adds one its document does not).
// Fixed variables (a project id) must be the spec's: any other value is an unknown path.
bool provider_model::impl::matches(const std::string& tmpl, const std::string& rel, std::map<std::string, std::string>& params) const {
  auto trim = [](std::string p) {
    if (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
  };
  if (!match_path(tmpl, rel, params) && !(emu.trailing_slash_optional && match_path(trim(tmpl), trim(rel), params))) return false;
  return std::all_of(params.begin(), params.end(), [&](const auto& p) {
    auto it = spec.variables.find(p.first);
    return it == spec.variables.end() || it->second == p.second;
  });
}

// Whether a request names an operation the live API serves without credentials (for GraphQL,
// the operation its query names: RunPod serves gpuTypes, and only that, to anyone).
bool provider_model::impl::anonymous_operation(const http::request& req, const std::string& rel) const {
  const std::string m = req.method == "HEAD" ? "GET" : req.method;
  return std::any_of(spec.operations.begin(), spec.operations.end(), [&](const auto& entry) {
    const auto& op = entry.second;
    std::map<std::string, std::string> p;
    return op.anonymous && op.method == m && matches(op.path.substr(0, op.path.find('?')), rel, p) &&
           (!op.graphql_operation || body_selects(op, parse_json(req.body, 64)));
  });
}

// Among operations sharing a method and path, the one the body selects: a GraphQL operation by
// its name in the query, otherwise by the literal values of its body template (RunPod's
// {"action": "terminate"} versus {"action": "restart"}).
bool provider_model::impl::body_selects(const operation_spec& op, const std::optional<nlohmann::json>& body) const {
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
  const auto selectors = body_selectors.find(op.id);
  return selectors == body_selectors.end() || carries(body, selectors->second);
}

bool carries(const std::optional<nlohmann::json>& body, const std::vector<std::pair<std::string, nlohmann::json>>& selectors) {
  return std::all_of(selectors.begin(), selectors.end(), [&](const auto& selector) {
    const auto* got = body ? find_pointer(*body, selector.first) : nullptr;
    return got != nullptr && *got == selector.second;
  });
}

// A documented endpoint that clients call and checks do not (emulator.routes): its static
// answer. `anonymous`: only the routes the real API serves without credentials. A declared
// operation always comes first.
std::optional<http::response> provider_model::impl::static_route(const std::string& method, const std::string& rel, bool anonymous) const {
  const std::string m = method == "HEAD" ? "GET" : method;
  for (const auto& route : emu.routes) {
    if (route.anonymous != anonymous || route.method != m) continue;
    std::map<std::string, std::string> params;
    if (!matches(route.path, rel, params)) continue;
    if (!route.body) return http::response{route.status, {}, {}};
    if (route.body->is_string())  // a plain-text answer
      return http::response{route.status, {{"Content-Type", "text/plain"}}, route.body->get<std::string>()};
    return json_response(route.status, *route.body);
  }
  return std::nullopt;
}

// Whether some operation (its action reads and launch steps included), route or catalogue read
// serves this path, by any method.
bool provider_model::impl::serves_path(const std::string& rel) const {
  std::map<std::string, std::string> p;
  auto served = [&](const std::string& tmpl) { return matches(tmpl.substr(0, tmpl.find('?')), rel, p); };
  return std::any_of(spec.operations.begin(), spec.operations.end(),
                     [&](const auto& o) {
                       const auto& op = o.second;
                       return served(op.path) || (op.action && served(op.action->path)) ||
                              std::any_of(op.then.begin(), op.then.end(), [&](const auto& step) { return served(step.path); });
                     }) ||
         std::any_of(emu.routes.begin(), emu.routes.end(), [&](const auto& r) { return matches(r.path, rel, p); }) ||
         std::any_of(emu.offer_reads.begin(), emu.offer_reads.end(), [&](const auto& r) { return matches(r.path, rel, p); }) ||
         (spec.offer_availability && matches(spec.offer_availability->path, rel, p));
}

// emulator.redirect_slashes: a path no one serves that a served one is with its trailing slash
// added or removed is answered 307 to that one, the query kept, whatever the method and before
// credentials are read: FastAPI's router (Starlette's redirect_slashes, on by default) does so
// before any endpoint's security dependency runs
// (encode/starlette starlette/routing.py @00584f28a1774a23134d18282a25ff9c3ccd1bb3, Router.__call__).
std::optional<http::response> provider_model::impl::slash_redirect(const std::string& rel, const std::string& raw_query) const {
  if (!emu.redirect_slashes || rel == "/" || serves_path(rel)) return std::nullopt;
  const auto other = rel.back() == '/' ? rel.substr(0, rel.size() - 1) : rel + "/";
  if (!serves_path(other)) return std::nullopt;
  return http::response{307, {{"Location", base_path + other + (raw_query.empty() ? "" : "?" + raw_query)}}, {}};
}

http::response provider_model::impl::dispatch(const http::request& req, header_list& advertised) {
  const auto now = opts.now();
  const auto qpos = req.url.find('?');
  const std::string path = req.url.substr(0, qpos);
  const std::string raw_query = qpos == std::string::npos ? std::string() : req.url.substr(qpos + 1);
  if (auto limited = throttle(req, now, advertised)) return *limited;
  if (!path.starts_with(base_path)) return unknown_path();
  const std::string rel = path.size() > base_path.size() ? path.substr(base_path.size()) : std::string("/");

  for (const auto& m : spec.auth.schemes)
    if (m.type == auth_scheme::oauth2_client_credentials && rel == m.token_path && req.method == "POST") return issue_token(req, now);

  if (auto r = slash_redirect(rel, raw_query)) return *r;
  if (auto r = static_route(req.method, rel, true)) return *r;
  if (auto r = static_graphql(req, rel)) return *r;
  auto tenant_index = authenticate(req, rel, raw_query, now);
  // A public catalogue is served to a request without credentials (it reads no account's data).
  if (!tenant_index && !credentials_presented(req, raw_query) && anonymous_operation(req, rel)) tenant_index = 0;
  if (!tenant_index) {
    // A credential header that is not even well-formed ("Bearer" with no token).
    const auto auth = header_of(req, "Authorization");
    if (has(quirk::malformed_auth_500) && !auth.empty() && auth.find(' ') == std::string::npos) return error_response("internal");
    auto r = error_response("unauthorized");
    if (!has(quirk::no_www_authenticate)) r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"api\"");
    return r;
  }
  auto& acct = accounts.at(*tenant_index);
  if (auto r = billing_read(req, rel, raw_query, acct, now)) return *r;
  if (req.method == "GET" || req.method == "HEAD")
    for (const auto& read : emu.offer_reads)
      if (std::map<std::string, std::string> p; matches(read.path, rel, p))
        return list_offers(*spec.operation(operation_id::list_offers), now, raw_query, &read);
  if (std::map<std::string, std::string> p;
      spec.offer_availability && (req.method == "GET" || req.method == "HEAD") && matches(spec.offer_availability->path, rel, p))
    return availability(now);
  if (req.method == "GET" || req.method == "HEAD")
    for (const auto& [id, o] : spec.operations) {
      std::map<std::string, std::string> p;
      if (o.action && matches(o.action->path, rel, p) && p.contains("action_id"))
        return read_action(o, *tenant_index, p.at("action_id"), now);
    }
  if (auto r = serve_step(req.method == "HEAD" ? "GET" : req.method, rel, raw_query, req.body, acct, now)) return *r;
  // HEAD is GET without the body (RFC 9110 §9.3.2); OPTIONS lists the methods of a path.
  const bool head = req.method == "HEAD";
  if (head && has(quirk::head_500)) return error_response("internal");
  if (req.method == "OPTIONS" && has(quirk::options_500)) return error_response("internal");
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
  // A literal path before a template that also matches it (OpenAPI 3.1 Paths Object: "concrete
  // (non-templated) paths would be matched before their templated counterparts"): GET
  // /pods/status is the status read, not the pod named "status".
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
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
    if (!has(quirk::no_allow_header)) {
      std::string allow;
      for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
      r.headers.emplace_back("Allow", allow);
    }
    return r;
  }

  const bool wants_body =
      std::any_of(candidates.begin(), candidates.end(), [](const auto& c) { return c.first->body || c.first->request_schema; });
  std::optional<nlohmann::json> body;
  if (wants_body) {
    if (req.body.empty() && has(quirk::empty_body_500)) return error_response("internal");
    body = parse_json(req.body, 64);
    if (!body) {
      if (has(quirk::malformed_json_500)) return error_response("internal");
      const bool to_launch =
          std::any_of(candidates.begin(), candidates.end(), [](const auto& c) { return c.first->id == operation_id::launch; });
      if (has(quirk::malformed_launch_500) && to_launch && !req.body.empty()) return error_response("internal");
      return error_response("invalid_parameters", "The request body is not valid JSON.");
    }
    if (!body->is_object() && has(quirk::non_object_body_500)) return error_response("internal");
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
  // Counted before any validation: a create refused for its body was still sent.
  if (op->id == operation_id::launch || op->id == operation_id::ssh_keys_add) ++create_requests;
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
  // What the template binds in its own query part (Jarvislabs' destroy?machine_id={id}, Denvr's
  // GetServer?Id={id}&...): the request's query gives it, where the path did not.
  for (auto& [k, v] : query_bindings(op->path, raw_query)) vars.emplace(k, v);
  if (body && op->id == operation_id::launch && op->body) {
    // Quirks of the name handling fire before validation, as a broken backend's would.
    auto named = vars_from_body(*op->body, *body);
    const auto name = named.contains("name") ? first_string(named.at("name")) : std::string();
    if (has(quirk::long_name_500) && name.size() > 64) return error_response("internal");
    if (has(quirk::unicode_500) && std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      return error_response("internal");
  }
  if (body) {
    const bool lenient = (op->id == operation_id::launch && (has(quirk::unknown_type_accepted) || has(quirk::missing_field_accepted))) ||
                         (op->id == operation_id::ssh_keys_add && has(quirk::empty_key_name_accepted));
    if (auto it = request_schemas.find(op->id); it != request_schemas.end() && !lenient) {
      const bool unbounded = op->id == operation_id::launch && unbounded_launch_schema;
      auto violations = (unbounded ? *unbounded_launch_schema : it->second).validate(*body);
      if (!violations.empty()) {
        if (has(quirk::validation_500)) return error_response("internal");
        return error_response("invalid_parameters", (violations.front().pointer.empty() ? "body" : violations.front().pointer) + ": " +
                                                        violations.front().message);
      }
    }
    if (op->body)
      for (auto& [k, v] : vars_from_body(*op->body, *body)) vars.emplace(k, v);
    if (op->id == operation_id::launch) vars["published_ports"] = requested_ports(*body);
  }

  auto r = serve(*op, acct, vars, now, raw_query);
  if (graphql_root)
    r = selected(with_billing(filtered(std::move(r), *op, *graphql_root, body->value("variables", nlohmann::json::object())), acct, now),
                 *graphql_root, *graphql_op);
  return r;
}

// get_many: the ids its query names, once each, in the order named (as sent: the ids a provider
// issues need no URL encoding).
std::vector<std::string> provider_model::impl::ids_in_query(const operation_spec& op, const std::string& raw_query) {
  std::vector<std::string> ids;
  auto add = [&](const std::string& id) {
    if (!id.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  for (const auto& [k, v] : parse_query(raw_query))
    if (k == op.ids_query->param) add(v);
  return ids;
}

http::response provider_model::impl::serve(const operation_spec& op, account& acct, template_vars& vars, clock::time_point now,
                                           const std::string& raw_query) {
  switch (op.id) {
    case operation_id::list_offers: return list_offers(op, now, raw_query);
    case operation_id::launch: return launch(op, acct, vars, now);
    case operation_id::get: return get(op, acct, first_string(vars["id"]), now);
    case operation_id::list: return list(op, acct, now, raw_query);
    case operation_id::terminate: return act(op, acct, all_strings(vars["id"]), act_kind::terminate, now);
    case operation_id::restart: return act(op, acct, all_strings(vars["id"]), act_kind::restart, now);
    case operation_id::stop: return act(op, acct, all_strings(vars["id"]), act_kind::stop, now);
    case operation_id::start: return act(op, acct, all_strings(vars["id"]), act_kind::start, now);
    case operation_id::terminate_tagged: return terminate_tagged(op, acct, first_string(vars["tag"]), now);
    case operation_id::ssh_keys_list: return list_keys(op, acct, raw_query);
    case operation_id::ssh_keys_add: return add_key(op, acct, vars);
    case operation_id::ssh_keys_delete: return delete_key(op, acct, first_string(vars["id"]));
    case operation_id::get_many: return get_many(op, acct, ids_in_query(op, raw_query), now);
    case operation_id::history: return history(op, acct, now, raw_query);
    case operation_id::unknown: break;
  }
  return error_response("internal");
}

http::response provider_model::impl::unknown_path() const {
  if (has(quirk::unknown_path_200)) return json_response(200, nlohmann::json::object());
  return error_response("not_found", "Not found.");
}

}  // namespace neograde::emulator
