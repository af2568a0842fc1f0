#include <neograde/core/json_schema.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <tuple>
#include <vector>

using neograde::json_schema;
using nlohmann::json;

TEST(JsonSchema, ValidDocumentHasNoViolations) {
  json_schema s(json::parse(R"({"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}})"));
  EXPECT_TRUE(s.validate(json::parse(R"({"a": 3})")).empty());
}

TEST(JsonSchema, ViolationNamesTheInnermostPointer) {
  json_schema s(json::parse(
      R"({"type":"object","properties":{"data":{"type":"array","items":{"type":"object","properties":{"price":{"type":"integer"}}}}}})"));
  auto v = s.validate(json::parse(R"({"data":[{"price":1},{"price":"2"}]})"));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front().pointer, "/data/1/price");
}

TEST(JsonSchema, PointerTokensAreEscaped) {
  json_schema s(json::parse(R"({"type":"object","properties":{"a/b":{"type":"string"}}})"));
  auto v = s.validate(json::parse(R"({"a/b": 1})"));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front().pointer, "/a~1b");
}

TEST(JsonSchema, UnusableSchemaThrowsInvalidArgument) { EXPECT_THROW(json_schema(json::parse(R"({"type": 5})")), std::invalid_argument); }

TEST(JsonSchema, NumbersBeyondInt64AreValidatedWithoutOverflow) {
  // Found by fuzzing: valijson's multipleOf check converted 2.4e106 to int64_t (undefined).
  json_schema s(nlohmann::json::parse(R"({"type":"number","multipleOf":2,"maximum":100})"));
  auto v = s.validate(nlohmann::json(2.45778e106));
  ASSERT_FALSE(v.empty());
  EXPECT_TRUE(s.validate(nlohmann::json(4)).empty());
  EXPECT_TRUE(s.validate(nlohmann::json(-1e300)).empty());  // an even number below the maximum
}

// Found by fuzzing Hot Aisle's spec: valijson reads a `format` value as a string whatever the
// value's type, and threw on the integers of an OpenAPI "format": "int64", which stopped the
// campaign. A format judges strings only (JSON Schema draft 7, 7.1).
TEST(JsonSchema, AFormatJudgesStringsOnly) {
  json_schema s(json::parse(R"({"type":"object","properties":{
      "n":{"type":"integer","format":"int64"},
      "t":{"type":["string","integer"],"format":"date-time"},
      "u":{"format":"uuid"}}})"));
  EXPECT_TRUE(s.validate(json::parse(R"({"n": 3, "t": 7, "u": 1.5})")).empty());
  EXPECT_TRUE(s.validate(json::parse(R"({"t": "2026-12-06T04:00:00Z", "u": "not checked"})")).empty());
  const auto bad = s.validate(json::parse(R"({"t": "yesterday"})"));
  ASSERT_FALSE(bad.empty());
  EXPECT_EQ(bad.front().pointer, "/t");
  const auto wrong_type = s.validate(json::parse(R"({"n": "3"})"));
  ASSERT_FALSE(wrong_type.empty());
  EXPECT_EQ(wrong_type.front().pointer, "/n");
}

// A hostile provider's string may be as long as a body (16 MiB); the checks that read it with a
// regular expression, whose recursion grows with the string in libstdc++, must neither overflow the
// stack nor pass it.
TEST(JsonSchema, AHugeStringIsJudgedWithoutExhaustingTheStack) {
  json_schema s(json::parse(R"({"type":"object","properties":{
      "t":{"type":"string","format":"date-time"},
      "id":{"type":"string","pattern":"^[a-z0-9-]+$"}}})"));
  const std::string huge(4 * 1024 * 1024, 'a');
  for (const char* member : {"t", "id"}) {
    const auto v = s.validate(json{{member, huge}});
    ASSERT_FALSE(v.empty()) << member;
    EXPECT_EQ(v.front().pointer, std::string("/") + member);
    EXPECT_NE(v.front().message.find("longer than 4096 characters"), std::string::npos) << v.front().message;
  }
  EXPECT_TRUE(s.validate(json{{"id", "h100-pod-7"}, {"t", "2026-12-06T04:00:00.123456Z"}}).empty());
  EXPECT_TRUE(s.validate(json{{"id", std::string(4096, 'a')}}).empty());  // the longest string still matched
  EXPECT_FALSE(s.validate(json{{"id", std::string(4095, 'a') + "!"}}).empty());
}

// The date formats are judged as valijson judges them (its expressions and its day-of-month rule),
// once per validation rather than once per string, and a miss still says which format it was.
TEST(JsonSchema, DateFormatsKeepValijsonsRulesAndMessages) {
  json_schema s(json::parse(R"({"type":"object","properties":{
      "d":{"type":"string","format":"date"},
      "t":{"type":"string","format":"time"},
      "dt":{"type":"string","format":"date-time","pattern":"^2026"}}})"));
  for (const char* good : {R"({"d": "2024-02-29"})", R"({"d": "2026-04-30"})", R"({"t": "16:52:45Z"})", R"({"t": "23:59:60.5+02:00"})",
                           R"({"dt": "2026-12-31T23:59:59.123456Z"})", R"({"dt": "2026-07-18t16:52:45-05:30"})"})
    EXPECT_TRUE(s.validate(json::parse(good)).empty()) << good;
  const std::vector<std::tuple<const char*, const char*, const char*>> bad{{R"({"d": "2026-02-30"})", "/d", "valid date"},
                                                                           {R"({"d": "2026-04-31"})", "/d", "valid date"},
                                                                           {R"({"d": "2026-13-01"})", "/d", "valid date"},
                                                                           {R"({"t": "24:00:00Z"})", "/t", "valid time"},
                                                                           {R"({"t": "16:52:45"})", "/t", "valid time"},
                                                                           {R"({"dt": "2026-11-31T00:00:00Z"})", "/dt", "valid date-time"},
                                                                           {R"({"dt": "2026-12-06 04:00:00Z"})", "/dt", "valid date-time"},
                                                                           {R"({"dt": "yesterday"})", "/dt", "valid date-time"}};
  for (const auto& [doc, pointer, message] : bad) {
    const auto v = s.validate(json::parse(doc));
    ASSERT_FALSE(v.empty()) << doc;
    EXPECT_EQ(v.front().pointer, pointer) << doc;
    EXPECT_NE(v.front().message.find(message), std::string::npos) << doc << ": " << v.front().message;
  }
  // The pattern beside a format is still judged on its own.
  EXPECT_FALSE(s.validate(json::parse(R"({"dt": "2025-12-06T04:00:00Z"})")).empty());
}

// One schema judges answers on several threads at once (the fuzzer's lanes share their schemas):
// the validator that keeps compiled patterns is used by one thread at a time, the others judge
// with one of their own, and every verdict is the same.
TEST(JsonSchema, OneSchemaJudgesOnSeveralThreadsAlike) {
  const json_schema s(json::parse(R"({"type":"object","properties":{
      "t":{"type":"string","format":"date-time"},
      "id":{"type":"string","pattern":"^[a-z0-9-]+$"}}})"));
  const auto good = json::parse(R"({"t": "2026-12-06T04:00:00Z", "id": "h100-pod-7"})");
  const auto bad = json::parse(R"({"t": "2026-02-30T04:00:00Z", "id": "H100!"})");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        if (!s.validate(good).empty() || s.validate(bad).size() < 2) ++wrong;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A schema whose reference reaches itself without reading anything would never end a validation
// (valijson overflowed its stack parsing one): it is refused with the reference named; recursion
// through a property (a tree of instances) is fine.
TEST(JsonSchema, AReferenceThatReachesItselfWithoutReadingIsRefused) {
  for (const char* endless : {R"({"$ref": "#/definitions/Loop", "definitions": {"Loop": {"$ref": "#/definitions/Loop"}}})",
                              R"({"definitions": {"A": {"allOf": [{"$ref": "#/definitions/B"}]}, "B": {"not": {"$ref": "#/definitions/A"}}},
                                  "properties": {"x": {"$ref": "#/definitions/A"}}})"}) {
    try {
      json_schema s(json::parse(endless));
      ADD_FAILURE() << "accepted: " << endless;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("refers to itself without reading anything"), std::string::npos) << e.what();
    }
  }
  const json_schema tree(json::parse(R"({"$ref": "#/definitions/Node", "definitions": {"Node": {"type": "object",
      "properties": {"children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}}}}})"));
  EXPECT_TRUE(tree.validate(json::parse(R"({"children": [{"children": []}]})")).empty());
  EXPECT_FALSE(tree.validate(json::parse(R"({"children": [{"children": 3}]})")).empty());
}
