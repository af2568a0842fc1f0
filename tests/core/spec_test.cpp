#include <neograde/core/spec.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <filesystem>

using namespace neograde;

namespace {

spec_error parse_error(const nlohmann::json& doc) {
  auto r = parse_spec(doc.dump(), "test.json");
  EXPECT_FALSE(r.has_value());
  return r ? spec_error{} : r.error();
}

}  // namespace

TEST(SpecLoad, LambdaSpecLoadsWithItsOperations) {
  auto s = load_spec(test::spec_path("lambda"));
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->provider.id, "lambda");
  EXPECT_EQ(s->auth.schemes.front().type, auth_scheme::bearer);
  EXPECT_EQ(s->auth.env, "LAMBDA_API_KEY");
  ASSERT_NE(s->operation(operation_id::launch), nullptr);
  EXPECT_EQ(s->operation(operation_id::get)->path, "/instances/{id}");
  EXPECT_EQ(s->canonical_state("active"), instance_state::running);
  EXPECT_EQ(s->canonical_state("booting"), instance_state::pending);
  EXPECT_EQ(s->canonical_state("no-such-word"), instance_state::unknown);
  EXPECT_DOUBLE_EQ(s->offer_fields.at("price_per_hour_usd").scale, 0.01);
}

TEST(SpecLoad, EveryCatalogueSpecValidates) {
  std::set<std::string> ids;
  for (const auto& entry : std::filesystem::directory_iterator(NEOGRADE_TEST_SPECS_DIR)) {
    auto s = load_spec(entry.path());
    ASSERT_TRUE(s.has_value()) << s.error().what();
    EXPECT_EQ(entry.path().stem().string(), s->provider.id) << "file name and provider id differ";
    EXPECT_TRUE(ids.insert(s->provider.id).second) << "duplicate provider id " << s->provider.id;
  }
  EXPECT_GE(ids.size(), 2u);
}

TEST(SpecLoad, BrokenJsonNamesFileAndLine) {
  auto r = parse_spec("{\n  \"spec_version\": \n}", "broken.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().file, "broken.json");
  EXPECT_NE(r.error().message.find("line 3"), std::string::npos) << r.error().message;
}

TEST(SpecLoad, MissingRequiredMemberIsReportedAtItsParent) {
  auto doc = test::spec_json("lambda");
  doc["provider"].erase("kind");
  auto e = parse_error(doc);
  EXPECT_EQ(e.pointer, "/provider");
  EXPECT_NE(e.what().find("test.json at /provider"), std::string::npos) << e.what();
}

TEST(SpecLoad, WrongTypeIsReportedAtItsPointer) {
  auto doc = test::spec_json("lambda");
  doc["timing"]["time_to_running_s"] = "ten minutes";
  EXPECT_EQ(parse_error(doc).pointer, "/timing/time_to_running_s");
}

TEST(SpecLoad, UnknownCanonicalStateIsRejected) {
  auto doc = test::spec_json("lambda");
  doc["states"]["active"] = "happy";
  EXPECT_EQ(parse_error(doc).pointer, "/states/active");
}

TEST(SpecLoad, UnknownOperationIsRejected) {
  auto doc = test::spec_json("lambda");
  doc["operations"]["reboot_everything"] = {{"method", "POST"}, {"path", "/x"}};
  EXPECT_EQ(parse_error(doc).pointer, "/operations");
}

TEST(SpecLoad, InvalidEmbeddedSchemaIsRejected) {
  auto doc = test::spec_json("lambda");
  doc["operations"]["get"]["response_schema"] = {{"type", 12}};
  auto e = parse_error(doc);
  EXPECT_EQ(e.pointer, "/operations/get/response_schema");
}

TEST(SpecLoad, MissingFileIsAnErrorNotAnException) {
  auto r = load_spec("/nonexistent/neograde/spec.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("cannot open"), std::string::npos);
}

TEST(SpecResolve, NamesAndPaths) {
  EXPECT_EQ(resolve_spec("some/dir/x.json")->string(), "some/dir/x.json");
  EXPECT_FALSE(resolve_spec("no-such-provider").has_value());
  ASSERT_TRUE(resolve_spec("lambda").has_value());
  EXPECT_EQ(resolve_spec("lambda")->filename(), "lambda.json");
}

TEST(SpecLoad, ANumberTooLargeForADoubleIsAnErrorNotACrash) {
  // Found by fuzzing: nlohmann reports "1e3080" as out_of_range, which escaped the parse_error
  // handler.
  auto r = parse_spec(R"({"spec_version": 1e3080})", "huge.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("not valid JSON"), std::string::npos) << r.error().message;
}
