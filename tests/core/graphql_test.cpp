#include <neograde/core/graphql.hpp>

#include <gtest/gtest.h>

using namespace neograde;
using nlohmann::json;

namespace {

graphql::document parsed(const std::string& text) {
  auto r = graphql::parse(text);
  EXPECT_TRUE(r.doc.has_value()) << r.error;
  return r.doc.value_or(graphql::document{});
}

}  // namespace

// runpod-python writes its arguments inline (runpod/api/mutations/pods.py); dstack too.
TEST(GraphqlParse, InlineArgumentsOfEveryKind) {
  auto doc = parsed(R"(mutation { podFindAndDeployOnDemand(input: {cloudType: SECURE, gpuCount: 1, name: "n\u00e9 \"q\"",
      volumeInGb: 40.5, ports: ["22/tcp", "8888/http"], env: [{key: "A", value: "b"}], startSsh: true, dockerArgs: null}) {
      id imageName machine { podHostId } } })");
  ASSERT_EQ(doc.operations.size(), 1u);
  const auto& op = doc.operations.front();
  EXPECT_EQ(op.type, "mutation");
  EXPECT_EQ(op.name, "");
  ASSERT_EQ(op.selections.size(), 1u);
  const auto& root = op.selections.front();
  EXPECT_EQ(root.name, "podFindAndDeployOnDemand");
  const auto& input = root.arguments["input"];
  EXPECT_EQ(input["cloudType"], "SECURE");  // an enum value reads as its name
  EXPECT_EQ(input["gpuCount"], 1);
  EXPECT_EQ(input["name"], "n\xc3\xa9 \"q\"");
  EXPECT_DOUBLE_EQ(input["volumeInGb"].get<double>(), 40.5);
  EXPECT_EQ(input["ports"], json::array({"22/tcp", "8888/http"}));
  EXPECT_EQ(input["env"][0]["value"], "b");
  EXPECT_EQ(input["startSsh"], true);
  EXPECT_TRUE(input["dockerArgs"].is_null());
  ASSERT_EQ(root.selections.size(), 3u);
  EXPECT_EQ(root.selections[2].name, "machine");
  EXPECT_EQ(root.selections[2].selections.front().name, "podHostId");
}

TEST(GraphqlParse, VariablesAliasesFragmentsAndComments) {
  auto doc = parsed(R"(
    # a comment
    query Pod($input: PodFilter!, $n: Int = 3) @cached {
      thePod: pod(input: $input) { ...podFields ... on Pod { costPerHr } }
    }
    query Other { myself { id } }
    fragment podFields on Pod { id, desiredStatus runtime { ports { ip } } })");
  ASSERT_EQ(doc.operations.size(), 2u);
  EXPECT_EQ(doc.find(), nullptr);  // two operations: a name is needed
  const auto* op = doc.find("Pod");
  ASSERT_NE(op, nullptr);
  const auto& root = op->selections.front();
  EXPECT_EQ(root.alias, "thePod");
  EXPECT_EQ(root.response_key(), "thePod");
  EXPECT_EQ(root.arguments["input"], (json{{"$variable", "input"}}));
  EXPECT_EQ(graphql::resolve(root.arguments, json{{"input", {{"podId", "p1"}}}})["input"]["podId"], "p1");
  EXPECT_TRUE(graphql::resolve(root.arguments, json::object())["input"].is_null());
  ASSERT_EQ(root.selections.size(), 4u);  // id, desiredStatus, runtime (the fragment), costPerHr (inline)
  EXPECT_EQ(root.selections[2].name, "runtime");
  EXPECT_EQ(root.selections[3].name, "costPerHr");
}

TEST(GraphqlParse, BrokenDocumentsAreErrorsWithAnOffset) {
  for (const char* text :
       {"", "{", "query { pod(input: {id: \"x}) { id } }", "{ a(b: $) }", "{ ...missing }", "fragment f on T { ...f } { ...f }",
        "{ a(b: 1.) }", "{ a(b: \"\\q\") }", "mutation", "{ a(b: \"\\ud800\") }", "subscription S { a } }", "{ a(b: 12abc) }"}) {
    auto r = graphql::parse(text);
    EXPECT_FALSE(r.doc.has_value()) << text;
    EXPECT_EQ(r.error.rfind("at offset ", 0), 0u) << text << ": " << r.error;
  }
}

TEST(GraphqlParse, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "{ a(b: " + std::string(10000, '[') + std::string(10000, ']') + ") }";
  EXPECT_FALSE(graphql::parse(deep).doc.has_value());
  std::string selections;
  for (int i = 0; i < 5000; ++i) selections += "{ a ";
  EXPECT_FALSE(graphql::parse(selections + std::string(5000, '}')).doc.has_value());
}

// The emulator answers exactly the fields a client selects, under its aliases, every one of them:
// one it has no value for is null (a GraphQL server answers every selected field), and so is
// an object it has none for, whatever is selected inside it (RunPod's runtime before the pod runs).
TEST(GraphqlSelect, AnswersEverySelectedFieldUnderItsKey) {
  auto doc = parsed("{ pods { id gpu: machine { gpuTypeId gpuDisplayName } missing runtime { ports { ip } } } }");
  const auto& pods = doc.operations.front().selections.front();
  json data = {{"id", "p"}, {"secret", "x"}, {"machine", {{"gpuTypeId", "A40"}, {"podHostId", "h"}}}, {"runtime", nullptr}};
  auto out = graphql::select(json::array({data, data}), pods.selections);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0],
            (json{{"id", "p"}, {"gpu", {{"gpuTypeId", "A40"}, {"gpuDisplayName", nullptr}}}, {"missing", nullptr}, {"runtime", nullptr}}));
}
