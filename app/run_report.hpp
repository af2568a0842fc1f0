#pragma once
// Runs conformance for one provider and writes results.jsonl, scorecard.json and scorecard.md.

#include <neograde/conformance/runner.hpp>
#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neograde::app {

struct run_summary {
  nlohmann::json scorecard;
  int failed = 0;  // checks with outcome fail
  std::optional<std::string> stopped;  // the run did not finish: why, and after which check
  int stop_signal = 0;
};

[[nodiscard]] run_summary run_and_report(const provider_spec& spec, conformance::run_options options,
                                         const std::filesystem::path& out_dir);

// Writes every format of a report into `out_dir`: scorecard.json (the cards), index.md,
// providers/<id>/scorecard.md and .json, index.html, junit.xml, matrix.csv. Returns index.html's path.
std::filesystem::path write_report(const std::vector<nlohmann::json>& cards, const std::filesystem::path& out_dir);

// The API key given, or else the spec's environment variable's; throws usage_error when neither.
[[nodiscard]] std::string api_key_or_throw(const provider_spec& spec, const std::string& given);

// Loads a spec by name or path; throws usage_error with the file and JSON pointer of a fault.
[[nodiscard]] provider_spec load_spec_or_throw(const std::string& name_or_path);

}  // namespace neograde::app
