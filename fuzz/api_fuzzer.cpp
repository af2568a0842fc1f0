// A fuzzing campaign: single generated requests and stateful sequences, interleaved in an order
// fixed by the seed, each failure shrunk and reported once per signature.

#include "engine.hpp"

#include <neograde/clients/curl.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/template.hpp>

#include <set>
#include <sstream>

namespace neograde::fuzz {

const std::vector<check_descriptor>& oracles() {
  constexpr auto critical = severity::critical, high = severity::high, medium = severity::medium, low = severity::low;
  constexpr auto must = requirement_level::must, should = requirement_level::should;
  static const std::vector<check_descriptor> all{
      {"fuzz.server_error", "fuzz", high, must, "Answers every generated request without a 5xx.",
       "A request the client got wrong MUST get 4xx, one it got right 2xx; never 5xx.", "RFC 9110 §15.6; Schemathesis not_a_server_error", ""},
      {"fuzz.no_response", "fuzz", high, must, "Gets an HTTP response to every generated request.",
       "The API MUST answer every request it receives with an HTTP response.", "RFC 9110 §15", ""},
      {"fuzz.internal_details", "fuzz", medium, must, "Scans every response for stack traces, source paths and SQL errors.",
       "Responses MUST NOT expose internal details.", "CWE-209", ""},
      {"fuzz.error_envelope", "fuzz", medium, must, "Validates every error response against the provider's error envelope.",
       "Every error MUST carry the documented JSON error envelope.", "provider API reference (errors)", ""},
      {"fuzz.undocumented_code", "fuzz", low, should, "Checks every error code against the documented codes.",
       "Error codes SHOULD be the documented ones.", "provider API reference (errors)", ""},
      {"fuzz.content_type", "fuzz", low, should, "Checks that successful JSON responses are labelled JSON.",
       "A JSON body SHOULD be labelled application/json.", "RFC 9110 §8.3", ""},
      {"fuzz.response_schema", "fuzz", medium, must, "Validates every successful response against the operation's schema.",
       "Responses MUST match the documented schema.", "provider API reference; Schemathesis response_schema_conformance", ""},
      {"fuzz.negative_accepted", "fuzz", high, must, "Sends data the request schema refuses and expects 4xx.",
       "Invalid input MUST be rejected with 4xx.", "Schemathesis negative_data_rejection", ""},
      {"fuzz.positive_rejected", "fuzz", high, must, "Sends documented requests with listed values and expects success.",
       "Valid input MUST be accepted.", "Schemathesis positive_data_acceptance", ""},
      {"fuzz.auth_bypass", "fuzz", critical, must, "Sends requests without, with made-up or with misplaced credentials.",
       "Requests without valid credentials MUST be refused with 401 or 403.", "RFC 9110 §15.5.2; OWASP API2:2023", ""},
      {"fuzz.lost_instance", "fuzz", critical, must, "Reads and lists every instance a sequence launched.",
       "A launched instance MUST be readable and listed until it is terminated.", "provider API reference (instances)", ""},
      {"fuzz.ghost_instance", "fuzz", critical, must, "Reads and lists instances after terminate.",
       "A terminated instance MUST NOT read as running (it would still be billed).", "provider API reference (terminate)", ""},
      {"fuzz.leaked_instance", "fuzz", critical, must, "Lists instances after refused and accepted launches.",
       "No instance may exist that no launch response named.", "provider API reference (launch)", ""},
      {"fuzz.use_after_terminate", "fuzz", high, must, "Acts on instances after terminate.",
       "A terminated instance MUST NOT accept actions.", "provider API reference (terminate)", ""},
      {"fuzz.state_regressed", "fuzz", medium, must, "Follows each instance's status over a sequence.",
       "A running instance MUST NOT go back to booting without a restart.", "provider API reference (instance states)", ""},
      {"fuzz.status_vocabulary", "fuzz", medium, must, "Checks every status word read against the documented vocabulary.",
       "Status words MUST be documented ones.", "provider API reference (instance states)", ""},
      {"fuzz.wrong_instance", "fuzz", critical, must, "Compares what get and list report with what was ordered.",
       "The instance delivered MUST be the type ordered.", "provider API reference (launch)", ""},
      {"fuzz.cross_account", "fuzz", critical, must, "Has a second account read, list and act on the first account's resources.",
       "One account MUST NOT see or act on another's resources, nor learn that they exist.", "OWASP API1:2023 (BOLA)", ""},
      {"fuzz.key_model", "fuzz", high, must, "Adds, lists and deletes SSH keys in random order.",
       "Added keys MUST be listed; deleted keys MUST NOT.", "provider API reference (SSH keys)", ""},
  };
  return all;
}

namespace {

using namespace detail;

const check_descriptor& oracle_descriptor(const std::string& oracle) {
  for (const auto& d : oracles())
    if (d.id == "fuzz." + oracle) return d;
  throw std::logic_error("no fuzz oracle " + oracle);
}

struct campaign {
  const provider_spec& spec;
  const fuzz_options& opts;
  target t;
  fuzz_report report;
  std::set<std::string> signatures;
  std::set<std::string> ids;
  int shrink_runs_total = 0;

  campaign(session& s, const fuzz_options& o) : spec(s.spec()), opts(o), t(s, o) {}

  void record(const violation& v, nlohmann::json reproduction, std::uint64_t case_seed) {
    auto d = oracle_descriptor(v.oracle);
    std::string id = d.id + "." + v.operation;
    if (ids.contains(id)) id += "." + v.status_class();
    ids.insert(id);
    d.id = id;
    d.description += " (" + v.operation + ")";
    check_outcome o;
    o.check_id = id;
    o.result = d.requirement == requirement_level::should ? outcome::warn : outcome::fail;
    o.reason = v.message;
    o.evidence = {v.evidence};
    if (!v.evidence.method.empty()) o.reproduce = curl_command(v.evidence, spec);
    o.measurements = {{"seed", opts.seed}, {"case_seed", case_seed}, {"signature", v.signature()}, {"minimal_reproduction", std::move(reproduction)}};
    if (opts.on_finding) opts.on_finding(d, o);
    report.descriptors.push_back(d);
    report.findings.push_back(std::move(o));
  }

  // Registers the run's SSH key when launches name one, and picks the offer to launch with.
  void prepare() {
    if (!t.may_launch()) return;
    // Against this machine, every offer (more capacity to fuzz with); elsewhere the cheapest.
    std::vector<std::string> skip;
    while (auto chosen = t.primary().choose_offer(skip).chosen) {
      t.offers.push_back(*chosen);
      skip.push_back(chosen->key());
      if (!t.loopback() || t.offers.size() >= 8) break;
    }
    const auto* launch = spec.operation(operation_id::launch);
    const bool needs_key = launch != nullptr && launch->body && template_pointers(*launch->body).contains("ssh_key_name");
    if (needs_key && spec.operation(operation_id::ssh_keys_add) != nullptr) {
      auto k = t.primary().add_ssh_key(t.prefix() + "key", t.session().public_key());
      if (k.value) t.ssh_key_name = k.value->name.empty() ? t.prefix() + "key" : k.value->name;
    }
  }

  void run_case(const rc::Gen<request_case>& gen, const rc::Random& random, std::uint64_t case_seed) {
    const auto shrinkable = gen(random, 100);
    const auto c = shrinkable.value();
    if (c.op == operation_id::launch && !t.may_launch()) return;
    auto [r, v] = send(c);
    if (!v || signatures.contains(v->signature())) return;
    const auto signature = v->signature();
    signatures.insert(signature);
    // Shrink: the simplest request that still fails the same way.
    request_case best = c;
    violation best_v = *v;
    auto shrinks = shrinkable.shrinks();
    int runs = 0;
    while (auto candidate = shrinks.next()) {
      if (runs >= opts.max_shrink_runs || t.spent()) break;
      const auto cc = candidate->value();
      if (cc.op == operation_id::launch && !t.may_launch()) continue;
      ++runs;
      auto [cr, cv] = send(cc);
      if (cv && cv->signature() == signature) {
        best = cc;
        best_v = *cv;
        shrinks = candidate->shrinks();
      }
    }
    shrink_runs_total += runs;
    std::ostringstream text;
    text << best;
    record(best_v, {{"kind", "request"}, {"generator", best.generator}, {"request", text.str()}, {"shrink_runs", runs}}, case_seed);
  }

  std::pair<call_result, std::optional<violation>> send(const request_case& c) {
    auto out = t.send(c);
    if (c.op == operation_id::launch && out.first.success) {
      t.count_launch();
      if (auto id = t.primary().launched_id(out.first, "")) t.created.push_back(*id);
    }
    return out;
  }

  void run_sequence(sequences& seqs, const rc::Random& random, std::uint64_t case_seed) {
    auto result = seqs.run_one(random, 20, opts.max_shrink_runs);
    if (!result.found || signatures.contains(result.found->signature())) return;
    signatures.insert(result.found->signature());
    record(*result.found, {{"kind", "sequence"}, {"steps", result.steps}}, case_seed);
  }
};

}  // namespace

fuzz_report run(session& s, const fuzz_options& options) {
  campaign c(s, options);
  auto& t = c.t;
  const auto started = std::chrono::steady_clock::now();
  c.report.source = s.provenance();
  c.report.time_scale = s.time_scale();

  long cases = 0, sequence_runs = 0;
  try {
    c.prepare();
    const auto gen = request_cases(t);
    sequences seqs(t);
    rc::Random root(options.seed);
    std::size_t judged = 0;  // findings stop_when has seen
    const auto enough = [&] {
      bool stop = false;
      for (; judged < c.report.findings.size(); ++judged)
        stop = stop || (options.stop_when && options.stop_when(c.report.findings[judged]));
      return stop;
    };
    for (std::uint64_t i = 0; !t.spent() && !enough(); ++i) {
      const auto random = root.split();
      if (seqs.available() && i % 8 == 7) {
        ++sequence_runs;
        c.run_sequence(seqs, random, i);
      } else {
        ++cases;
        c.run_case(gen, random, i);
      }
      if (options.on_progress && i % 200 == 199)
        options.on_progress(std::to_string(t.requests()) + " requests, " + std::to_string(c.report.findings.size()) + " findings");
    }
  } catch (const budget_spent&) {
  } catch (const stop_requested& e) {
    c.report.stopped = run_stop{.why = run_stop::kind::signal, .message = e.what(), .signal = e.signal};
  } catch (const std::exception& e) {
    // A bug of ours: what the run created is still torn down, and the findings so far kept.
    c.report.stopped = run_stop{.why = run_stop::kind::bug, .message = e.what()};
  }
  const auto requests = t.requests();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto left = teardown(t);
  auto m = t.tallies();
  m["requests"] = requests;
  m["seconds"] = seconds;
  m["requests_per_s"] = seconds > 0 ? static_cast<double>(requests) / seconds : 0.0;
  m["request_cases"] = cases;
  m["sequences"] = sequence_runs;
  m["shrink_runs"] = c.shrink_runs_total;
  m["instances_created"] = t.launched();
  m["left_behind"] = left;
  m["seed"] = options.seed;
  if (c.report.stopped) m["stopped"] = c.report.stopped->message;
  c.report.measurements = std::move(m);
  return std::move(c.report);
}

}  // namespace neograde::fuzz
