#pragma once
// Loads the catalogue's specs for tests (from the source tree; never from ../shared).

#include <neograde/core/spec.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace neograde::test {

inline std::string spec_path(const std::string& provider) {
  return std::string(NEOGRADE_TEST_SPECS_DIR) + "/" + provider + ".json";
}

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

}  // namespace neograde::test
