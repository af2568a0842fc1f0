#include <neograde/core/json_util.hpp>

#include <gtest/gtest.h>

using namespace neograde;

TEST(ParseJson, RejectsExcessiveDepthBeforeParsing) {
  std::string deep(100000, '[');
  EXPECT_FALSE(parse_json(deep).has_value());
  EXPECT_TRUE(parse_json("[[[1]]]", 3).has_value());
  EXPECT_FALSE(parse_json("[[[1]]]", 2).has_value());
}

TEST(ParseJson, BracketsInsideStringsDoNotCount) {
  EXPECT_TRUE(parse_json(R"({"a":"[[[[[[\"]]]"})", 2).has_value());
}

TEST(ParseJson, SyntaxErrorsAreNullopt) {
  EXPECT_FALSE(parse_json("{\"a\":").has_value());
  EXPECT_FALSE(parse_json("").has_value());
}

TEST(JsonPointer, FindAndSet) {
  nlohmann::json doc;
  set_pointer(doc, "/data/instance_ids/0", "abc");
  EXPECT_EQ(doc.dump(), R"({"data":{"instance_ids":["abc"]}})");
  EXPECT_EQ(string_at(doc, "/data/instance_ids/0").value(), "abc");
  EXPECT_EQ(find_pointer(doc, "/nope"), nullptr);
  EXPECT_EQ(find_pointer(doc, "not-a-pointer"), nullptr);
  EXPECT_EQ(pointer_escape("a/b~c"), "a~1b~0c");
}
