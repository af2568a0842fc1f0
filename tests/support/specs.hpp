#pragma once
// Loads the catalogue's specs for tests (from the source tree; never from ../shared).

#include <neograde/core/spec.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace neograde::test {

// The tree whose specs and payloads the tests read: this checkout's, or another one named by
// NEOGRADE_TEST_SOURCE_DIR (a worktree with a new spec, tested with binaries built elsewhere).
inline std::filesystem::path source_tree_dir(const char* compiled, const char* below) {
  if (const char* root = std::getenv("NEOGRADE_TEST_SOURCE_DIR"); root && *root) return std::filesystem::path(root) / below;
  return compiled;
}
inline std::filesystem::path specs_dir() { return source_tree_dir(NEOGRADE_TEST_SPECS_DIR, "specs/providers"); }
inline std::filesystem::path payloads_dir() { return source_tree_dir(NEOGRADE_TEST_PAYLOADS_DIR, "tests/fixtures/payloads"); }

inline std::string spec_path(const std::string& provider) { return (specs_dir() / (provider + ".json")).string(); }

inline const provider_spec& spec(const std::string& provider) {
  static std::map<std::string, provider_spec> cache;
  auto it = cache.find(provider);
  if (it == cache.end()) {
    auto loaded = load_spec(spec_path(provider));
    if (!loaded) throw std::runtime_error(loaded.error().what());
    it = cache.emplace(provider, std::move(*loaded)).first;
  }
  return it->second;
}

inline nlohmann::json spec_json(const std::string& provider) {
  std::ifstream in(spec_path(provider));
  return nlohmann::json::parse(in);
}

// Every provider of the catalogue, by file name, sorted.
inline std::vector<std::string> catalogue_providers() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(specs_dir())) out.push_back(e.path().stem());
  std::sort(out.begin(), out.end());
  return out;
}

// A name usable as a test name: "runpod-graphql" -> "runpod_graphql", "a.b" -> "a_b".
inline std::string test_name(const std::string& s) {
  std::string name;
  for (char c : s) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

}  // namespace neograde::test
