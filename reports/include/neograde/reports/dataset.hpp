#pragma once
// A citable dataset (neograde report --publish): the report's scorecards, the results files they
// were derived from, copied as they were, and a manifest (the methodology and catalogue versions,
// the suite's, when it was generated, the licence, the size and SHA-256 of every file) that
// anyone can check with `neograde report --verify`. reports/README.md, Publishing a dataset.

#include <neograde/reports/scorecard.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace neograde::reports {

// The version of the grading formula (reports/README.md: Score, Tier and the critical cap): raised
// whenever the same results would be given another score or tier.
inline constexpr int methodology_version = 1;
inline constexpr int dataset_version = 1;
// The data's licence (SPDX id) and where it is stated in full.
inline constexpr const char* dataset_licence = "CC-BY-4.0";
inline constexpr const char* dataset_licence_url = "https://creativecommons.org/licenses/by/4.0/";

// The catalogue the cards were graded against: "sha256:" and the hex SHA-256 of the sorted,
// distinct lines "<provider id> <spec_version>\n", so two datasets graded against the same specs
// share it.
[[nodiscard]] std::string catalogue_version(const std::vector<scorecard>& cards);

// The SHA-256 of a file, read in blocks, as lower-case hex. Throws std::runtime_error when it
// cannot be read.
[[nodiscard]] std::string sha256_file(const std::filesystem::path& path);

// What the caller says about a dataset beyond its cards.
struct dataset_info {
  std::string generated_at;                // UTC, as the caller gave it or the newest run's finish time
  std::string generated_at_from;           // how it was chosen, in words
  std::vector<std::string> rederive_args;  // `neograde report` arguments, relative to the dataset directory
};

// Where a published report keeps its manifest: DIR/dataset/manifest.json.
[[nodiscard]] std::filesystem::path manifest_path(const std::filesystem::path& published);

// The manifest of a published report: versions, time, licence, and every regular file under
// `published` but the manifest itself, sorted by path (relative, with /), each with its size and
// SHA-256.
[[nodiscard]] nlohmann::json build_manifest(const std::filesystem::path& published, const std::vector<scorecard>& cards,
                                            const dataset_info& info);

// The licence statement written as dataset/LICENSE.
[[nodiscard]] std::string dataset_licence_text();

// Checks a published report against its manifest: every file it lists is there with its size and
// SHA-256, and no other file is (a file added or removed, or a changed byte, is a problem). A
// manifest that cannot be read is one problem. `published` may be the report directory or its
// dataset/ directory.
struct dataset_check {
  std::size_t files = 0;              // files the manifest lists
  std::vector<std::string> problems;  // one line each; empty when the dataset verifies
};
[[nodiscard]] dataset_check verify_dataset(const std::filesystem::path& published);

}  // namespace neograde::reports
