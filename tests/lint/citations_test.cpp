// Every citation in the specs, the SKU files, the fuzz corpora, docs/ and the README names what a
// reader of a clone can open (a URL, another repository's path, or a file of this one), never the
// project's private notes in ../shared (issue 36: cards printed "shared reference provider-apis.md").
#include "../support/citations.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace neograde::test;

namespace {

repository_index small_repository() {
  repository_index r;
  r.files = {"README.md", "docs/checks.md", "specs/providers/lambda.json", "specs/schema/provider-spec.schema.json",
             "core/include/neograde/core/clock.hpp"};
  r.dirs = {"docs", "specs",        "specs/providers",       "specs/schema",
            "core", "core/include", "core/include/neograde", "core/include/neograde/core"};
  return r;
}

std::vector<citation_offence> scan(std::string_view text, std::string_view file = "specs/providers/x.json") {
  return unopenable_citations(text, file, small_repository());
}

std::string describe(const std::vector<citation_offence>& offences) {
  std::ostringstream s;
  for (const auto& o : offences) s << o.file << ":" << o.line << ":" << o.column << ": " << o.text << " (" << o.why << ")\n";
  return s.str();
}

// The whole-tree scan: each offender with its file, line and column.
void expect_openable(const std::vector<std::string>& areas) {
  // The tree under test: this checkout, or the one NEOGRADE_TEST_SOURCE_DIR names (a worktree's
  // new spec tested with binaries built elsewhere, as the spec tests read it).
  const char* other = std::getenv("NEOGRADE_TEST_SOURCE_DIR");
  const std::filesystem::path root =
      other != nullptr && *other != '\0' ? std::filesystem::path(other) : std::filesystem::path(NEOGRADE_SOURCE_DIR);
  auto repo = repository_index::of(root);
  std::vector<citation_offence> offences;
  std::size_t scanned = 0;
  for (const auto& area : areas) {
    auto consider = [&](const std::filesystem::path& p) {
      auto rel = p.lexically_relative(root).generic_string();
      std::ifstream in(p, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto found = unopenable_citations(text, rel, repo);
      offences.insert(offences.end(), found.begin(), found.end());
      ++scanned;
    };
    if (std::filesystem::is_regular_file(root / area)) {
      consider(root / area);
      continue;
    }
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / area))
      if (e.is_regular_file()) consider(e.path());
  }
  EXPECT_GT(scanned, 0u);
  EXPECT_TRUE(offences.empty()) << offences.size() << " unopenable citation(s):\n" << describe(offences);
}

}  // namespace

TEST(CitationScan, PublicSourcesAndFilesOfTheRepositoryPass) {
  EXPECT_EQ(describe(scan("(https://docs.lambda.ai/public-cloud/cloud-api/ (read 2026-12-03))")), "");
  EXPECT_EQ(describe(scan("(runpod/docs:api-reference-v2/openapi.json@a900806 createPod)")), "");
  EXPECT_EQ(describe(scan("(skypilot-org/skypilot sky/provision/fluidstack/fluidstack_utils.py:154-157 @524a47f)")), "");
  EXPECT_EQ(describe(scan("(vast-ai/vast-cli vast.py:4236 and its tests/test_vast.py)")), "");
  EXPECT_EQ(describe(scan("(SkyPilot sky/provision/paperspace/instance.py@062120c)")), "");
  EXPECT_EQ(describe(scan("(akash-network/console@d84c9e9 apps/a.ts:14-38 (200, the answer), apps/b.ts:5-15)")), "")
      << "a parenthesis inside a citation of another repository";
  EXPECT_EQ(describe(scan("the clock (core/clock) and `core/clock`", "docs/checks.md")), "") << "a header without its extension";
  EXPECT_EQ(describe(scan("(docs.fluidstack.io/instances/manage/list-instances)")), "");
  EXPECT_EQ(describe(scan("as ../schema/provider-spec.schema.json says")), "") << "from the citing file's folder";
  EXPECT_EQ(describe(scan("  \"$schema\": \"../../elsewhere.json\",")), "") << "a schema pointer, no citation";
  EXPECT_EQ(describe(scan("see specs/providers/lambda.json, core/clock.hpp and checks.md")), "");
  EXPECT_EQ(describe(scan("its client returns response.json() on success")), "");
  EXPECT_EQ(describe(scan("writes `out/results.jsonl` and `scorecard.json`", "README.md")), "");
  EXPECT_EQ(describe(scan("```\nneograde report out/results.jsonl\n```\n", "docs/checks.md")), "");
}

TEST(CitationScan, AFileNameTheRepositoryLacksIsRefusedWithItsPlace) {
  auto found = scan("{\n  \"source\": \"third-party note (notes.md §1)\"\n}");
  ASSERT_EQ(found.size(), 1u) << describe(found);
  EXPECT_EQ(found[0].file, "specs/providers/x.json");
  EXPECT_EQ(found[0].line, 2u);
  EXPECT_EQ(found[0].column, 32u);
  EXPECT_EQ(found[0].text, "notes.md");
}

TEST(CitationScan, ARelativePathTheRepositoryLacksIsRefused) {
  EXPECT_EQ(scan("as tests/nothing/here.cpp:12 shows").size(), 1u);
  EXPECT_EQ(scan("(SkyPilot fluidstack_utils.py create_instance)").size(), 1u);
  EXPECT_EQ(scan("(official Swagger crusoe.json: POST/DELETE answer {operation})").size(), 1u) << "two words are no repository";
  EXPECT_EQ(scan("official OpenAPI vastai.yaml (vast-ai/docs:api-reference/openapi.yaml@c624622)").size(), 1u)
      << "another repository in a parenthesis does not vouch for the name before it";
  EXPECT_EQ(scan("as ../../schema/provider-spec.schema.json says").size(), 1u) << "resolved from the citing file, not there";
  EXPECT_EQ(scan("the schema is `specs/schema/missing.json`", "docs/spec-format.md").size(), 1u) << "a repository path in code";
  EXPECT_EQ(scan("an output file.json, in prose", "docs/checks.md").size(), 1u);
}

TEST(CitationScan, ThePrivateNotesAreRefusedEvenBesideAPublicSource) {
  auto found = scan("(shared reference provider-apis.md §2; https://github.com/mlabonne/llm-autoeval/issues/3)");
  ASSERT_EQ(found.size(), 2u) << describe(found);
  EXPECT_EQ(found[0].text, "shared reference");
  EXPECT_EQ(found[1].text, "provider-apis.md");
  EXPECT_EQ(scan("from `../shared/reference/gpu-hardware.md`", "docs/gpu-smoke.md").size(), 2u);
  EXPECT_EQ(scan("Shared reference §3").size(), 1u);
  EXPECT_EQ(scan("(copy: shared/provider-openapi/vastai.yaml)").size(), 1u);
}

TEST(Citations, ProviderSpecsCanBeOpened) { expect_openable({"specs/providers", "specs/schema"}); }
TEST(Citations, SkuFilesCanBeOpened) { expect_openable({"specs/skus"}); }
TEST(Citations, FuzzCorporaCanBeOpened) { expect_openable({"fuzz/corpus"}); }
TEST(Citations, DocsAndReadmeCanBeOpened) { expect_openable({"docs", "README.md"}); }
