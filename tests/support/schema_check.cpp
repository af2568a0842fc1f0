// Checks JSON files against a JSON Schema: `schema_check SCHEMA [--forbid TEXT]... FILE...`. A file
// holds one document or an array of them (`neograde report`'s scorecard.json); --forbid names text
// no document may contain (an unhashed GPU UUID: "GPU-). Exit 0 when every document is valid and
// free of it, 1 otherwise. Used for the scorecards (report.demo_schema) and the GPU smoke records
// (gpu_smoke.cli.schema).
#include <neograde/core/json_schema.hpp>

#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: schema_check SCHEMA [--forbid TEXT]... FILE...\n";
    return 2;
  }
  std::ifstream schema_file(argv[1]);
  const neograde::json_schema schema(nlohmann::json::parse(schema_file));
  std::vector<std::string> forbidden;
  int bad = 0, documents = 0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--forbid") == 0 && i + 1 < argc) {
      forbidden.emplace_back(argv[++i]);
      continue;
    }
    std::ifstream in(argv[i]);
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) {
      std::cerr << argv[i] << ": not JSON\n";
      ++bad;
      continue;
    }
    for (const auto& one : doc.is_array() ? doc : nlohmann::json::array({doc})) {
      ++documents;
      for (const auto& v : schema.validate(one)) {
        std::cerr << argv[i] << ": at \"" << v.pointer << "\": " << v.message << "\n";
        ++bad;
      }
      for (const auto& text : forbidden)
        if (one.dump().find(text) != std::string::npos) {
          std::cerr << argv[i] << ": contains " << text << "\n";
          ++bad;
        }
    }
  }
  std::cout << documents << " document(s) checked against " << argv[1] << ", " << bad << " problem(s)\n";
  return bad == 0 && documents > 0 ? 0 : 1;
}
