#include <neograde/core/template.hpp>

#include <gtest/gtest.h>

using namespace neograde;
using nlohmann::json;

TEST(BodyTemplate, SubstitutesKeepingTypes) {
  auto t = json::parse(R"({"name":"{{name}}","count":"{{n}}","ids":["{{id}}"],"fixed":1})");
  auto out = render_body(t, {{"name", "x"}, {"n", 3}, {"id", "abc"}});
  EXPECT_EQ(out, json::parse(R"({"name":"x","count":3,"ids":["abc"],"fixed":1})"));
}

TEST(BodyTemplate, UnsetVariablesDropTheirMember) {
  auto t = json::parse(R"({"name":"{{name}}","keys":["{{key}}"]})");
  EXPECT_EQ(render_body(t, {}), json::parse(R"({"keys":[]})"));
}

TEST(BodyTemplate, PointersInvertTheTemplate) {
  auto t = json::parse(R"({"a":{"b":"{{x}}"},"ids":["{{id}}"],"c/d":"{{y}}"})");
  auto p = template_pointers(t);
  EXPECT_EQ(p.at("x"), "/a/b");
  EXPECT_EQ(p.at("id"), "/ids/0");
  EXPECT_EQ(p.at("y"), "/c~1d");
}

TEST(PathTemplate, SubstitutesAndPercentEncodes) {
  EXPECT_EQ(render_path("/instances/{id}", {{"id", "a b/c"}}), "/instances/a%20b%2Fc");
  EXPECT_EQ(render_path("/x", {}), "/x");
}

TEST(PathTemplate, MatchesSegmentsExactly) {
  std::map<std::string, std::string> params;
  EXPECT_TRUE(match_path("/instances/{id}", "/instances/42", params));
  EXPECT_EQ(params.at("id"), "42");
  EXPECT_FALSE(match_path("/instances/{id}", "/instances", params));
  EXPECT_FALSE(match_path("/instances/{id}", "/instances/", params));
  EXPECT_FALSE(match_path("/instances/{id}", "/instances/1/x", params));
  EXPECT_FALSE(match_path("/instances", "/instance", params));
}
