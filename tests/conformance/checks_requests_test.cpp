// Checks on requests the run sends on purpose (conformance/checks_requests.cpp): the offers'
// prices are read in every form the provider documents (issue 36 point 3).

#include "../support/emulator_front.hpp"
#include "../support/specs.hpp"

#include <neograde/core/json_util.hpp>
#include <neograde/core/measurements.hpp>

#include <gtest/gtest.h>

using namespace neograde;

namespace {

const char* prices_valid = "schema.offers.prices_valid";

// Prime Intellect's catalogue answer as the model gives it, with `change` applied to every
// community_cloud row; `seen` collects the rows served.
test::emulator_front community_rows(std::function<void(nlohmann::json&)> change, std::vector<nlohmann::json>& seen) {
  return [change = std::move(change), &seen](const http::request& req, emulator::provider_model& model) -> std::optional<http::response> {
    if (req.method != "GET" || test::path_of(req) != "/api/v1/availability/gpus") return std::nullopt;
    auto r = model.handle(req);
    auto doc = nlohmann::json::parse(r.body);
    for (auto& item : doc.at("items")) {
      if (item.value("security", "") == "community_cloud") change(item);
      seen.push_back(item);
    }
    r.body = doc.dump();
    return r;
  };
}

}  // namespace

// The documented Prices schema prices a community_cloud row in communityPrice with onDemand null
// (the official CLI's Prices.price prefers communityPrice): the emulator serves such a row, and
// it is priced.
TEST(OfferPrices, CommunityRowsPricedInCommunityPricePass) {
  std::vector<nlohmann::json> rows;
  const auto report = test::run_behind_front(test::spec("primeintellect"), community_rows([](nlohmann::json&) {}, rows));
  const auto community = std::find_if(rows.begin(), rows.end(), [](const auto& i) { return i.value("security", "") == "community_cloud"; });
  ASSERT_NE(community, rows.end()) << "the emulator serves no community row";
  EXPECT_TRUE(community->at("prices").at("onDemand").is_null()) << community->dump();
  EXPECT_TRUE(community->at("prices").at("communityPrice").is_number()) << community->dump();
  const auto secure = std::find_if(rows.begin(), rows.end(), [](const auto& i) { return i.value("security", "") == "secure_cloud"; });
  ASSERT_NE(secure, rows.end());
  EXPECT_TRUE(secure->at("prices").at("onDemand").is_number()) << secure->dump();
  EXPECT_TRUE(secure->at("prices").at("communityPrice").is_null()) << secure->dump();

  const auto& o = test::outcome_in(report, prices_valid);
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
}

// A row with neither price is still unpriced.
TEST(OfferPrices, ARowWithNeitherPriceFails) {
  std::vector<nlohmann::json> rows;
  auto no_price = [](nlohmann::json& item) { item["prices"]["communityPrice"] = nullptr; };
  const auto report = test::run_behind_front(test::spec("primeintellect"), community_rows(no_price, rows));
  const auto& o = test::outcome_in(report, prices_valid);
  EXPECT_EQ(o.result, outcome::fail) << o.reason;
  EXPECT_NE(o.reason.find("H200_141GB"), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find("no price"), std::string::npos) << o.reason;
}

// The error envelope is the provider's for the errors of its operations: a path no document lists,
// answered 404 by whatever routes in front of them (here an HTML page), is judged a 404 and no
// more; the errors of the declared operations still carry the envelope.
TEST(ErrorEnvelope, AnUndocumentedPathIsNotASampleOfTheEnvelope) {
  auto router_404 = [](const http::request& req, emulator::provider_model&) -> std::optional<http::response> {
    if (req.url.find("/neograde-no-such-path-") == std::string::npos) return std::nullopt;
    return http::response{404, {{"Content-Type", "text/html"}, {"Date", "Thu, 03 Dec 2026 12:00:00 GMT"}}, "<h1>Not Found</h1>"};
  };
  const auto report = test::run_behind_front(test::spec("lambda"), router_404);
  const auto& path = test::outcome_in(report, "http.path.unknown_is_404");
  ASSERT_EQ(path.result, outcome::pass) << path.reason;
  ASSERT_EQ(path.evidence.at(0).response_body, "<h1>Not Found</h1>") << "the front did not answer the unknown path";
  const auto& o = test::outcome_in(report, "errors.envelope.on_client_errors");
  EXPECT_EQ(o.result, outcome::pass) << o.reason;
}

// Who supplies the catalogue is measured from the offers read, where the rows name a supplier:
// Bodgenet's "community" draws on two centralised suppliers, Spheron's rows name theirs with GPU
// counts, and a catalogue that names none records nothing.
TEST(SupplyComposition, MeasuredFromTheOffersRead) {
  auto pass_through = [](const http::request&, emulator::provider_model&) -> std::optional<http::response> { return std::nullopt; };
  const auto bodgenet = test::run_behind_front(test::spec("bodgenet"), pass_through);
  const auto b = measurement::read<measurement::supply_composition>(bodgenet.measurements);
  ASSERT_TRUE(b) << bodgenet.measurements.dump();
  ASSERT_EQ(b->suppliers.size(), 2u);
  EXPECT_EQ(b->suppliers[0].name, "hyperlease-dc");
  // Four of its five offer rows (a type in a region) are hyperlease-dc's.
  EXPECT_EQ(b->offers, 5u);
  EXPECT_DOUBLE_EQ(b->largest_share, 0.8);
  EXPECT_DOUBLE_EQ(b->hhi, 6800);

  const auto spheron = test::run_behind_front(test::spec("spheron"), pass_through);
  const auto s = measurement::read<measurement::supply_composition>(spheron.measurements);
  ASSERT_TRUE(s) << spheron.measurements.dump();
  EXPECT_EQ(s->basis, "gpus");
  EXPECT_EQ(s->suppliers.size(), 2u);

  const auto lambda = test::run_behind_front(test::spec("lambda"), pass_through);
  EXPECT_FALSE(lambda.measurements.contains("supply_composition"));
}

// PATCH on the offers path answered 404: a SHOULD missed where nothing else claims the path
// (Lambda's /instance-types), not judged where the path also reads as another operation's with an
// id in its place (Hot Aisle's .../virtual_machines/available/ as the VM named "available", which
// its API may route PATCH to).
TEST(UnsupportedMethod, A404IsJudgedOnlyWhereNoOtherOperationClaimsThePath) {
  auto patch_not_found = [](const http::request& req, emulator::provider_model&) -> std::optional<http::response> {
    if (req.method != "PATCH") return std::nullopt;
    return http::response{.status = 404, .headers = {{"Content-Type", "application/json"}}, .body = R"({"detail":"Not found."})"};
  };
  const char* id = "http.method.unsupported_is_405_with_allow";
  const auto lambda = test::run_behind_front(test::spec("lambda"), patch_not_found);
  const auto& l = test::outcome_in(lambda, id);
  EXPECT_EQ(l.result, outcome::warn) << l.reason;
  const auto hotaisle = test::run_behind_front(test::spec("hotaisle"), patch_not_found);
  const auto& h = test::outcome_in(hotaisle, id);
  EXPECT_EQ(h.result, outcome::skipped) << h.reason;
  EXPECT_NE(h.reason.find("also matches GET /teams/{team}/virtual_machines/{id}/"), std::string::npos) << h.reason;
}
