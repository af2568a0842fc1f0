// Checks decided over everything the run saw, and the opt-in rate-limit probe. A requirement of
// HTTP itself (Date, no internal details, when to retry a 429) holds for every answer; one the
// provider's documents declare for their operations (headers on every response, the error
// envelope, the spec's latency expectation) is judged on the answers of those operations only,
// not on an OPTIONS or HEAD probe, a CORS preflight or a path no document lists.

#include "context.hpp"

#include <neograde/core/billing.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/measurements.hpp>
#include <neograde/core/provenance.hpp>
#include <neograde/core/template.hpp>
#include <neograde/core/text.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <set>
#include <thread>

namespace neograde::conformance::detail {
namespace {

constexpr const char* vocab_id = "schema.instance.status_in_vocabulary";

std::vector<const exchange*> exchanges(context& ctx) {
  std::vector<const exchange*> out;
  for (const auto& e : ctx.client.transport().transcript()) out.push_back(&e);
  if (ctx.second != nullptr)
    for (const auto& e : ctx.second->transport().transcript()) out.push_back(&e);
  return out;
}

// A request the spec declares: a method and a path template (relative to the base URL).
struct declared_request {
  std::string method;
  std::string path;
};

// Every request the spec declares: its operations, their action reads, the launch's follow-up
// steps, the billing read and the capacity read.
std::vector<declared_request> declared_requests(const provider_spec& spec) {
  std::vector<declared_request> out;
  for (const auto& [id, op] : spec.operations) {
    out.push_back({op.method, op.path});
    if (op.action) out.push_back({"GET", op.action->path});
    for (const auto& step : op.then) out.push_back({step.method, step.path});
  }
  if (auto b = billing_read_of(spec)) out.push_back({b->method, b->path});
  if (spec.offer_availability) out.push_back({"GET", spec.offer_availability->path});
  return out;
}

// The exchanges that answer a request the spec declares: the method and the path after the
// client's base URL (without the query) match one.
std::vector<const exchange*> declared_answers(context& ctx) {
  const auto declared = declared_requests(ctx.spec);
  std::vector<const exchange*> out;
  auto add = [&](provider_client& c) {
    const auto& base = c.base_url();
    for (const auto& e : c.transport().transcript()) {
      if (!e.url.starts_with(base)) continue;
      const auto rel = e.url.substr(base.size(), e.url.find_first_of("?#", base.size()) - base.size());
      std::map<std::string, std::string> params;
      if (std::any_of(declared.begin(), declared.end(), [&](const declared_request& d) {
            return d.method == e.method && match_path(d.path.substr(0, d.path.find('?')), rel, params);
          }))
        out.push_back(&e);
    }
  };
  add(ctx.client);
  if (ctx.second != nullptr) add(*ctx.second);
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

// http.response.declared_headers: every success of the declared operations carries each header
// the spec declares on every response (rate-limit headers are easily sent on 429s alone). The
// provider's documents declare them on the responses of their operations, so an answer to a
// request no document lists (the OPTIONS probe, which a server may answer as a CORS preflight)
// is not judged. Missing from every success and missing from some are told apart: the first is
// a header never sent, the second one lost on some paths.
void scan_declared_headers(context& ctx) {
  const char* id = "http.response.declared_headers";
  const auto& declared = ctx.spec.headers_on_every_response;
  if (!ctx.applies(id)) return;
  auto success = [](const exchange* e) { return e->status >= 200 && e->status < 300; };
  std::vector<const exchange*> judged;
  for (const auto* e : declared_answers(ctx))
    if (success(e)) judged.push_back(e);
  const auto all = exchanges(ctx);
  const auto not_judged = std::count_if(all.begin(), all.end(), success) - static_cast<std::ptrdiff_t>(judged.size());
  if (judged.empty()) return ctx.emit(not_applicable(id, "no successful answer of a declared operation was observed"));
  auto carries = [](const exchange* e, const std::string& name) {
    return std::any_of(e->response_headers.begin(), e->response_headers.end(), [&](const auto& r) { return iequals(r.first, name); });
  };
  const std::string of_n = std::to_string(judged.size()) + " successful answer(s) of the declared operations";
  std::string everywhere, somewhere, sources;
  std::vector<exchange> evidence;
  nlohmann::json missing = nlohmann::json::object();
  for (const auto& h : declared) {
    std::vector<const exchange*> without;
    for (const auto* e : judged)
      if (!carries(e, h.name)) without.push_back(e);
    missing[h.name] = without.size();
    if (without.empty()) continue;
    if (sources.find(h.source) == std::string::npos) sources += (sources.empty() ? "" : "; ") + h.source;
    if (without.size() == judged.size()) {
      everywhere += (everywhere.empty() ? "" : ", ") + h.name;
      if (evidence.empty()) evidence.push_back(*judged.front());
      continue;
    }
    // The first answer without it, and one with it: the paths that lose it.
    const auto* with = *std::find_if(judged.begin(), judged.end(), [&](const exchange* e) { return carries(e, h.name); });
    somewhere += (somewhere.empty() ? "" : "; ") + std::to_string(without.size()) + " carry no " + h.name +
                 " (the first: " + without.front()->method + " " + without.front()->url + ", HTTP " +
                 std::to_string(without.front()->status) + "; " + with->method + " " + with->url + " carries it)";
    if (evidence.size() < 4) {
      evidence.push_back(*without.front());
      evidence.push_back(*with);
    }
  }
  const std::string unjudged =
      std::to_string(not_judged) + " successful answer(s) to requests no document lists (OPTIONS, HEAD) not judged";
  check_outcome o;
  if (everywhere.empty() && somewhere.empty()) {
    std::string names;
    for (const auto& h : declared) names += (names.empty() ? "" : ", ") + h.name;
    o = make(id, outcome::pass, of_n + ", each carrying " + names + "; " + unjudged, {*judged.back()});
  } else {
    std::string reason;
    if (!everywhere.empty()) reason = "none of the " + of_n + " carries " + everywhere;
    if (!somewhere.empty()) reason += (reason.empty() ? "of the " + of_n + ", " : "; ") + somewhere;
    o = make(id, outcome::fail, reason + ", which the provider documents on every response (" + sources + ")", std::move(evidence));
  }
  o.measurements = {{"judged", judged.size()}, {"not_judged", not_judged}, {"missing", missing}};
  ctx.emit(std::move(o));
}

void scan_errors(context& ctx) {
  const char* id = "errors.envelope.code_is_documented";
  if (!ctx.applies(id)) return;
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
    if (!ctx.applies(id)) continue;
    json_schema schema(*ctx.spec.operation(op_id)->response_schema);
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

// performance.latency.read_p95: percentiles of the declared reads (GET answers of the declared
// operations): the spec's expectation is for its read operations, not for a GET no document lists.
void latency(context& ctx) {
  const char* id = "performance.latency.read_p95";
  if (!ctx.applies(id)) return;  // the API has no GET operation
  // On the emulator, the time it says it took (service_time_header_name): its loopback round trip
  // measures the machine running the run, and a verdict must not depend on how busy that is. Only
  // there: a live provider sending the header is judged by the round trip all the same.
  bool emulated = false;
  auto duration = [&](const exchange& e) {
    if (!ctx.emulated()) return e.duration_ms;
    for (const auto& [k, v] : e.response_headers)
      if (iequals(k, service_time_header_name)) {
        emulated = true;
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        return end != v.c_str() && d >= 0 ? d : 0.0;
      }
    return e.duration_ms;
  };
  std::vector<double> ms;
  const exchange* slowest = nullptr;
  double slowest_ms = -1;
  for (const auto* e : declared_answers(ctx))
    if (e->method == "GET" && e->status != 0) {
      const double d = duration(*e);
      ms.push_back(d);
      if (d > slowest_ms) {
        slowest = e;
        slowest_ms = d;
      }
    }
  if (ms.empty()) return ctx.emit(not_applicable(id, "no read request was made"));
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * static_cast<double>(ms.size())))]; };
  const double p50 = pct(0.50), p95 = pct(0.95), p99 = pct(0.99);
  ctx.measurements["latency_read_ms"] = {{"p50", p50}, {"p95", p95}, {"p99", p99}, {"count", ms.size()}};
  const auto limit = static_cast<double>(latency_threshold(ctx.spec, ctx.scale()).count());
  auto o = make(id, p95 <= limit ? outcome::pass : outcome::fail,
                "p50 " + std::to_string(p50) + " ms, p95 " + std::to_string(p95) + " ms, p99 " + std::to_string(p99) + " ms over " +
                    std::to_string(ms.size()) + " reads (expectation: p95 within " + std::to_string(limit) + " ms)" +
                    (emulated ? "; the emulator's stated service times, not this machine's round trips" : ""),
                {*slowest});
  o.measurements = ctx.measurements["latency_read_ms"];
  ctx.emit(std::move(o));
}

}  // namespace

namespace {

// A 429, with where it was met (the run's traffic, retried by the client or not, or the probe),
// and whether it answers a declared operation (the probe's list does).
struct throttled {
  exchange seen;
  bool probe = false;
  bool declared = true;
};

// Every 429 in the run's own transcripts: the client keeps every attempt, retries included.
std::vector<throttled> met_in_traffic(context& ctx) {
  const auto answers = declared_answers(ctx);
  const std::set<const exchange*> declared(answers.begin(), answers.end());
  std::vector<throttled> out;
  for (const auto* e : exchanges(ctx))
    if (e->status == 429) out.push_back({.seen = *e, .declared = declared.contains(e)});
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
  // Where the provider documents no error envelope, its 429s are held to none (the skip is said here).
  const bool envelope_judged = ctx.applies(envelope_id);
  auto all = met_in_traffic(ctx);
  const auto in_traffic = all.size();
  const bool probed = ctx.opts.probe_rate_limit || (ctx.emulated() && ctx.opts.probe_emulator);
  bool probe_met = false;
  if (probed)
    if (auto e = probe_for_429(ctx)) {
      all.push_back({.seen = std::move(*e), .probe = true});
      probe_met = true;
    }
  ctx.measurements[measurement::rate_limit::key] =
      measurement::rate_limit{.probed = probed, .met_in_traffic = in_traffic, .probe_met = probe_met};
  if (all.empty()) {
    const std::string why = probed ? "the run met no 429, and the probe reached no rate limit within 300 requests"
                                   : "the run met no 429 and did not probe the rate limit (--probe-rate-limit probes for one)";
    ctx.emit(not_applicable(headers_id, why));
    if (envelope_judged) ctx.emit(not_applicable(envelope_id, why));
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
  if (!envelope_judged) return;
  // The envelope is the provider's convention for the errors of its operations: a 429 to a request
  // no document lists (an OPTIONS probe, the OAuth token endpoint) may answer in another form.
  const throttled* last_declared = nullptr;
  for (const auto& t : all) {
    if (!t.declared) continue;
    last_declared = &t;
    auto r = interpret_response(ctx.spec, nullptr,
                                http::response{.status = t.seen.status, .headers = t.seen.response_headers, .body = t.seen.response_body});
    r.evidence = t.seen;
    if (auto problem = envelope_problem(r, ctx))
      return ctx.emit(make(envelope_id, outcome::fail, where(t) + " " + *problem + "; judged " + judged, {t.seen}));
  }
  if (last_declared == nullptr)
    return ctx.emit(not_applicable(envelope_id, "no 429 answered a declared operation (" + judged + ", to requests no document lists)"));
  ctx.emit(
      make(envelope_id, outcome::pass, "every 429 of a declared operation carries the error envelope: " + judged, {last_declared->seen}));
}

void read_statuses(context& ctx, operation_id op, const call_result& r) {
  if (!r.success || !r.json) return;
  const auto* spec_op = ctx.spec.operation(op);
  const auto before = ctx.status_words.size();
  auto keep = [&](const instance& i) {
    ctx.status_words.emplace_back(i.provider_status, r.evidence);
    auto& rec = ctx.lifecycle;
    if (rec.instance_id.empty() || i.id != rec.instance_id) return;
    using phase = lifecycle_record::restart_phase;
    rec.reads.push_back({i.state, i.provider_status, r.evidence, rec.restarting != phase::none, rec.restarting == phase::own,
                         op == operation_id::list, rec.restarts_asked});
  };
  if (op == operation_id::get && spec_op->item) {
    if (const auto* obj = find_pointer(*r.json, *spec_op->item); obj != nullptr && obj->is_object()) keep(ctx.client.to_instance(*obj));
  } else if (op == operation_id::list) {
    for (const auto& item : ctx.client.collection(*r.json, *spec_op)) keep(ctx.client.to_instance(item, operation_id::list));
  }
  for (auto i = before; i < ctx.status_words.size() && !ctx.vocabulary_failed; ++i)
    if (auto problem = undocumented_status(ctx.spec, ctx.status_words[i].first)) {
      ctx.vocabulary_failed = true;
      ctx.emit(make(vocab_id, outcome::fail, *problem, {ctx.status_words[i].second}));
    }
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
