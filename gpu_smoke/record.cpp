#include <neograde/gpu_smoke/record.hpp>

#include <cstdio>

namespace neograde::gpu_smoke {
namespace {

using nlohmann::json;

constexpr std::pair<std::uint64_t, const char*> throttle_names[] = {
    {throttle::gpu_idle, "gpu_idle"},
    {throttle::app_clocks, "applications_clocks"},
    {throttle::sw_power_cap, "sw_power_cap"},
    {throttle::hw_slowdown, "hw_slowdown"},
    {throttle::sync_boost, "sync_boost"},
    {throttle::sw_thermal, "sw_thermal_slowdown"},
    {throttle::hw_thermal, "hw_thermal_slowdown"},
    {throttle::hw_power_brake, "hw_power_brake_slowdown"},
};

template <typename T>
void put(json& j, const char* key, const std::optional<T>& v) {
  j[key] = v ? json(*v) : json(nullptr);
}

template <typename T>
void get(const json& j, const char* key, std::optional<T>& v) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) v = it->template get<T>();
}

json link_json(const std::optional<pcie_link>& l) { return l ? json{{"gen", l->gen}, {"width", l->width}} : json(nullptr); }

std::optional<pcie_link> link_from(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return pcie_link{it->at("gen").get<int>(), it->at("width").get<int>()};
}

json throttle_json(const std::optional<std::uint64_t>& bits) {
  if (!bits) return nullptr;
  return json{{"bits", *bits}, {"reasons", throttle::names(*bits)}};
}

std::optional<std::uint64_t> throttle_from(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (it->contains("bits")) return it->at("bits").get<std::uint64_t>();
  return throttle::from_names(it->at("reasons").get<std::vector<std::string>>());
}

}  // namespace

std::string format_pci_id(std::uint16_t id) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", id);
  return buf;
}

std::optional<std::uint16_t> parse_pci_id(const std::string& text) {
  if (!text.starts_with("0x") || text.size() > 6) return std::nullopt;
  std::size_t used = 0;
  unsigned long v = 0;
  try {
    v = std::stoul(text, &used, 16);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size()) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

std::vector<std::string> throttle::names(std::uint64_t bits) {
  std::vector<std::string> out;
  for (const auto& [bit, name] : throttle_names)
    if (bits & bit) out.emplace_back(name);
  std::uint64_t known = 0;
  for (const auto& [bit, name] : throttle_names) known |= bit;
  if (bits & ~known) out.push_back("other");
  return out;
}

std::uint64_t throttle::from_names(const std::vector<std::string>& names) {
  std::uint64_t bits = 0;
  for (const auto& n : names)
    for (const auto& [bit, name] : throttle_names)
      if (n == name) bits |= bit;
  return bits;
}

void to_json(json& j, const gpu_record& g) {
  j = json::object();
  j["index"] = g.index;
  j["name"] = g.name;
  j["pci_bus_id"] = g.pci_bus_id;
  j["pci_device_id"] = g.pci_device_id ? json(format_pci_id(*g.pci_device_id)) : json(nullptr);
  put(j, "memory_mib", g.memory_mib);
  put(j, "sm_count", g.sm_count);
  put(j, "compute_capability", g.compute_capability);
  put(j, "max_sm_clock_mhz", g.max_sm_clock_mhz);
  put(j, "max_mem_clock_mhz", g.max_mem_clock_mhz);
  put(j, "bus_width_bits", g.bus_width_bits);
  j["power_limit_w"] = {{"enforced", g.power_limit_enforced_w ? json(*g.power_limit_enforced_w) : json(nullptr)},
                        {"default", g.power_limit_default_w ? json(*g.power_limit_default_w) : json(nullptr)}};
  j["pcie"] = {{"current", link_json(g.pcie_current)},
               {"under_load", link_json(g.pcie_under_load)},
               {"max", link_json(g.pcie_max)},
               {"gpu_max_gen", g.pcie_gpu_max_gen ? json(*g.pcie_gpu_max_gen) : json(nullptr)}};
  json ecc = {{"enabled", g.ecc_enabled ? json(*g.ecc_enabled) : json(nullptr)}};
  if (g.ecc) {
    ecc["corrected_volatile"] = g.ecc->corrected_volatile;
    ecc["uncorrected_volatile"] = g.ecc->uncorrected_volatile;
    ecc["corrected_aggregate"] = g.ecc->corrected_aggregate;
    ecc["uncorrected_aggregate"] = g.ecc->uncorrected_aggregate;
  }
  j["ecc"] = ecc;
  j["retired_pages"] =
      g.retired ? json{{"single_bit", g.retired->single_bit}, {"double_bit", g.retired->double_bit}, {"pending", g.retired->pending}}
                : json(nullptr);
  j["remapped_rows"] = g.remapped ? json{{"corrected", g.remapped->corrected},
                                         {"uncorrected", g.remapped->uncorrected},
                                         {"pending", g.remapped->pending},
                                         {"failure", g.remapped->failure}}
                                  : json(nullptr);
  put(j, "mig_enabled", g.mig_enabled);
  j["nvlink"] = {{"links", g.nvlink_links ? json(*g.nvlink_links) : json(nullptr)},
                 {"active", g.nvlink_active ? json(*g.nvlink_active) : json(nullptr)}};
  j["throttle"] = {{"idle", throttle_json(g.throttle_idle)}, {"during_gemm", throttle_json(g.throttle_during_gemm)}};
  put(j, "temperature_c", g.temperature_c);
  json m = json::object();
  for (const auto& [name, v] : g.measurements) {
    json one = v.detail.is_object() ? v.detail : json::object();
    one["value"] = v.value;
    one["unit"] = v.unit;
    m[name] = one;
  }
  j["measurements"] = m;
}

void from_json(const json& j, gpu_record& g) {
  g = {};
  g.index = j.value("index", 0);
  g.name = j.value("name", "");
  g.pci_bus_id = j.value("pci_bus_id", "");
  if (auto it = j.find("pci_device_id"); it != j.end() && !it->is_null()) {
    const auto text = it->get<std::string>();
    g.pci_device_id = parse_pci_id(text);
    if (!g.pci_device_id) throw json::type_error::create(302, "pci_device_id is not a PCI id like 0x2330: " + text, &j);
  }
  get(j, "memory_mib", g.memory_mib);
  get(j, "sm_count", g.sm_count);
  get(j, "compute_capability", g.compute_capability);
  get(j, "max_sm_clock_mhz", g.max_sm_clock_mhz);
  get(j, "max_mem_clock_mhz", g.max_mem_clock_mhz);
  get(j, "bus_width_bits", g.bus_width_bits);
  if (auto it = j.find("power_limit_w"); it != j.end() && it->is_object()) {
    get(*it, "enforced", g.power_limit_enforced_w);
    get(*it, "default", g.power_limit_default_w);
  }
  if (auto it = j.find("pcie"); it != j.end() && it->is_object()) {
    g.pcie_current = link_from(*it, "current");
    g.pcie_under_load = link_from(*it, "under_load");
    g.pcie_max = link_from(*it, "max");
    get(*it, "gpu_max_gen", g.pcie_gpu_max_gen);
  }
  if (auto it = j.find("ecc"); it != j.end() && it->is_object()) {
    get(*it, "enabled", g.ecc_enabled);
    if (it->contains("uncorrected_volatile")) {
      ecc_counts c;
      c.corrected_volatile = it->value("corrected_volatile", std::uint64_t{0});
      c.uncorrected_volatile = it->value("uncorrected_volatile", std::uint64_t{0});
      c.corrected_aggregate = it->value("corrected_aggregate", std::uint64_t{0});
      c.uncorrected_aggregate = it->value("uncorrected_aggregate", std::uint64_t{0});
      g.ecc = c;
    }
  }
  if (auto it = j.find("retired_pages"); it != j.end() && it->is_object())
    g.retired = retired_pages{it->value("single_bit", 0u), it->value("double_bit", 0u), it->value("pending", false)};
  if (auto it = j.find("remapped_rows"); it != j.end() && it->is_object())
    g.remapped =
        remapped_rows{it->value("corrected", 0u), it->value("uncorrected", 0u), it->value("pending", false), it->value("failure", false)};
  get(j, "mig_enabled", g.mig_enabled);
  if (auto it = j.find("nvlink"); it != j.end() && it->is_object()) {
    get(*it, "links", g.nvlink_links);
    get(*it, "active", g.nvlink_active);
  }
  if (auto it = j.find("throttle"); it != j.end() && it->is_object()) {
    g.throttle_idle = throttle_from(*it, "idle");
    g.throttle_during_gemm = throttle_from(*it, "during_gemm");
  }
  get(j, "temperature_c", g.temperature_c);
  if (auto it = j.find("measurements"); it != j.end() && it->is_object()) {
    for (const auto& [name, v] : it->items()) {
      measurement m;
      m.value = v.at("value").get<double>();
      m.unit = v.value("unit", "");
      // Only what the stage reported travels as detail, not a verdict merged in by to_document.
      for (const auto& [k, d] : v.items())
        if (k != "value" && k != "unit" && k != "datasheet" && k != "pct_of_datasheet" && k != "threshold_pct" && k != "healthy" &&
            k != "green_pct" && k != "verdict" && k != "basis")
          m.detail[k] = d;
      g.measurements[name] = std::move(m);
    }
  }
}

void to_json(json& j, const node_record& n) {
  j = json::object();
  j["hostname"] = n.hostname;
  j["driver"] = {{"version", n.driver_version},
                 {"cuda_driver_version", n.cuda_driver_version ? json(*n.cuda_driver_version) : json(nullptr)},
                 {"cuda_runtime_version", n.cuda_runtime_version ? json(*n.cuda_runtime_version) : json(nullptr)},
                 {"nvml", n.nvml},
                 {"nvml_gpu_count", n.nvml_gpu_count ? json(*n.nvml_gpu_count) : json(nullptr)}};
  j["no_gpu"] = n.no_gpu ? json{{"reason", n.no_gpu_reason}} : json(nullptr);
  j["gpus"] = n.gpus;
  json p2p = json::array();
  for (const auto& p : n.p2p)
    p2p.push_back(
        {{"from", p.from}, {"to", p.to}, {"peer_access", p.peer_access}, {"verified", p.verified}, {"value", p.gbs}, {"unit", "GB/s"}});
  j["p2p"] = p2p;
  json errors = json::array();
  for (const auto& e : n.errors)
    errors.push_back({{"stage", e.stage}, {"gpu", e.gpu < 0 ? json(nullptr) : json(e.gpu)}, {"message", e.message}});
  j["errors"] = errors;
  json stages = json::array();
  for (const auto& s : n.stages) stages.push_back({{"name", s.name}, {"budget_s", s.budget_s}, {"seconds", s.seconds}});
  j["stages"] = stages;
  if (!n.fingerprint.is_null()) j["fingerprint"] = n.fingerprint;
}

void from_json(const json& j, node_record& n) {
  n = {};
  n.hostname = j.value("hostname", "");
  if (auto it = j.find("driver"); it != j.end() && it->is_object()) {
    n.driver_version = it->value("version", "");
    get(*it, "cuda_driver_version", n.cuda_driver_version);
    get(*it, "cuda_runtime_version", n.cuda_runtime_version);
    n.nvml = it->value("nvml", "");
    get(*it, "nvml_gpu_count", n.nvml_gpu_count);
  }
  if (auto it = j.find("no_gpu"); it != j.end() && it->is_object()) {
    n.no_gpu = true;
    n.no_gpu_reason = it->value("reason", "");
  }
  if (auto it = j.find("gpus"); it != j.end()) n.gpus = it->get<std::vector<gpu_record>>();
  if (auto it = j.find("p2p"); it != j.end())
    for (const auto& p : *it)
      n.p2p.push_back({p.at("from").get<int>(), p.at("to").get<int>(), p.value("peer_access", false), p.value("verified", false),
                       p.at("value").get<double>()});
  if (auto it = j.find("errors"); it != j.end())
    for (const auto& e : *it)
      n.errors.push_back(
          {e.value("stage", ""), e.contains("gpu") && !e["gpu"].is_null() ? e["gpu"].get<int>() : -1, e.value("message", "")});
  if (auto it = j.find("stages"); it != j.end())
    for (const auto& s : *it) n.stages.push_back({s.value("name", ""), s.value("budget_s", 0.0), s.value("seconds", 0.0)});
  if (auto it = j.find("fingerprint"); it != j.end() && it->is_object()) n.fingerprint = *it;
}

}  // namespace neograde::gpu_smoke
