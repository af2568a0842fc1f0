// Each footer measurement: written as the run has always written it (the JSON below is the layout
// of results.jsonl, byte for byte once dumped), read back equal, and read leniently from anything.
#include <neograde/core/measurements.hpp>

#include <gtest/gtest.h>

using namespace neograde;
using nlohmann::json;

namespace {

// to_json gives exactly `written`, and from_json gives back `value`.
template <class T>
void round_trips(const T& value, const char* written) {
  const json j = value;
  EXPECT_EQ(j.dump(), json::parse(written).dump());
  EXPECT_TRUE(j.get<T>() == value) << j.dump();
  // Through the footer's measurements, by the measurement's own key.
  const json footer = {{T::key, j}};
  const auto back = measurement::read<T>(footer);
  ASSERT_TRUE(back);
  EXPECT_TRUE(*back == value);
}

}  // namespace

TEST(Measurements, DeveloperExperienceRoundTrips) {
  round_trips(measurement::developer_experience{.launch_requested_at = "2026-12-03T16:45:27Z",
                                                .running_at = "2026-12-03T16:45:27Z",
                                                .ssh_at = std::nullopt,
                                                .first_kernel_at = std::nullopt,
                                                .time_to_running_s = 0.168,
                                                .time_to_ssh_s = std::nullopt,
                                                .time_to_first_kernel_s = std::nullopt,
                                                .launch_attempts = 3,
                                                .launch_refused = {.capacity = 1, .quota = 0, .funds = 1, .error = 0},
                                                .launch_succeeded = true,
                                                .api_answered = true},
              R"({"api_answered": true, "first_kernel_at": null, "launch_attempts": 3,
                  "launch_refused": {"capacity": 1, "error": 0, "funds": 1, "quota": 0},
                  "launch_requested_at": "2026-12-03T16:45:27Z", "launch_succeeded": true, "running_at": "2026-12-03T16:45:27Z",
                  "ssh_at": null, "time_to_first_kernel_s": null, "time_to_running_s": 0.168, "time_to_ssh_s": null})");
  EXPECT_EQ((measurement::refusals{.capacity = 1, .quota = 2, .funds = 3, .error = 4}.total()), 10);
}

TEST(Measurements, SpendRoundTripsWithTheBudgetOnlyWhenLive) {
  round_trips(measurement::spend{.live = false, .allowed = true, .instances_created = 6, .estimated_usd = 3.05},
              R"({"allowed": true, "estimated_usd": 3.05, "instances_created": 6, "live": false})");
  round_trips(
      measurement::spend{
          .live = true, .allowed = true, .instances_created = 1, .estimated_usd = 0.5, .max_instances = 1, .max_spend_usd = 5.0},
      R"({"allowed": true, "estimated_usd": 0.5, "instances_created": 1, "live": true, "max_instances": 1,
                  "max_spend_usd": 5.0})");
}

TEST(Measurements, RateLimitRoundTrips) {
  round_trips(measurement::rate_limit{.probed = true, .met_in_traffic = 2, .probe_met = true},
              R"({"met_in_traffic": 2, "probe_met": true, "probed": true})");
}

TEST(Measurements, OfferSelectionRoundTripsWithAndWithoutAChoice) {
  round_trips(measurement::offer_selection{.explanation = "a100 at $0.9/h: the cheapest",
                                           .rows = 3,
                                           .not_gpu = 0,
                                           .unavailable = 1,
                                           .unpriced = 0,
                                           .not_pinned = 0,
                                           .refused = 0,
                                           .not_fitting = 0,
                                           .chosen = measurement::chosen_offer{.instance_type = "a100",
                                                                               .region = "",
                                                                               .price_per_hour_usd = 0.9,
                                                                               .params = {{"template_id", "t1"}}}},
              R"({"explanation": "a100 at $0.9/h: the cheapest", "instance_type": "a100", "not_fitting": 0, "not_gpu": 0,
                  "not_pinned": 0, "params": {"template_id": "t1"}, "price_per_hour_usd": 0.9, "refused": 0, "region": "", "rows": 3,
                  "unavailable": 1, "unpriced": 0})");
  round_trips(measurement::offer_selection{.explanation = "nothing to launch", .rows = 2, .unavailable = 2},
              R"({"explanation": "nothing to launch", "not_fitting": 0, "not_gpu": 0, "not_pinned": 0, "refused": 0, "rows": 2,
                  "unavailable": 2, "unpriced": 0})");
}

TEST(Measurements, AdvertisedRowsRoundTripWithWhyOnlyForRowsNotLaunched) {
  round_trips(measurement::advertised_rows{.tried = 2,
                                           .launched = 1,
                                           .share = 0.5,
                                           .rows = {{.row = "a100", .launched = true, .why = ""},
                                                    {.row = "h100 @ us-east-1", .launched = false, .why = "no_capacity"}},
                                           .advertised = 2},
              R"({"advertised": 2, "launched": 1, "rows": [{"launched": true, "row": "a100"},
                  {"launched": false, "row": "h100 @ us-east-1", "why": "no_capacity"}], "share": 0.5, "tried": 2})");
  round_trips(measurement::advertised_rows{.tried = 1, .launched = 1, .share = 1.0, .rows = {{.row = "a100", .launched = true}}},
              R"({"launched": 1, "rows": [{"launched": true, "row": "a100"}], "share": 1.0, "tried": 1})");
}

TEST(Measurements, BillingRoundTrips) {
  round_trips(measurement::billing{.scope = "instance",
                                   .price_per_hour_usd = 1.5,
                                   .increment_s = 60.0,
                                   .billed_from = "running",
                                   .readings = {{.phase = "running",
                                                 .at = "2026-12-03T00:00:00Z",
                                                 .amount = 0.25,
                                                 .spend_rate_usd_per_hour = 1.5,
                                                 .as_of = "2026-12-03T00:00:00Z",
                                                 .problem = ""},
                                                {.phase = "after_terminate",
                                                 .at = "2026-12-03T00:01:00Z",
                                                 .amount = std::nullopt,
                                                 .spend_rate_usd_per_hour = std::nullopt,
                                                 .as_of = std::nullopt,
                                                 .problem = "no figures"}}},
              R"({"billed_from": "running", "increment_s": 60.0, "price_per_hour_usd": 1.5, "readings": [
                  {"amount": 0.25, "as_of": "2026-12-03T00:00:00Z", "at": "2026-12-03T00:00:00Z", "phase": "running",
                   "spend_rate_usd_per_hour": 1.5},
                  {"amount": null, "at": "2026-12-03T00:01:00Z", "phase": "after_terminate", "problem": "no figures",
                   "spend_rate_usd_per_hour": null}], "scope": "instance"})");
  round_trips(measurement::billing{.scope = "account"},
              R"({"billed_from": null, "increment_s": null, "price_per_hour_usd": null, "readings": [], "scope": "account"})");
}

// A footer is data: wrong types read as defaults or none, never as an exception.
TEST(Measurements, HostileFieldsReadAsDefaults) {
  const auto dx = json::parse(R"({"launch_attempts": "many", "launch_succeeded": "yes", "time_to_running_s": "fast",
                                  "launch_refused": {"capacity": -3, "quota": 1e300, "funds": 2.5, "error": 1},
                                  "launch_requested_at": 7, "api_answered": 1})")
                      .get<measurement::developer_experience>();
  EXPECT_EQ(dx.launch_attempts, 0);
  EXPECT_FALSE(dx.launch_succeeded);
  EXPECT_FALSE(dx.api_answered);
  EXPECT_FALSE(dx.time_to_running_s);
  EXPECT_FALSE(dx.launch_requested_at);
  EXPECT_EQ(dx.launch_refused, (measurement::refusals{.capacity = 0, .quota = 0, .funds = 0, .error = 1}));
  const auto rows = json::parse(R"({"rows": ["junk", 3, {"row": 5, "launched": "no"}], "tried": -1})").get<measurement::advertised_rows>();
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_EQ(rows.rows[0].row, "");
  EXPECT_FALSE(rows.rows[0].launched);
  EXPECT_EQ(rows.tried, 0u);
  EXPECT_FALSE(json::parse(R"({"probed": "yes"})").get<measurement::rate_limit>().probed);
  EXPECT_FALSE(json::parse(R"({"instance_type": 1, "params": {"a": 1}})").get<measurement::offer_selection>().chosen);
  EXPECT_TRUE(json::parse(R"({"readings": {"phase": "x"}})").get<measurement::billing>().readings.empty());

  EXPECT_FALSE(measurement::read<measurement::spend>(json("not an object")));
  EXPECT_FALSE(measurement::read<measurement::spend>(json{{"spend", 3}}));
  EXPECT_FALSE(measurement::read<measurement::spend>(json::object()));
  EXPECT_TRUE(measurement::read<measurement::spend>(json{{"spend", json::object()}}));
}

TEST(Measurements, TypedKeysAreTheEight) {
  for (const char* k : {"developer_experience", "spend", "rate_limit", "offer_selection", "advertised_rows_launched", "billing",
                        "contract_shape", "supply_composition"})
    EXPECT_TRUE(measurement::is_typed(k)) << k;
  EXPECT_FALSE(measurement::is_typed("latency_read_ms"));
  EXPECT_FALSE(measurement::is_typed("capacity_refusal_rate"));
}
