#include <neograde/core/json_schema.hpp>

#include <gtest/gtest.h>

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
