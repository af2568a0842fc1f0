// A fuzzing campaign: single generated requests and stateful sequences, interleaved in an order
// fixed by the seed, each failure shrunk and reported once per signature.

#include "engine.hpp"

#include <neograde/clients/curl.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/template.hpp>

#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace neograde::fuzz {

const std::vector<check_descriptor>& oracles() {
  constexpr auto critical = severity::critical, high = severity::high, medium = severity::medium, low = severity::low;
  constexpr auto must = requirement_level::must, should = requirement_level::should;
  static const std::vector<check_descriptor> all{
      {.id = "fuzz.server_error",
       .category = "fuzz",
       .level = high,
       .requirement = must,
       .description = "Answers every generated request without a 5xx.",
       .requirement_text = "A request the client got wrong MUST get 4xx, one it got right 2xx; never 5xx.",
       .source = "RFC 9110 §15.6; Schemathesis not_a_server_error"},
      {.id = "fuzz.no_response",
       .category = "fuzz",
       .level = high,
       .requirement = must,
       .description = "Gets an HTTP response to every generated request.",
       .requirement_text = "The API MUST answer every request it receives with an HTTP response.",
       .source = "RFC 9110 §15"},
      {.id = "fuzz.internal_details",
       .category = "fuzz",
       .level = medium,
       .requirement = must,
       .description = "Scans every response for stack traces, source paths and SQL errors.",
       .requirement_text = "Responses MUST NOT expose internal details.",
       .source = "CWE-209"},
      {.id = "fuzz.error_envelope",
       .category = "fuzz",
       .level = medium,
       .requirement = must,
       .description = "Validates every error response against the provider's error envelope.",
       .requirement_text = "Every error MUST carry the documented JSON error envelope.",
       .source = "provider API reference (errors)"},
      {.id = "fuzz.undocumented_code",
       .category = "fuzz",
       .level = low,
       .requirement = should,
       .description = "Checks every error code against the documented codes.",
       .requirement_text = "Error codes SHOULD be the documented ones.",
       .source = "provider API reference (errors)"},
      {.id = "fuzz.content_type",
       .category = "fuzz",
       .level = low,
       .requirement = should,
       .description = "Checks that successful JSON responses are labelled JSON.",
       .requirement_text = "A JSON body SHOULD be labelled application/json.",
       .source = "RFC 9110 §8.3"},
      {.id = "fuzz.response_schema",
       .category = "fuzz",
       .level = medium,
       .requirement = must,
       .description = "Validates every successful response against the operation's schema.",
       .requirement_text = "Responses MUST match the documented schema.",
       .source = "provider API reference; Schemathesis response_schema_conformance"},
      {.id = "fuzz.negative_accepted",
       .category = "fuzz",
       .level = high,
       .requirement = must,
       .description = "Sends data the request schema refuses and expects 4xx.",
       .requirement_text = "Invalid input MUST be rejected with 4xx.",
       .source = "Schemathesis negative_data_rejection"},
      {.id = "fuzz.positive_rejected",
       .category = "fuzz",
       .level = high,
       .requirement = must,
       .description = "Sends documented requests with listed values and expects success.",
       .requirement_text = "Valid input MUST be accepted.",
       .source = "Schemathesis positive_data_acceptance"},
      {.id = "fuzz.auth_bypass",
       .category = "fuzz",
       .level = critical,
       .requirement = must,
       .description = "Sends requests without, with made-up or with misplaced credentials.",
       .requirement_text = "Requests without valid credentials MUST be refused with 401 or 403.",
       .source = "RFC 9110 §15.5.2; OWASP API2:2023"},
      {.id = "fuzz.lost_instance",
       .category = "fuzz",
       .level = critical,
       .requirement = must,
       .description = "Reads and lists every instance a sequence launched.",
       .requirement_text = "A launched instance MUST be readable and listed until it is terminated.",
       .source = "provider API reference (instances)"},
      {.id = "fuzz.ghost_instance",
       .category = "fuzz",
       .level = critical,
       .requirement = must,
       .description = "Reads and lists instances after terminate.",
       .requirement_text = "A terminated instance MUST NOT read as running (it would still be billed).",
       .source = "provider API reference (terminate)"},
      {.id = "fuzz.leaked_instance",
       .category = "fuzz",
       .level = critical,
       .requirement = must,
       .description = "Lists instances after refused and accepted launches.",
       .requirement_text = "No instance may exist that no launch response named.",
       .source = "provider API reference (launch)"},
      {.id = "fuzz.use_after_terminate",
       .category = "fuzz",
       .level = high,
       .requirement = must,
       .description = "Acts on instances after terminate.",
       .requirement_text = "A terminated instance MUST NOT accept actions.",
       .source = "provider API reference (terminate)"},
      {.id = "fuzz.state_regressed",
       .category = "fuzz",
       .level = medium,
       .requirement = must,
       .description = "Follows each instance's status over a sequence.",
       .requirement_text = "A running instance MUST NOT go back to booting without a restart.",
       .source = "provider API reference (instance states)"},
      {.id = "fuzz.status_vocabulary",
       .category = "fuzz",
       .level = medium,
       .requirement = must,
       .description = "Checks every status word read against the documented vocabulary.",
       .requirement_text = "Status words MUST be documented ones.",
       .source = "provider API reference (instance states)"},
      {.id = "fuzz.wrong_instance",
       .category = "fuzz",
       .level = critical,
       .requirement = must,
       .description = "Compares what get and list report with what was ordered.",
       .requirement_text = "The instance delivered MUST be the type ordered.",
       .source = "provider API reference (launch)"},
      {.id = "fuzz.cross_account",
       .category = "fuzz",
       .level = critical,
       .requirement = must,
       .description = "Has a second account read, list and act on the first account's resources.",
       .requirement_text = "One account MUST NOT see or act on another's resources, nor learn that they exist.",
       .source = "OWASP API1:2023 (BOLA)"},
      {.id = "fuzz.no_effect",
       .category = "fuzz",
       .level = high,
       .requirement = must,
       .description = "Stops and starts instances and reads their state after each accepted action.",
       .requirement_text = "An accepted stop MUST leave the instance in the documented stopped state within the spec's time to "
                           "gone, and an accepted start bring it back to running within the time to running.",
       .source = "provider API reference (power actions); issue 39: actions judged by their effect"},
      {.id = "fuzz.bulk_set",
       .category = "fuzz",
       .level = critical,
       .requirement = must,
       .description = "Deletes instances by tag and reads those tagged and those tagged otherwise.",
       .requirement_text = "A delete by tag MUST remove every instance carrying the tag and no other.",
       .source = "provider API reference (delete by tag)"},
      {.id = "fuzz.page_walk",
       .category = "fuzz",
       .level = medium,
       .requirement = must,
       .description = "Walks the offer catalogue one row per page.",
       .requirement_text = "A walk of the pages MUST end on its own within a bound, no page repeating the one before, no row on "
                           "two pages, and what the pages say about the walk MUST be true.",
       .source = "provider API reference (pagination); issue 39: pages that end"},
      {.id = "fuzz.key_model",
       .category = "fuzz",
       .level = high,
       .requirement = must,
       .description = "Adds, lists and deletes SSH keys in random order.",
       .requirement_text = "Added keys MUST be listed; deleted keys MUST NOT.",
       .source = "provider API reference (SSH keys)"},
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

// A campaign: one target, or on several connections one lane (a target and a thread) per
// connection. The lanes take the campaign's iterations in turn, each with the random stream the
// seed fixes for it; what they find is recorded once per signature.
struct campaign {
  const provider_spec& spec;
  const fuzz_options& opts;
  target t;  // the main target: preparation, the only lane on one connection, and the teardown
  fuzz_report report;
  std::set<std::string> signatures;
  std::set<std::string> ids;
  long shrink_runs_total = 0, cases = 0, sequence_runs = 0;

  // RapidCheck keeps its generation context in globals: one lane generates or shrinks at a time.
  std::mutex rc_mu;
  // Everything above but `t`, and the iteration stream.
  std::mutex mu;
  rc::Random root;
  std::uint64_t next = 0;
  std::size_t judged = 0;  // findings stop_when has seen
  bool enough = false;

  campaign(session& s, const fuzz_options& o) : spec(s.spec()), opts(o), t(s, o), root(o.seed) {}

  void record(const violation& v, nlohmann::json reproduction, std::uint64_t case_seed) {
    std::lock_guard lock(mu);
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
    // Requests to first detection: what finding it costs against a real, rate-limited API.
    o.measurements = {{"seed", opts.seed},
                      {"case_seed", case_seed},
                      {"signature", v.signature()},
                      {"requests_to_detection", v.detected_after},
                      {"minimal_reproduction", std::move(reproduction)}};
    if (opts.on_finding) opts.on_finding(d, o);
    report.descriptors.push_back(d);
    report.findings.push_back(std::move(o));
  }

  // Claims a signature for the finding about to be shrunk: false when it was found before.
  bool claim(const std::string& signature) {
    std::lock_guard lock(mu);
    return signatures.insert(signature).second;
  }

  // The next iteration and its random stream; nothing once the budget is spent or stop_when said
  // enough.
  std::optional<std::pair<std::uint64_t, rc::Random>> take(const target& lane) {
    std::lock_guard lock(mu);
    for (; judged < report.findings.size(); ++judged) enough = enough || (opts.stop_when && opts.stop_when(report.findings[judged]));
    if (enough || lane.spent()) return std::nullopt;
    if (opts.on_progress && next > 0 && next % 200 == 0)
      opts.on_progress(std::to_string(t.requests()) + " requests, " + std::to_string(report.findings.size()) + " findings");
    return std::pair{next++, root.split()};
  }

  // Picks the offers to launch with, and registers the run's SSH key when launches name one.
  void prepare() {
    // Live mode: the credentials work, an offer has capacity and a price within the budget, or
    // spending is withdrawn (as for conformance). The ledger prices a launch by the offers read,
    // so they are read before it is asked: asked first, it refused every live launch, unpriced.
    t.session().pre_check();
    if (!t.session().spend().allowed || spec.operation(operation_id::launch) == nullptr) return;
    // Against this machine, every offer (more capacity to fuzz with); elsewhere the cheapest.
    std::vector<std::string> skip;
    while (auto chosen = t.primary().choose_offer(skip).chosen) {
      t.offers.push_back(*chosen);
      skip.push_back(chosen->key());
      if (!t.loopback() || t.offers.size() >= 8) break;
    }
    if (!t.may_launch()) {
      t.offers.clear();
      return;
    }
    const auto* launch = spec.operation(operation_id::launch);
    const auto placed = launch != nullptr && launch->body ? template_pointers(*launch->body) : std::map<std::string, std::string>{};
    const bool needs_key = placed.contains("ssh_key_name") || placed.contains("ssh_key_id");
    if (needs_key && spec.operation(operation_id::ssh_keys_add) != nullptr) {
      auto k = t.primary().add_ssh_key(t.prefix() + "key", t.session().public_key());
      if (k.value) {
        t.ssh_key_name = k.value->name.empty() ? t.prefix() + "key" : k.value->name;
        t.ssh_key_id = k.value->id;
      }
    }
  }

  // Runs iterations on one lane until the budget is spent (budget_spent) or stop_when says enough.
  void run_lane(target& lane) {
    std::optional<rc::Gen<request_case>> gen;
    std::optional<sequences> seqs;
    {
      std::lock_guard lock(rc_mu);
      gen = request_cases(lane);
      seqs.emplace(lane);
    }
    while (auto next_case = take(lane)) {
      const auto& [i, random] = *next_case;
      if (seqs->available() && i % 8 == 7) {
        add(sequence_runs, 1);
        run_sequence(*seqs, random, i);
      } else {
        add(cases, 1);
        run_case(lane, *gen, random, i);
      }
    }
  }

  void add(long& n, long by) {
    std::lock_guard lock(mu);
    n += by;
  }

  void run_case(target& lane, const rc::Gen<request_case>& gen, const rc::Random& random, std::uint64_t case_seed) {
    std::unique_lock rc_lock(rc_mu);
    const auto shrinkable = gen(random, 100);
    const auto c = shrinkable.value();
    rc_lock.unlock();
    if (c.op == operation_id::launch && !lane.may_launch()) return;
    auto [r, v] = send(lane, c);
    if (!v || !claim(v->signature())) return;
    v->detected_after = lane.requests();
    const auto signature = v->signature();
    // Shrink: the simplest request that still fails the same way.
    request_case best = c;
    violation best_v = *v;
    rc_lock.lock();
    auto shrinks = shrinkable.shrinks();
    int runs = 0;
    while (auto candidate = shrinks.next()) {
      if (runs >= opts.max_shrink_runs || lane.spent()) break;
      const auto cc = candidate->value();
      if (cc.op == operation_id::launch && !lane.may_launch()) continue;
      ++runs;
      rc_lock.unlock();
      auto [cr, cv] = send(lane, cc);
      rc_lock.lock();
      if (cv && cv->signature() == signature) {
        best = cc;
        best_v = *cv;
        best_v.detected_after = v->detected_after;
        shrinks = candidate->shrinks();
      }
    }
    rc_lock.unlock();
    add(shrink_runs_total, runs);
    std::ostringstream text;
    text << best;
    record(best_v, {{"kind", "request"}, {"generator", best.generator}, {"request", text.str()}, {"shrink_runs", runs}}, case_seed);
  }

  std::pair<call_result, std::optional<violation>> send(target& lane, const request_case& c) {
    auto out = lane.send(c);
    if (c.op == operation_id::launch && out.first.success) {
      lane.count_launch();
      auto id = lane.primary().launched_id(out.first, "");
      if (!id) id = launched_by_name(lane, c, out.first);
      if (id) {
        lane.created.push_back(*id);
        // Terminated at once (the final teardown confirms it, and sweeps what a refusal left):
        // kept until then, the instances of generated launches held the capacity, and every
        // later launch of the campaign, its sequences' included, was refused for lack of it
        // (Lambda's emulator: 42 instances in 2,000 requests, and not one more in 20,000).
        (void)lane.primary().terminate(*id);
      }
    }
    if (c.op == operation_id::ssh_keys_add && out.first.success) delete_added_key(lane, out.first);
    return out;
  }

  // A launch whose answer names no instance by design (the spec's launch id_from: io.net's empty
  // body, Gcore's task ids) is found in the list by the name its body sent, as the client finds
  // its own launches: without it, every instance of an accepted generated launch was reported as
  // leaked by the next list (fuzz.leaked_instance, a false finding).
  static std::optional<std::string> launched_by_name(target& lane, const request_case& c, const call_result& r) {
    const auto* op = lane.spec().operation(operation_id::launch);
    if (op->id_from_list_reads <= 0 || !op->body) return std::nullopt;
    const auto pointers = template_pointers(*op->body);
    const auto at = pointers.find("name");
    if (at == pointers.end()) return std::nullopt;
    const auto body = nlohmann::json::parse(c.body, nullptr, false);
    const auto* name = body.is_discarded() ? nullptr : find_pointer(body, at->second);
    if (name == nullptr || !name->is_string()) return std::nullopt;
    return lane.primary().id_by_name(typed_result<std::string>{.call = r}, name->get<std::string>()).value;
  }

  // An SSH key a generated request added is deleted at once, as generated launches are
  // terminated: a campaign does not fill the account with keys (providers cap them, and every
  // later listing would grow with the campaign: 20 % of both sides' time at 20,000 requests).
  static void delete_added_key(target& lane, const call_result& added) {
    const auto* op = lane.spec().operation(operation_id::ssh_keys_add);
    const auto* obj = added.json ? find_pointer(*added.json, op->item.value_or("")) : nullptr;
    if (obj == nullptr || !obj->is_object()) return;  // the final teardown sweeps what it cannot name
    if (const auto key = lane.primary().to_ssh_key(*obj, operation_id::ssh_keys_add); !key.id.empty())
      (void)lane.primary().delete_ssh_key(key.id);
  }

  void run_sequence(sequences& seqs, const rc::Random& random, std::uint64_t case_seed) {
    auto result = seqs.run_one(random, 20, opts.max_shrink_runs, rc_mu);
    if (!result.found || !claim(result.found->signature())) return;
    record(*result.found, {{"kind", "sequence"}, {"steps", result.steps}}, case_seed);
  }
};

// Runs the lanes, each on a thread of its own, until the budget is spent; the first lane that
// stops for a signal or a bug stops the others (through the budget: no request is sent after).
void run_lanes(campaign& c, target& t, int connections) {
  std::vector<std::unique_ptr<target>> lanes;
  for (int k = 0; k < connections; ++k) lanes.push_back(std::make_unique<target>(t, k));
  std::mutex mu;
  std::exception_ptr first_failure;
  {
    std::vector<std::jthread> threads;
    for (auto& lane : lanes)
      threads.emplace_back([&c, &t, &mu, &first_failure, lane = lane.get()] {
        try {
          c.run_lane(*lane);
        } catch (const budget_spent&) {
        } catch (...) {
          std::lock_guard lock(mu);
          if (!first_failure) first_failure = std::current_exception();
          t.stop_requests();
        }
      });
  }
  for (const auto& lane : lanes) t.absorb(*lane);
  if (first_failure) std::rethrow_exception(first_failure);
}

}  // namespace

fuzz_report run(session& s, const fuzz_options& options) {
  campaign c(s, options);
  auto& t = c.t;
  const auto started = std::chrono::steady_clock::now();
  c.report.source = s.provenance();
  c.report.time_scale = s.time_scale();
  const int connections = std::max(1, options.connections);

  try {
    c.prepare();
    if (connections == 1) c.run_lane(t);
    else
      run_lanes(c, t, connections);
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
  m["connections"] = connections;
  m["request_cases"] = c.cases;
  m["sequences"] = c.sequence_runs;
  m["shrink_runs"] = c.shrink_runs_total;
  m["instances_created"] = t.launched();
  m["left_behind"] = left;
  m["seed"] = options.seed;
  if (c.report.stopped) m["stopped"] = c.report.stopped->message;
  c.report.measurements = std::move(m);
  return std::move(c.report);
}

}  // namespace neograde::fuzz
