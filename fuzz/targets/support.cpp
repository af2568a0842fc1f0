#include "support.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace neograde::embedded {
std::string_view spec_lambda();
std::string_view spec_runpod_graphql();
std::string_view spec_vastai();
std::string_view spec_digitalocean();
std::string_view spec_crusoe();
}  // namespace neograde::embedded

namespace neograde::fuzz_support {

void oracle_failed(const char* what, const char* file, int line) {
  std::fprintf(stderr, "oracle violated at %s:%d: %s\n", file, line, what);
  std::abort();
}

namespace {
const std::vector<provider_spec>& specs() {
  static const std::vector<provider_spec> all = [] {
    std::vector<provider_spec> out;
    for (auto text : {embedded::spec_lambda(), embedded::spec_runpod_graphql(), embedded::spec_vastai(), embedded::spec_digitalocean(),
                      embedded::spec_crusoe()}) {
      auto parsed = parse_spec(text, "embedded");
      if (!parsed) {
        std::fprintf(stderr, "embedded spec does not load: %s\n", parsed.error().what().c_str());
        std::abort();
      }
      out.push_back(std::move(*parsed));
    }
    return out;
  }();
  return all;
}
}  // namespace

std::size_t spec_count() { return specs().size(); }

provider_client& client(std::size_t i) {
  static std::vector<std::unique_ptr<provider_client>> clients = [] {
    std::vector<std::unique_ptr<provider_client>> out;
    for (const auto& s : specs()) out.push_back(std::make_unique<provider_client>(s, "http://127.0.0.1:1", "fuzz-key"));
    return out;
  }();
  return *clients.at(i % clients.size());
}

provider_client& client_named(std::string_view id) {
  for (std::size_t i = 0; i < specs().size(); ++i)
    if (specs()[i].provider.id == id) return client(i);
  std::fprintf(stderr, "no embedded spec %.*s\n", static_cast<int>(id.size()), id.data());
  std::abort();
}
const provider_spec& spec(std::size_t i) { return specs().at(i % specs().size()); }
const provider_spec& spec_named(std::string_view id) {
  for (const auto& s : specs())
    if (s.provider.id == id) return s;
  std::fprintf(stderr, "no embedded spec %.*s\n", static_cast<int>(id.size()), id.data());
  std::abort();
}

}  // namespace neograde::fuzz_support
