// Checks neograde-gpu-smoke records and documents against gpu_smoke/smoke-record.schema.json, and
// that none carries an unhashed GPU UUID ("GPU-..."). Exit 0 when every file is valid, 1 otherwise.
#include <neograde/core/json_schema.hpp>

#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  std::ifstream schema_file(NEOGRADE_SMOKE_SCHEMA);
  const neograde::json_schema schema(nlohmann::json::parse(schema_file));
  int bad = 0, files = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]);
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    ++files;
    if (doc.is_discarded()) {
      std::cerr << argv[i] << ": not JSON\n";
      ++bad;
      continue;
    }
    for (const auto& v : schema.validate(doc)) {
      std::cerr << argv[i] << ": at \"" << v.pointer << "\": " << v.message << "\n";
      ++bad;
    }
    if (doc.dump().find("\"GPU-") != std::string::npos) {
      std::cerr << argv[i] << ": an unhashed GPU UUID\n";
      ++bad;
    }
  }
  std::cout << files << " smoke record(s) checked, " << bad << " problem(s)\n";
  return bad == 0 && files > 0 ? 0 : 1;
}
