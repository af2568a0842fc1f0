// The spec lint: the three mistakes that used to load without a word (an unknown placeholder, a
// phase word that is no status, a parent pointer to a member the answer lacks) are errors, both
// from `lint_spec` and when the spec loads, and every catalogue spec is clean of errors.

#include <neograde/core/spec_lint.hpp>

#include "../support/specs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace neograde;
using ::testing::HasSubstr;

namespace {

std::vector<lint_finding> errors_of(const provider_spec& spec) {
  std::vector<lint_finding> out;
  for (auto& f : lint_spec(spec))
    if (f.severity == lint_finding::level::error) out.push_back(f);
  return out;
}

// The spec `provider` with `change` made to its JSON: loaded without the lint, and as a load would.
struct changed {
  provider_spec spec;
  boost::system::result<provider_spec, spec_error> loaded;
};
template <typename F>
changed change(const std::string& provider, F&& f) {
  auto doc = test::spec_json(provider);
  f(doc);
  auto model = parse_spec(doc.dump(), provider, spec_checks::model_only);
  if (!model) throw std::runtime_error(model.error().what());
  return {std::move(*model), parse_spec(doc.dump(), provider)};
}

}  // namespace

TEST(SpecLint, EveryCatalogueSpecIsFreeOfErrors) {
  for (const auto& p : test::catalogue_providers()) {
    const auto& spec = test::spec(p);  // loads with the lint: an error would throw here
    for (const auto& f : errors_of(spec)) ADD_FAILURE() << p << f.pointer << ": " << f.message;
  }
}

TEST(SpecLint, AnUnknownPlaceholderIsAnError) {
  const auto c = change("lambda", [](nlohmann::json& d) { d["operations"]["launch"]["body"]["ssh_key_ids"] = {"{{ssh_key_uuid}}"}; });
  const auto e = errors_of(c.spec);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].pointer, "/operations/launch/body/ssh_key_ids/0");
  EXPECT_THAT(e[0].message, HasSubstr("unknown placeholder \"ssh_key_uuid\""));
  ASSERT_FALSE(c.loaded.has_value());
  EXPECT_EQ(c.loaded.error().pointer, "/operations/launch/body/ssh_key_ids/0");
  // In a path too, where placeholders take one brace.
  const auto path = change("lambda", [](nlohmann::json& d) { d["operations"]["get"]["path"] = "/instances/{instance}"; });
  ASSERT_EQ(errors_of(path.spec).size(), 1u);
  EXPECT_EQ(errors_of(path.spec)[0].pointer, "/operations/get/path");
  // What a step of the operation binds is known to the steps after it (Akash's lease).
  EXPECT_TRUE(errors_of(test::spec("akash")).empty());
}

TEST(SpecLint, APhaseWordThatIsNoStatusIsAnError) {
  const auto c = change("lambda", [](nlohmann::json& d) { d["emulator"]["phases"]["booting"] = "warming_up"; });
  const auto e = errors_of(c.spec);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].pointer, "/emulator/phases/booting");
  EXPECT_THAT(e[0].message, HasSubstr("\"warming_up\" is no status"));
  EXPECT_FALSE(c.loaded.has_value());
}

// A phase the emulator does not have would never be played ("stoped" for "stopped"), and the
// stopped phase must be played by a stopped word.
TEST(SpecLint, AnUnknownPhaseOrAStoppedPhaseThatIsNoStoppedWordIsAnError) {
  const auto typo = change("genesiscloud", [](nlohmann::json& d) { d["emulator"]["phases"]["stoped"] = "stopped"; });
  ASSERT_EQ(errors_of(typo.spec).size(), 1u);
  EXPECT_EQ(errors_of(typo.spec)[0].pointer, "/emulator/phases/stoped");
  EXPECT_THAT(errors_of(typo.spec)[0].message, HasSubstr("no emulator phase is called \"stoped\""));
  EXPECT_FALSE(typo.loaded.has_value());
  const auto running = change("genesiscloud", [](nlohmann::json& d) { d["emulator"]["phases"]["stopped"] = "active"; });
  ASSERT_EQ(errors_of(running.spec).size(), 1u);
  EXPECT_THAT(errors_of(running.spec)[0].message, HasSubstr("no stopped status"));
}

TEST(SpecLint, AParentPointerToAMissingMemberIsAnError) {
  // RunPod reads a row's price from the enclosing GPU type's price.secure.
  const auto c = change("runpod", [](nlohmann::json& d) { d["offer_fields"]["price_per_hour_usd"] = "^/price/securePrice"; });
  const auto e = errors_of(c.spec);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].pointer, "/offer_fields/price_per_hour_usd");
  EXPECT_THAT(e[0].message, HasSubstr("parent pointer ^/price/securePrice"));
  EXPECT_THAT(e[0].message, HasSubstr("no member \"securePrice\""));
  EXPECT_FALSE(c.loaded.has_value());
  // A row's own field too.
  const auto row = change("runpod", [](nlohmann::json& d) { d["offer_fields"]["region"] = "/dataCenterId"; });
  ASSERT_EQ(errors_of(row.spec).size(), 1u);
  EXPECT_THAT(errors_of(row.spec)[0].message, HasSubstr("the row of list_offers' response_schema has no member \"dataCenterId\""));
}

TEST(SpecLint, ADeviationWithoutASourceIsAWarningNotAnError) {
  const auto c = change("lambda", [](nlohmann::json& d) {
    d["deviations"] = nlohmann::json::array({{{"check", "errors.request.malformed_json_is_4xx"}, {"reason", "r"}, {"source", ""}}});
  });
  EXPECT_TRUE(errors_of(c.spec).empty());
  EXPECT_TRUE(c.loaded.has_value());
  const auto all = lint_spec(c.spec);
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const lint_finding& f) {
    return f.severity == lint_finding::level::warning && f.pointer == "/deviations/0";
  }));
}
