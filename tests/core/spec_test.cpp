#include <neograde/core/spec.hpp>
#include <neograde/core/json_schema.hpp>
#include <neograde/core/json_util.hpp>

#include "../support/specs.hpp"

#include <gtest/gtest.h>

#include <filesystem>

using namespace neograde;

namespace {

spec_error parse_error(const nlohmann::json& doc) {
  auto r = parse_spec(doc.dump(), "test.json");
  EXPECT_FALSE(r.has_value());
  return r ? spec_error{} : r.error();
}

}  // namespace

TEST(SpecLoad, LambdaSpecLoadsWithItsOperations) {
  auto s = load_spec(test::spec_path("lambda"));
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->provider.id, "lambda");
  EXPECT_EQ(s->auth.schemes.front().type, auth_scheme::bearer);
  EXPECT_EQ(s->auth.env, "LAMBDA_API_KEY");
  ASSERT_NE(s->operation(operation_id::launch), nullptr);
  EXPECT_EQ(s->operation(operation_id::get)->path, "/instances/{id}");
  EXPECT_EQ(s->canonical_state("active"), instance_state::running);
  EXPECT_EQ(s->canonical_state("booting"), instance_state::pending);
  EXPECT_EQ(s->canonical_state("no-such-word"), instance_state::unknown);
  EXPECT_DOUBLE_EQ(s->offer_fields.at("price_per_hour_usd").scale, 0.01);
}

TEST(SpecLoad, EveryCatalogueSpecValidates) {
  std::set<std::string> ids;
  for (const auto& entry : std::filesystem::directory_iterator(test::specs_dir())) {
    auto s = load_spec(entry.path());
    ASSERT_TRUE(s.has_value()) << s.error().what();
    EXPECT_EQ(entry.path().stem().string(), s->provider.id) << "file name and provider id differ";
    EXPECT_TRUE(ids.insert(s->provider.id).second) << "duplicate provider id " << s->provider.id;
  }
  EXPECT_GE(ids.size(), 2u);
}

TEST(SpecLoad, BrokenJsonNamesFileAndLine) {
  auto r = parse_spec("{\n  \"spec_version\": \n}", "broken.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().file, "broken.json");
  EXPECT_NE(r.error().message.find("line 3"), std::string::npos) << r.error().message;
}

TEST(SpecLoad, MissingRequiredMemberIsReportedAtItsParent) {
  auto doc = test::spec_json("lambda");
  doc["provider"].erase("kind");
  auto e = parse_error(doc);
  EXPECT_EQ(e.pointer, "/provider");
  EXPECT_NE(e.what().find("test.json at /provider"), std::string::npos) << e.what();
}

TEST(SpecLoad, WrongTypeIsReportedAtItsPointer) {
  auto doc = test::spec_json("lambda");
  doc["timing"]["time_to_running_s"] = "ten minutes";
  EXPECT_EQ(parse_error(doc).pointer, "/timing/time_to_running_s");
}

TEST(SpecLoad, UnknownCanonicalStateIsRejected) {
  auto doc = test::spec_json("lambda");
  doc["states"]["active"] = "happy";
  EXPECT_EQ(parse_error(doc).pointer, "/states/active");
}

TEST(SpecLoad, UnknownOperationIsRejected) {
  auto doc = test::spec_json("lambda");
  doc["operations"]["reboot_everything"] = {{"method", "POST"}, {"path", "/x"}};
  EXPECT_EQ(parse_error(doc).pointer, "/operations");
}

TEST(SpecLoad, InvalidEmbeddedSchemaIsRejected) {
  auto doc = test::spec_json("lambda");
  doc["operations"]["get"]["response_schema"] = {{"type", 12}};
  auto e = parse_error(doc);
  EXPECT_EQ(e.pointer, "/operations/get/response_schema");
}

// A schema written once under the top-level schemas and named from several operations (and from
// another shared schema) is resolved into each schema's own definitions at load: what validates
// the answers is the same self-contained schema as if it were written out there.
TEST(SpecLoad, SharedSchemasAreResolvedIntoEachSchemaThatNamesThem) {
  auto doc = test::spec_json("lambda");
  doc["schemas"] = {{"Gpu", {{"type", "object"}, {"required", {"name"}}}},
                    {"Holder", {{"type", "object"}, {"properties", {{"gpu", {{"$ref", "#/schemas/Gpu"}}}}}}}};
  doc["operations"]["terminate"]["response_schema"] = {{"$ref", "#/schemas/Holder"}};
  auto s = parse_spec(doc.dump(), "test.json");
  ASSERT_TRUE(s.has_value()) << s.error().what();
  const auto& schema = s->operation(operation_id::terminate)->response_schema;
  ASSERT_TRUE(schema.has_value());
  EXPECT_EQ(schema->at("allOf").at(0).at("$ref"), "#/definitions/Holder");
  EXPECT_EQ(schema->at("definitions").at("Holder").at("properties").at("gpu").at("$ref"), "#/definitions/Gpu");
  EXPECT_TRUE(schema->at("definitions").contains("Gpu"));
  const json_schema compiled(*schema);
  EXPECT_TRUE(compiled.validate(nlohmann::json::parse(R"({"gpu": {"name": "H100"}})")).empty());
  EXPECT_FALSE(compiled.validate(nlohmann::json::parse(R"({"gpu": {}})")).empty());

  // A name that is not there, and a definition of the schema's own that says otherwise, are errors.
  doc["operations"]["terminate"]["response_schema"] = {{"$ref", "#/schemas/Nothing"}};
  auto e = parse_error(doc);
  EXPECT_EQ(e.pointer, "/operations/terminate/response_schema/$ref");
  EXPECT_NE(e.message.find("#/schemas/Nothing"), std::string::npos) << e.message;
  doc["operations"]["terminate"]["response_schema"] = {{"$ref", "#/schemas/Holder"}, {"definitions", {{"Gpu", {{"type", "string"}}}}}};
  e = parse_error(doc);
  EXPECT_EQ(e.pointer, "/operations/terminate/response_schema/definitions/Gpu");
}

TEST(SpecLoad, MissingFileIsAnErrorNotAnException) {
  auto r = load_spec("/nonexistent/neograde/spec.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("cannot open"), std::string::npos);
}

TEST(SpecResolve, NamesAndPaths) {
  EXPECT_EQ(resolve_spec("some/dir/x.json")->string(), "some/dir/x.json");
  EXPECT_FALSE(resolve_spec("no-such-provider").has_value());
  ASSERT_TRUE(resolve_spec("lambda").has_value());
  EXPECT_EQ(resolve_spec("lambda")->filename(), "lambda.json");
}

TEST(SpecLoad, ANumberTooLargeForADoubleIsAnErrorNotACrash) {
  // Found by fuzzing: nlohmann reports "1e3080" as out_of_range, which escaped the parse_error
  // handler.
  auto r = parse_spec(R"({"spec_version": 1e3080})", "huge.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("not valid JSON"), std::string::npos) << r.error().message;
}

namespace {

provider_spec with_variables(const nlohmann::json& variables) {
  auto doc = test::spec_json("lambda");
  doc["variables"] = variables;
  auto s = parse_spec(doc.dump(), "test.json");
  if (!s) throw std::runtime_error(s.error().what());
  return std::move(*s);
}

const nlohmann::json project_and_image = {
    {"project_id", {{"emulator", "placeholder-project"}, {"env", "TEST_PROJECT_ID"}, {"required", true}, {"description", "the project"}}},
    {"image", {{"default", "ubuntu-22.04"}, {"emulator", "emu-image"}, {"env", "TEST_IMAGE"}, {"description", "image"}}},
    {"ssh_user", {{"env", "TEST_SSH_USER"}, {"description", "optional, no value anywhere"}}},
    {"api_path", "/v1"}};

auto no_env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };

}  // namespace

TEST(SpecVariables, LoadedWithTheEmulatorsValues) {
  auto s = with_variables(project_and_image);
  EXPECT_EQ(s.variables.at("project_id"), "placeholder-project");
  EXPECT_EQ(s.variables.at("image"), "emu-image");
  EXPECT_EQ(s.variables.at("api_path"), "/v1");
  EXPECT_FALSE(s.variables.contains("ssh_user"));
  EXPECT_TRUE(s.variable_decls.at("project_id").required);
}

TEST(SpecVariables, LiveRunsNeverSendThePlaceholder) {
  auto s = with_variables(project_and_image);
  auto r = resolve_variables(s, {}, /*live=*/true, no_env);
  ASSERT_EQ(r.missing.size(), 1u);
  EXPECT_NE(r.missing.front().find("project_id"), std::string::npos);
  EXPECT_NE(r.missing.front().find("TEST_PROJECT_ID"), std::string::npos);
  EXPECT_FALSE(r.values.contains("project_id"));
  EXPECT_EQ(r.values.at("image"), "ubuntu-22.04");  // the real default, not the emulator's
  EXPECT_EQ(r.values.at("api_path"), "/v1");        // a fixed variable
  EXPECT_FALSE(r.values.contains("ssh_user"));
}

TEST(SpecVariables, SetBeatsTheEnvironmentWhichBeatsTheDefault) {
  auto s = with_variables(project_and_image);
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "TEST_PROJECT_ID") return "from-env";
    if (name == "TEST_IMAGE") return "image-from-env";
    return std::nullopt;
  };
  auto r = resolve_variables(s, {{"project_id", "from-set"}}, true, env);
  EXPECT_TRUE(r.missing.empty());
  EXPECT_EQ(r.values.at("project_id"), "from-set");
  EXPECT_EQ(r.values.at("image"), "image-from-env");
}

TEST(SpecVariables, EmulatorRunsTakeTheEmulatorsValuesUnlessSet) {
  auto s = with_variables(project_and_image);
  auto env = [](const std::string&) -> std::optional<std::string> { return "ignored-on-the-emulator"; };
  auto r = resolve_variables(s, {{"image", "mine"}, {"typo", "x"}}, false, env);
  EXPECT_TRUE(r.missing.empty());
  EXPECT_EQ(r.values.at("project_id"), "placeholder-project");
  EXPECT_EQ(r.values.at("image"), "mine");
  EXPECT_EQ(r.unknown, std::vector<std::string>{"typo"});
}

// A required variable the spec says where to read (Spheron's team id, GET /teams) is not missing
// on a live run given none: it is to be read, where the value was read from stays declared.
TEST(SpecVariables, ARequiredVariableWithASourceIsReadNotMissing) {
  auto s = with_variables(
      {{"team_id",
        {{"emulator", "team-emu"},
         {"env", "TEST_TEAM_ID"},
         {"required", true},
         {"description", "the team"},
         {"from", {{"path", "/teams"}, {"value", {{"pointer", "/0/id"}, {"alternatives", {"/teams/0/id"}}}}, {"source", "x"}}}}}});
  ASSERT_TRUE(s.variable_decls.at("team_id").from.has_value());
  EXPECT_EQ(s.variable_decls.at("team_id").from->path, "/teams");
  EXPECT_EQ(s.variable_decls.at("team_id").from->value.alternatives, std::vector<std::string>{"/teams/0/id"});
  auto live = resolve_variables(s, {}, true, no_env);
  EXPECT_TRUE(live.missing.empty());
  EXPECT_EQ(live.to_discover, std::vector<std::string>{"team_id"});
  EXPECT_FALSE(live.values.contains("team_id"));
  auto given = resolve_variables(s, {{"team_id", "mine"}}, true, no_env);
  EXPECT_TRUE(given.to_discover.empty());
  EXPECT_EQ(given.values.at("team_id"), "mine");
  EXPECT_EQ(resolve_variables(s, {}, false, no_env).values.at("team_id"), "team-emu");
}

// An empty collection answered as an error names a kind the spec declares.
TEST(SpecOperations, AnEmptyAnswerNamesADeclaredErrorKind) {
  auto doc = test::spec_json("vastai");
  const auto* list = find_pointer(doc, "/operations/ssh_keys_list");
  ASSERT_NE(list, nullptr);
  auto s = parse_spec(doc.dump(), "test.json");
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_EQ(s->operation(operation_id::ssh_keys_list)->empty_kind, "not_found");
  EXPECT_EQ(s->ssh_key_fields_of(operation_id::ssh_keys_list).at("public_key").pointer, "/key");
  EXPECT_EQ(s->ssh_key_fields_of(operation_id::ssh_keys_add).at("public_key").pointer, "/public_key");
  doc["operations"]["ssh_keys_list"]["empty_answer"]["kind"] = "no_such_kind";
  auto bad = parse_spec(doc.dump(), "test.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what().find("empty_answer/kind"), std::string::npos) << bad.error().what();
}

TEST(SpecVariables, ADeclarationNeedsADescription) { EXPECT_THROW(with_variables({{"project_id", {{"env", "X"}}}}), std::runtime_error); }

TEST(SpecStates, AbsentStatusHasTheDeclaredMeaning) {
  auto doc = test::spec_json("lambda");
  auto plain = parse_spec(doc.dump(), "test.json");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->canonical_state(""), instance_state::unknown);
  doc["absent_status"] = {{"state", "pending"}, {"source", "test"}};
  auto s = parse_spec(doc.dump(), "test.json");
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->canonical_state(""), instance_state::pending);
  EXPECT_EQ(s->canonical_state("active"), instance_state::running);
  doc["absent_status"]["state"] = "limbo";
  EXPECT_EQ(parse_error(doc).pointer.rfind("/absent_status", 0), 0u);
}

// Field alternatives (Prime Intellect's community and secure prices): read, the first place
// that holds a value; written, the first place the object does not already set to null.
TEST(SpecFields, AlternativesAreReadInOrderAndWrittenWhereTheObjectLeavesRoom) {
  field_path f{.pointer = "/prices/communityPrice", .each = std::nullopt, .alternatives = {"/prices/onDemand"}};
  auto read = [&](const nlohmann::json& obj) {
    const auto* v = f.read([&](const std::string& p) { return find_pointer(obj, p); });
    return v == nullptr ? nlohmann::json("absent") : *v;
  };
  EXPECT_EQ(read({{"prices", {{"communityPrice", nullptr}, {"onDemand", 1.5}}}}), 1.5);
  EXPECT_EQ(read({{"prices", {{"onDemand", 1.5}}}}), 1.5);
  EXPECT_EQ(read({{"prices", {{"communityPrice", 0.4}, {"onDemand", 1.5}}}}), 0.4);
  EXPECT_EQ(read({{"prices", {{"communityPrice", nullptr}, {"onDemand", nullptr}}}}), nullptr);  // the first's null
  EXPECT_EQ(read({{"prices", nlohmann::json::object()}}), "absent");

  EXPECT_EQ(f.written_at({{"prices", {{"onDemand", nullptr}}}}), "/prices/communityPrice");
  EXPECT_EQ(f.written_at({{"prices", {{"communityPrice", nullptr}}}}), "/prices/onDemand");
  EXPECT_EQ(f.written_at(nlohmann::json::object()), "/prices/communityPrice");
  EXPECT_EQ(f.written_at({{"prices", {{"communityPrice", nullptr}, {"onDemand", nullptr}}}}), "/prices/communityPrice");
}

TEST(SpecSsh, TheSectionIsLoadedWithItsDeclarationsInOrder) {
  auto doc = test::spec_json("lambda");
  doc["ssh"] = {{"user", "root"},
                {"port", 2222},
                {"endpoints",
                 {{{"connection", "/sshConnection"}, {"source", "a"}},
                  {{"entries", "/runtime/ports"},
                   {"where", {{"/privatePort", 22}}},
                   {"port", "/publicPort"},
                   {"public", "/isIpPublic"},
                   {"source", "b"}}}},
                {"source", "docs"}};
  auto s = parse_spec(doc.dump(), "test.json");
  ASSERT_TRUE(s.has_value()) << s.error().what();
  ASSERT_TRUE(s->ssh);
  EXPECT_EQ(s->ssh->user, "root");
  EXPECT_EQ(s->ssh->port, 2222);
  ASSERT_EQ(s->ssh->endpoints.size(), 2u);
  EXPECT_EQ(s->ssh->endpoints[0].connection, "/sshConnection");
  EXPECT_EQ(s->ssh->endpoints[1].entries, "/runtime/ports");
  EXPECT_EQ(s->ssh->endpoints[1].where.at("/privatePort"), 22);
  EXPECT_EQ(s->ssh->endpoints[1].public_flag, "/isIpPublic");
  // A user and a source are required; unknown members are refused.
  doc["ssh"].erase("user");
  EXPECT_EQ(parse_error(doc).pointer.rfind("/ssh", 0), 0u);
  doc["ssh"]["user"] = "root";
  doc["ssh"]["endpoints"][0]["hostname"] = "/host";
  EXPECT_EQ(parse_error(doc).pointer.rfind("/ssh/endpoints/0", 0), 0u);
}

TEST(SpecSsh, EverySpecOfAMarketplaceWithPerInstancePortsDeclaresIt) {
  for (const char* id : {"runpod", "runpod-graphql", "vastai", "primeintellect", "spheron"}) {
    const auto& s = test::spec(id);
    ASSERT_TRUE(s.ssh) << id;
    EXPECT_FALSE(s.ssh->user.empty()) << id;
    EXPECT_FALSE(s.ssh->endpoints.empty()) << id;
    for (const auto& e : s.ssh->endpoints) EXPECT_FALSE(e.source.empty()) << id;
  }
}

TEST(SshConnection, TheFormsProvidersAndSshWrite) {
  struct want {
    const char* text;
    const char* user;
    const char* host;
    std::optional<int> port;
  };
  for (const auto& w : std::vector<want>{{"root@1.2.3.4 -p 22", "root", "1.2.3.4", 22},
                                         {"root@1.2.3.4 -p 40022", "root", "1.2.3.4", 40022},
                                         {"ssh root@1.2.3.4 -p 40022 -i ~/.ssh/id_ed25519", "root", "1.2.3.4", 40022},
                                         {"ssh -p 2200 -o StrictHostKeyChecking=no ubuntu@host.example", "ubuntu", "host.example", 2200},
                                         {"ssh -l admin -v 5.6.7.8", "admin", "5.6.7.8", std::nullopt},
                                         {"ubuntu@1.2.3.4:2022", "ubuntu", "1.2.3.4", 2022},
                                         {"ubuntu@1.2.3.4:2022 -p 2023", "ubuntu", "1.2.3.4", 2023},
                                         {"ssh://root@[2001:db8::1]:2222", "root", "2001:db8::1", 2222},
                                         {"root@2001:db8::1", "root", "2001:db8::1", std::nullopt},
                                         {"1.2.3.4", "", "1.2.3.4", std::nullopt},
                                         {"  root@1.2.3.4\t-p\t7  ", "root", "1.2.3.4", 7}}) {
    auto p = parse_ssh_connection(w.text);
    ASSERT_TRUE(p) << w.text;
    EXPECT_EQ(p->user, w.user) << w.text;
    EXPECT_EQ(p->host, w.host) << w.text;
    EXPECT_EQ(p->port, w.port) << w.text;
  }
  for (const char* bad : {"", "   ", "ssh", "root@", "root@1.2.3.4 -p", "root@1.2.3.4 -p 0", "root@1.2.3.4 -p 65536", "root@1.2.3.4 -p 22x",
                          "root@1.2.3.4:port", "root@a/b", "root@'x'"})
    EXPECT_FALSE(parse_ssh_connection(bad)) << bad;
}
