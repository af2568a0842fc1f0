#include <neograde/gpu_smoke/verdict.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace neograde::gpu_smoke {
namespace {

using nlohmann::json;

std::string num(double v, int precision = 1) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  auto t = s.str();
  if (t.find('.') != std::string::npos) {
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
  }
  return t;
}

std::string join(const std::vector<std::string>& parts, const char* sep = ", ") {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string link_text(const pcie_link& l) { return "Gen" + std::to_string(l.gen) + " x" + std::to_string(l.width); }

class grader {
 public:
  grader(const node_record& node, const catalogue& skus, const expectation& expect, const policy& rules)
      : node_(node), skus_(skus), expect_(expect), rules_(rules) {}

  verdict run() {
    if (node_.no_gpu) {
      v_.status = "no_gpu";
      add("node.gpu_present", "identity", -1, grade::skipped, "no GPU: " + node_.no_gpu_reason);
      return std::move(v_);
    }
    expected_ = expect_.sku.empty() ? nullptr : skus_.find(expect_.sku);
    count();
    errors();
    for (const auto& g : node_.gpus) one_gpu(g);
    uniformity("gemm_bf16");
    uniformity("hbm_triad");
    p2p();
    v_.status = v_.count(grade::fail) > 0 ? "fail" : "pass";
    return std::move(v_);
  }

 private:
  void add(std::string id, const char* category, int gpu, grade g, std::string message) {
    v_.checks.push_back({std::move(id), category, gpu, g, std::move(message)});
  }

  void count() {
    const int seen = static_cast<int>(node_.gpus.size());
    std::string msg = std::to_string(seen) + " GPU(s) usable by CUDA";
    if (node_.nvml_gpu_count && *node_.nvml_gpu_count != seen) msg += ", " + std::to_string(*node_.nvml_gpu_count) + " seen by NVML";
    if (expect_.count && *expect_.count != seen)
      return add("node.gpu_count", "identity", -1, grade::fail, msg + "; " + std::to_string(*expect_.count) + " ordered");
    if (seen == 0) return add("node.gpu_count", "identity", -1, grade::fail, "the driver is present but no GPU is usable");
    if (node_.nvml_gpu_count && *node_.nvml_gpu_count > seen)
      return add("node.gpu_count", "identity", -1, grade::warn, msg + " (CUDA_VISIBLE_DEVICES, or a GPU CUDA cannot use)");
    add("node.gpu_count", "identity", -1, grade::pass, msg + (expect_.count ? ", as ordered" : ""));
  }

  void errors() {
    if (node_.errors.empty()) return add("node.cuda_errors", "health", -1, grade::pass, "no CUDA or driver error in any stage");
    const auto& e = node_.errors.front();
    add("node.cuda_errors", "health", -1, grade::fail,
        std::to_string(node_.errors.size()) + " error(s); first in " + e.stage +
            (e.gpu >= 0 ? " on GPU " + std::to_string(e.gpu) : std::string()) + ": " + e.message);
  }

  // The SKU a GPU is graded against: what was ordered, else what it was identified as.
  const sku* identity(const gpu_record& g) {
    const int i = g.index;
    auto id = identify(g, skus_);
    v_.identified.push_back(id.match ? id.match->id : "");
    if (!expect_.sku.empty() && expected_ == nullptr)
      add("gpu.sku", "identity", i, grade::fail, "the SKU ordered, \"" + expect_.sku + "\", is not in the catalogue");
    else if (id.match == nullptr)
      add("gpu.sku", "identity", i, expected_ ? grade::fail : grade::warn,
          id.evidence + (expected_ ? "; ordered " + expected_->name : "; graded on health only"));
    else if (expected_ && id.match != expected_)
      add("gpu.sku", "identity", i, grade::fail, "delivered " + id.match->name + " (" + id.evidence + "); ordered " + expected_->name);
    else
      add("gpu.sku", "identity", i, grade::pass, id.match->name + " (" + id.evidence + ")");
    if (id.match) {
      if (id.contradictions.empty())
        add("gpu.identity_consistent", "identity", i, grade::pass, "SM count, memory clock and bus agree with the datasheet");
      else
        add("gpu.identity_consistent", "identity", i, grade::fail,
            "the driver's figures contradict a " + id.match->name + ": " + join(id.contradictions));
    }
    return expected_ ? expected_ : id.match;
  }

  void memory(const gpu_record& g, const sku& s) {
    if (!g.memory_mib) return add("gpu.memory", "identity", g.index, grade::skipped, "memory size unknown");
    const double short_pct = 100.0 * (s.memory_mib - *g.memory_mib) / s.memory_mib;
    const auto msg = std::to_string(*g.memory_mib) + " MiB, datasheet " + std::to_string(s.memory_mib) + " MiB";
    add("gpu.memory", "identity", g.index, short_pct > rules_.memory_tolerance_pct ? grade::fail : grade::pass, msg);
  }

  void health(const gpu_record& g, const sku* s) {
    const int i = g.index;
    if (!g.ecc_enabled) add("gpu.ecc_enabled", "health", i, grade::skipped, "ECC mode unknown (NVML)");
    else if (!*g.ecc_enabled && s && s->ecc_required)
      add("gpu.ecc_enabled", "health", i, grade::fail, "ECC is off on a " + s->name);
    else
      add("gpu.ecc_enabled", "health", i, grade::pass, *g.ecc_enabled ? "ECC on" : "ECC off (not required for this SKU)");

    if (!g.ecc) {
      add("gpu.ecc_errors", "health", i, grade::skipped, "ECC counters unknown");
    } else if (g.ecc->uncorrected_volatile > 0 || g.ecc->uncorrected_aggregate > 0) {
      add("gpu.ecc_errors", "health", i, grade::fail,
          std::to_string(g.ecc->uncorrected_volatile) + " uncorrectable ECC error(s) since boot, " +
              std::to_string(g.ecc->uncorrected_aggregate) + " over the GPU's life");
    } else {
      add("gpu.ecc_errors", "health", i, grade::pass,
          "no uncorrectable ECC error (" + std::to_string(g.ecc->corrected_volatile) + " corrected since boot)");
    }

    if (!g.remapped) add("gpu.row_remap", "health", i, grade::skipped, "row remapping not reported (pre-Ampere, MIG, or no NVML)");
    else if (g.remapped->failure)
      add("gpu.row_remap", "health", i, grade::fail, "a row remap failed: the GPU needs replacing");
    else if (g.remapped->pending)
      add("gpu.row_remap", "health", i, grade::fail, "row remaps pending: the GPU needs a reset");
    else if (g.remapped->uncorrected > 0)
      add("gpu.row_remap", "health", i, grade::warn,
          std::to_string(g.remapped->uncorrected) + " row(s) remapped after uncorrectable errors");
    else
      add("gpu.row_remap", "health", i, grade::pass, "no pending or failed row remap");

    if (!g.retired) add("gpu.retired_pages", "health", i, grade::skipped, "page retirement not reported");
    else if (g.retired->pending)
      add("gpu.retired_pages", "health", i, grade::fail, "page retirement pending: the GPU needs a reset");
    else if (g.retired->double_bit > 0)
      add("gpu.retired_pages", "health", i, grade::warn, std::to_string(g.retired->double_bit) + " page(s) retired for double-bit errors");
    else
      add("gpu.retired_pages", "health", i, grade::pass, "no page retirement pending");

    if (!g.mig_enabled) add("gpu.mig", "health", i, grade::skipped, "MIG mode unknown");
    else
      add("gpu.mig", "health", i, *g.mig_enabled ? grade::fail : grade::pass,
          *g.mig_enabled ? "MIG is on: CUDA sees one slice, not the whole GPU" : "MIG off");

    power_limit(g, s);
    pcie(g, s);
    nvlink(g, s);
    throttling(g);
  }

  void power_limit(const gpu_record& g, const sku* s) {
    const int i = g.index;
    if (!g.power_limit_enforced_w) return add("gpu.power_limit", "health", i, grade::skipped, "power limit unknown");
    const double enforced = *g.power_limit_enforced_w;
    std::string msg = "enforced " + num(enforced) + " W";
    if (g.power_limit_default_w) msg += ", default " + num(*g.power_limit_default_w) + " W";
    if (s) msg += ", datasheet " + num(s->power_limit_w) + " W";
    const double floor = rules_.power_limit_min_pct / 100;
    const bool capped =
        (g.power_limit_default_w && enforced < floor * *g.power_limit_default_w) || (s && enforced < floor * s->power_limit_w);
    add("gpu.power_limit", "health", i, capped ? grade::fail : grade::pass, capped ? "power-capped: " + msg : msg);
  }

  void pcie(const gpu_record& g, const sku* s) {
    const int i = g.index;
    const auto& link = g.pcie_under_load ? g.pcie_under_load : g.pcie_current;
    if (!link || !s) return add("gpu.pcie_link", "health", i, grade::skipped, "PCIe link unknown");
    std::string msg = link_text(*link) + (g.pcie_under_load ? " under load" : " (idle)") + ", the card's " + link_text(s->pcie);
    if (g.pcie_max && g.pcie_gpu_max_gen && g.pcie_max->gen < *g.pcie_gpu_max_gen)
      msg += "; the platform limits it to Gen" + std::to_string(g.pcie_max->gen);
    const bool short_link = link->gen < s->pcie.gen || link->width < s->pcie.width;
    // An idle link may drop its generation on purpose; only a link under load is held against it.
    add("gpu.pcie_link", "health", i, !short_link ? grade::pass : g.pcie_under_load ? grade::fail : grade::warn, msg);
  }

  void nvlink(const gpu_record& g, const sku* s) {
    const int i = g.index;
    if (!s || (s->nvlink_links == 0 && !g.nvlink_links.value_or(0)))
      return add("gpu.nvlink", "health", i, grade::skipped, "not applicable: no NVLink");
    if (!g.nvlink_active) return add("gpu.nvlink", "health", i, grade::skipped, "NVLink state unknown");
    const int active = *g.nvlink_active;
    const int expected = s->nvlink_required ? s->nvlink_links : g.nvlink_links.value_or(0);
    const auto msg = std::to_string(active) + " of " + std::to_string(expected) + " NVLinks up";
    // NVLink joins a GPU to the others: a machine of one GPU has nothing to link it to, and a
    // one-GPU VM on an SXM part shows its links absent (a healthy H200 SXM: 0 of 18,
    // gpu_smoke/results/2026-12-04-nvidia-h200.json), so only a node of several GPUs is held to it.
    if (node_.gpus.size() < 2 && active < expected)
      return add("gpu.nvlink", "health", i, grade::skipped, "not applicable: one GPU in this machine, nothing to link it to (" + msg + ")");
    if (active >= expected) return add("gpu.nvlink", "health", i, grade::pass, msg);
    add("gpu.nvlink", "health", i, s->nvlink_required ? grade::fail : grade::warn, msg + (s->nvlink_required ? "" : " (bridge)"));
  }

  void throttling(const gpu_record& g) {
    const std::uint64_t bits = g.throttle_idle.value_or(0) | g.throttle_during_gemm.value_or(0);
    if (!g.throttle_idle && !g.throttle_during_gemm)
      return add("gpu.throttle", "health", g.index, grade::skipped, "clock event reasons unknown");
    if (bits & throttle::harmful)
      return add("gpu.throttle", "health", g.index, grade::fail,
                 "held back by " + join(throttle::names(bits & throttle::harmful)) +
                     (g.throttle_during_gemm && (*g.throttle_during_gemm & throttle::harmful) ? " under load" : " at rest"));
    add("gpu.throttle", "health", g.index, grade::pass,
        bits ? "only policy reasons: " + join(throttle::names(bits)) : std::string("no clock event reason"));
  }

  static const measurement* find(const gpu_record& g, const char* name) {
    auto it = g.measurements.find(name);
    return it == g.measurements.end() ? nullptr : &it->second;
  }

  void correctness(const gpu_record& g) {
    const int i = g.index;
    if (const auto* m = find(g, "gemm_bf16")) {
      const auto mismatches = m->detail.value("mismatches", 0LL);
      const auto checked = m->detail.value("checked_elements", 0LL);
      const bool consistent = m->detail.value("consistent", false);
      if (mismatches > 0)
        add("gpu.gemm_result", "correctness", i, grade::fail,
            std::to_string(mismatches) + " of " + std::to_string(checked) + " checked GEMM results wrong");
      else if (!consistent)
        add("gpu.gemm_result", "correctness", i, grade::fail, "the GEMM's last result differs from its first (same inputs)");
      else if (checked == 0)
        add("gpu.gemm_result", "correctness", i, grade::skipped, "no GEMM result was checked");
      else
        add("gpu.gemm_result", "correctness", i, grade::pass, std::to_string(checked) + " results exact, runs consistent");
    } else {
      add("gpu.gemm_result", "correctness", i, grade::skipped, "the GEMM did not run");
    }
    if (const auto* m = find(g, "memtest")) {
      const auto errors = static_cast<long long>(m->value);
      const auto tested = m->detail.value("tested_mib", 0.0);
      if (errors > 0)
        add("gpu.memtest", "correctness", i, grade::fail,
            std::to_string(errors) + " word(s) read back wrong over " + num(tested, 0) + " MiB: " + m->detail.value("first_error", ""));
      else
        add("gpu.memtest", "correctness", i, grade::pass, num(tested, 0) + " MiB written and read back, no error");
    } else {
      add("gpu.memtest", "correctness", i, grade::skipped, "the memory test did not run");
    }
    std::vector<std::string> unverified;
    for (const auto& [name, m] : g.measurements)
      if (m.detail.contains("verified") && !m.detail["verified"].get<bool>()) unverified.push_back(name);
    if (!unverified.empty()) add("gpu.data_verified", "correctness", i, grade::fail, "data came back wrong from: " + join(unverified));
    else
      add("gpu.data_verified", "correctness", i, grade::pass, "every copy and STREAM result verified");
  }

  // Grades one measurement as % of a figure; adds the measurement and its check. Green from
  // policy::green_pct of the figure, or from policy::healthy_pct of `healthy` (what healthy parts
  // reach) if that is lower, never below the threshold.
  void graded(int gpu, const std::string& name, const measurement& m, std::optional<double> reference, std::optional<double> threshold,
              std::string basis, bool fail_below = true, const std::string& not_graded = "", std::optional<double> healthy = {}) {
    graded_measurement gm{.gpu = gpu,
                          .name = name,
                          .value = m.value,
                          .unit = m.unit,
                          .datasheet = reference,
                          .threshold_pct = threshold,
                          .basis = std::move(basis)};
    std::string msg = num(m.value) + " " + m.unit;
    if (!not_graded.empty()) {
      msg += " (" + not_graded + ")";
    } else if (reference && *reference > 0 && threshold) {
      const double pct = 100 * m.value / *reference;
      double green = rules_.green_pct;
      if (healthy && *healthy > 0) {
        gm.healthy = healthy;
        green = std::min(green, rules_.healthy_pct * *healthy / *reference);
      }
      green = std::max(green, *threshold);
      gm.green_pct = std::round(green * 10) / 10;
      gm.pct_of_datasheet = std::round(pct * 10) / 10;
      gm.result = pct >= green ? grade::pass : pct >= *threshold ? grade::warn : fail_below ? grade::fail : grade::warn;
      msg += " = " + num(pct) + "% of " + num(*reference) + " " + m.unit + " (" + gm.basis + "); threshold " + num(*threshold) + "%";
      if (gm.healthy) msg += ", healthy parts reach " + num(*gm.healthy) + " " + m.unit;
    }
    add("gpu." + name, "performance", gpu, gm.result, msg);
    v_.measurements.push_back(std::move(gm));
  }

  void performance(const gpu_record& g, const sku* s) {
    const int i = g.index;
    const std::string ds = s ? s->name + " datasheet" : "";
    auto of = [&](auto member) { return s ? std::optional<double>(s->*member) : std::nullopt; };
    auto healthy = [&](double sku::achieved::*member) { return s ? std::optional<double>(s->healthy.*member) : std::nullopt; };
    for (const char* name : {"hbm_copy", "hbm_triad"})
      if (const auto* m = find(g, name))
        graded(i, name, *m, of(&sku::memory_bandwidth_gbs), of(&sku::memory_bandwidth_pct), ds, true, "",
               healthy(&sku::achieved::memory_bandwidth_gbs));
    // Each direction on its own threshold: a device-to-host copy into memory on the wrong NUMA node
    // falls to a third of the link while the host-to-device copy is unaffected.
    const auto link = s ? std::optional(pcie_link_gbs(s->pcie)) : std::nullopt;
    const auto link_basis = s ? link_text(s->pcie) + " link rate" : "";
    if (const auto* m = find(g, "h2d"))
      graded(i, "h2d", *m, link, of(&sku::h2d_pct), link_basis, true, "", healthy(&sku::achieved::h2d_gbs));
    if (const auto* m = find(g, "d2h"))
      graded(i, "d2h", *m, link, of(&sku::d2h_pct), link_basis, true, "", healthy(&sku::achieved::d2h_gbs));
    if (const auto* m = find(g, "gemm_bf16")) {
      const auto impl = m->detail.value("implementation", "");
      graded(i, "gemm_bf16", *m, of(&sku::bf16_dense_tflops), of(&sku::gemm_pct), ds + " (BF16 dense)", true,
             impl == "cublaslt" ? "" : "not graded against the datasheet: cuBLASLt was not available, neograde's own kernel ran",
             healthy(&sku::achieved::gemm_bf16_tflops));
    }
    if (const auto* m = find(g, "power_during_gemm"))
      graded(i, "power_during_gemm", *m, g.power_limit_enforced_w, rules_.power_reached_pct, "enforced power limit");
    if (const auto* m = find(g, "sm_clock_during_gemm")) {
      std::optional<double> max_clock;
      if (s) max_clock = s->max_sm_clock_mhz;
      else if (g.max_sm_clock_mhz)
        max_clock = *g.max_sm_clock_mhz;
      // Power-limited clocks under a full GEMM are normal: below 90% is amber, not a failure, and
      // not even amber when the power limit alone held them (the GPU drew its full, uncapped limit
      // and no thermal or hardware reason was raised): a healthy H200 SXM runs its GEMM at 1650 of
      // 1980 MHz that way (gpu_smoke/results/2026-12-04-nvidia-h200.json).
      graded(i, "sm_clock_during_gemm", *m, max_clock, rules_.clock_min_pct, "max boost clock", false);
      if (v_.measurements.back().result == grade::warn && power_bound(g)) {
        v_.measurements.back().result = v_.checks.back().result = grade::pass;
        v_.checks.back().message += "; held there by the power limit alone, as a healthy part is under a full GEMM";
      }
    }
  }

  // The GEMM ran at the power limit: only the software power cap slowed the clocks, the GPU drew
  // its share of an enforced limit that is not below the default, and nothing harmful was raised.
  [[nodiscard]] bool power_bound(const gpu_record& g) const {
    const auto* power = find(g, "power_during_gemm");
    if (!g.throttle_during_gemm || !power || !g.power_limit_enforced_w || *g.power_limit_enforced_w <= 0) return false;
    const std::uint64_t bits = *g.throttle_during_gemm;
    const bool capped_below_default = g.power_limit_default_w && *g.power_limit_enforced_w < *g.power_limit_default_w;
    return (bits & throttle::sw_power_cap) && !(bits & throttle::harmful) && !capped_below_default &&
           100 * power->value / *g.power_limit_enforced_w >= rules_.power_reached_pct;
  }

  void one_gpu(const gpu_record& g) {
    const sku* s = identity(g);
    if (s) memory(g, *s);
    health(g, s);
    correctness(g);
    performance(g, s);
  }

  // gpu-fryer's rule: every GPU within 10% of the best in the node.
  void uniformity(const char* name) {
    double best = 0;
    int best_gpu = -1;
    for (const auto& g : node_.gpus)
      if (auto it = g.measurements.find(name); it != g.measurements.end() && it->second.value > best)
        best = it->second.value, best_gpu = g.index;
    if (node_.gpus.size() < 2 || best_gpu < 0) return;
    std::vector<std::string> slow;
    for (const auto& g : node_.gpus) {
      auto it = g.measurements.find(name);
      if (it == g.measurements.end()) continue;
      const double behind = 100 * (best - it->second.value) / best;
      if (behind > rules_.uniformity_pct) slow.push_back("GPU " + std::to_string(g.index) + " " + num(behind) + "% behind");
    }
    const std::string id = std::string("node.uniformity.") + name;
    if (slow.empty())
      add(id, "performance", -1, grade::pass,
          "every GPU within " + num(rules_.uniformity_pct) + "% of the best (GPU " + std::to_string(best_gpu) + ")");
    else
      add(id, "performance", -1, grade::fail, join(slow) + " of GPU " + std::to_string(best_gpu));
  }

  void p2p() {
    if (node_.p2p.empty()) return;
    std::vector<std::string> unverified;
    for (const auto& p : node_.p2p) {
      const auto* a = p.from < static_cast<int>(node_.gpus.size()) ? &node_.gpus[p.from] : nullptr;
      const sku* s = expected_ ? expected_ : a ? identify(*a, skus_).match : nullptr;
      const bool nvlink = s && s->nvlink_links > 0 && a && a->nvlink_active.value_or(0) > 0;
      measurement m{p.gbs, "GB/s", {}};
      const auto name = "p2p." + std::to_string(p.from) + "_to_" + std::to_string(p.to);
      if (nvlink) graded(p.from, name, m, s->nvlink_bandwidth_gbs / 2, s->p2p_pct, "one direction of " + s->name + " NVLink");
      else
        graded(p.from, name, m, std::nullopt, std::nullopt, "", true,
               p.peer_access ? "over PCIe: not graded" : "no peer access: copied through the host, not graded");
      if (!p.verified) unverified.push_back(std::to_string(p.from) + "->" + std::to_string(p.to));
    }
    if (unverified.empty()) add("node.p2p_verified", "correctness", -1, grade::pass, "every peer copy verified");
    else
      add("node.p2p_verified", "correctness", -1, grade::fail, "peer copies came back wrong: " + join(unverified));
  }

  const node_record& node_;
  const catalogue& skus_;
  const expectation& expect_;
  const policy& rules_;
  const sku* expected_ = nullptr;
  verdict v_;
};

json grade_fields(const graded_measurement& m) {
  return {{"datasheet", m.datasheet ? json(*m.datasheet) : json(nullptr)},
          {"pct_of_datasheet", m.pct_of_datasheet ? json(*m.pct_of_datasheet) : json(nullptr)},
          {"threshold_pct", m.threshold_pct ? json(*m.threshold_pct) : json(nullptr)},
          {"healthy", m.healthy ? json(*m.healthy) : json(nullptr)},
          {"green_pct", m.green_pct ? json(*m.green_pct) : json(nullptr)},
          {"verdict", to_string(m.result)},
          {"basis", m.basis}};
}

}  // namespace

const char* to_string(grade g) {
  switch (g) {
    case grade::pass: return "pass";
    case grade::warn: return "warn";
    case grade::fail: return "fail";
    case grade::skipped: return "skipped";
  }
  return "skipped";
}

int verdict::count(grade g) const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [&](const check& c) { return c.result == g; }));
}

verdict grade_node(const node_record& node, const catalogue& skus, const expectation& expect, const policy& rules) {
  return grader(node, skus, expect, rules).run();
}

json to_document(const node_record& node, const expectation& expect, const verdict& v) {
  json doc = node;
  for (const auto& m : v.measurements) {
    if (m.name.starts_with("p2p.")) continue;
    for (auto& g : doc["gpus"])
      if (g["index"] == m.gpu && g["measurements"].contains(m.name)) g["measurements"][m.name].update(grade_fields(m));
  }
  for (auto& p : doc["p2p"])
    for (const auto& m : v.measurements)
      if (m.name == "p2p." + std::to_string(p["from"].get<int>()) + "_to_" + std::to_string(p["to"].get<int>())) p.update(grade_fields(m));
  for (std::size_t i = 0; i < doc["gpus"].size() && i < v.identified.size(); ++i)
    doc["gpus"][i]["sku"] = v.identified[i].empty() ? json(nullptr) : json(v.identified[i]);
  json checks = json::array();
  for (const auto& c : v.checks)
    checks.push_back({{"id", c.id},
                      {"category", c.category},
                      {"gpu", c.gpu < 0 ? json(nullptr) : json(c.gpu)},
                      {"verdict", to_string(c.result)},
                      {"message", c.message}});
  doc["checks"] = checks;
  doc["expected"] = {{"sku", expect.sku.empty() ? json(nullptr) : json(expect.sku)},
                     {"count", expect.count ? json(*expect.count) : json(nullptr)}};
  doc["summary"] = {{"pass", v.count(grade::pass)},
                    {"warn", v.count(grade::warn)},
                    {"fail", v.count(grade::fail)},
                    {"skipped", v.count(grade::skipped)},
                    {"gpus", node.gpus.size()}};
  doc["status"] = v.status;
  return doc;
}

std::string summary_text(const node_record& node, const verdict& v) {
  std::ostringstream out;
  if (v.status == "no_gpu") {
    out << "neograde-gpu-smoke: no GPU (" << node.no_gpu_reason << ")\n";
    return out.str();
  }
  out << "neograde-gpu-smoke: " << node.gpus.size() << " GPU(s)";
  for (std::size_t i = 0; i < node.gpus.size(); ++i)
    out << (i == 0 ? ": " : ", ") << i << " " << node.gpus[i].name
        << (i < v.identified.size() && !v.identified[i].empty() ? " [" + v.identified[i] + "]" : "");
  out << "\n";
  for (const auto& c : v.checks) {
    if (c.result == grade::pass || c.result == grade::skipped) continue;
    out << "  " << (c.result == grade::fail ? "FAIL " : "warn ") << c.id << (c.gpu >= 0 ? " [GPU " + std::to_string(c.gpu) + "]" : "")
        << ": " << c.message << "\n";
  }
  for (const auto& m : v.measurements)
    if (m.pct_of_datasheet && m.gpu <= 0 && !m.name.starts_with("p2p."))
      out << "  GPU " << m.gpu << " " << m.name << ": " << num(m.value) << " " << m.unit << " (" << num(*m.pct_of_datasheet)
          << "% of datasheet, " << to_string(m.result) << ")\n";
  out << "status: " << v.status << " (" << v.count(grade::pass) << " pass, " << v.count(grade::warn) << " warn, " << v.count(grade::fail)
      << " fail, " << v.count(grade::skipped) << " skipped)\n";
  return out.str();
}

}  // namespace neograde::gpu_smoke
