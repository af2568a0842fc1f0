// neograde fuzz against the emulators: the clean emulator of every catalogue provider yields no
// finding in 2,000 requests, and every quirk that fuzzing can reach is found, shrunk and given a
// curl line. Quirks fuzzing cannot reach are listed with the reason (conformance checks them).

#include <neograde/fuzz/api_fuzzer.hpp>

#include <neograde/emulator/emulator.hpp>

#include "../support/network.hpp"
#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <unistd.h>

using namespace neograde;

namespace {

// Delays shrink 10,000-fold: a 90 s boot takes 9 ms, so sequences see instances boot, run and go.
constexpr double time_scale = 0.0001;

struct fuzz_run {
  fuzz::fuzz_report report;
  std::size_t live_after = 0;
  std::vector<std::string> keys;
};

fuzz_run run_fuzz(const provider_spec& spec, emulator::quirk_set quirks, std::uint64_t seed = 7, int max_requests = 2000,
                  double scale = time_scale, std::function<bool(const check_outcome&)> stop_when = {}, int connections = 1,
                  const std::function<void(session_options&)>& adjust = {}) {
  // The campaign and its emulator share a virtual clock: what a sequence sees (a boot, a grace
  // after terminate) depends on its steps, not on the machine's speed (issue 19).
  virtual_clock time;
  emulator::model_options m;
  m.api_keys = emulator::make_api_keys(spec, 2, "fuzz");
  m.quirks = std::move(quirks);
  m.time_scale = scale;
  m.rate_limit = false;
  m.now = [&time] { return time.now(); };
  emulator::emulator emu(spec, m);
  emu.start();
  session_options so{.base_url = emu.base_url(),
                     .api_key = m.api_keys[0],
                     .second_api_key = m.api_keys[1],
                     .run_id = "fuzz0000",
                     .http = {.sleep = [&time](std::chrono::milliseconds d) { time.sleep(d); }},
                     .clock = &time};
  if (adjust) adjust(so);
  session s(spec, std::move(so));
  fuzz::fuzz_options o{.seed = seed, .max_requests = max_requests, .connections = connections, .stop_when = std::move(stop_when)};
  fuzz_run out{fuzz::run(s, o), 0, m.api_keys};
  out.live_after = emu.model().live_instances();
  return out;
}

std::string describe(const fuzz::fuzz_report& r) {
  std::string s;
  for (const auto& f : r.findings) s += "\n  " + f.check_id + ": " + f.reason;
  return s.empty() ? " none" : s;
}

struct reachable {
  const char* quirk;
  const char* oracle;               // the finding must be fuzz.<oracle>.*
  double scale = time_scale;        // slower where the defect only shows while an instance is terminating
  const char* provider = "lambda";  // where the quirk has something to break
};

// Every quirk fuzzing reaches, with the oracle that must find it (on Lambda's emulator).
const std::vector<reachable>& reachable_quirks() {
  static const std::vector<reachable> all{
      {"auth_missing_accepted", "auth_bypass"},
      {"invalid_key_accepted", "auth_bypass"},
      {"query_key_accepted", "auth_bypass"},
      {"malformed_json_500", "server_error"},
      {"malformed_launch_500", "server_error"},
      {"malformed_auth_500", "server_error"},
      {"terminate_500", "server_error"},
      {"head_500", "server_error"},
      {"options_500", "server_error"},
      {"empty_body_500", "server_error"},
      {"non_object_body_500", "server_error"},
      {"terminate_unknown_500", "server_error"},
      {"restart_unknown_500", "server_error"},
      {"validation_500", "server_error"},
      {"long_name_500", "server_error"},
      {"unicode_500", "server_error"},
      {"double_terminate_500", "server_error", 0.01},
      {"html_errors", "error_envelope"},
      {"stack_traces", "internal_details"},
      {"undocumented_error_code", "undocumented_code"},
      {"success_text_plain", "content_type"},
      {"unknown_type_accepted", "negative_accepted"},
      {"unknown_region_accepted", "negative_accepted"},
      {"out_of_range_accepted", "negative_accepted"},
      {"missing_field_accepted", "negative_accepted"},
      {"empty_key_name_accepted", "negative_accepted"},
      {"unknown_id_200", "negative_accepted"},
      {"unknown_path_200", "negative_accepted"},
      {"key_delete_unknown_200", "negative_accepted"},
      {"offers_schema_drift", "response_schema"},
      {"instance_schema_drift", "response_schema"},
      {"launch_schema_drift", "response_schema"},
      {"terminate_schema_drift", "response_schema"},
      {"launch_without_id", "lost_instance"},
      {"get_not_found", "lost_instance"},
      {"list_omits_instances", "lost_instance"},
      {"unknown_status_word", "status_vocabulary"},
      {"status_words_upper_case", "status_vocabulary"},
      {"wrong_type_delivered", "wrong_instance"},
      {"fixed_type_delivered", "wrong_instance"},  // sequences launch the offer rows in turn
      {"list_get_disagree", "wrong_instance"},
      {"flapping", "state_regressed"},
      {"capacity_refusal_500", "server_error"},
      {"price_above_row", "wrong_instance"},
      // Where the instance shows the GPU count the launch sends.
      {"gpu_count_doubled", "wrong_instance", time_scale, "primeintellect"},
      {"cross_tenant_read", "cross_account"},
      {"cross_tenant_list", "cross_account"},
      {"cross_tenant_actions", "cross_account"},
      {"existence_leak_403", "cross_account"},
      {"cross_tenant_keys", "cross_account"},
      {"key_not_listed", "key_model"},
      {"key_delete_ignored", "key_model"},
      {"ghost_after_terminate", "ghost_instance"},
      // Actions judged by their effect, bulk operations by their set, pages that end (issue 39):
      // where the API stops and starts and deletes by tag (DigitalOcean), where its offer pages
      // state a total (Prime Intellect's totalCount, which its CLI walks to).
      {"action_without_effect", "no_effect", time_scale, "digitalocean"},
      {"start_without_effect", "no_effect", time_scale, "digitalocean"},
      {"bulk_delete_partial", "bulk_set", time_scale, "digitalocean"},
      {"page_repeats", "page_walk", time_scale, "primeintellect"},
      {"page_total_wrong", "page_walk", time_scale, "primeintellect"},
  };
  return all;
}

// Quirks fuzzing does not reach, and why; the conformance catalogue covers each of them.
const std::map<std::string, std::string>& unreachable_quirks() {
  static const std::map<std::string, std::string> all{
      {"no_allow_header", "a header check, not a property of generated input"},
      {"no_www_authenticate", "a header check, not a property of generated input"},
      {"no_date_header", "a header check, not a property of generated input"},
      {"scheme_case_sensitive", "fuzzing sends the documented scheme; the case variant is a conformance check"},
      {"stuck_booting", "needs the full time to running, which a fuzz sequence does not wait for"},
      {"restart_stuck", "needs the full time to running after a restart"},
      {"action_never_completes", "a restart's action is followed by the conformance check; fuzz sequences do not read actions"},
      {"no_address", "the address is only required once running for the full boot time"},
      {"negative_price", "a value judgement on offers, not a schema or protocol violation"},
      {"duplicate_offers", "a value judgement on offers, not a schema or protocol violation"},
      {"phantom_capacity", "a capacity refusal is a provider condition to the fuzzer, by design"},
      {"partial_capacity", "a capacity refusal is a provider condition to the fuzzer, by design"},
      {"terminate_first_only", "fuzz sequences terminate one instance at a time"},
      {"no_retry_after_header", "fuzzing stays under rate limits (politeness); the probe is conformance's"},
      {"rate_limit_text", "fuzzing stays under rate limits (politeness); the probe is conformance's"},
      {"page_size_ignored", "pagination is walked by conformance over many instances"},
      {"next_link_on_last_page", "pagination metadata is walked by conformance over many instances"},
      {"tag_filter_ignored", "fuzz sequences never list by tag; the filter is conformance's check where the provider documents it"},
      {"no_rate_limit_headers_on_success", "headers declared on every response are conformance's check over everything the run saw"},
      {"slow_responses", "latency is a measurement, not an oracle"},
      {"unknown_image_accepted", "Lambda's launch sends no image; conformance checks it where the provider documents the refusal"},
      {"unknown_ssh_key_accepted", "fuzz launches name the run's own key; an unknown key name is conformance's check"},
      // billing (issue 22)
      {"billing_continues_after_terminate",
       "billing is read by the conformance lifecycle where the spec declares it; Lambda declares none"},
      {"billing_from_request", "billing is read by the conformance lifecycle where the spec declares it; Lambda declares none"},
      // DePIN networks and aggregators (issue 23): lifecycle and billing conditions, not request defects.
      {"underlying_provider_swapped", "needs an offer and an instance that both name an underlying provider; Lambda names none"},
      {"deposit_not_released", "a deposit shows in the balance the conformance lifecycle reads; Lambda declares no deposit"},
      {"funds_refused_with_balance", "needs the spec's insufficient_funds error and a balance to read; Lambda declares neither"},
      // deciding once (issue 36)
      {"list_lags_get", "no defect: a list a few seconds behind single reads is tolerated (conformance shows every check passes)"},
      {"restart_ends_off", "needs the full time to running after a restart"},
      {"terminate_stuck", "needs the full time to gone after a terminate, which a fuzz sequence does not wait for"},
  };
  return all;
}

}  // namespace

// On four connections (fuzz --connections) too: each lane has clients and a name prefix of its
// own and the lanes share one budget, so no lane takes another's instance for a leak or a ghost,
// and the budget is spent to the request.
class FuzzCleanEmulator : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(FuzzCleanEmulator, TwoThousandRequestsNoFindingAndNothingLeftRunning) {
  const auto& [provider, connections] = GetParam();
  auto run = run_fuzz(test::spec(provider), {}, 7, 2000, time_scale, {}, connections);
  EXPECT_TRUE(run.report.findings.empty()) << describe(run.report);
  EXPECT_EQ(run.report.source, result_source::emulated);
  EXPECT_EQ(run.report.measurements["requests"], 2000);
  EXPECT_EQ(run.report.measurements["connections"], connections);
  EXPECT_TRUE(run.report.measurements["left_behind"].empty()) << run.report.measurements.dump();
  EXPECT_EQ(run.live_after, 0u);
  // No finding is not for want of trying: where the spec declares a stop (and a start), sequences
  // (which launch where the spec reads single instances) stopped instances (and started them
  // again), and each effect was read: fuzz.no_effect ran. On one connection, where the seed fixes
  // every sequence; on four, the lanes take the iterations in whatever order their threads come,
  // and two campaigns in eighty read no start (Linode, this machine under load).
  const auto& seen = run.report.measurements["effects_seen"];
  const auto& spec = test::spec(provider);
  if (connections == 1 && spec.operation(operation_id::get) != nullptr)
    for (const auto& [op, effect] : {std::pair{operation_id::stop, "stop"}, std::pair{operation_id::start, "start"}})
      if (spec.operation(op) != nullptr) EXPECT_GT(seen.value(effect, 0L), 0) << effect << ": " << seen.dump();
}

INSTANTIATE_TEST_SUITE_P(Catalogue, FuzzCleanEmulator,
                         ::testing::Combine(::testing::ValuesIn(test::catalogue_providers()), ::testing::Values(1, 4)),
                         [](const auto& info) {
                           return test::test_name(std::get<0>(info.param)) + "_on_" + std::to_string(std::get<1>(info.param));
                         });

// No false findings from the effect oracles (issue 39), and not for want of trying: on the clean
// emulators where they apply, stops reach the stopped state, starts running, deletes by tag
// exactly the tagged set, and offer walks end, each read and counted.
TEST(FuzzEffects, TheCleanEmulatorShowsEveryEffectAndNoFinding) {
  auto digitalocean = run_fuzz(test::spec("digitalocean"), {}, 7, 2000);
  EXPECT_TRUE(digitalocean.report.findings.empty()) << describe(digitalocean.report);
  const auto& seen = digitalocean.report.measurements["effects_seen"];
  for (const char* effect : {"stop", "start", "terminate_tagged", "offer_walk"})
    EXPECT_GT(seen.value(effect, 0L), 0) << effect << ": " << seen.dump();
  auto primeintellect = run_fuzz(test::spec("primeintellect"), {}, 7, 1000);
  EXPECT_TRUE(primeintellect.report.findings.empty()) << describe(primeintellect.report);
  EXPECT_GT(primeintellect.report.measurements["effects_seen"].value("offer_walk", 0L), 0) << primeintellect.report.measurements.dump();
  EXPECT_EQ(digitalocean.live_after + primeintellect.live_after, 0u);
}

// The second account's read of an instance is compared with its read of a missing id of the
// same shape: Vast.ai answers a non-integer id 400 for its form alone and a missing integer id
// 200 with a null object, so a made-up word would have shamed it for an existence leak.
TEST(FuzzCrossAccount, ComparesWithAMissingIdOfTheSameShape) {
  for (const std::uint64_t seed : {1, 6}) {
    auto run = run_fuzz(test::spec("vastai"), {}, seed, 1000);
    EXPECT_GT(run.report.measurements["sequences"].get<long>(), 0);
    EXPECT_TRUE(run.report.findings.empty()) << "seed " << seed << ":" << describe(run.report);
  }
}

class FuzzFindsQuirk : public ::testing::TestWithParam<reachable> {};

// The quirk is found as its oracle, with a shrunk reproduction and a curl line that carries no key.
void expect_found(const reachable& r, int connections) {
  const auto& spec = test::spec(r.provider);
  const std::string prefix = std::string("fuzz.") + r.oracle + ".";
  auto run = run_fuzz(
      spec, {r.quirk}, 7, 3000, r.scale, [&](const check_outcome& f) { return f.check_id.starts_with(prefix); }, connections);
  auto it = std::find_if(run.report.findings.begin(), run.report.findings.end(),
                         [&](const check_outcome& f) { return f.check_id.starts_with(prefix); });
  ASSERT_NE(it, run.report.findings.end()) << r.quirk << " not found as " << r.oracle << "; found:" << describe(run.report);
  EXPECT_NE(it->result, outcome::pass);
  EXPECT_EQ(it->measurements["seed"], 7);
  EXPECT_TRUE(it->measurements.contains("signature"));
  // Found within the campaign's budget, counted before shrinking (bench/fuzz-detection tabulates it).
  const auto detected_after = it->measurements.value("requests_to_detection", 0L);
  EXPECT_GT(detected_after, 0);
  EXPECT_LE(detected_after, run.report.measurements["requests"].get<long>());
  ::testing::Test::RecordProperty("requests_to_detection", std::to_string(detected_after));
  const auto& repro = it->measurements["minimal_reproduction"];
  EXPECT_TRUE(repro.contains("request") || repro.contains("steps")) << repro.dump();
  ASSERT_EQ(it->evidence.size(), 1u);
  EXPECT_TRUE(it->reproduce.starts_with("curl ")) << it->reproduce;
  // A credential the request carried is read from the environment, never written out.
  const bool had_credential = std::any_of(it->evidence[0].request_headers.begin(), it->evidence[0].request_headers.end(),
                                          [](const auto& h) { return h.first == "Authorization" && h.second == "<redacted>"; });
  if (had_credential) {
    EXPECT_NE(it->reproduce.find("$" + spec.auth.env), std::string::npos) << it->reproduce;
  }
  for (const auto& key : run.keys) EXPECT_EQ(it->reproduce.find(key), std::string::npos) << "the key leaked: " << it->reproduce;
  EXPECT_EQ(run.report.measurements["connections"], connections);
}

TEST_P(FuzzFindsQuirk, WithAShrunkReproductionAndACurlLine) { expect_found(GetParam(), 1); }

INSTANTIATE_TEST_SUITE_P(Quirks, FuzzFindsQuirk, ::testing::ValuesIn(reachable_quirks()),
                         [](const auto& info) { return std::string(info.param.quirk); });

// One quirk per oracle, the stateful ones above all, is still found on four connections.
class FuzzFindsQuirkOnConnections : public ::testing::TestWithParam<reachable> {};

TEST_P(FuzzFindsQuirkOnConnections, AsOnOne) { expect_found(GetParam(), 4); }

INSTANTIATE_TEST_SUITE_P(Quirks, FuzzFindsQuirkOnConnections, ::testing::ValuesIn([] {
                           std::vector<reachable> one_per_oracle;
                           std::set<std::string> seen;
                           for (const auto& r : reachable_quirks())
                             if (seen.insert(r.oracle).second) one_per_oracle.push_back(r);
                           return one_per_oracle;
                         }()),
                         [](const auto& info) { return std::string(info.param.quirk); });

TEST(FuzzQuirkCoverage, EveryQuirkIsReachableOrSaysWhyNot) {
  std::set<std::string> classified;
  for (const auto& r : reachable_quirks()) EXPECT_TRUE(classified.insert(r.quirk).second) << r.quirk << " twice";
  for (const auto& [q, why] : unreachable_quirks()) EXPECT_TRUE(classified.insert(q).second) << q << " in both lists";
  for (const auto& q : emulator::known_quirks()) EXPECT_TRUE(classified.contains(std::string(q.name))) << q.name << " is not classified";
  EXPECT_EQ(classified.size(), emulator::known_quirks().size());
}

TEST(FuzzSeed, TheSameSeedFindsTheSameThingsTheSameWay) {
  const auto& spec = test::spec("lambda");
  auto a = run_fuzz(spec, {"unicode_500", "stack_traces"}, 11, 600);
  auto b = run_fuzz(spec, {"unicode_500", "stack_traces"}, 11, 600);
  ASSERT_FALSE(a.report.findings.empty());
  ASSERT_EQ(a.report.findings.size(), b.report.findings.size());
  for (std::size_t i = 0; i < a.report.findings.size(); ++i) {
    EXPECT_EQ(a.report.findings[i].check_id, b.report.findings[i].check_id);
    EXPECT_EQ(a.report.findings[i].measurements["minimal_reproduction"], b.report.findings[i].measurements["minimal_reproduction"]);
  }
}

TEST(FuzzBudget, NeverSendsMoreThanMaxRequestsAndShrinksWithinIt) {
  auto run = run_fuzz(test::spec("lambda"), {"malformed_json_500", "html_errors"}, 3, 150);
  EXPECT_LE(run.report.measurements["requests"].get<long>(), 150);
  EXPECT_FALSE(run.report.findings.empty());
  EXPECT_EQ(run.live_after, 0u);
}

TEST(FuzzBudget, StopsWhereStopWhenSays) {
  const auto& spec = test::spec("lambda");
  auto all = run_fuzz(spec, {"malformed_json_500", "html_errors", "unicode_500"}, 3, 1500);
  ASSERT_GE(all.report.findings.size(), 2u) << describe(all.report);
  auto first =
      run_fuzz(spec, {"malformed_json_500", "html_errors", "unicode_500"}, 3, 1500, time_scale, [](const check_outcome&) { return true; });
  ASSERT_EQ(first.report.findings.size(), 1u) << describe(first.report);
  EXPECT_EQ(first.report.findings[0].check_id, all.report.findings[0].check_id);
  EXPECT_LT(first.report.measurements["requests"].get<long>(), all.report.measurements["requests"].get<long>());
  EXPECT_EQ(first.live_after, 0u);
}

TEST(FuzzShrinking, AFailingRequestIsShrunkToTheSimplestThatStillFails) {
  // long_name_500 fails on names over 64 characters: whatever hostile string found it, the
  // reproduction is the shortest generated one that still fails.
  auto run = run_fuzz(test::spec("lambda"), {"long_name_500"});
  auto it = std::find_if(run.report.findings.begin(), run.report.findings.end(),
                         [](const check_outcome& f) { return f.check_id.starts_with("fuzz.server_error."); });
  ASSERT_NE(it, run.report.findings.end()) << describe(run.report);
  const auto request = it->measurements["minimal_reproduction"]["request"].get<std::string>();
  EXPECT_NE(request.find("body_with_hostile_string"), std::string::npos) << request;
}

// Live mode's rules (a loopback emulator treated as live, opted in): the campaign launches, within
// its budget, what the offers read price; a launch the spend ledger refuses (a generated type is
// priced as the dearest offer, over --max-spend) was never sent, and is no finding.
TEST(FuzzLive, LaunchesWithinTheBudgetAndALedgerRefusalIsNoFinding) {
  const auto journal = std::filesystem::temp_directory_path() / ("neograde-fuzz-live-" + std::to_string(getpid()) + ".jsonl");
  setenv(live_opt_in_env, "1", 1);
  auto run = run_fuzz(test::spec("lambda"), {}, 7, 600, time_scale, {}, 1, [&](session_options& so) {
    so.allow_spend = true;
    so.treat_as_live = true;
    so.budget = {.max_instances = 2, .max_spend_usd = 5.0};
    so.journal = journal;
  });
  unsetenv(live_opt_in_env);
  std::filesystem::remove(journal);
  EXPECT_GE(run.report.measurements["instances_created"].get<int>(), 1) << run.report.measurements.dump();
  EXPECT_LE(run.report.measurements["instances_created"].get<int>(), 2) << run.report.measurements.dump();
  EXPECT_TRUE(run.report.findings.empty()) << describe(run.report);
  EXPECT_EQ(run.live_after, 0u);
}

TEST(FuzzSafety, AgainstARemoteHostNothingIsLaunchedAndRequestsArePaced) {
  auto address = test::outside_address();
  if (!address) GTEST_SKIP() << "no non-loopback address on this machine";
  setenv("NEOGRADE_LIVE", "1", 1);  // even opted in, fuzzing launches nothing without --allow-spend
  const auto& spec = test::spec("lambda");
  emulator::model_options m;
  m.api_keys = emulator::make_api_keys(spec, 1, "fuzz");
  m.time_scale = time_scale;
  m.rate_limit = false;
  m.quirks = {"missing_field_accepted"};  // even a launch the API should refuse would create one
  emulator::server_options server;
  server.host = "0.0.0.0";
  emulator::emulator emu(spec, m, server);
  emu.start();
  auto url = emu.base_url();
  url.replace(url.find("0.0.0.0"), 7, *address);
  session s(spec, {.base_url = url, .api_key = m.api_keys[0]});
  auto report = fuzz::run(s, {.max_requests = 11});
  unsetenv("NEOGRADE_LIVE");
  EXPECT_EQ(report.measurements["instances_created"], 0);
  EXPECT_EQ(emu.model().instances_created(), 0u);
  // 5 requests per second by default: 11 requests cannot take less than 2 seconds.
  EXPECT_GE(report.measurements["seconds"].get<double>(), 2.0);
}
