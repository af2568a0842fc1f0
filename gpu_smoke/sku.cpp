#include <neograde/gpu_smoke/sku.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace neograde::embedded {
std::string_view sku_catalogue();
}

namespace neograde::gpu_smoke {
namespace {

using nlohmann::json;

const json& field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw sku_error(std::string("missing \"") + key + "\"");
  return *it;
}

template <typename T>
T number(const json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_number()) throw sku_error(std::string("\"") + key + "\" is not a number");
  const auto d = v.get<double>();
  if (!std::isfinite(d) || d < 0) throw sku_error(std::string("\"") + key + "\" is negative");
  return v.get<T>();
}

std::string text(const json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_string() || v.get<std::string>().empty()) throw sku_error(std::string("\"") + key + "\" is not a non-empty string");
  return v.get<std::string>();
}

std::uint16_t pci_id(const std::string& s) {
  if (auto id = parse_pci_id(s)) return *id;
  throw sku_error("\"" + s + "\" is not a PCI device id like 0x2330");
}

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// The longest of the SKU's name patterns that the device name contains (0: none): "NVIDIA L40S"
// beats "NVIDIA L4" for an L40S.
std::size_t name_match(const sku& s, const std::string& device_name) {
  std::size_t best = 0;
  for (const auto& pattern : s.match_names)
    if (device_name.find(pattern) != std::string::npos) best = std::max(best, pattern.size());
  return best;
}

}  // namespace

sku parse_sku(const json& j) {
  if (!j.is_object()) throw sku_error("a SKU is a JSON object");
  sku s;
  s.id = text(j, "id");
  try {
    s.name = text(j, "name");
    for (const auto& n : field(j, "match_names")) s.match_names.push_back(n.get<std::string>());
    for (const auto& p : field(j, "pci_device_ids")) s.pci_device_ids.push_back(pci_id(p.get<std::string>()));
    s.form_factor = text(j, "form_factor");
    s.compute_capability = text(j, "compute_capability");
    s.sm_count = number<int>(j, "sm_count");
    s.max_sm_clock_mhz = number<int>(j, "max_sm_clock_mhz");
    const auto& mem = field(j, "memory");
    s.memory_type = text(mem, "type");
    s.memory_mib = number<long long>(mem, "mib");
    s.memory_bandwidth_gbs = number<double>(mem, "bandwidth_gbs");
    if (mem.contains("bus_width_bits")) s.bus_width_bits = number<int>(mem, "bus_width_bits");
    if (mem.contains("clock_mhz")) s.memory_clock_mhz = number<int>(mem, "clock_mhz");
    s.ecc_required = field(mem, "ecc_required").get<bool>();
    s.bf16_dense_tflops = number<double>(j, "bf16_dense_tflops");
    s.fp32_tflops = number<double>(j, "fp32_tflops");
    s.power_limit_w = number<double>(j, "power_limit_w");
    const auto& nv = field(j, "nvlink");
    s.nvlink_links = number<int>(nv, "links");
    s.nvlink_bandwidth_gbs = number<double>(nv, "bandwidth_gbs");
    s.nvlink_required = field(nv, "required").get<bool>();
    const auto& pcie = field(j, "pcie");
    s.pcie = {number<int>(pcie, "gen"), number<int>(pcie, "width")};
    const auto& t = field(j, "thresholds");
    s.memory_bandwidth_pct = number<double>(t, "memory_bandwidth_pct");
    s.gemm_pct = number<double>(t, "gemm_pct");
    s.h2d_pct = number<double>(t, "h2d_pct");
    s.d2h_pct = number<double>(t, "d2h_pct");
    s.p2p_pct = number<double>(t, "p2p_pct");
    const auto& h = field(j, "healthy");
    s.healthy.memory_bandwidth_gbs = number<double>(h, "memory_bandwidth_gbs");
    s.healthy.gemm_bf16_tflops = number<double>(h, "gemm_bf16_tflops");
    s.healthy.h2d_gbs = number<double>(h, "h2d_gbs");
    s.healthy.d2h_gbs = number<double>(h, "d2h_gbs");
    for (const auto& [k, v] : field(j, "sources").items()) s.sources[k] = v.get<std::string>();
    // A threshold nobody can trace is an opinion: each one, and each healthy figure, names its source.
    for (const auto* group : {"thresholds", "healthy"})
      for (const auto& [k, v] : j.at(group).items()) {
        const auto key = std::string(group) + "." + k;
        if (auto it = s.sources.find(key); it == s.sources.end() || it->second.empty())
          throw sku_error("\"" + key + "\" has no source in \"sources\"");
      }
  } catch (const json::exception& e) {
    throw sku_error(s.id + ": " + e.what());
  } catch (const sku_error& e) {
    throw sku_error(s.id + ": " + e.what());
  }
  if (s.memory_bandwidth_gbs <= 0 || s.bf16_dense_tflops <= 0 || s.power_limit_w <= 0 || s.sm_count <= 0)
    throw sku_error(s.id + ": bandwidth, BF16 TFLOPS, power limit and SM count must be positive");
  if (s.match_names.empty() && s.pci_device_ids.empty()) throw sku_error(s.id + ": needs match_names or pci_device_ids");
  // The thresholds exist to pass healthy parts: one that fails the SKU's own healthy figure is wrong.
  const double link = pcie_link_gbs(s.pcie);
  const struct {
    const char* name;
    double healthy, datasheet, pct;
  } floors[] = {{"memory_bandwidth", s.healthy.memory_bandwidth_gbs, s.memory_bandwidth_gbs, s.memory_bandwidth_pct},
                {"gemm", s.healthy.gemm_bf16_tflops, s.bf16_dense_tflops, s.gemm_pct},
                {"h2d", s.healthy.h2d_gbs, link, s.h2d_pct},
                {"d2h", s.healthy.d2h_gbs, link, s.d2h_pct}};
  for (const auto& f : floors)
    if (f.healthy < f.pct / 100 * f.datasheet)
      throw sku_error(s.id + ": a healthy part at " + num(f.healthy) + " would fail \"" + f.name + "_pct\" (" + num(f.pct) + "% of " +
                      num(f.datasheet) + ")");
  return s;
}

catalogue::catalogue(std::vector<sku> skus) : skus_(std::move(skus)) {
  for (std::size_t i = 0; i < skus_.size(); ++i)
    for (std::size_t k = i + 1; k < skus_.size(); ++k)
      if (skus_[i].id == skus_[k].id) throw sku_error("SKU \"" + skus_[i].id + "\" is defined twice");
}

const catalogue& catalogue::builtin() {
  static const catalogue c = [] {
    std::vector<sku> skus;
    for (const auto& j : json::parse(embedded::sku_catalogue())) skus.push_back(parse_sku(j));
    return catalogue(std::move(skus));
  }();
  return c;
}

catalogue catalogue::from_directory(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  if (ec) throw sku_error("cannot read " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<sku> skus;
  for (const auto& f : files) {
    std::ifstream in(f);
    try {
      skus.push_back(parse_sku(json::parse(in)));
    } catch (const std::exception& e) {
      throw sku_error(f.string() + ": " + e.what());
    }
  }
  if (skus.empty()) throw sku_error(dir + " holds no SKU (*.json)");
  return catalogue(std::move(skus));
}

const sku* catalogue::find(std::string_view id) const {
  for (const auto& s : skus_)
    if (s.id == id) return &s;
  return nullptr;
}

identification identify(const gpu_record& gpu, const catalogue& skus) {
  identification out;
  std::vector<const sku*> candidates;
  std::string basis;
  if (gpu.pci_device_id) {
    for (const auto& s : skus.all())
      if (std::find(s.pci_device_ids.begin(), s.pci_device_ids.end(), *gpu.pci_device_id) != s.pci_device_ids.end())
        candidates.push_back(&s);
    basis = "PCI id " + format_pci_id(*gpu.pci_device_id);
  }
  if (candidates.empty()) {
    std::size_t best = 0;
    for (const auto& s : skus.all()) {
      const auto m = name_match(s, gpu.name);
      if (m > best) candidates.assign(1, &s), best = m;
      else if (m > 0 && m == best)
        candidates.push_back(&s);
    }
    basis = (basis.empty() ? "" : basis + " (not catalogued), ") + "name \"" + gpu.name + "\"";
  }
  if (candidates.empty()) {
    out.evidence = basis + ": not in the catalogue";
    return out;
  }
  // Siblings that share an id or a name: the default power limit and the NVLink count decide.
  auto distance = [&](const sku* s) {
    double d = 0;
    if (gpu.power_limit_default_w) d += std::abs(*gpu.power_limit_default_w - s->power_limit_w) / s->power_limit_w;
    if (gpu.nvlink_links) d += (*gpu.nvlink_links > 0) == (s->nvlink_links > 0) ? 0 : 1;
    return d;
  };
  out.match =
      *std::min_element(candidates.begin(), candidates.end(), [&](const sku* a, const sku* b) { return distance(a) < distance(b); });
  out.evidence = basis;
  if (gpu.power_limit_default_w) out.evidence += ", " + num(*gpu.power_limit_default_w) + " W default limit";
  if (gpu.nvlink_links) out.evidence += ", " + std::to_string(*gpu.nvlink_links) + " NVLinks";

  const sku& s = *out.match;
  if (gpu.sm_count && *gpu.sm_count != s.sm_count)
    out.contradictions.push_back(std::to_string(*gpu.sm_count) + " SMs, datasheet " + std::to_string(s.sm_count));
  if (gpu.compute_capability && *gpu.compute_capability != s.compute_capability)
    out.contradictions.push_back("compute capability " + *gpu.compute_capability + ", datasheet " + s.compute_capability);
  if (gpu.max_mem_clock_mhz && s.memory_clock_mhz && std::abs(*gpu.max_mem_clock_mhz - *s.memory_clock_mhz) > 0.03 * *s.memory_clock_mhz)
    out.contradictions.push_back("memory clock " + std::to_string(*gpu.max_mem_clock_mhz) + " MHz, datasheet " +
                                 std::to_string(*s.memory_clock_mhz));
  if (gpu.bus_width_bits && s.bus_width_bits && *gpu.bus_width_bits != *s.bus_width_bits)
    out.contradictions.push_back(std::to_string(*gpu.bus_width_bits) + "-bit memory bus, datasheet " + std::to_string(*s.bus_width_bits));
  return out;
}

double pcie_link_gbs(const pcie_link& link) {
  static constexpr double gt_per_s[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (link.gen < 1 || link.gen > 6 || link.width <= 0) return 0;
  const double encoding = link.gen <= 2 ? 8.0 / 10 : link.gen <= 5 ? 128.0 / 130 : 242.0 / 256;  // Gen6: FLIT
  return gt_per_s[link.gen] * encoding * link.width / 8;
}

}  // namespace neograde::gpu_smoke
