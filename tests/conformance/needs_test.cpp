// The checks' needs (conformance/needs.hpp): preflight predicts from them the skips a run makes.
// For every spec, with spending allowed and refused, the checks preflight says a clean emulated run
// would skip are the ones it skips, for the same reason.

#include <neograde/conformance/catalogue.hpp>
#include <neograde/conformance/needs.hpp>
#include <neograde/conformance/readiness.hpp>

#include "../support/emulated_run.hpp"
#include "../support/specs.hpp"

#include <neograde/core/billing.hpp>

#include <gtest/gtest.h>

#include <map>

using namespace neograde;

namespace {

constexpr double time_scale = 0.002;  // as the mutation matrix: a 90 s boot takes 0.18 s of virtual time

// Skips no need can foretell: what decides them is an answer the run gets. Each is matched by
// check id and the start of its reason.
const std::vector<std::pair<std::string, std::string>>& decided_by_answers() {
  static const std::vector<std::pair<std::string, std::string>> skips{
      // Whether the emulator's rate limit is reached within the probe's 300 requests (its bucket
      // per spec, the requests the run made before).
      {"ratelimit.response.has_retry_after", "not applicable: the run met no 429, and the probe reached no rate limit"},
      {"ratelimit.response.has_envelope", "not applicable: the run met no 429, and the probe reached no rate limit"},
      // Judged on a 401 only: whether missing credentials are answered 401 or 403.
      {"auth.challenge.www_authenticate_on_401", "not applicable: missing credentials got HTTP "},
      // Judged on what the run's traffic read: a run that launches nothing reads only what the
      // account already holds (nothing, on a fresh emulator; a live account's own instances).
      {"schema.instance.get_matches_schema", "not applicable: no successful response was observed"},
      {"schema.instance.list_matches_schema", "not applicable: no successful response was observed"},
      {"schema.instance.status_in_vocabulary", "not applicable: no instance status was observed"},
      // Judged on the refusals the run met: a clean emulator refuses no advertised row.
      {"errors.launch.refusal_is_documented_error", "not applicable: no launch of an advertised row was refused"},
      // Whether a request schema constrains a value the client sends is found by rendering the
      // bodies the client would send (its launch variables for the offer row it picks).
      {"validation.request.schema_constraints_enforced", ""},
      // A request the ledger refused as it was sent: a GraphQL API takes every operation at the
      // launch's path, so that a broken body there may be a launch (provider_client::raw).
      {"*", "not sent: "},
  };
  return skips;
}

bool decided_by_an_answer(const check_outcome& o) {
  const auto& skips = decided_by_answers();
  return std::any_of(skips.begin(), skips.end(),
                     [&](const auto& s) { return (s.first == "*" || s.first == o.check_id) && o.reason.starts_with(s.second); });
}

conformance::run_conditions read_only() {
  return {.spend = {false, "no spending here"}, .second_account = true, .emulated = true, .time_scale = 1, .probes_rate_limit = true};
}

// The first unmet need decides, in the row's order: a billing check is not applicable where the
// spec declares no billing read, whatever the spending, and otherwise waits on spending.
TEST(Needs, TheFirstUnmetNeedIsTheReason) {
  const auto& stops = *conformance::find_check("billing.instance.stops_after_terminate");
  for (const auto& p : test::catalogue_providers()) {
    const auto& spec = test::spec(p);
    const auto unmet = conformance::applicability(stops, spec, read_only());
    ASSERT_TRUE(unmet.has_value()) << p;
    EXPECT_TRUE(unmet->certain);
    if (billing_read_of(spec)) EXPECT_EQ(unmet->reason, "launches an instance: no spending here") << p;
    else
      EXPECT_TRUE(unmet->reason.starts_with("not applicable: the spec declares")) << p << ": " << unmet->reason;
  }
}

// Without the probe the rate-limit checks are judged on a 429 met by chance: predicted, not
// certain, so that the run does not skip them.
TEST(Needs, TheRateLimitProbeIsAPredictionOnly) {
  auto run = read_only();
  run.probes_rate_limit = false;
  const auto unmet = conformance::applicability(*conformance::find_check("ratelimit.response.has_retry_after"), test::spec("lambda"), run);
  ASSERT_TRUE(unmet.has_value());
  EXPECT_FALSE(unmet->certain);
  run.probes_rate_limit = true;
  EXPECT_FALSE(conformance::applicability(*conformance::find_check("ratelimit.response.has_retry_after"), test::spec("lambda"), run));
}

// HEAD is GET's: an API with no declared GET (CloudRift's POST-only reads, RunPod's GraphQL) is not
// held to it; one with a GET is, even where its instance list is no GET.
TEST(Needs, HeadIsJudgedOnlyWhereTheApiDeclaresAGet) {
  const auto& head = *conformance::find_check("http.method.head_supported");
  for (const char* provider : {"cloudrift", "runpod-graphql"}) {
    const auto unmet = conformance::applicability(head, test::spec(provider), read_only());
    ASSERT_TRUE(unmet.has_value()) << provider;
    EXPECT_TRUE(unmet->reason.starts_with("not applicable: ")) << unmet->reason;
  }
  EXPECT_FALSE(conformance::applicability(head, test::spec("lambda"), read_only()));
}

// A check needing another applies only where that one does: the key visible_after_add registers.
TEST(Needs, ACheckNeedingAnotherFollowsIt) {
  const auto& spec = test::spec("lambda");
  const auto& remove = *conformance::find_check("lifecycle.ssh_key.delete_removes");
  EXPECT_EQ(conformance::applicability(remove, spec, read_only())->reason, "not applicable: no SSH key was registered");
  auto spending = read_only();
  spending.spend = {true, ""};
  EXPECT_EQ(conformance::applicability(remove, spec, spending).has_value(),
            conformance::applicability(*conformance::find_check("lifecycle.ssh_key.visible_after_add"), spec, spending).has_value());
}

// A provider that documents no error responses (errors.not_documented) is not held to an
// envelope or codes of its own: those checks say so, with the source; HTTP's own rules still apply.
TEST(Needs, ErrorsNotDocumentedMakeTheEnvelopeChecksNotApplicable) {
  auto doc = test::spec_json("lambda");
  doc["errors"]["not_documented"] = "its API reference lists no error response (example document, read 2026-12-06)";
  auto spec = parse_spec(doc.dump(), "undocumented.json");
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  auto spending = read_only();
  spending.spend = {true, ""};
  for (const char* id : {"errors.envelope.on_client_errors", "errors.envelope.code_is_documented", "ratelimit.response.has_envelope"}) {
    const auto unmet = conformance::applicability(*conformance::find_check(id), *spec, spending);
    ASSERT_TRUE(unmet.has_value()) << id;
    EXPECT_EQ(unmet->reason,
              "not applicable: the provider documents no error responses (its API reference lists no error response "
              "(example document, read 2026-12-06))")
        << id;
    EXPECT_FALSE(conformance::applicability(*conformance::find_check(id), test::spec("lambda"), spending).has_value()) << id;
  }
  EXPECT_FALSE(conformance::applicability(*conformance::find_check("errors.request.malformed_json_is_4xx"), *spec, spending).has_value());
}

struct prediction_case {
  std::string provider;
  bool allow_spend = true;
};

class Preflight : public ::testing::TestWithParam<prediction_case> {};

TEST_P(Preflight, PredictsTheSkipsOfACleanRun) {
  const auto& spec = test::spec(GetParam().provider);
  const bool spend = GetParam().allow_spend;
  std::map<std::string, std::string> predicted;
  {
    test::virtual_emulator target(spec, {}, time_scale, "needs", spend);
    const auto r = conformance::assess_readiness(target.target(), {});
    ASSERT_TRUE(r.ready) << r.doc.dump();
    for (const auto& s : r.doc["skipped"]) predicted.emplace(s["check"].get<std::string>(), s["why"].get<std::string>());
  }
  const auto run = test::run_on_virtual_clock(spec, {}, time_scale, "needs", spend);
  ASSERT_EQ(run.report.outcomes.size(), conformance::catalogue().size());
  const std::string deviation = "known deviation, reported as skipped if it misses: ";
  for (const auto& o : run.report.outcomes) {
    const auto it = predicted.find(o.check_id);
    if (it == predicted.end()) {
      EXPECT_TRUE(o.result != outcome::skipped || decided_by_an_answer(o)) << o.check_id << " skipped, not predicted: " << o.reason;
    } else if (it->second.starts_with(deviation)) {
      // A declared deviation is reported as skipped only where the check misses.
      EXPECT_TRUE(o.result == outcome::pass || (o.result == outcome::skipped && o.reason.starts_with("known deviation: ")))
          << o.check_id << ": " << o.reason;
    } else {
      EXPECT_EQ(o.result, outcome::skipped) << o.check_id << " predicted skipped (" << it->second << ") but: " << o.reason;
      EXPECT_EQ(o.reason, it->second) << o.check_id;
    }
  }
}

std::vector<prediction_case> prediction_cases() {
  std::vector<prediction_case> out;
  for (const auto& p : test::catalogue_providers())
    for (bool spend : {true, false}) out.push_back({p, spend});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, Preflight, ::testing::ValuesIn(prediction_cases()), [](const auto& info) {
  return test::test_name(info.param.provider) + (info.param.allow_spend ? "_spending" : "_read_only");
});

}  // namespace
