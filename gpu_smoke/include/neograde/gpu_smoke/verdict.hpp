#pragma once
// Grades a node record against what was ordered. Identity, health and correctness problems are
// hard failures; performance is graded as % of the datasheet: red (fail) below the SKU's threshold,
// green (pass) at or above 85% of the datasheet or 90% of what healthy parts of the SKU were
// measured to reach (whichever is lower: an H100 PCIe's cuBLAS reaches 66% of its datasheet),
// amber (warn) between. Every GPU must be within 10% of the best in the node.

#include <neograde/gpu_smoke/record.hpp>
#include <neograde/gpu_smoke/sku.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace neograde::gpu_smoke {

// What the buyer ordered: `--expect <SKU> --count N`. Empty sku: grade against the SKU identified.
struct expectation {
  std::string sku;
  std::optional<int> count;
};

enum class grade { pass, warn, fail, skipped };
[[nodiscard]] const char* to_string(grade g);

struct check {
  std::string id;        // "gpu.power_limit"
  std::string category;  // identity, health, correctness, performance
  int gpu = -1;          // -1: the node
  grade result = grade::pass;
  std::string message;
};

// A measurement set against the datasheet.
struct graded_measurement {
  int gpu = -1;
  std::string name;  // hbm_triad ...
  double value = 0;
  std::string unit;
  std::optional<double> datasheet{};  // the figure it is compared with
  std::optional<double> pct_of_datasheet{};
  std::optional<double> threshold_pct{};
  std::optional<double> healthy{};    // what healthy parts reach (the SKU's "healthy" figure)
  std::optional<double> green_pct{};  // green from here, % of the datasheet
  grade result = grade::skipped;
  std::string basis;  // where the datasheet figure comes from
};

struct verdict {
  std::string status;                   // pass, fail, no_gpu
  std::vector<std::string> identified;  // per GPU: the SKU id decided, or "" when unknown
  std::vector<check> checks;
  std::vector<graded_measurement> measurements;
  [[nodiscard]] int count(grade g) const;
};

// Thresholds that are not per SKU (docs/gpu-smoke.md, "The verdict", gives their sources).
struct policy {
  double green_pct = 85;            // % of the datasheet at or above which a measurement is green
  double healthy_pct = 90;          // ... or % of the SKU's healthy figure, if that is lower
  double memory_tolerance_pct = 1;  // reported MiB within 1% of the datasheet's
  double power_limit_min_pct = 95;  // enforced limit against the default and the datasheet
  double power_reached_pct = 75;    // power drawn during the GEMM against the enforced limit
  double clock_min_pct = 90;        // SM clock during the GEMM against the max boost clock
  double uniformity_pct = 10;       // every GPU within this of the best in the node
};

[[nodiscard]] verdict grade_node(const node_record& node, const catalogue& skus, const expectation& expect, const policy& rules = {});

// The document neograde-gpu-smoke prints: the record with each measurement's grade merged in,
// the expectation, the checks, a summary and the status.
[[nodiscard]] nlohmann::json to_document(const node_record& node, const expectation& expect, const verdict& v);

// A one-screen human summary (stderr).
[[nodiscard]] std::string summary_text(const node_record& node, const verdict& v);

}  // namespace neograde::gpu_smoke
