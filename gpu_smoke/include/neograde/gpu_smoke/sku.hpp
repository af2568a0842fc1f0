#pragma once
// The SKU catalogue (specs/skus/*.json): each GPU model's datasheet figures, what healthy parts
// of it were measured to reach, the thresholds set below those, all with their sources; and how to
// tell a delivered GPU's model from what the driver reports.

#include <neograde/gpu_smoke/record.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace neograde::gpu_smoke {

struct sku {
  std::string id;                        // "h100-sxm5-80gb"
  std::string name;                      // "NVIDIA H100 SXM5 80GB"
  std::vector<std::string> match_names;  // substrings of the device name
  std::vector<std::uint16_t> pci_device_ids;
  std::string form_factor;  // sxm, pcie, nvl
  std::string compute_capability;
  int sm_count = 0;
  int max_sm_clock_mhz = 0;
  std::string memory_type;
  long long memory_mib = 0;
  double memory_bandwidth_gbs = 0;
  std::optional<int> bus_width_bits, memory_clock_mhz;
  bool ecc_required = false;
  double bf16_dense_tflops = 0;
  double fp32_tflops = 0;
  double power_limit_w = 0;
  int nvlink_links = 0;
  double nvlink_bandwidth_gbs = 0;  // both directions, all links
  bool nvlink_required = false;
  pcie_link pcie;
  // Red below these, as % of the datasheet figure (the link rate for host copies, one direction of
  // NVLink for peer copies): each set with margin below what healthy parts were measured to reach.
  double memory_bandwidth_pct = 0, gemm_pct = 0, h2d_pct = 0, d2h_pct = 0, p2p_pct = 0;
  // What healthy parts reach, published (or derived from the nearest part that was measured): a
  // measurement within policy::healthy_pct of these is green even where the datasheet is far off.
  struct achieved {
    double memory_bandwidth_gbs = 0;  // STREAM-style or device-to-device copy
    double gemm_bf16_tflops = 0;      // cuBLAS BF16, FP32 accumulate
    double h2d_gbs = 0, d2h_gbs = 0;  // pinned copy-engine copies, each direction
  } healthy;
  // "<field>" -> where the figure comes from; every threshold and healthy figure has one
  // ("thresholds.gemm_pct", "healthy.gemm_bf16_tflops").
  std::map<std::string, std::string> sources;
};

class sku_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads one SKU document; throws sku_error naming the field at fault, a threshold or healthy figure
// without a source, or a threshold that the SKU's own healthy figure would fail.
[[nodiscard]] sku parse_sku(const nlohmann::json& j);

class catalogue {
 public:
  catalogue() = default;
  explicit catalogue(std::vector<sku> skus);
  // The catalogue compiled into the program (specs/skus at build time).
  [[nodiscard]] static const catalogue& builtin();
  // Every *.json in `dir`; throws sku_error naming the file at fault.
  [[nodiscard]] static catalogue from_directory(const std::string& dir);

  [[nodiscard]] const sku* find(std::string_view id) const;
  [[nodiscard]] const std::vector<sku>& all() const { return skus_; }

 private:
  std::vector<sku> skus_;
};

// Which catalogued SKU a delivered GPU is, and why.
struct identification {
  const sku* match = nullptr;  // nullptr: not in the catalogue
  std::string evidence;        // "PCI id 0x2330, 700 W default limit, 18 NVLinks"
  // Figures the driver reports that contradict the match's datasheet ("114 SMs, datasheet 132").
  std::vector<std::string> contradictions;
};

// Decides the SKU from the PCI device id, the default power limit and the NVLink count (one field
// cannot tell SXM from PCIe), falling back to the device name when NVML gave no PCI id; then
// cross-checks SM count, memory clock, memory size and compute capability.
[[nodiscard]] identification identify(const gpu_record& gpu, const catalogue& skus);

// PCIe bandwidth of one direction of a link in GB/s (8b/10b up to Gen2, 128b/130b for Gen3-5, FLIT for Gen6).
[[nodiscard]] double pcie_link_gbs(const pcie_link& link);

}  // namespace neograde::gpu_smoke
