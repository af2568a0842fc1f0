#include <neograde/core/schema_mutations.hpp>

#include <neograde/core/json_schema.hpp>

#include <gtest/gtest.h>

#include <map>

using neograde::constraint_mutations;
using neograde::json_schema;
using neograde::schema_mutation;
using neograde::without_keywords;
using nlohmann::json;

namespace {

// Lambda's launch request schema and the body its client sends (specs/providers/lambda.json).
const json lambda_schema = json::parse(R"({"type": "object", "required": ["region_name", "instance_type_name", "ssh_key_names"],
  "properties": {"region_name": {"type": "string", "minLength": 1}, "instance_type_name": {"type": "string", "minLength": 1},
  "ssh_key_names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1},
  "file_system_names": {"type": "array", "items": {"type": "string"}}, "name": {"type": ["string", "null"], "maxLength": 64},
  "quantity": {"type": "integer", "minimum": 1, "maximum": 1}}})");
const json lambda_body = json::parse(
    R"({"region_name": "us-east-1", "instance_type_name": "gpu_1x_a10", "ssh_key_names": ["k"], "name": "neograde-x", "quantity": 1})");

std::map<std::string, schema_mutation> by_key(const std::vector<schema_mutation>& ms) {
  std::map<std::string, schema_mutation> out;
  for (const auto& m : ms) out.emplace(m.pointer + " " + m.constraint, m);
  return out;
}

}  // namespace

TEST(SchemaMutations, OneBodyPerConstraintOnWhatTheBodySends) {
  auto ms = by_key(constraint_mutations(lambda_schema, lambda_body));
  ASSERT_EQ(ms.size(), 7u);
  EXPECT_EQ(ms.at("/quantity minimum").value, 0);
  EXPECT_EQ(ms.at("/quantity maximum").value, 2);
  EXPECT_TRUE(ms.at("/quantity maximum").value.is_number_integer());
  EXPECT_EQ(ms.at("/region_name minLength").value, "");
  EXPECT_EQ(ms.at("/instance_type_name minLength").value, "");
  EXPECT_EQ(ms.at("/ssh_key_names minItems").value, json::array());
  EXPECT_EQ(ms.at("/ssh_key_names maxItems").value, json::array({"k", "k"}));
  EXPECT_EQ(ms.at("/name maxLength").value.get<std::string>().size(), 65u);
  // Everything else is the body as sent; file_system_names is not sent, so not tried.
  auto body = ms.at("/quantity maximum").body;
  body["quantity"] = 1;
  EXPECT_EQ(body, lambda_body);
  EXPECT_EQ(ms.at("/quantity maximum").describe(), "/quantity above its maximum 1 (2)");
  EXPECT_EQ(ms.at("/name maxLength").describe(), "/name longer than its maxLength 64 (a 65-character string)");
}

TEST(SchemaMutations, EachBodyBreaksTheSchemaWhereTheOriginalDoesNot) {
  const json_schema compiled(lambda_schema);
  ASSERT_TRUE(compiled.validate(lambda_body).empty());
  for (const auto& m : constraint_mutations(lambda_schema, lambda_body)) {
    auto v = compiled.validate(m.body);
    ASSERT_FALSE(v.empty()) << m.describe();
    EXPECT_EQ(v.front().pointer, m.pointer) << m.describe();
  }
}

TEST(SchemaMutations, NumbersKeepTheirKindAndExclusiveBoundsAreMet) {
  const auto schema = json::parse(R"({"type": "object", "properties": {
    "price": {"type": "number", "minimum": 0.001, "maximum": 128.0},
    "n": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}}})");
  auto ms = by_key(constraint_mutations(schema, json::parse(R"({"price": 1.5, "n": 5})")));
  ASSERT_EQ(ms.size(), 4u);
  EXPECT_DOUBLE_EQ(ms.at("/price minimum").value.get<double>(), 0.001 - 1);
  EXPECT_DOUBLE_EQ(ms.at("/price maximum").value.get<double>(), 129.0);
  EXPECT_EQ(ms.at("/n exclusiveMinimum").value, 0);
  EXPECT_EQ(ms.at("/n exclusiveMaximum").value, 10);
}

TEST(SchemaMutations, EnumsConstsAndPatternsAreLeftWithAValueOfTheSameType) {
  const auto schema = json::parse(R"({"type": "object", "properties": {
    "cloud": {"enum": ["SECURE", "COMMUNITY"]},
    "data": {"type": "object", "properties": {"type": {"const": "virtualmachine"}}},
    "name": {"type": "string", "maxLength": 255, "pattern": "^[a-zA-Z0-9]?[a-z0-9A-Z.\\-]*[a-z0-9A-Z]$"}}})");
  auto ms =
      by_key(constraint_mutations(schema, json::parse(R"({"cloud": "SECURE", "data": {"type": "virtualmachine"}, "name": "neograde-1"})")));
  ASSERT_EQ(ms.size(), 4u);
  EXPECT_EQ(ms.at("/cloud enum").value, "SECURE-neograde");
  EXPECT_EQ(ms.at("/data/type const").value, "virtualmachine-neograde");
  EXPECT_EQ(ms.at("/name pattern").value, "neograde-1 !");
  EXPECT_EQ(ms.at("/name maxLength").value.get<std::string>().size(), 256u);
}

TEST(SchemaMutations, ArrayItemsAndAdditionalPropertiesAreWalked) {
  // TensorDock's GPU map ({"<type>": {"count": 1}}) and RunPod's CUDA versions.
  const auto schema = json::parse(R"({"type": "object", "properties": {
    "gpus": {"type": "object", "additionalProperties": {"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}}}},
    "cuda": {"type": "array", "items": {"type": "string", "pattern": "^\\d+\\.\\d+$"}}}})");
  auto ms = by_key(constraint_mutations(schema, json::parse(R"({"gpus": {"h100/sxm": {"count": 1}}, "cuda": ["12.4", "12.8"]})")));
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms.at("/gpus/h100~1sxm/count minimum").value, 0);
  EXPECT_EQ(ms.at("/cuda/0 pattern").body.at("cuda"), json::array({"12.4 !", "12.8"}));
}

// A drafted schema states its constraints through $ref and allOf ({"allOf": [{"$ref":
// "#/definitions/InstanceCreateRequest"}], "definitions": {...}}, Thunder Compute's create): they
// are found there, once each; a branch of anyOf another branch accepts is not a mutation.
TEST(SchemaMutations, ConstraintsBehindRefsAndCombinationsAreFound) {
  const auto schema = json::parse(R"({"allOf": [{"$ref": "#/definitions/Create"}], "definitions": {
    "Create": {"type": "object", "properties": {"mode": {"$ref": "#/definitions/Mode"}, "count": {"type": "integer", "maximum": 8},
      "disk": {"anyOf": [{"type": "integer", "maximum": 100}, {"type": "integer"}]}},
      "allOf": [{"properties": {"count": {"minimum": 1}}}]},
    "Mode": {"type": "string", "enum": ["prototyping", "production"]}}})");
  auto ms = by_key(constraint_mutations(schema, json::parse(R"({"mode": "production", "count": 1, "disk": 50})")));
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms.at("/mode enum").value, "production-neograde");
  EXPECT_EQ(ms.at("/count maximum").value, 9);
  EXPECT_EQ(ms.at("/count minimum").value, 0);
  // A tree (a schema that refers to itself through a member) is walked as deep as the body goes.
  const auto tree = json::parse(R"({"$ref": "#/definitions/Node", "definitions": {"Node": {"type": "object",
      "properties": {"n": {"type": "integer", "maximum": 3}, "child": {"$ref": "#/definitions/Node"}}}}})");
  ms = by_key(constraint_mutations(tree, json::parse(R"({"n": 1, "child": {"n": 2, "child": {"n": 3}}})")));
  EXPECT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms.at("/child/child/n maximum").value, 4);
}

TEST(SchemaMutations, AMutationTheSchemaStillAcceptsIsLeftOut) {
  // additionalProperties does not apply to a member patternProperties matches: its bound is not
  // the schema's constraint there. A root constraint is not a property the body sends.
  const auto schema = json::parse(R"({"type": "object", "minProperties": 1, "patternProperties": {"^x": {}},
    "additionalProperties": {"type": "integer", "maximum": 3}})");
  EXPECT_TRUE(constraint_mutations(schema, json::parse(R"({"x1": 1})")).empty());
  EXPECT_EQ(constraint_mutations(schema, json::parse(R"({"y1": 1})")).size(), 1u);
}

TEST(SchemaMutations, WithoutKeywordsStripsThemEverywhereButNotPropertyNames) {
  const auto schema = json::parse(R"({"type": "object", "properties": {
    "minimum": {"type": "integer", "minimum": 1, "maximum": 1},
    "gpu": {"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}}},
    "list": {"type": "array", "items": {"type": "integer", "maximum": 3}, "maxItems": 2}}})");
  const auto lenient = without_keywords(schema, {"minimum", "maximum"});
  EXPECT_TRUE(lenient.at("properties").contains("minimum"));
  EXPECT_FALSE(lenient.at("properties").at("minimum").contains("minimum"));
  EXPECT_FALSE(lenient.at("properties").at("gpu").at("properties").at("count").contains("minimum"));
  EXPECT_FALSE(lenient.at("properties").at("list").at("items").contains("maximum"));
  EXPECT_EQ(lenient.at("properties").at("list").at("maxItems"), 2);
  EXPECT_TRUE(json_schema(lenient).validate(json::parse(R"({"minimum": 0, "gpu": {"count": 0}, "list": [9]})")).empty());
}
