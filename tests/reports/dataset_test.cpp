// A published dataset's manifest: versions, the SHA-256 of every file, and verification that
// notices a changed byte, a missing file and an added one.
#include <neograde/reports/dataset.hpp>

#include <neograde/reports/scorecard.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace neograde::reports;
namespace fs = std::filesystem;

namespace {

struct temp_dir {
  fs::path path = fs::temp_directory_path() / ("neograde-dataset-" + std::to_string(::getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  temp_dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

scorecard card(const std::string& id, const std::string& spec) {
  scorecard c;
  c.provider.id = id;
  c.spec_version = spec;
  c.suite_version = "0.1.0";
  return c;
}

}  // namespace

TEST(Dataset, Sha256OfAFileIsTheStandardOne) {
  temp_dir d;
  write(d.path / "abc", "abc");
  EXPECT_EQ(sha256_file(d.path / "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // FIPS 180-2, B.1
  write(d.path / "empty", "");
  EXPECT_EQ(sha256_file(d.path / "empty"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_THROW((void)sha256_file(d.path / "absent"), std::runtime_error);
}

TEST(Dataset, CatalogueVersionDependsOnTheSpecsOnly) {
  const auto v = catalogue_version({card("a", "1.0.0"), card("b", "2.1.0")});
  EXPECT_EQ(v.rfind("sha256:", 0), 0u);
  EXPECT_EQ(v, catalogue_version({card("b", "2.1.0"), card("a", "1.0.0"), card("a", "1.0.0")}));
  EXPECT_NE(v, catalogue_version({card("a", "1.0.0"), card("b", "2.2.0")}));
}

TEST(Dataset, ManifestListsEveryFileAndVerifies) {
  temp_dir d;
  write(d.path / "index.html", "<html></html>\n");
  write(d.path / "dataset" / "scorecard.json", "[]\n");
  write(d.path / "dataset" / "results" / "in-001" / "results.jsonl", "{}\n");
  const dataset_info info{
      .generated_at = "2026-12-01T00:00:00Z", .generated_at_from = "given", .rederive_args = {"--in", "results/in-001"}};
  const auto manifest = build_manifest(d.path, {card("a", "1.0.0")}, info);
  write(manifest_path(d.path), manifest.dump(2));
  EXPECT_EQ(manifest.at("methodology").at("version"), methodology_version);
  EXPECT_EQ(manifest.at("licence").at("spdx"), "CC-BY-4.0");
  EXPECT_EQ(manifest.at("generated_at"), "2026-12-01T00:00:00Z");
  EXPECT_EQ(manifest.at("catalogue").at("version"), catalogue_version({card("a", "1.0.0")}));
  ASSERT_EQ(manifest.at("files").size(), 3u);  // not the manifest itself
  EXPECT_EQ(manifest.at("files")[0].at("path"), "dataset/results/in-001/results.jsonl");
  EXPECT_EQ(manifest.at("files")[2].at("path"), "index.html");
  EXPECT_EQ(manifest.at("files")[2].at("bytes"), 14);

  auto check = verify_dataset(d.path);
  EXPECT_TRUE(check.problems.empty()) << check.problems.front();
  EXPECT_EQ(check.files, 3u);
  EXPECT_TRUE(verify_dataset(d.path / "dataset").problems.empty());  // the dataset directory names the same
  EXPECT_TRUE(verify_dataset(d.path / "dataset" / "").problems.empty());

  write(d.path / "dataset" / "scorecard.json", "[}\n");  // one byte changed, the same size
  check = verify_dataset(d.path);
  ASSERT_EQ(check.problems.size(), 1u);
  EXPECT_EQ(check.problems[0], "dataset/scorecard.json: SHA-256 differs from the manifest's");
  write(d.path / "dataset" / "scorecard.json", "[]\n");
  EXPECT_TRUE(verify_dataset(d.path).problems.empty());

  write(d.path / "extra.txt", "x");
  fs::remove(d.path / "index.html");
  check = verify_dataset(d.path);
  ASSERT_EQ(check.problems.size(), 2u);
  EXPECT_EQ(check.problems[0], "index.html: missing");
  EXPECT_EQ(check.problems[1], "extra.txt: not in the manifest");
}

TEST(Dataset, AnUnreadableOrHostileManifestIsAProblemNotACrash) {
  temp_dir d;
  EXPECT_EQ(verify_dataset(d.path).problems.size(), 1u);
  write(manifest_path(d.path), "{\"files\": [{\"path\": \"../../etc/passwd\", \"sha256\": \"x\"}, 7, {\"path\": \"/abs\"}]}");
  const auto check = verify_dataset(d.path);
  EXPECT_EQ(check.files, 3u);
  EXPECT_EQ(check.problems.size(), 3u);
  write(manifest_path(d.path), "not json");
  EXPECT_EQ(verify_dataset(d.path).problems.size(), 1u);
}
