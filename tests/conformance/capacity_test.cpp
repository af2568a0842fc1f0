// capacity.offers.advertised_is_launchable against a catalogue shared with other customers: a row
// refused for lack of capacity is a finding only when the catalogue, read again at once, still
// advertises it. A row another customer took between the run's read and its launch is no
// contradiction the provider could not refute (two runs on one emulator account met exactly
// that: CI, 2026-12-06).

#include "../support/emulator_front.hpp"
#include "../support/specs.hpp"

#include <neograde/core/measurements.hpp>

#include <gtest/gtest.h>

using namespace neograde;

namespace {

const char* capacity_id = "capacity.offers.advertised_is_launchable";
const std::string launch_path = "/api/v1/instance-operations/launch";
const std::string offers_path = "/api/v1/instance-types";

// Lambda's emulator behind a front that refuses the run's launch of its instance for lack of capacity, as
// the model refuses a type it has none of (the model's own answer). `taken`: from then on, the
// catalogue no longer advertises the refused row's region, as after another customer launched
// the last unit; otherwise it goes on advertising the row it refused.
test::emulator_front first_launch_refused(bool taken, std::string& refused_row) {
  return [taken, &refused_row](const http::request& req, emulator::provider_model& model) -> std::optional<http::response> {
    const auto path = test::path_of(req);
    if (req.method == "POST" && path == launch_path && refused_row.empty()) {
      auto body = nlohmann::json::parse(req.body, nullptr, false);
      // The run's own instance (named <prefix>lc), not a launch the validation checks send broken.
      const auto name = body.is_object() ? body.value("name", "") : "";
      if (!name.ends_with("-lc")) return std::nullopt;
      refused_row = body.at("instance_type_name").get<std::string>() + "@" + body.at("region_name").get<std::string>();
      auto none_left = req;
      body["instance_type_name"] = "gpu_8x_h100_sxm5";  // the emulator has no capacity of it anywhere
      none_left.body = body.dump();
      return model.handle(none_left);
    }
    if (req.method == "GET" && path == offers_path && taken && !refused_row.empty()) {
      auto r = model.handle(req);
      auto doc = nlohmann::json::parse(r.body);
      const auto at = refused_row.find('@');
      auto& regions = doc.at("data").at(refused_row.substr(0, at)).at("regions_with_capacity_available");
      regions.erase(
          std::remove_if(regions.begin(), regions.end(), [&](const auto& g) { return g.at("name") == refused_row.substr(at + 1); }),
          regions.end());
      r.body = doc.dump();
      return r;
    }
    return std::nullopt;
  };
}

}  // namespace

// The catalogue read after the refusal no longer lists the row: recorded, not judged, and the
// run goes on to the next row.
TEST(CapacityRace, ARowTakenInBetweenIsNotJudged) {
  std::string refused;
  const auto report = test::run_behind_front(test::spec("lambda"), first_launch_refused(true, refused));
  ASSERT_FALSE(refused.empty()) << "the run launched nothing";
  const auto& o = test::outcome_in(report, capacity_id);
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
  EXPECT_NE(o.reason.find("no longer advertises it (taken in between): not judged"), std::string::npos) << o.reason;
  const auto& launch = test::outcome_in(report, "lifecycle.instance.launch_returns_id");
  EXPECT_EQ(launch.result, outcome::pass) << launch.reason;
}

// The catalogue read after the refusal still advertises the row: the provider refused capacity
// it advertised before and after, a finding with both answers as evidence.
TEST(CapacityRace, ARowStillAdvertisedAfterItsRefusalFails) {
  std::string refused;
  const auto report = test::run_behind_front(test::spec("lambda"), first_launch_refused(false, refused));
  ASSERT_FALSE(refused.empty()) << "the run launched nothing";
  const auto& o = test::outcome_in(report, capacity_id);
  EXPECT_EQ(o.result, outcome::fail) << o.reason;
  EXPECT_NE(o.reason.find("while the catalogue read just after still advertises it"), std::string::npos) << o.reason;
  ASSERT_EQ(o.evidence.size(), 2U);
  EXPECT_EQ(o.evidence[0].method, "POST");
  EXPECT_EQ(o.evidence[1].method, "GET");
  EXPECT_NE(o.evidence[1].url.find("/instance-types"), std::string::npos) << o.evidence[1].url;
}
