#pragma once
// What neograde-gpu-smoke measured on one node: each GPU's inventory and health counters as the
// CUDA runtime and NVML report them, and each measurement's raw value. A record is written as
// JSON and read back (fixtures, `--regrade`), so the verdict can be recomputed without a GPU.
// Every inventory field is optional: NVML may be missing, a query may be unsupported.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neograde::gpu_smoke {

struct pcie_link {
  int gen = 0;
  int width = 0;
  friend bool operator==(const pcie_link&, const pcie_link&) = default;
};

struct ecc_counts {
  std::uint64_t corrected_volatile = 0, uncorrected_volatile = 0;
  std::uint64_t corrected_aggregate = 0, uncorrected_aggregate = 0;
};

struct retired_pages {
  unsigned single_bit = 0, double_bit = 0;
  bool pending = false;
};

struct remapped_rows {
  unsigned corrected = 0, uncorrected = 0;
  bool pending = false, failure = false;
};

// NVML's clock event ("throttle") reason bits.
namespace throttle {
inline constexpr std::uint64_t gpu_idle = 0x1, app_clocks = 0x2, sw_power_cap = 0x4, hw_slowdown = 0x8, sync_boost = 0x10,
                               sw_thermal = 0x20, hw_thermal = 0x40, hw_power_brake = 0x80;
// Reasons that mean the hardware is being held back for a fault or heat, not by policy.
inline constexpr std::uint64_t harmful = hw_slowdown | sw_thermal | hw_thermal | hw_power_brake;
[[nodiscard]] std::vector<std::string> names(std::uint64_t bits);
[[nodiscard]] std::uint64_t from_names(const std::vector<std::string>& names);
}  // namespace throttle

// One measurement's value, e.g. {"value": 2870.4, "unit": "GB/s"}, with what else the stage
// reported (implementation, repeats, error counts) in `detail`.
struct measurement {
  double value = 0;
  std::string unit;
  nlohmann::json detail = nlohmann::json::object();
};

struct stage_error {
  std::string stage;
  int gpu = -1;  // -1: the node
  std::string message;
};

struct gpu_record {
  int index = 0;
  std::string name;
  std::string pci_bus_id;
  std::optional<std::uint16_t> pci_device_id;  // NVML's product id, e.g. 0x2330 (H100 SXM5)
  std::optional<long long> memory_mib;
  std::optional<int> sm_count;
  std::optional<std::string> compute_capability;  // "9.0"
  std::optional<int> max_sm_clock_mhz, max_mem_clock_mhz, bus_width_bits;
  std::optional<double> power_limit_enforced_w, power_limit_default_w;
  std::optional<pcie_link> pcie_current, pcie_under_load, pcie_max;
  std::optional<int> pcie_gpu_max_gen;  // what the GPU supports, whatever the platform
  std::optional<bool> ecc_enabled;
  std::optional<ecc_counts> ecc;
  std::optional<retired_pages> retired;
  std::optional<remapped_rows> remapped;
  std::optional<bool> mig_enabled;
  std::optional<int> nvlink_links;                    // links NVML reports a state for
  std::optional<int> nvlink_active;                   // of which up
  std::optional<std::uint64_t> throttle_idle;         // reasons at rest
  std::optional<std::uint64_t> throttle_during_gemm;  // every reason seen while the GEMM ran
  std::optional<double> temperature_c;
  // hbm_copy, hbm_triad, h2d, d2h, gemm_bf16, memtest, power_during_gemm, sm_clock_during_gemm
  std::map<std::string, measurement> measurements;
};

struct p2p_record {
  int from = 0, to = 0;
  bool peer_access = false;
  bool verified = false;
  double gbs = 0;
};

struct stage_timing {
  std::string name;
  double budget_s = 0;
  double seconds = 0;
};

struct node_record {
  std::string hostname;
  std::string driver_version;
  std::optional<int> cuda_driver_version, cuda_runtime_version;
  std::string nvml;                   // "loaded" or why NVML could not be used
  std::optional<int> nvml_gpu_count;  // GPUs NVML sees (CUDA may see fewer, or none)
  bool no_gpu = false;                // no driver and no device: nothing to test
  std::string no_gpu_reason;
  std::vector<gpu_record> gpus;
  std::vector<p2p_record> p2p;
  std::vector<stage_error> errors;
  std::vector<stage_timing> stages;
  // The hardware fingerprint (fingerprint.hpp), carried as written; null in records from before it.
  nlohmann::json fingerprint;
};

// PCI device ids as written in records and SKUs: "0x2330".
[[nodiscard]] std::string format_pci_id(std::uint16_t id);
[[nodiscard]] std::optional<std::uint16_t> parse_pci_id(const std::string& text);

// JSON with stable keys (see docs/gpu-smoke.md); from_json accepts what to_json writes and
// ignores keys it does not know (a graded document reads back as its record). Throws
// nlohmann::json::exception on a wrong type.
void to_json(nlohmann::json& j, const gpu_record& g);
void from_json(const nlohmann::json& j, gpu_record& g);
void to_json(nlohmann::json& j, const node_record& n);
void from_json(const nlohmann::json& j, node_record& n);

}  // namespace neograde::gpu_smoke
