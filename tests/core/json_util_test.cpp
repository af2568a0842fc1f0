#include <neograde/core/json_util.hpp>

#include <gtest/gtest.h>

using namespace neograde;

TEST(ParseJson, RejectsExcessiveDepthBeforeParsing) {
  std::string deep(100000, '[');
  EXPECT_FALSE(parse_json(deep).has_value());
  EXPECT_TRUE(parse_json("[[[1]]]", 3).has_value());
  EXPECT_FALSE(parse_json("[[[1]]]", 2).has_value());
}

TEST(ParseJson, BracketsInsideStringsDoNotCount) { EXPECT_TRUE(parse_json(R"({"a":"[[[[[[\"]]]"})", 2).has_value()); }

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
  const nlohmann::json doc{{"message", std::string("no such type M\x90"
                                                   "e")}};
  EXPECT_EQ(dump_json(doc),
            "{\"message\":\"no such type M\xEF\xBF\xBD"
            "e\"}");
  EXPECT_EQ(dump_json(nlohmann::json::array({1}), 1), "[\n 1\n]");
}

TEST(JsonPointer, SelectsAnArrayElementByValue) {
  // DigitalOcean's documented droplet: the private address comes first.
  auto doc = nlohmann::json::parse(R"({"networks":{"v4":[
      {"ip_address":"10.128.192.124","type":"private"},
      {"ip_address":"192.241.165.154","type":"public"}]}})");
  EXPECT_EQ(string_at(doc, "/networks/v4/[type=public]/ip_address").value(), "192.241.165.154");
  EXPECT_EQ(string_at(doc, "/networks/v4/[type=private]/ip_address").value(), "10.128.192.124");
  EXPECT_EQ(find_pointer(doc, "/networks/v4/[type=anycast]/ip_address"), nullptr);
  EXPECT_EQ(find_pointer(doc, "/networks/[type=public]"), nullptr);  // not an array
  // Numbers and booleans match as JSON writes them.
  auto ports = nlohmann::json::parse(R"([{"privatePort":22,"ip":"a"},{"privatePort":8888,"ip":"b"}])");
  EXPECT_EQ(string_at(ports, "/[privatePort=22]/ip").value(), "a");
  EXPECT_EQ(find_pointer(ports, "/[=22]"), nullptr);  // no key: not a selector, not an index
}

TEST(JsonPointer, WritesThroughASelectorAppendingWhenNoneMatches) {
  auto doc = nlohmann::json::parse(R"({"networks":{"v4":[{"ip_address":"10.0.0.2","type":"private"}]}})");
  set_pointer(doc, "/networks/v4/[type=public]/ip_address", "198.51.100.7");
  ASSERT_EQ(doc["networks"]["v4"].size(), 2u);
  EXPECT_EQ(doc["networks"]["v4"][0]["ip_address"], "10.0.0.2");
  EXPECT_EQ(doc["networks"]["v4"][1], (nlohmann::json{{"type", "public"}, {"ip_address", "198.51.100.7"}}));
  set_pointer(doc, "/networks/v4/[type=public]/ip_address", "198.51.100.8");  // the same element again
  EXPECT_EQ(doc["networks"]["v4"].size(), 2u);
  EXPECT_EQ(string_at(doc, "/networks/v4/[type=public]/ip_address").value(), "198.51.100.8");
  nlohmann::json empty;
  set_pointer(empty, "/v4/[type=public]/ip", "x");
  EXPECT_EQ(empty.dump(), R"({"v4":[{"ip":"x","type":"public"}]})");
}

TEST(JsonPointer, MalformedPointersResolveToNothing) {
  auto doc = nlohmann::json::parse(R"({"a":[1,2],"~":{"/":3}})");
  EXPECT_EQ(string_at(doc, "/~0/~1").value(), "3");
  EXPECT_EQ(find_pointer(doc, "/a/01"), nullptr);  // a leading zero is no index (RFC 6901)
  EXPECT_EQ(find_pointer(doc, "/a/2"), nullptr);
  EXPECT_EQ(find_pointer(doc, "/~2"), nullptr);
  EXPECT_EQ(string_at(doc, "/a/1").value(), "2");
}
