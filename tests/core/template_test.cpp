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
  // A path segment may keep its sub-delimiters; a query value may not ("&" would end it, "+" is a
  // space to a form decoder).
  EXPECT_EQ(render_path("/servers/{id}", {{"id", "a+b=c"}}), "/servers/a+b=c");
  EXPECT_EQ(render_path("/GetServer?Id={id}&Namespace={ns}", {{"id", "vm-1&x=2"}, {"ns", "a+b c"}}),
            "/GetServer?Id=vm-1%26x%3D2&Namespace=a%2Bb%20c");
}

TEST(PathTemplate, MatchesSegmentsExactly) {
  std::map<std::string, std::string> params;
  EXPECT_TRUE(match_path("/instances/{id}", "/instances/42", params));
  EXPECT_EQ(params.at("id"), "42");
  EXPECT_FALSE(match_path("/instances/{id}", "/instances", params));
  EXPECT_FALSE(match_path("/instances/{id}", "/instances/", params));
  EXPECT_FALSE(match_path("/instances/{id}", "/instances/1/x", params));
  EXPECT_FALSE(match_path("/instances", "/instance", params));
  // A parameter is read decoded as a query's value is, but a path's "+" is a plus; a segment with a
  // malformed escape is kept as it came.
  ASSERT_TRUE(match_path("/keys/{name}", "/keys/my%20key+1", params));
  EXPECT_EQ(params.at("name"), "my key+1");
  ASSERT_TRUE(match_path("/keys/{name}", "/keys/a%G1", params));
  EXPECT_EQ(params.at("name"), "a%G1");
}

// A query is read decoded (Latitude.sh's page%5Bnumber%5D is page[number], "+" a space), and what
// neograde sends is encoded so that it reads back as itself (a base64 cursor keeps its "+" and "=").
TEST(Query, ReadDecodedAndEncodedToReadBackAsItself) {
  const query_list read = parse_query("page%5Bnumber%5D=2&q=a+b%2Bc&bad=%G1&flag&=x");
  const query_list want{{"page[number]", "2"}, {"q", "a b+c"}, {"bad", "%G1"}, {"flag", ""}, {"", "x"}};
  EXPECT_EQ(read, want);
  EXPECT_EQ(query_encode("page[number]"), "page%5Bnumber%5D");
  for (const std::string v : {"abc+/def==", "a&b=c d", "page[size]", "~._-"}) {
    const auto back = parse_query(query_encode("k" + v) + "=" + query_encode(v));
    ASSERT_EQ(back.size(), 1u) << v;
    EXPECT_EQ(back.front(), (std::pair<std::string, std::string>{"k" + v, v}));
  }
}
