// neograde spec draft on a small hand-written OpenAPI document of a made-up provider
// (tests/fixtures/openapi/example-compute.yaml): the operations matched and the one left out,
// the auth schemes, the status words from the enum, every guess listed with its pointer and
// marked in the spec, the draft loading and linting; a document that is not OpenAPI refused;
// hostile documents (too big, too deep, alias bombs, $ref cycles) bounded, never a crash.

#include <neograde/core/spec_draft.hpp>

#include <neograde/core/json_util.hpp>
#include <neograde/core/spec.hpp>
#include <neograde/core/spec_lint.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace neograde;
using nlohmann::json;
using ::testing::HasSubstr;

namespace {

std::string fixture_text() {
  std::ifstream in(std::string(NEOGRADE_TEST_OPENAPI_DIR) + "/example-compute.yaml", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

spec_draft draft_of(const std::string& text, draft_options options = {.id = "", .kind = "neocloud", .cite = "example-compute.yaml"}) {
  auto doc = read_openapi_document(text);
  if (!doc) throw std::runtime_error(doc.error());
  auto d = draft_spec(*doc, options);
  if (!d) throw std::runtime_error(d.error());
  return std::move(*d);
}

const spec_draft& fixture_draft() {
  static const spec_draft d = draft_of(fixture_text());
  return d;
}

json spec_of(const spec_draft& d) { return json::parse(d.spec.dump()); }

bool has_note(const std::vector<draft_note>& notes, const std::string& pointer, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const draft_note& n) { return n.pointer == pointer && n.text.find(part) != std::string::npos; });
}

std::string refusal(const std::string& text, const openapi_limits& limits = {}) {
  auto doc = read_openapi_document(text, limits);
  if (!doc) return doc.error();
  auto d = draft_spec(*doc, {});
  return d ? std::string() : d.error();
}

}  // namespace

TEST(SpecDraft, MatchesTheOperationsNeogradeKnows) {
  const auto s = spec_of(fixture_draft());
  std::vector<std::string> names;
  for (const auto& [k, _] : s["operations"].items()) names.push_back(k);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("list_offers", "launch", "get", "list", "terminate", "restart", "ssh_keys_list",
                                                     "ssh_keys_add", "ssh_keys_delete"));
  EXPECT_EQ(s["operations"]["list_offers"]["path"], "/instance-types");
  EXPECT_EQ(s["operations"]["list_offers"]["items"], "/data");
  EXPECT_EQ(s["operations"]["launch"]["method"], "POST");
  EXPECT_EQ(s["operations"]["launch"]["success_status"], json::array({201}));
  // The document's {instance_id} is neograde's {id}.
  EXPECT_EQ(s["operations"]["get"]["path"], "/instances/{id}");
  EXPECT_EQ(s["operations"]["get"]["item"], "/instance");
  EXPECT_EQ(s["operations"]["terminate"]["method"], "DELETE");
  EXPECT_EQ(s["operations"]["restart"]["path"], "/instances/{id}/reboot");
  EXPECT_EQ(s["operations"]["ssh_keys_delete"]["path"], "/ssh-keys/{id}");
  EXPECT_EQ(s["operations"]["list"]["items"], "/instances");
  // The launch body binds what neograde sends; the optional image with a default is left alone.
  EXPECT_EQ(s["operations"]["launch"]["body"], json({{"instance_type", "{{instance_type}}"},
                                                     {"name", "{{name}}"},
                                                     {"region", "{{region}}"},
                                                     {"ssh_key_names", {"{{ssh_key_name}}"}}}));
  EXPECT_EQ(s["operations"]["launch"]["fields"]["instance_id"], "/id");
  // Schemas embedded with the document's $refs made local, nullable as JSON Schema's null; the
  // Instance that the get, the list and the launch all answer with is written once, shared.
  const auto& get_schema = s["operations"]["get"]["response_schema"];
  EXPECT_EQ(get_schema["properties"]["instance"]["$ref"], "#/schemas/Instance");
  EXPECT_FALSE(get_schema.contains("definitions"));
  EXPECT_EQ(s["schemas"]["Instance"]["properties"]["ip"]["type"], json::array({"string", "null"}));
  EXPECT_FALSE(s["schemas"]["Instance"]["properties"]["name"].contains("example"));
  EXPECT_EQ(s["operations"]["list"]["response_schema"].dump().find("#/definitions/Instance"), std::string::npos);
  // The page parameters of the catalogue.
  EXPECT_EQ(s["operations"]["list_offers"]["pagination"]["style"], "page");
  EXPECT_EQ(s["operations"]["list_offers"]["pagination"]["size_param"], "per_page");
}

TEST(SpecDraft, UnknownOperationLeftOutWithAWarning) {
  const auto& d = fixture_draft();
  EXPECT_TRUE(has_note(d.warnings, "/paths/~1instances~1{instance_id}~1snapshot/post", "is no operation neograde knows"));
  EXPECT_THAT(spec_of(d).dump(), ::testing::Not(HasSubstr("snapshot")));
}

TEST(SpecDraft, AuthFromTheSecuritySchemes) {
  const auto s = spec_of(fixture_draft());
  EXPECT_EQ(s["base_url"], "https://api.example-compute.test/v2");  // the server variable's default
  ASSERT_EQ(s["auth"]["schemes"].size(), 2u);
  EXPECT_EQ(s["auth"]["schemes"][0], json({{"type", "bearer"}}));  // the one `security` requires first
  EXPECT_EQ(s["auth"]["schemes"][1], json({{"type", "query"}, {"param", "api_key"}}));
  EXPECT_EQ(s["auth"]["env"], "EXAMPLE_COMPUTE_API_KEY");
  EXPECT_EQ(s["provider"]["id"], "example-compute");
}

TEST(SpecDraft, StatusWordsFromTheEnum) {
  const auto& d = fixture_draft();
  const auto s = spec_of(d);
  EXPECT_EQ(s["states"], json({{"provisioning", "pending"},
                               {"running", "running"},
                               {"stopping", "stopping"},
                               {"stopped", "stopped"},
                               {"terminated", "terminated"},
                               {"failed", "failed"}}));
  // A word no rule places is left out, never guessed.
  EXPECT_TRUE(has_note(d.warnings, "/states", "\"quiescent\" left out"));
  EXPECT_EQ(s["emulator"]["phases"]["booting"], "provisioning");
  EXPECT_EQ(s["emulator"]["phases"]["terminated"], "terminated");
}

TEST(SpecDraft, GuessesAreListedAndMarked) {
  const auto& d = fixture_draft();
  const auto s = spec_of(d);
  EXPECT_TRUE(has_note(d.guesses, "/offer_fields/price_per_hour_usd", "in cents"));
  EXPECT_EQ(s["offer_fields"]["price_per_hour_usd"], json({{"pointer", "/price_cents_per_hour"}, {"scale", 0.01}}));
  EXPECT_EQ(s["offer_fields"]["regions_available"], json({{"pointer", "/regions"}, {"each", ""}}));
  EXPECT_TRUE(has_note(d.guesses, "/operations/launch", "POST /instances (operationId createInstance"));
  // Each operation's source and each section's note say "draft:", which the lint reports.
  for (const auto& [name, op] : s["operations"].items())
    EXPECT_THAT(op["source"].get<std::string>(), ::testing::StartsWith("draft: ")) << name;
  const auto notes = s["provider"]["notes"].dump();
  EXPECT_THAT(notes, HasSubstr("draft: /offer_fields: "));
  EXPECT_THAT(notes, HasSubstr("draft: /states: "));
  // The emulator plays the document's examples: the type, its price in dollars, its regions.
  const auto& type = s["emulator"]["instance_types"][0];
  EXPECT_EQ(type["name"], "gpu-1x-a100");
  EXPECT_DOUBLE_EQ(type["price_per_hour_usd"].get<double>(), 1.29);
  EXPECT_EQ(type["capacity"], json({{"eu-west-1", 4}, {"us-east-1", 4}}));
}

TEST(SpecDraft, TheDraftLoadsAndLintsWithOnlyTheGuessesToConfirm) {
  const auto& d = fixture_draft();
  auto loaded = parse_spec(d.spec.dump(), "draft");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().what();
  std::size_t draft_warnings = 0;
  for (const auto& f : lint_spec(*loaded)) {
    EXPECT_EQ(f.severity, lint_finding::level::warning) << f.pointer << ": " << f.message;
    draft_warnings += f.message.find("neograde spec draft") != std::string::npos;
  }
  EXPECT_GE(draft_warnings, spec_of(d)["operations"].size());
}

TEST(SpecDraft, WithoutErrorResponsesTheErrorsAreLeftOutAndTheDraftSaysWhy) {
  auto text = fixture_text();
  auto doc = read_openapi_document(text);
  ASSERT_TRUE(doc.has_value());
  // Strip every documented error response.
  for (auto& [path, item] : (*doc)["paths"].items())
    for (auto& [method, op] : item.items())
      if (op.is_object() && op.contains("responses"))
        for (const char* code : {"400", "401", "404", "429", "500"}) op["responses"].erase(code);
  auto d = draft_spec(*doc, {.id = "", .kind = "neocloud", .cite = ""});
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(has_note(d->warnings, "/errors", "declares no error response"));
  EXPECT_FALSE(d->spec.contains("errors"));
  auto loaded = parse_spec(d->spec.dump(), "draft");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_THAT(loaded.error().what(), HasSubstr("errors"));
}

// A document that gives its error envelope only as the default answer (Genesis Cloud's) still
// drafts the errors: the envelope from it, every kind at HTTP's own status, each a guess.
TEST(SpecDraft, TheDefaultAnswerGivesTheErrorEnvelope) {
  auto doc = read_openapi_document(fixture_text());
  ASSERT_TRUE(doc.has_value());
  const json envelope = {{"type", "object"}, {"properties", {{"code", {{"type", "string"}}}, {"message", {{"type", "string"}}}}}};
  for (auto& [path, item] : (*doc)["paths"].items())
    for (auto& [method, op] : item.items())
      if (op.is_object() && op.contains("responses")) {
        for (const char* code : {"400", "401", "404", "429", "500"}) op["responses"].erase(code);
        op["responses"]["default"] = {{"description", "error"}, {"content", {{"application/json", {{"schema", envelope}}}}}};
      }
  auto d = draft_spec(*doc, {.id = "", .kind = "neocloud", .cite = ""});
  ASSERT_TRUE(d.has_value());
  const auto s = spec_of(*d);
  EXPECT_EQ(s["errors"]["code_pointer"], "/code") << s["errors"].dump();
  EXPECT_EQ(s["errors"]["message_pointer"], "/message");
  EXPECT_EQ(s["errors"]["kinds"]["not_found"]["status"], 404);
  EXPECT_EQ(s["errors"]["kinds"]["unauthorized"]["status"], 401);
  EXPECT_TRUE(has_note(d->guesses, "/errors", "default answers"));
}

TEST(SpecDraft, RefusesWhatIsNotOpenApi) {
  EXPECT_THAT(refusal(R"({"name": "not an API document"})"), HasSubstr("not an OpenAPI document"));
  EXPECT_THAT(refusal(R"({"openapi": "2.5", "paths": {"/x": {}}})"), HasSubstr("declares version \"2.5\""));
  EXPECT_THAT(refusal("just: a\nyaml: mapping\n"), HasSubstr("not an OpenAPI document"));
  EXPECT_THAT(refusal("- a list\n- of words\n"), HasSubstr("the top level is not an object"));
  EXPECT_THAT(refusal(R"({"openapi": "3.0.0", "paths": {}})"), HasSubstr("no paths"));
  EXPECT_THAT(refusal("{\"openapi\": \"3.0.0\", "), HasSubstr("not valid JSON"));
  EXPECT_THAT(refusal("openapi: [3.0\n  - : :"), HasSubstr("YAML"));
  EXPECT_THAT(refusal(""), HasSubstr("empty"));
}

TEST(SpecDraft, SwaggerTwoIsRead) {
  const auto d = draft_of(R"({
    "swagger": "2.0", "info": {"title": "Old Cloud API", "version": "1"}, "host": "api.old.test", "basePath": "/v1",
    "schemes": ["http", "https"],
    "securityDefinitions": {"basic": {"type": "basic"}},
    "paths": {
      "/servers": {"get": {"responses": {"200": {"description": "", "schema": {"type": "array", "items": {"$ref": "#/definitions/Server"}}}}}},
      "/servers/{server_id}": {"delete": {"parameters": [{"in": "path", "name": "server_id", "required": true, "type": "string"}],
                                          "responses": {"204": {"description": ""}}}}
    },
    "definitions": {"Server": {"type": "object", "properties": {"id": {"type": "string"}, "state": {"type": "string", "enum": ["up", "down"]}}}}
  })");
  const auto s = spec_of(d);
  EXPECT_EQ(s["base_url"], "https://api.old.test/v1");
  EXPECT_EQ(s["auth"]["schemes"][0], json({{"type", "basic_username"}}));
  EXPECT_EQ(s["operations"]["list"]["items"], "");
  EXPECT_EQ(s["operations"]["list"]["response_schema"]["items"]["$ref"], "#/definitions/Server");
  EXPECT_EQ(s["operations"]["terminate"]["path"], "/servers/{id}");
  EXPECT_EQ(s["instance_fields"]["status"], "/state");
  EXPECT_EQ(s["states"]["up"], "running");
  EXPECT_TRUE(has_note(d.warnings, "/operations/launch", "launch is required"));
}

// A catalogue inside a scope (Hot Aisle's /teams/{team}/virtual_machines/available/, Scaleway's
// /zones/{zone}/products/servers) is a catalogue: the scope becomes a variable. A path ending in a
// template names one item, never the catalogue.
TEST(SpecDraft, ACatalogueInsideAScopeIsFound) {
  const auto d = draft_of(R"({
    "openapi": "3.0.0", "info": {"title": "Scoped Cloud API", "version": "1"}, "servers": [{"url": "https://api.scoped.test"}],
    "paths": {
      "/teams/{team}/machines/available/": {"get": {"summary": "Get available machine types",
          "parameters": [{"in": "path", "name": "team", "required": true, "schema": {"type": "string", "example": "research"}}],
          "responses": {"200": {"description": "", "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object",
              "properties": {"name": {"type": "string"}}}}}}}}}},
      "/teams/{team}/machines/types/{type}": {"get": {"responses": {"200": {"description": ""}}}}
    }
  })");
  const auto s = spec_of(d);
  EXPECT_EQ(s["operations"]["list_offers"]["path"], "/teams/{team}/machines/available/") << s["operations"].dump();
  EXPECT_EQ(s["variables"]["team"]["emulator"], "research") << s["variables"].dump();
}

TEST(SpecDraftHostile, SizeAndDepthAreBounded) {
  EXPECT_THAT(refusal(std::string(2000, ' ') + "{}", {.max_bytes = 1000}), HasSubstr("more than the 1000"));
  EXPECT_THAT(refusal(std::string(100000, '[') + std::string(100000, ']')), HasSubstr("deeper"));
  EXPECT_THAT(refusal("a: " + std::string(100000, '[') + std::string(100000, ']')), HasSubstr("deeper"));
  std::string block;
  for (int i = 0; i < 2000; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  EXPECT_THAT(refusal(block), HasSubstr("deeper"));
}

TEST(SpecDraftHostile, AliasBombsAreBounded) {
  // Nine levels of nine aliases each: 387 million nodes once expanded.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) bomb += std::string(j ? ", " : "") + "*a" + std::to_string(i - 1);
    bomb += "]\n";
  }
  EXPECT_THAT(refusal(bomb, {.max_nodes = 100000}), HasSubstr("nodes"));
}

TEST(SpecDraftHostile, RefCyclesEndAndDanglingRefsAreWarned) {
  // Two schemas naming each other, one naming itself, and one naming nothing: the draft ends,
  // each schema copied once under definitions.
  const auto d = draft_of(R"({
    "openapi": "3.0.0", "info": {"title": "Loop API", "version": "1"}, "servers": [{"url": "https://loop.test"}],
    "paths": {
      "/instances": {"get": {"responses": {"200": {"description": "", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}},
      "/instances/{id}": {"get": {"responses": {"200": {"description": "", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Self"}}}}}}},
      "/instance-types": {"get": {"responses": {"200": {"description": "", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nowhere"}}}}}}}
    },
    "components": {"schemas": {
      "A": {"$ref": "#/components/schemas/B"},
      "B": {"$ref": "#/components/schemas/A"},
      "Self": {"type": "object", "properties": {"status": {"type": "string"}, "child": {"$ref": "#/components/schemas/Self"}},
               "allOf": [{"$ref": "#/components/schemas/Self"}]}
    }}
  })");
  const auto s = spec_of(d);
  EXPECT_EQ(s["operations"]["list"]["response_schema"]["definitions"].size(), 2u);
  // A and B only name each other, and Self is all of itself: a validator would never end, so
  // they accept anything, with a warning; Self's member naming Self reads input and stays.
  EXPECT_EQ(s["operations"]["list"]["response_schema"]["definitions"]["A"], json::object());
  EXPECT_TRUE(has_note(d.warnings, "/operations/list/response_schema", "refers to itself"));
  EXPECT_EQ(s["operations"]["get"]["response_schema"]["definitions"]["Self"], json::object());
  EXPECT_TRUE(has_note(d.warnings, "/operations/list_offers/response_schema", "names nothing in the document"));
}

TEST(SpecDraftHostile, SchemasThatFanOutAreWalkedWithinABudget) {
  // Twenty schemas, each with ten members of the next: ten to the twentieth paths to walk for
  // an example of the first. The walk stops at its budget and the draft says so.
  json doc = json::parse(R"({"openapi": "3.0.0", "info": {"title": "Fan API", "version": "1"}, "servers": [{"url": "https://fan.test"}],
    "paths": {"/instance-types": {"get": {"responses": {"200": {"description": "",
      "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/S0"}}}}}}}},
      "/instances": {"get": {"responses": {"200": {"description": "", "content": {"application/json": {"schema": {"type": "array",
        "items": {"type": "object", "properties": {"id": {"type": "string"}, "status": {"enum": ["running", "terminated"]}}}}}}}}}}},
    "components": {"schemas": {}}})");
  for (int k = 0; k < 20; ++k) {
    json members = json::object();
    for (char m = 'a'; m <= 'j'; ++m) members[std::string(1, m)] = {{"$ref", "#/components/schemas/S" + std::to_string(k + 1)}};
    members["instance_type"] = {{"type", "string"}, {"example", "x"}};
    doc["components"]["schemas"]["S" + std::to_string(k)] = {{"type", "object"}, {"properties", members}};
  }
  doc["components"]["schemas"]["S20"] = {{"type", "string"}, {"example", "leaf"}};
  auto d = draft_spec(doc, {.id = "fan", .kind = "neocloud", .cite = ""});
  ASSERT_TRUE(d.has_value()) << d.error();
  EXPECT_TRUE(has_note(d->warnings, "/components/schemas", "fan out past"));
  EXPECT_EQ(d->spec["operations"]["list_offers"]["response_schema"]["definitions"].size(), 21u);  // each copied once
}
