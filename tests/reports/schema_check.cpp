// Checks scorecard files against reports/scorecard.schema.json: each argument holds one card or
// an array of cards (`neograde report`'s scorecard.json). Exit 0 when all are valid, 1 otherwise.
#include <neograde/core/json_schema.hpp>

#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  std::ifstream schema_file(NEOGRADE_SCORECARD_SCHEMA);
  const neograde::json_schema schema(nlohmann::json::parse(schema_file));
  int bad = 0, cards = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]);
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) {
      std::cerr << argv[i] << ": not JSON\n";
      ++bad;
      continue;
    }
    for (const auto& card : doc.is_array() ? doc : nlohmann::json::array({doc})) {
      ++cards;
      for (const auto& v : schema.validate(card)) {
        std::cerr << argv[i] << ": at \"" << v.pointer << "\": " << v.message << "\n";
        ++bad;
      }
    }
  }
  std::cout << cards << " scorecard(s) checked, " << bad << " problem(s)\n";
  return bad == 0 && cards > 0 ? 0 : 1;
}
