#include <neograde/reports/dataset.hpp>

#include <neograde/reports/results.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

namespace neograde::reports {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string hex(const unsigned char* bytes, unsigned int n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 0xF];
  }
  return out;
}

struct md_ctx_free {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// Streams `feed`'s blocks through SHA-256.
template <class Feed>
std::string sha256_of(Feed&& feed) {
  std::unique_ptr<EVP_MD_CTX, md_ctx_free> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 is not available");
  feed([&](const char* data, std::size_t n) {
    if (EVP_DigestUpdate(ctx.get(), data, n) != 1) throw std::runtime_error("SHA-256 failed");
  });
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md.data(), &len) != 1) throw std::runtime_error("SHA-256 failed");
  return hex(md.data(), len);
}

// Every regular file under `root` but `except`, as sorted relative paths with /. Links are not
// followed: a published dataset is plain files.
std::vector<std::string> files_under(const fs::path& root, const fs::path& except) {
  std::vector<std::string> out;
  const auto skip = fs::weakly_canonical(except);
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_regular_file(/*follows links*/) || it->is_symlink()) continue;
    if (fs::weakly_canonical(it->path()) == skip) continue;
    out.push_back(it->path().lexically_relative(root).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string catalogue_version(const std::vector<scorecard>& cards) {
  std::set<std::string> lines;
  for (const auto& c : cards) lines.insert(c.provider.id + " " + c.spec_version + "\n");
  std::string all;
  for (const auto& l : lines) all += l;
  return "sha256:" + sha256_of([&](auto&& update) { update(all.data(), all.size()); });
}

std::string sha256_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return sha256_of([&](auto&& update) {
    std::array<char, 1 << 16> block{};
    while (in) {
      in.read(block.data(), block.size());
      if (in.gcount() > 0) update(block.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw std::runtime_error("cannot read " + path.string());
  });
}

fs::path manifest_path(const fs::path& published) { return published / "dataset" / "manifest.json"; }

json build_manifest(const fs::path& published, const std::vector<scorecard>& cards, const dataset_info& info) {
  std::map<std::string, std::string> specs;  // provider id -> spec versions
  std::set<std::string> suites;
  for (const auto& c : cards) {
    auto& v = specs[c.provider.id];
    if (v.find(c.spec_version) == std::string::npos) v += (v.empty() ? "" : ", ") + c.spec_version;
    if (!c.suite_version.empty()) suites.insert(c.suite_version);
  }
  json files = json::array();
  for (const auto& rel : files_under(published, manifest_path(published))) {
    const auto path = published / rel;
    files.push_back({{"path", rel}, {"bytes", fs::file_size(path)}, {"sha256", sha256_file(path)}});
  }
  std::string command = "neograde report";
  for (const auto& a : info.rederive_args) command += " " + a;
  return {{"dataset_version", dataset_version},
          {"title", "neograde scorecards"},
          {"generated_at", info.generated_at},
          {"generated_at_from", info.generated_at_from},
          {"methodology",
           {{"version", methodology_version}, {"document", "reports/README.md (Grading: Score, Tier) in the neograde repository"}}},
          {"catalogue", {{"version", catalogue_version(cards)}, {"specs", specs}}},
          {"suite_version", suite_version},
          {"suite_versions_graded", suites},
          {"licence",
           {{"spdx", dataset_licence},
            {"url", dataset_licence_url},
            {"file", "dataset/LICENSE"},
            {"attribution", "neograde scorecards, generated " + info.generated_at}}},
          {"rederive",
           {{"run_in", "dataset"},
            {"args", info.rederive_args},
            {"command", command + " --out OUT"},
            {"compare",
             "OUT/scorecard.json and OUT/providers/<name>/scorecard.json are byte for byte dataset/scorecard.json and "
             "dataset/scorecards/<name>.json"}}},
          {"files", files}};
}

std::string dataset_licence_text() {
  return std::string(
             "The data in this directory (the scorecards, the results files and this report's pages and badges) is\n"
             "licensed under the Creative Commons Attribution 4.0 International licence (CC BY 4.0):\n") +
         dataset_licence_url +
         "\n\nYou may share and adapt it for any purpose, provided you give appropriate credit (\"neograde scorecards\",\n"
         "the generation time in manifest.json, and a link to the source), indicate if changes were made, and do\n"
         "not suggest that neograde endorses you or your use.\n\n"
         "Results labelled EMULATED come from neograde's embedded emulators, not from the providers' services,\n"
         "and are not a rating of any real provider; providers marked fictional do not exist. Cite each result\n"
         "with its source (EMULATED, REPLAY, LIVE) as the scorecard states it.\n\n"
         "manifest.json lists every file with its SHA-256; `neograde report --verify DIR` checks them.\n"
         "The neograde software itself is under its own licence, not this one.\n";
}

dataset_check verify_dataset(const fs::path& given) {
  dataset_check out;
  auto published = given;
  if (!published.has_filename()) published = published.parent_path();  // "DIR/dataset/" names DIR/dataset
  if (!fs::exists(manifest_path(published)) && fs::exists(published / "manifest.json")) published = published.parent_path();
  if (published.empty()) published = ".";
  const auto manifest_file = manifest_path(published);
  json manifest;
  try {
    std::ifstream in(manifest_file);
    if (!in) throw std::runtime_error("cannot read it");
    manifest = json::parse(in);
    if (!manifest.is_object() || !manifest.contains("files") || !manifest["files"].is_array()) throw std::runtime_error("no files list");
  } catch (const std::exception& e) {
    out.problems.push_back(manifest_file.string() + ": not a dataset manifest (" + e.what() + ")");
    return out;
  }
  std::set<std::string> listed;
  for (const auto& f : manifest["files"]) {
    const auto rel = f.is_object() && f.contains("path") && f["path"].is_string() ? f["path"].get<std::string>() : std::string();
    const auto sha = f.is_object() && f.contains("sha256") && f["sha256"].is_string() ? f["sha256"].get<std::string>() : std::string();
    ++out.files;
    const fs::path relative(rel);
    if (rel.empty() || relative.is_absolute() || rel.find("..") != std::string::npos) {
      out.problems.push_back("the manifest lists a file by an unsafe or empty path: " + rel);
      continue;
    }
    listed.insert(relative.generic_string());
    const auto path = published / relative;
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(path, ec))) {
      out.problems.push_back(rel + ": missing");
      continue;
    }
    if (f.contains("bytes") && f["bytes"].is_number_unsigned() && f["bytes"].get<std::uintmax_t>() != fs::file_size(path, ec))
      out.problems.push_back(rel + ": " + std::to_string(fs::file_size(path, ec)) + " bytes, the manifest says " +
                             std::to_string(f["bytes"].get<std::uintmax_t>()));
    else if (sha256_file(path) != sha)
      out.problems.push_back(rel + ": SHA-256 differs from the manifest's");
  }
  for (const auto& rel : files_under(published, manifest_file))
    if (!listed.contains(rel)) out.problems.push_back(rel + ": not in the manifest");
  return out;
}

}  // namespace neograde::reports
