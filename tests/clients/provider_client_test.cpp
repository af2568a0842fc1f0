#include <neograde/clients/provider_client.hpp>

#include <neograde/clients/oracles.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/template.hpp>
#include <neograde/emulator/emulator.hpp>

#include "../support/scripted_server.hpp"
#include "../support/specs.hpp"

#include <gtest/gtest.h>

using namespace neograde;

class ProviderClient : public ::testing::Test {
 protected:
  void SetUp() override {
    emulator::model_options m;
    m.api_keys = {"key-one", "key-two"};
    m.time_scale = 0;
    emu_ = std::make_unique<emulator::emulator>(spec_, m);
    emu_->start();
  }
  const provider_spec& spec_ = test::spec("lambda");
  std::unique_ptr<emulator::emulator> emu_;
};

TEST_F(ProviderClient, MapsOffersThroughTheSpec) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  auto offers = c.list_offers();
  ASSERT_TRUE(offers.value.has_value()) << offers.call.describe();
  // One row per (type, region with capacity).
  std::vector<std::string> a10_regions;
  for (const auto& o : *offers.value)
    if (o.instance_type == "gpu_1x_a10") {
      EXPECT_DOUBLE_EQ(o.price_per_hour_usd.value(), 0.75);  // 75 cents, scaled
      a10_regions.push_back(o.region);
    }
  EXPECT_EQ(a10_regions, (std::vector<std::string>{"us-east-1", "us-west-1"}));
  EXPECT_TRUE(c.target_is_emulator());
}

TEST_F(ProviderClient, LaunchGetListTerminateRoundTrip) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  auto key = c.add_ssh_key("k", "ssh-ed25519 AAAA test");
  ASSERT_TRUE(key.value.has_value()) << key.call.describe();
  auto id = c.launch({"gpu_1x_a10", "us-east-1", "k", "neograde-test"});
  ASSERT_TRUE(id.value.has_value()) << id.call.describe() << id.problem;
  auto got = c.get(*id.value);
  ASSERT_TRUE(got.value.has_value());
  EXPECT_EQ(got.value->id, *id.value);
  EXPECT_EQ(got.value->name, "neograde-test");
  EXPECT_EQ(got.value->region, "us-east-1");
  EXPECT_EQ(got.value->instance_type, "gpu_1x_a10");
  EXPECT_EQ(got.value->ssh_key_names, std::vector<std::string>{"k"});
  EXPECT_EQ(got.value->state, instance_state::running);  // time scale 0: boots at once
  EXPECT_TRUE(got.value->ip.has_value());
  auto all = c.list();
  ASSERT_TRUE(all.value.has_value());
  EXPECT_EQ(all.value->size(), 1u);
  EXPECT_TRUE(c.terminate(*id.value).success);
}

TEST_F(ProviderClient, ErrorsAreReadThroughTheEnvelope) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  auto r = c.get("does-not-exist");
  EXPECT_FALSE(r.value.has_value());
  ASSERT_TRUE(r.call.error.has_value());
  EXPECT_EQ(r.call.error->http_status, 404);
  EXPECT_EQ(r.call.error->code, "global/object-does-not-exist");
  EXPECT_EQ(r.call.describe(), "HTTP 404 global/object-does-not-exist: Specified instance does not exist.");
}

TEST_F(ProviderClient, AuthModes) {
  provider_client c(spec_, emu_->base_url(), "key-one");
  EXPECT_EQ(c.call(operation_id::list, {}, auth_mode::none).status(), 401);
  EXPECT_EQ(c.call(operation_id::list, {}, auth_mode::invalid).status(), 401);
  EXPECT_EQ(c.call(operation_id::list).status(), 200);
  const auto text = nlohmann::json(c.transport().transcript()).dump();
  EXPECT_EQ(text.find("key-one"), std::string::npos);
}

namespace {

// Lambda's spec with another offer mapping: catalogue items that enclose rows (as Paperspace's
// OS templates enclose machine types), one region per row, a GPU marker, availability, and a
// launch parameter read from the enclosing item.
provider_spec rows_spec() {
  auto doc = test::spec_json("lambda");
  doc["offer_fields"] = {{"rows", "/machines"},         {"instance_type", "/label"},      {"region", "/dc"},      {"gpu", "/gpuModel"},
                         {"available", "/isAvailable"}, {"price_per_hour_usd", "/price"}, {"template_id", "^/id"}};
  auto s = parse_spec(doc.dump(), "rows.json");
  if (!s) throw std::runtime_error(s.error().what());
  return std::move(*s);
}

const nlohmann::json rows_item = nlohmann::json::parse(R"({"id": "t0nspur5", "machines": [
  {"label": "H100", "dc": "ny2", "gpuModel": "H100", "isAvailable": true, "price": 5.95},
  {"label": "C5", "dc": "ny2", "gpuModel": "", "isAvailable": true, "price": 0.08},
  {"label": "A100", "dc": "ams1", "gpuModel": "A100", "isAvailable": false, "price": 3.09},
  {"label": "A6000", "dc": "ny2", "gpuModel": "A6000", "isAvailable": true}]})");

}  // namespace

TEST(OfferRows, EachElementIsARowCarryingTheEnclosingItemsParameters) {
  const auto spec = rows_spec();
  provider_client c(spec, "http://127.0.0.1:1", "k");
  auto rows = c.to_offers(rows_item);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].instance_type, "H100");
  EXPECT_EQ(rows[0].region, "ny2");
  EXPECT_EQ(rows[0].gpu, true);
  EXPECT_TRUE(rows[0].available);
  EXPECT_EQ(rows[0].params, (std::map<std::string, std::string>{{"template_id", "t0nspur5"}}));
  EXPECT_EQ(rows[0].key(), "H100 @ ny2 {template_id=t0nspur5}");
  EXPECT_EQ(rows[1].gpu, false);  // an empty GPU model: a CPU machine
  EXPECT_FALSE(rows[2].available);
  EXPECT_FALSE(rows[3].price_per_hour_usd.has_value());
}

TEST(OfferRows, RegionsAvailableGiveOneRowPerRegionAndNoneARowWithoutCapacity) {
  const auto& spec = test::spec("lambda");
  provider_client c(spec, "http://127.0.0.1:1", "k");
  auto item = nlohmann::json::parse(R"({"instance_type": {"name": "gpu_1x_a10", "price_cents_per_hour": 75},
      "regions_with_capacity_available": [{"name": "us-east-1"}, {"name": "us-west-1"}]})");
  auto rows = c.to_offers(item);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].region, "us-east-1");
  EXPECT_EQ(rows[1].region, "us-west-1");
  EXPECT_FALSE(rows[0].gpu.has_value());  // the spec cannot tell: every row counts as a GPU offer
  item["regions_with_capacity_available"] = nlohmann::json::array();
  rows = c.to_offers(item);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].available);
}

TEST(OfferSelection, TheCheapestLaunchableGpuRowWithReasons) {
  const auto spec = rows_spec();
  provider_client c(spec, "http://127.0.0.1:1", "k");
  auto rows = c.to_offers(rows_item);
  auto s = select_offer(spec, rows, {});
  ASSERT_TRUE(s.chosen.has_value()) << s.explanation;
  // The C5 is cheaper but has no GPU; the A100 has no capacity; the A6000 has no price.
  EXPECT_EQ(s.chosen->instance_type, "H100");
  EXPECT_EQ(s.rows, 4u);
  EXPECT_EQ(s.not_gpu, 1u);
  EXPECT_EQ(s.unavailable, 1u);
  EXPECT_EQ(s.unpriced, 1u);
  EXPECT_NE(s.explanation.find("H100 @ ny2"), std::string::npos) << s.explanation;
  EXPECT_NE(s.explanation.find("1 not GPU offers"), std::string::npos) << s.explanation;
  EXPECT_EQ(s.to_json()["params"]["template_id"], "t0nspur5");
}

TEST(OfferSelection, PinsAndRefusalsNarrowTheChoice) {
  const auto spec = rows_spec();
  provider_client c(spec, "http://127.0.0.1:1", "k");
  auto rows = c.to_offers(rows_item);
  rows.push_back(rows[0]);
  rows.back().instance_type = "H200";
  rows.back().price_per_hour_usd = 7.0;
  auto pinned = select_offer(spec, rows, {"H200", ""});
  ASSERT_TRUE(pinned.chosen.has_value());
  EXPECT_EQ(pinned.chosen->instance_type, "H200");
  EXPECT_EQ(pinned.unpinned, 2u);  // the H100 and the A6000 (the C5 and A100 fail earlier)
  auto elsewhere = select_offer(spec, rows, {"", "ams1"});
  EXPECT_FALSE(elsewhere.chosen.has_value());
  EXPECT_NE(elsewhere.explanation.find("no offer row can be launched"), std::string::npos);
  auto after_refusal = select_offer(spec, rows, {}, {"H100 @ ny2 {template_id=t0nspur5}"});
  ASSERT_TRUE(after_refusal.chosen.has_value());
  EXPECT_EQ(after_refusal.chosen->instance_type, "H200");
  EXPECT_EQ(after_refusal.refused, 1u);
}

// Availability words (RunPod's NONE..HIGH), summed unit prices (Cudo) and what the launch body
// needs of a row (offer_requirements).
TEST(OfferRows, LevelsSummedPricesAndRequirements) {
  auto doc = test::spec_json("lambda");
  doc["offer_fields"] = {
      {"rows", "/sites"},
      {"instance_type", "^/id"},
      {"region", "/id"},
      {"available", {{"pointer", "/stock"}, {"levels", {"NONE", "LOW", "HIGH"}}}},
      {"price_per_hour_usd", {{"pointer", "/gpu"}, {"type", "string"}, {"plus", {{{"pointer", "/cpu"}, {"times", 4}}}}}}};
  doc["offer_requirements"] = {{{"pointer", "/min_cpu"}, {"at_most", 4}, {"why", "the launch sends 4 vCPUs"}}};
  auto spec = parse_spec(doc.dump(), "levels.json");
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  provider_client c(*spec, "http://127.0.0.1:1", "k");
  auto rows = c.to_offers(nlohmann::json::parse(R"({"id": "A40", "sites": [
      {"id": "a", "stock": "HIGH", "gpu": "0.5", "cpu": "0.01", "min_cpu": 2},
      {"id": "b", "stock": "NONE", "gpu": "0.5", "cpu": "0.01"},
      {"id": "c", "stock": "low", "gpu": "0.5", "cpu": "0.01", "min_cpu": 8},
      {"id": "d", "stock": "PLENTY", "gpu": "0.5"}]})"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[0].available);
  EXPECT_FALSE(rows[1].available);  // the first level is none
  EXPECT_TRUE(rows[2].available);   // words compare without case
  EXPECT_FALSE(rows[3].available);  // a word the levels do not name is no capacity
  ASSERT_TRUE(rows[0].price_per_hour_usd.has_value());
  EXPECT_NEAR(*rows[0].price_per_hour_usd, 0.54, 1e-9);
  EXPECT_FALSE(rows[3].price_per_hour_usd.has_value());  // a missing term: no price
  EXPECT_EQ(rows[0].misfit, "");
  EXPECT_EQ(rows[1].misfit, "");  // not stated: not excluded
  EXPECT_NE(rows[2].misfit.find("/min_cpu is 8, over 4 (the launch sends 4 vCPUs)"), std::string::npos) << rows[2].misfit;
  auto s = select_offer(*spec, rows, {});
  ASSERT_TRUE(s.chosen.has_value());
  EXPECT_EQ(s.chosen->region, "a");
  EXPECT_EQ(s.misfit, 1u);
  EXPECT_EQ(s.unavailable, 2u);
  EXPECT_NE(s.explanation.find("1 that the launch body does not fit"), std::string::npos) << s.explanation;
  EXPECT_EQ(s.to_json()["not_fitting"], 1);
}

// A price in any of its documented places (field alternatives): Prime Intellect prices a
// community_cloud row in communityPrice with onDemand null, a secure_cloud row the other way; the
// first that is not null counts, communityPrice first as the official CLI's Prices.price reads it.
TEST(OfferRows, APriceIsReadInTheFirstOfItsPlacesThatHoldsOne) {
  const auto& spec = test::spec("primeintellect");
  provider_client c(spec, "http://127.0.0.1:1", "k");
  auto price = [&](const nlohmann::json& prices) {
    auto rows = c.to_offers({{"gpuType", "H100_80GB"}, {"dataCenter", "US-KS-2"}, {"prices", prices}});
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? std::nullopt : rows.front().price_per_hour_usd;
  };
  EXPECT_EQ(price({{"onDemand", nullptr}, {"communityPrice", 0.42}, {"currency", "USD"}}), 0.42);
  EXPECT_EQ(price({{"onDemand", 1.65}, {"communityPrice", nullptr}, {"currency", "USD"}}), 1.65);
  EXPECT_EQ(price({{"onDemand", 1.65}, {"currency", "USD"}}), 1.65);  // absent reads as null
  EXPECT_EQ(price({{"onDemand", 1.65}, {"communityPrice", 0.42}, {"currency", "USD"}}), 0.42);
  EXPECT_EQ(price({{"onDemand", nullptr}, {"communityPrice", nullptr}, {"currency", "USD"}}), std::nullopt);
  EXPECT_EQ(price({{"currency", "USD"}}), std::nullopt);

  // Instance text fields read the same way.
  auto doc = test::spec_json("lambda");
  doc["instance_fields"]["name"] = {{"pointer", "/name"}, {"alternatives", {"/label", "/hostname"}}};
  auto alt = parse_spec(doc.dump(), "alternatives.json");
  ASSERT_TRUE(alt.has_value()) << alt.error().what();
  provider_client l(*alt, "http://127.0.0.1:1", "k");
  EXPECT_EQ(l.to_instance(nlohmann::json::parse(R"({"id": "i", "status": "active", "name": null, "hostname": "h"})")).name, "h");
  EXPECT_EQ(l.to_instance(nlohmann::json::parse(R"({"id": "i", "status": "active", "name": "n", "label": "l"})")).name, "n");
  doc["instance_fields"]["name"]["alternatives"] = nlohmann::json::array();
  EXPECT_FALSE(parse_spec(doc.dump(), "alternatives.json").has_value());  // none listed: say so, or leave it out
}

// A requirement of a value (Hyperbolic's machineType: bare-metal rows are rented elsewhere).
TEST(OfferRows, RequirementOfAValue) {
  auto doc = test::spec_json("lambda");
  doc["offer_fields"] = {{"instance_type", "/gpuType"}, {"region", "/region"}};
  doc["offer_requirements"] = {{{"pointer", "/machineType"}, {"equals", "virtual-machine"}, {"why", "the launch rents a virtual machine"}},
                               {{"pointer", "/enabled"}, {"equals", true}, {"why", "a disabled option cannot be rented"}}};
  // A model of the mechanism only: lambda's catalogue schema names neither field (the lint would refuse it).
  auto spec = parse_spec(doc.dump(), "equals.json", spec_checks::model_only);
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  provider_client c(*spec, "http://127.0.0.1:1", "k");
  auto row = [&](const char* json) {
    auto rows = c.to_offers(nlohmann::json::parse(json));
    return rows.empty() ? std::string("no row") : rows.front().misfit;
  };
  EXPECT_EQ(row(R"({"gpuType": "h100", "region": "a", "machineType": "virtual-machine", "enabled": true})"), "");
  EXPECT_EQ(row(R"({"gpuType": "h100", "region": "a", "machineType": "bare-metal", "enabled": true})"),
            "/machineType is \"bare-metal\", not \"virtual-machine\" (the launch rents a virtual machine)");
  EXPECT_EQ(row(R"({"gpuType": "h100", "region": "a", "machineType": "virtual-machine", "enabled": false})"),
            "/enabled is false, not true (a disabled option cannot be rented)");
  EXPECT_EQ(row(R"({"gpuType": "h100", "region": "a"})"), "");  // not stated: not excluded
}

// An operation's own fields override the instance fields for the objects it returns
// (TensorDock's list keeps name and status under attributes; its get is flat).
TEST(InstanceFields, AnOperationsOwnFieldsOverrideTheSpecs) {
  const auto& spec = test::spec("tensordock");
  provider_client c(spec, "http://127.0.0.1:1", "k");
  const auto listed = nlohmann::json::parse(R"({"type": "VM", "id": "i-1", "attributes": {"name": "n", "status": "running"}})");
  auto i = c.to_instance(listed, operation_id::list);
  EXPECT_EQ(i.name, "n");
  EXPECT_EQ(i.state, instance_state::running);
  EXPECT_EQ(c.to_instance(listed, operation_id::get).provider_status, "");  // get reads the flat shape
  EXPECT_EQ(spec.instance_fields_of(operation_id::list).at("id").pointer, "/id");
}

TEST_F(ProviderClient, LaunchSendsTheRowsParametersAndTheEmulatorChecksThem) {
  // Lambda's emulator with a type that must be launched with its own template.
  auto doc = test::spec_json("lambda");
  doc["emulator"]["instance_types"][0]["params"] = {{"template_id", "tmpl-a"}};
  doc["operations"]["launch"]["body"]["template_id"] = "{{template_id}}";
  doc["operations"]["launch"].erase("request_schema");
  // The row's template reaches the launch as a parameter here, not through an offer field, which
  // the lint would ask for in a live spec.
  auto spec = parse_spec(doc.dump(), "tmpl.json", spec_checks::model_only);
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  emulator::model_options m;
  m.api_keys = {"key-one"};
  m.time_scale = 0;
  emulator::emulator emu(*spec, m);
  emu.start();
  provider_client c(*spec, emu.base_url(), "key-one");
  const std::string type = doc["emulator"]["instance_types"][0]["name"];
  const std::string region = doc["emulator"]["instance_types"][0]["capacity"].begin().key();
  ASSERT_TRUE(c.add_ssh_key("k", "ssh-ed25519 AAAA test").value.has_value());
  auto wrong = c.launch({type, region, "k", "neograde-t1", {{"template_id", "tmpl-b"}}});
  EXPECT_FALSE(wrong.call.success) << "another template for this type must be refused";
  EXPECT_EQ(wrong.call.status(), 400);
  auto right = c.launch({type, region, "k", "neograde-t2", {{"template_id", "tmpl-a"}}});
  EXPECT_TRUE(right.call.success) << right.call.describe();
}

namespace {

// An emulator of `spec` with one account (its key in the spec's form), whose clock stands still
// when `frozen` (instances stay booting) and otherwise plays every delay as none.
struct started {
  std::unique_ptr<emulator::emulator> emu;
  std::string key;
};
started start_emulator(const provider_spec& spec, bool frozen = false) {
  emulator::model_options m;
  m.api_keys = emulator::make_api_keys(spec, 1);
  m.time_scale = 0;
  if (frozen) {
    const auto t0 = emulator::clock::now();
    m.now = [t0] { return t0; };
    m.time_scale = 1;
  }
  started s{std::make_unique<emulator::emulator>(spec, m), m.api_keys.front()};
  s.emu->start();
  return s;
}

}  // namespace

// Verda answers a key creation with the new key's id as plain text (finding VER-sshkeys): the
// client makes a key of it, and the key can be listed and deleted.
TEST(ProviderClientText, VerdaKeyCreationAnswersItsIdAsText) {
  const auto& spec = test::spec("verda");
  auto e = start_emulator(spec);
  provider_client c(spec, e.emu->base_url(), e.key);
  auto added = c.add_ssh_key("neograde-k", "ssh-ed25519 AAAA test");
  ASSERT_TRUE(added.value.has_value()) << added.problem << " " << added.call.describe();
  EXPECT_EQ(added.call.response->header("Content-Type"), "text/plain");
  EXPECT_FALSE(added.value->id.empty());
  EXPECT_EQ(added.value->name, "neograde-k");
  auto listed = c.list_ssh_keys();
  ASSERT_TRUE(listed.value.has_value()) << listed.call.describe();
  ASSERT_EQ(listed.value->size(), 1u);
  EXPECT_EQ(listed.value->front().id, added.value->id);
  EXPECT_TRUE(c.delete_ssh_key(added.value->id).success);
}

// A price the rows' enclosing item carries, in the provider's unit (integer cents, scale 0.01):
// the emulator serves it in cents and the client reads the dollars it means (issue 41.3).
TEST(OfferRows, AScaledPriceInTheEnclosingItemIsServedInItsUnit) {
  auto doc = test::spec_json("runpod");
  doc["offer_fields"]["price_per_hour_usd"] = {{"pointer", "^/price/secure"}, {"scale", 0.01}};
  auto spec = parse_spec(doc.dump(), "cents.json", spec_checks::model_only);
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  auto e = start_emulator(*spec);
  provider_client c(*spec, e.emu->base_url(), e.key);
  auto offers = c.list_offers();
  ASSERT_TRUE(offers.value.has_value() && !offers.value->empty()) << offers.call.describe();
  std::map<std::string, double> listed;
  for (const auto& t : doc["emulator"]["instance_types"]) listed[t["name"].get<std::string>()] = t["price_per_hour_usd"].get<double>();
  for (const auto& o : *offers.value) {
    ASSERT_TRUE(listed.contains(o.instance_type)) << o.instance_type;
    ASSERT_TRUE(o.price_per_hour_usd.has_value()) << o.key();
    EXPECT_NEAR(*o.price_per_hour_usd, listed.at(o.instance_type), 1e-9) << o.key();
  }
  EXPECT_NE(offers.call.evidence.response_body.find("\"secure\":" + std::to_string(std::llround(listed.begin()->second * 100))),
            std::string::npos)
      << offers.call.evidence.response_body.substr(0, 600);
}

// An aggregator sells the same type in the same region from two suppliers (issue 41.3): two rows,
// each launched as its supplier's, each with its own capacity.
TEST(OfferRows, TheSameTypeFromTwoSuppliersIsTwoRows) {
  auto doc = test::spec_json("spheron");
  auto second = doc["emulator"]["instance_types"][0];
  second["params"]["underlying_provider"] = "sesterce";
  second["price_per_hour_usd"] = 0.7;
  const std::string region = second["capacity"].begin().key();
  second["capacity"] = {{region, 1}};
  doc["emulator"]["instance_types"].push_back(second);
  auto spec = parse_spec(doc.dump(), "two-suppliers.json");
  ASSERT_TRUE(spec.has_value()) << spec.error().what();
  auto e = start_emulator(*spec);
  provider_client c(*spec, e.emu->base_url(), e.key);
  auto rows_of = [&] {
    std::map<std::string, offer> rows;
    auto offers = c.list_offers();
    EXPECT_TRUE(offers.value.has_value()) << offers.call.describe();
    for (const auto& o : offers.value.value_or(std::vector<offer>{}))
      if (o.instance_type == second["name"]) rows[o.underlying_provider] = o;
    return rows;
  };
  auto rows = rows_of();
  ASSERT_EQ(rows.size(), 2u) << (rows.empty() ? "" : rows.begin()->second.key());
  ASSERT_TRUE(rows.contains("massed-compute") && rows.contains("sesterce"));
  EXPECT_NE(rows.at("massed-compute").key(), rows.at("sesterce").key());
  EXPECT_NEAR(rows.at("sesterce").price_per_hour_usd.value_or(0), 0.7, 1e-9);
  auto launch = [&](const offer& o, const std::string& name) {
    return c.launch(
        {.instance_type = o.instance_type, .region = o.region, .name = name, .params = o.params, .public_key = "ssh-ed25519 AAAA t"});
  };
  auto first = launch(rows.at("sesterce"), "neograde-t1");
  ASSERT_TRUE(first.value.has_value()) << first.call.describe();
  rows = rows_of();
  EXPECT_FALSE(rows.at("sesterce").available) << "its one machine is taken";
  EXPECT_TRUE(rows.at("massed-compute").available) << "the other supplier's capacity is its own";
  EXPECT_FALSE(launch(rows.at("sesterce"), "neograde-t2").call.success);
  EXPECT_TRUE(launch(rows.at("massed-compute"), "neograde-t3").call.success);
}

// Verda's launch names keys by the id their add answered (ssh_key_ids): the run's key id reaches
// the body, the emulator attaches that key, and an id no key has is refused.
TEST(ProviderClientText, AKeyNamedByIdReachesTheLaunch) {
  const auto& spec = test::spec("verda");
  auto e = start_emulator(spec);
  provider_client c(spec, e.emu->base_url(), e.key);
  auto added = c.add_ssh_key("neograde-k", "ssh-ed25519 AAAA test");
  ASSERT_TRUE(added.value.has_value()) << added.problem << " " << added.call.describe();
  const auto row = c.choose_offer({}).chosen;
  ASSERT_TRUE(row.has_value());
  launch_request req{.instance_type = row->instance_type, .region = row->region, .name = "neograde-t1", .params = row->params};
  req.ssh_key_id = added.value->id;
  EXPECT_EQ(c.launch_vars(req).at("ssh_key_id"), added.value->id);
  auto launched = c.launch(req);
  ASSERT_TRUE(launched.value.has_value()) << launched.call.describe();
  EXPECT_NE(launched.call.evidence.request_body.find("\"ssh_key_ids\":[\"" + added.value->id + "\"]"), std::string::npos)
      << launched.call.evidence.request_body;
  req.ssh_key_id = "no-such-key";
  req.name = "neograde-t2";
  auto refused = c.launch(req);
  EXPECT_EQ(refused.call.status(), 400) << refused.call.describe();
  // No key registered (a read-only audit): the array is sent empty, never with an empty id.
  req.ssh_key_id.clear();
  EXPECT_EQ(render_body(*spec.operation(operation_id::launch)->body, c.launch_vars(req)).at("ssh_key_ids"), nlohmann::json::array());
}

// RunPod's account keys are one set replaced whole (PUT /v2/account/ssh-keys): the run's key is
// added to the keys the account has and removed again, the others kept; a set that cannot be
// read is never replaced.
TEST(ProviderClientText, RunpodKeySetIsReplacedWithTheRunsKeyAddedThenRemoved) {
  const auto& spec = test::spec("runpod");
  auto e = start_emulator(spec);
  provider_client c(spec, e.emu->base_url(), e.key);
  const std::string theirs = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOperatorsOwnKeyOperatorsOwnKeyOperator me@example.com";
  const std::string ours = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRunsKeyRunsKeyRunsKeyRunsKeyRunsKeyRunsK neograde";
  ASSERT_TRUE(c.call(operation_id::ssh_keys_add, {{"public_keys", nlohmann::json::array({theirs})}}).success);
  auto added = c.add_ssh_key("ignored", ours);
  ASSERT_TRUE(added.value.has_value()) << added.problem << " " << added.call.describe();
  EXPECT_EQ(added.value->id, ours);
  EXPECT_EQ(nlohmann::json::parse(added.call.evidence.request_body), (nlohmann::json{{"keys", {theirs, ours}}}));
  auto listed = c.list_ssh_keys();
  ASSERT_TRUE(listed.value.has_value()) << listed.call.describe();
  ASSERT_EQ(listed.value->size(), 2u);
  EXPECT_TRUE(c.deletes_ssh_keys());
  auto removed = c.delete_ssh_key(added.value->id);
  ASSERT_TRUE(removed.success) << removed.describe();
  EXPECT_EQ(nlohmann::json::parse(removed.evidence.request_body), (nlohmann::json{{"keys", {theirs}}}));
  // Adding it twice sends it once.
  (void)c.add_ssh_key("", theirs);
  EXPECT_EQ(c.list_ssh_keys().value->size(), 1u);
  // A key set that cannot be read is not replaced: nothing is sent.
  provider_client wrong(spec, e.emu->base_url(), "not-a-key");
  auto refused = wrong.add_ssh_key("", ours);
  EXPECT_FALSE(refused.value.has_value());
  EXPECT_FALSE(refused.call.success);
  EXPECT_EQ(refused.call.evidence.method, "GET") << "the set was sent without being read";
  EXPECT_FALSE(refused.problem.empty());
  EXPECT_EQ(c.list_ssh_keys().value->size(), 1u);
}

// Vast.ai's keys are nameless and its list answers 404 when there are none (operations
// ssh_keys_list.empty_answer): the client reads that as no keys, makes the key it added of the
// create's answer (id and public_key) and finds it in the list, where the public half is `key`.
TEST(ProviderClientText, VastNamelessKeysAndTheEmptyListAnsweredAs404) {
  const auto& spec = test::spec("vastai");
  auto e = start_emulator(spec);
  provider_client c(spec, e.emu->base_url(), e.key);
  auto none = c.list_ssh_keys();
  ASSERT_TRUE(none.value.has_value()) << none.call.describe() << " " << none.problem;
  EXPECT_EQ(none.call.status(), 404);
  EXPECT_TRUE(none.value->empty());
  const std::string ours = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRunsKeyRunsKeyRunsKeyRunsKeyRunsKeyRunsK neograde";
  auto added = c.add_ssh_key("neograde-key", ours);
  ASSERT_TRUE(added.value.has_value()) << added.problem << " " << added.call.describe();
  EXPECT_EQ(nlohmann::json::parse(added.call.evidence.request_body), (nlohmann::json{{"ssh_key", ours}}));
  EXPECT_EQ(added.value->public_key, ours);
  EXPECT_TRUE(added.value->name.empty());
  ASSERT_FALSE(added.value->id.empty());
  auto listed = c.list_ssh_keys();
  ASSERT_TRUE(listed.value.has_value()) << listed.call.describe();
  ASSERT_EQ(listed.value->size(), 1u);
  EXPECT_EQ(listed.value->front().id, added.value->id);
  EXPECT_EQ(listed.value->front().public_key, ours);
  ASSERT_TRUE(c.delete_ssh_key(added.value->id).success);
  EXPECT_TRUE(c.list_ssh_keys().value->empty());
  // Another 4xx of the list is still a failure, not an empty list.
  provider_client wrong(spec, e.emu->base_url(), "not-a-key");
  EXPECT_FALSE(wrong.list_ssh_keys().value.has_value());
}

// Spheron's live 400 for a create without a team id (measured by the urun-sh SkyPilot fork,
// spheron.py current_team_id) blames the run's configuration (errors.configuration_messages):
// the launch check reports it errored, not failed. Another 400 of the same envelope does not.
TEST(ProviderClientText, SpheronsMissingTeamIdIsAConfigurationError) {
  const auto& spec = test::spec("spheron");
  test::scripted_server s({{test::scripted_server::response(
                               400, R"({"error": "Team ID is required for authenticated deployments", "code": "VALIDATION_ERROR"})")},
                           {test::scripted_server::response(400, R"({"error": "Invalid offer", "code": "VALIDATION_ERROR"})")}});
  provider_client c(spec, s.url("/api"), "key");
  auto team = c.call(operation_id::launch, {{"instance_type", "x"}});
  ASSERT_EQ(team.status(), 400) << team.describe();
  EXPECT_TRUE(blames_configuration(team, spec)) << team.describe();
  EXPECT_FALSE(provider_condition(team, spec).has_value());
  auto offer = c.call(operation_id::launch, {{"instance_type", "x"}});
  ASSERT_EQ(offer.status(), 400) << offer.describe();
  EXPECT_FALSE(blames_configuration(offer, spec));
  EXPECT_FALSE(blames_configuration(team, test::spec("lambda"))) << "only where the spec says so";
}

// Hyperbolic's catalogue rows carry their GPU count, typed integer: the launch sends it as a JSON
// number, and the rental id goes back to terminate as one.
TEST(ProviderClientText, IntegerParametersAndIdsAreSentAsNumbers) {
  const auto& spec = test::spec("hyperbolic");
  auto e = start_emulator(spec);
  provider_client c(spec, e.emu->base_url(), e.key);
  auto s = c.choose_offer({});
  ASSERT_TRUE(s.chosen.has_value()) << s.explanation;
  auto launched = c.launch({s.chosen->instance_type, s.chosen->region, "", "neograde-h1", s.chosen->params});
  ASSERT_TRUE(launched.value.has_value()) << launched.problem << " " << launched.call.describe();
  const auto sent = nlohmann::json::parse(launched.call.evidence.request_body);
  EXPECT_TRUE(sent.at("gpuCount").is_number_integer()) << sent.dump();
  auto gone = c.terminate(*launched.value);
  ASSERT_TRUE(gone.success) << gone.describe();
  EXPECT_TRUE(nlohmann::json::parse(gone.evidence.request_body).at("rentalId").is_number_integer()) << gone.evidence.request_body;
}

// Crusoe's address before boot is the string its document requires (emulator.unaddressed): the
// client reads no address, not an empty one.
TEST(ProviderClientText, CrusoeUnaddressedIsAnEmptyString) {
  const auto& spec = test::spec("crusoe");
  auto e = start_emulator(spec, true);
  provider_client c(spec, e.emu->base_url(), e.key);
  auto s = c.choose_offer({});
  ASSERT_TRUE(s.chosen.has_value()) << s.explanation;
  auto launched = c.launch({s.chosen->instance_type, s.chosen->region, "", "neograde-c1", s.chosen->params, "ssh-ed25519 AAAA test"});
  ASSERT_TRUE(launched.value.has_value()) << launched.problem << " " << launched.call.describe();
  auto got = c.get(*launched.value);
  ASSERT_TRUE(got.call.json.has_value()) << got.call.describe();
  const auto* address = find_pointer(*got.call.json, "/network_interfaces/0/ips/0/public_ipv4/address");
  ASSERT_NE(address, nullptr) << got.call.json->dump();
  EXPECT_EQ(*address, "");
  ASSERT_TRUE(got.value.has_value());
  EXPECT_FALSE(got.value->ip.has_value());  // an empty string is no address
}

// Verda publishes availability apart from its catalogue (audit finding VE4): each type becomes a
// row per location that lists it, and a type whose last machine is taken is listed nowhere, a
// row without capacity that selection never launches.
TEST(ProviderClientText, AvailabilityIsJoinedToTheCatalogue) {
  const auto& spec = test::spec("verda");
  auto e = start_emulator(spec, true);
  provider_client c(spec, e.emu->base_url(), e.key);
  auto rows_of = [&](const std::string& type) {
    auto offers = c.list_offers();
    EXPECT_TRUE(offers.value.has_value()) << offers.problem << " " << offers.call.describe();
    std::vector<std::pair<std::string, bool>> out;
    for (const auto& o : offers.value.value_or(std::vector<offer>{}))
      if (o.instance_type == type) out.emplace_back(o.region, o.available);
    return out;
  };
  using rows = std::vector<std::pair<std::string, bool>>;
  EXPECT_EQ(rows_of("1H100.80S.30V"), (rows{{"FIN-01", true}, {"FIN-02", true}, {"ICE-01", true}}));
  EXPECT_EQ(rows_of("8V100.48V"), (rows{{"FIN-01", true}}));
  auto launched = c.launch({"8V100.48V", "FIN-01", "", "neograde-v1", {}});
  ASSERT_TRUE(launched.value.has_value()) << launched.problem << " " << launched.call.describe();
  EXPECT_EQ(rows_of("8V100.48V"), (rows{{"", false}}));  // its only machine is taken
  auto s = c.choose_offer({});
  ASSERT_TRUE(s.chosen.has_value()) << s.explanation;
  EXPECT_NE(s.chosen->instance_type, "8V100.48V");
  EXPECT_FALSE(s.chosen->region.empty());
}

// Verda refuses a create it has no machine for as observed: 503 "Not enough resources to
// deploy ...", read as no capacity whatever the status, and not retried (a retry finds no more
// capacity; the run decides what the refusal means).
TEST(ProviderClientText, VerdaCapacityRefusalIsThe503Observed) {
  const auto& spec = test::spec("verda");
  auto e = start_emulator(spec, true);
  std::vector<std::chrono::milliseconds> waits;
  http::client_options o;
  o.sleep = [&](std::chrono::milliseconds d) { waits.push_back(d); };
  int creates = 0;
  o.tap = [&](const exchange& x, const std::optional<http::transport_error>&) {
    if (x.method == "POST" && x.url.ends_with("/instances")) ++creates;
  };
  provider_client c(spec, e.emu->base_url(), e.key, o);
  ASSERT_TRUE(c.launch({"8V100.48V", "FIN-01", "", "neograde-v1", {}}).value.has_value());  // the one machine
  auto refused = c.launch({"8V100.48V", "FIN-01", "", "neograde-v2", {}});
  EXPECT_EQ(refused.call.status(), 503) << refused.call.describe();
  EXPECT_EQ(provider_condition(refused.call, spec), outcome::no_capacity) << refused.call.describe();
  EXPECT_TRUE(waits.empty());
  EXPECT_EQ(creates, 2);  // the refused one was sent once
}

// A list answered as an object keyed by each instance's id, the id left out of the value (Thunder
// Compute's GET /instances/list: "id: Populated from map key by client"): keys_are "id" makes the
// key the instance's id, and the emulator answers so.
TEST(ProviderClientText, AListKeyedByIdGivesEachInstanceItsKey) {
  auto doc = test::spec_json("lambda");
  doc["operations"]["list"]["items_are_object_values"] = true;
  doc["operations"]["list"]["keys_are"] = "id";
  auto parsed = parse_spec(doc.dump(), "keyed.json");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().what();
  const auto& spec = *parsed;
  auto e = start_emulator(spec);
  provider_client c(spec, e.emu->base_url(), e.key);
  ASSERT_TRUE(c.add_ssh_key("k", "ssh-ed25519 AAAA test").value.has_value());
  auto launched = c.launch({"gpu_1x_a10", "us-east-1", "k", "neograde-keyed"});
  ASSERT_TRUE(launched.value.has_value()) << launched.call.describe() << launched.problem;
  auto listed = c.list();
  ASSERT_TRUE(listed.value.has_value()) << listed.call.describe() << listed.problem;
  ASSERT_EQ(listed.value->size(), 1u);
  EXPECT_EQ(listed.value->front().id, *launched.value);
  EXPECT_EQ(listed.value->front().name, "neograde-keyed");
  const auto body = nlohmann::json::parse(listed.call.response->body);
  ASSERT_TRUE(body.at("data").contains(*launched.value)) << body;
  EXPECT_FALSE(body.at("data").at(*launched.value).contains("id")) << body;
  // An item that carries its id keeps it; keys_are without an object collection is refused.
  const auto* op = spec.operation(operation_id::list);
  const auto items = c.collection(
      nlohmann::json::parse(R"({"data": {"k1": {"id": "own", "name": "a"}, "k2": {"name": "b"}, "k3": {"id": ""}, "k4": {"id": null}}})"),
      *op);
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].at("id"), "own");
  EXPECT_EQ(items[1].at("id"), "k2");
  EXPECT_EQ(items[2].at("id"), "k3");
  EXPECT_EQ(items[3].at("id"), "k4");
  doc["operations"]["list"].erase("items_are_object_values");
  const auto refused = parse_spec(doc.dump(), "keyed.json");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().pointer, "/operations/list/keys_are");
}

// A stopped instance reads the word the emulator's stopped phase names: Genesis Cloud documents
// "stopped" now and keeps the legacy "shutoff" in its states; the first by name was played, which
// a client waiting for "stopped" (its Terraform provider) would wait for for ever.
TEST(ProviderClientText, AStoppedInstanceReadsTheStoppedWordTheSpecNames) {
  for (const bool named : {true, false}) {
    auto doc = test::spec_json("genesiscloud");
    if (!named) doc["emulator"]["phases"].erase("stopped");
    auto parsed = parse_spec(doc.dump(), "genesiscloud.json");
    ASSERT_TRUE(parsed.has_value()) << parsed.error().what();
    auto e = start_emulator(*parsed);
    provider_client c(*parsed, e.emu->base_url(), e.key);
    auto key = c.add_ssh_key("neograde-k", "ssh-ed25519 AAAA test");
    ASSERT_TRUE(key.value.has_value()) << key.call.describe();
    const auto row = c.choose_offer({}).chosen;
    ASSERT_TRUE(row.has_value());
    launch_request req{.instance_type = row->instance_type, .region = row->region, .name = "neograde-stop", .params = row->params};
    req.ssh_key_id = key.value->id;
    auto launched = c.launch(req);
    ASSERT_TRUE(launched.value.has_value()) << launched.call.describe() << launched.problem;
    ASSERT_TRUE(c.stop(*launched.value).success);
    auto read = c.get(*launched.value);
    ASSERT_TRUE(read.value.has_value()) << read.call.describe();
    EXPECT_EQ(read.value->provider_status, named ? "stopped" : "shutoff");
    EXPECT_EQ(read.value->state, instance_state::stopped);
  }
}
