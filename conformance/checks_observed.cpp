// Checks decided over everything the run saw (every response of every declared operation), and
// the opt-in rate-limit probe.

#include "context.hpp"

#include <neograde/core/json_schema.hpp>
#include <neograde/core/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <thread>

namespace neograde::conformance::detail {
namespace {

std::vector<const exchange*> exchanges(context& ctx) {
  std::vector<const exchange*> out;
  for (const auto& e : ctx.client.transport().transcript()) out.push_back(&e);
  if (ctx.second != nullptr)
    for (const auto& e : ctx.second->transport().transcript()) out.push_back(&e);
  return out;
}

void scan_bodies(context& ctx) {
  const char* id = "errors.response.no_internal_details";
  const auto all = exchanges(ctx);
  for (const auto* e : all)
    if (auto m = internal_detail(e->response_body))
      return ctx.emit(make(id, outcome::fail, "a response body shows \"" + *m + "\" (HTTP " + std::to_string(e->status) + ")", {*e}));
  ctx.emit(make(id, outcome::pass, std::to_string(all.size()) + " response bodies scanned"));
}

void scan_headers(context& ctx) {
  const auto all = exchanges(ctx);
  const char* date_id = "http.response.date_header";
  auto missing_date = std::find_if(all.begin(), all.end(), [](const exchange* e) {
    return e->status != 0 &&
           std::none_of(e->response_headers.begin(), e->response_headers.end(), [](const auto& h) { return iequals(h.first, "date"); });
  });
  if (missing_date != all.end()) ctx.emit(make(date_id, outcome::fail, "a response carries no Date header", {**missing_date}));
  else
    ctx.emit(make(date_id, outcome::pass, "every response carries Date"));

  const char* type_id = "http.content_type.success_is_json";
  for (const auto& o : ctx.seen) {
    const auto* op = ctx.spec.operation(o.op);
    if (!o.result.success || o.result.response->body.empty() || (op != nullptr && op->text_response)) continue;
    if (!is_json_media(o.result.content_type(), ctx.spec))
      return ctx.emit(
          make(type_id, outcome::fail,
               "a successful " + nlohmann::json(o.op).get<std::string>() + " response is labelled \"" + o.result.content_type() + "\"",
               {o.result.evidence}));
  }
  ctx.emit(make(type_id, outcome::pass, "every successful JSON response is labelled JSON"));
}

// http.response.declared_headers: every success carries each header the spec declares on every
// response (rate-limit headers are easily sent on 429s alone).
void scan_declared_headers(context& ctx) {
  const char* id = "http.response.declared_headers";
  const auto& declared = ctx.spec.headers_on_every_response;
  if (declared.empty()) return ctx.emit(not_applicable(id, "the spec declares no header on every response"));
  int successes = 0;
  for (const auto* e : exchanges(ctx)) {
    if (e->status < 200 || e->status >= 300) continue;
    ++successes;
    for (const auto& h : declared)
      if (std::none_of(e->response_headers.begin(), e->response_headers.end(), [&](const auto& r) { return iequals(r.first, h.name); }))
        return ctx.emit(make(id, outcome::fail,
                             "a successful " + e->method + " response (HTTP " + std::to_string(e->status) + ") carries no " + h.name +
                                 " header, which the provider documents on every response (" + h.source + ")",
                             {*e}));
  }
  if (successes == 0) return ctx.emit(not_applicable(id, "no successful response was observed"));
  std::string names;
  for (const auto& h : declared) names += (names.empty() ? "" : ", ") + h.name;
  ctx.emit(make(id, outcome::pass, std::to_string(successes) + " successful responses, each carrying " + names));
}

void scan_errors(context& ctx) {
  const char* id = "errors.envelope.code_is_documented";
  if (ctx.errors.documented_codes().empty())
    return ctx.emit(not_applicable(id, "the provider's errors carry a message, not a documented code"));
  int seen = 0;
  for (const auto& o : ctx.seen) {
    if (!o.result.error || o.result.error->code.empty()) continue;
    ++seen;
    if (ctx.errors.undocumented_code(o.result))
      return ctx.emit(make(id, outcome::fail, "error code \"" + o.result.error->code + "\" is not documented", {o.result.evidence}));
  }
  if (seen == 0) return ctx.emit(not_applicable(id, "no error code was observed"));
  ctx.emit(make(id, outcome::pass, std::to_string(seen) + " error codes, all documented"));
}

void scan_schemas(context& ctx) {
  const std::pair<const char*, operation_id> cases[] = {{"schema.instance.get_matches_schema", operation_id::get},
                                                        {"schema.instance.list_matches_schema", operation_id::list}};
  for (const auto& [id, op_id] : cases) {
    const auto* op = ctx.spec.operation(op_id);
    if (op == nullptr || !op->response_schema) {
      ctx.emit(not_applicable(id, "the spec declares no such operation with a response schema"));
      continue;
    }
    json_schema schema(*op->response_schema);
    int checked = 0;
    std::optional<check_outcome> failure;
    for (const auto& o : ctx.seen) {
      if (o.op != op_id || !o.result.success || !o.result.json) continue;
      ++checked;
      auto v = schema.validate(*o.result.json);
      if (!v.empty()) {
        failure = make(id, outcome::fail, "at \"" + v.front().pointer + "\": " + v.front().message, {o.result.evidence});
        break;
      }
    }
    if (failure) ctx.emit(std::move(*failure));
    else if (checked == 0)
      ctx.emit(not_applicable(id, "no successful response was observed"));
    else
      ctx.emit(make(id, outcome::pass, std::to_string(checked) + " responses match the schema"));
  }

  const char* vocab_id = "schema.instance.status_in_vocabulary";
  if (ctx.vocabulary_failed) return;  // decided when the word was read
  if (ctx.status_words.empty()) return ctx.emit(not_applicable(vocab_id, "no instance status was observed"));
  std::set<std::string> distinct;
  for (const auto& [w, ev] : ctx.status_words) {
    if (auto problem = undocumented_status(ctx.spec, w)) return ctx.emit(make(vocab_id, outcome::fail, *problem, {ev}));
    distinct.insert(w.empty() ? "(none)" : w);
  }
  std::string words;
  for (const auto& w : distinct) words += (words.empty() ? "" : ", ") + w;
  ctx.emit(make(vocab_id, outcome::pass, "statuses seen: " + words));
}

// performance.latency.read_p95: percentiles of read (GET) requests.
void latency(context& ctx) {
  const char* id = "performance.latency.read_p95";
  std::vector<double> ms;
  const exchange* slowest = nullptr;
  for (const auto* e : exchanges(ctx))
    if (e->method == "GET" && e->status != 0) {
      ms.push_back(e->duration_ms);
      if (slowest == nullptr || e->duration_ms > slowest->duration_ms) slowest = e;
    }
  if (ms.empty()) return ctx.emit(not_applicable(id, "no read request was made"));
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * static_cast<double>(ms.size())))]; };
  const double p50 = pct(0.50), p95 = pct(0.95), p99 = pct(0.99);
  ctx.measurements["latency_read_ms"] = {{"p50", p50}, {"p95", p95}, {"p99", p99}, {"count", ms.size()}};
  const auto limit = static_cast<double>(latency_threshold(ctx.spec, ctx.scale).count());
  auto o = make(id, p95 <= limit ? outcome::pass : outcome::fail,
                "p50 " + std::to_string(p50) + " ms, p95 " + std::to_string(p95) + " ms, p99 " + std::to_string(p99) + " ms over " +
                    std::to_string(ms.size()) + " reads (expectation: p95 within " + std::to_string(limit) + " ms)",
                {*slowest});
  o.measurements = ctx.measurements["latency_read_ms"];
  ctx.emit(std::move(o));
}

}  // namespace

namespace {

// A 429, with where it was met (the run's traffic, retried by the client or not, or the probe).
struct throttled {
  exchange seen;
  bool probe = false;
};

// Every 429 in the run's own transcripts: the client keeps every attempt, retries included.
std::vector<throttled> met_in_traffic(context& ctx) {
  std::vector<throttled> out;
  for (const auto* e : exchanges(ctx))
    if (e->status == 429) out.push_back({.seen = *e});
  return out;
}

// Sends list requests with a client of its own that does not retry, bounded to 300 requests,
// until one is answered 429. It spends the second account's limit where there is one (limits are
// per credential where providers document them), so that the run's own key is not throttled by
// its own probe; otherwise it lets the run's bucket refill (bounded) before the run goes on.
std::optional<exchange> probe_for_429(context& ctx) {
  auto options = ctx.session.http_options();
  options.max_retries = 0;
  const auto& given = ctx.session.options();
  const bool own_key = given.second_api_key.empty();
  provider_client probe(ctx.spec, given.base_url, own_key ? given.api_key : given.second_api_key, options);
  std::optional<call_result> limited;
  for (int i = 0; i < 300 && !limited; ++i) {
    auto r = probe.call(operation_id::list);
    if (r.status() == 429) limited = std::move(r);
    else if (!r.response)
      break;
  }
  if (!limited) return std::nullopt;
  // Should a limit be shared across keys, the client's retries honour Retry-After anyway.
  if (own_key) {
    auto wait = http::parse_retry_after(limited->response->header("Retry-After")).value_or(std::chrono::milliseconds(1000));
    ctx.sleep(std::min(wait, std::chrono::milliseconds(2000)));
  }
  return limited->evidence;
}

bool says_when_to_retry(const exchange& e) {
  return std::any_of(e.response_headers.begin(), e.response_headers.end(), [](const auto& h) {
    return iequals(h.first, "Retry-After") || iequals(h.first, "RateLimit") || iequals(h.first, "RateLimit-Reset") ||
           iequals(h.first, "X-RateLimit-Reset");
  });
}

std::string where(const throttled& t) { return t.probe ? "the probe's 429" : "a 429 met in the run's traffic (" + t.seen.method + ")"; }

}  // namespace

// ratelimit.response.*: every 429 the run met, in its own traffic (the client's retries absorb
// them, but its transcript keeps every attempt) and from the probe, which runs with
// --probe-rate-limit and always against the emulator.
void run_rate_limit_probe(context& ctx) {
  const char* headers_id = "ratelimit.response.has_retry_after";
  const char* envelope_id = "ratelimit.response.has_envelope";
  auto all = met_in_traffic(ctx);
  const auto in_traffic = all.size();
  const bool probed = ctx.opts.probe_rate_limit || (ctx.emulated && ctx.opts.probe_emulator);
  bool probe_met = false;
  if (probed)
    if (auto e = probe_for_429(ctx)) {
      all.push_back({.seen = std::move(*e), .probe = true});
      probe_met = true;
    }
  ctx.measurements["rate_limit"] = {{"probed", probed}, {"met_in_traffic", in_traffic}, {"probe_met", probe_met}};
  if (all.empty()) {
    const std::string why = probed ? "the run met no 429, and the probe reached no rate limit within 300 requests"
                                   : "the run met no 429 and did not probe the rate limit (--probe-rate-limit probes for one)";
    ctx.emit(not_applicable(headers_id, why));
    ctx.emit(not_applicable(envelope_id, why));
    return;
  }
  const std::string judged = std::to_string(all.size()) + " 429(s) (" + std::to_string(in_traffic) + " in the run's traffic" +
                             (probe_met ? ", 1 from the probe)"
                              : probed  ? ", none from the probe)"
                                        : "; not probed)");
  const auto untold = std::find_if(all.begin(), all.end(), [](const throttled& t) { return !says_when_to_retry(t.seen); });
  ctx.emit(untold != all.end()
               ? make(headers_id, outcome::fail, where(*untold) + " carries neither Retry-After nor RateLimit headers; judged " + judged,
                      {untold->seen})
               : make(headers_id, outcome::pass, "every 429 says when to retry: " + judged, {all.back().seen}));
  for (const auto& t : all) {
    auto r = interpret_response(ctx.spec, nullptr,
                                http::response{.status = t.seen.status, .headers = t.seen.response_headers, .body = t.seen.response_body});
    r.evidence = t.seen;
    if (auto problem = envelope_problem(r, ctx))
      return ctx.emit(make(envelope_id, outcome::fail, where(t) + " " + *problem + "; judged " + judged, {t.seen}));
  }
  ctx.emit(make(envelope_id, outcome::pass, "every 429 carries the error envelope: " + judged, {all.back().seen}));
}

void run_observed_checks(context& ctx) {
  scan_bodies(ctx);
  scan_headers(ctx);
  scan_declared_headers(ctx);
  scan_errors(ctx);
  scan_schemas(ctx);
  latency(ctx);
}

}  // namespace neograde::conformance::detail
