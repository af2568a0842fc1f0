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

TEST(DumpJson, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  // Found by fuzzing the emulator: a request path with a stray 0x90 byte, echoed in an error
  // message, made nlohmann::json::dump throw.
  const nlohmann::json doc{{"message", std::string("no such type M\x90" "e")}};
  EXPECT_EQ(dump_json(doc), "{\"message\":\"no such type M\xEF\xBF\xBD" "e\"}");
  EXPECT_EQ(dump_json(nlohmann::json::array({1}), 1), "[\n 1\n]");
}
