// neograde-gpu-smoke: proves that the GPUs of the machine it runs on are what was sold and are
// healthy, in under two minutes on an 8-GPU node. Prints one JSON document (stdout or --out) and
// a human summary (stderr). Exit codes: 0 pass, 1 fail, 2 usage or internal error, 77 no GPU
// (registered as ctest's SKIP_RETURN_CODE).

#include "device.hpp"
#include "nvml.hpp"

#include <neograde/gpu_smoke/numa.hpp>
#include <neograde/gpu_smoke/record.hpp>
#include <neograde/gpu_smoke/sku.hpp>
#include <neograde/gpu_smoke/verdict.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gs = neograde::gpu_smoke;
using nlohmann::json;

namespace {

constexpr int exit_pass = 0, exit_fail = 1, exit_usage = 2, exit_no_gpu = 77;
constexpr const char* version = "0.1.0";

struct options {
  gs::expectation expect;
  std::string out;
  std::string skus_dir;
  std::string regrade;
  bool reference = false;
  bool list_skus = false;
  int gemm_size = 8192;
  double gemm_seconds = 20;
};

const char* usage =
    "usage: neograde-gpu-smoke [--expect SKU] [--count N] [--out FILE] [--skus DIR]\n"
    "                          [--gemm-size N] [--gemm-seconds S] [--reference]\n"
    "       neograde-gpu-smoke --regrade RECORD.json [--expect SKU] [--count N]\n"
    "       neograde-gpu-smoke --list-skus\n"
    "Measures this machine's GPUs and grades them against the SKU catalogue. JSON on stdout\n"
    "(or --out), a summary on stderr. Exit: 0 pass, 1 fail, 2 usage/internal error, 77 no GPU.\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

options parse(int argc, char** argv) {
  options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw usage_error(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  auto integer = [&](int& i, int min, int max) {
    const std::string flag = argv[i], v = value(i);
    std::size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || n < min || n > max)
      throw usage_error(flag + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max));
    return n;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--expect") o.expect.sku = value(i);
    else if (a == "--count")
      o.expect.count = integer(i, 1, 64);
    else if (a == "--out")
      o.out = value(i);
    else if (a == "--skus")
      o.skus_dir = value(i);
    else if (a == "--regrade")
      o.regrade = value(i);
    else if (a == "--reference")
      o.reference = true;
    else if (a == "--list-skus")
      o.list_skus = true;
    else if (a == "--gemm-size")
      o.gemm_size = integer(i, 256, 16384) / 128 * 128;
    else if (a == "--gemm-seconds")
      o.gemm_seconds = integer(i, 1, 120);
    else if (a == "--help" || a == "-h") {
      std::cout << usage;
      std::exit(exit_pass);
    } else if (a == "--version") {
      std::cout << "neograde-gpu-smoke " << version << "\n";
      std::exit(exit_pass);
    } else {
      throw usage_error("unknown option " + a);
    }
  }
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Runs `f(gpu)` for every GPU at once, one host thread each.
template <typename F>
void each_gpu_in_parallel(std::size_t n, F f) {
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < n; ++i) threads.emplace_back([&f, i] { f(static_cast<int>(i)); });
  for (auto& t : threads) t.join();
}

// Samples every GPU with NVML every 100 ms while a stage runs.
class sampler {
 public:
  sampler(const gs::nvml::library& nvml, const std::vector<std::optional<gs::nvml::device>>& devices)
      : nvml_(nvml), devices_(devices), samples_(devices.size()) {
    if (!nvml_.loaded()) return;
    thread_ = std::thread([this] {
      while (!stop_) {
        for (std::size_t i = 0; i < devices_.size(); ++i)
          if (devices_[i]) {
            auto s = nvml_.read(*devices_[i]);
            std::lock_guard lock(mutex_);
            samples_[i].push_back(s);
          }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  ~sampler() { finish(); }
  // Stops sampling; returns each GPU's samples.
  std::vector<std::vector<gs::nvml::sample>> finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mutex_);
    return samples_;
  }

 private:
  const gs::nvml::library& nvml_;
  const std::vector<std::optional<gs::nvml::device>>& devices_;
  std::vector<std::vector<gs::nvml::sample>> samples_;
  std::mutex mutex_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The widest, fastest link seen under load.
void note_link(gs::gpu_record& g, const std::vector<gs::nvml::sample>& samples) {
  for (const auto& s : samples)
    if (s.link && (!g.pcie_under_load || s.link->gen > g.pcie_under_load->gen ||
                   (s.link->gen == g.pcie_under_load->gen && s.link->width > g.pcie_under_load->width)))
      g.pcie_under_load = s.link;
}

class smoke {
 public:
  explicit smoke(const options& o) : o_(o) {}

  gs::node_record run() {
    auto t = std::chrono::steady_clock::now();
    inventory();
    fingerprint();
    stage("inventory", 5, t);
    if (node_.no_gpu || !cuda_ok_) return std::move(node_);

    t = std::chrono::steady_clock::now();
    each_gpu_in_parallel(n(), [&](int i) {
      auto r = gs::device::stream(i, 20, 5);
      if (!fail("hbm", i, r.error)) {
        put(i, "hbm_copy", r.copy_gbs, "GB/s", {{"array_mib", r.array_mib}, {"repeats", r.repeats}, {"verified", r.verified}});
        put(i, "hbm_triad", r.triad_gbs, "GB/s", {{"array_mib", r.array_mib}, {"repeats", r.repeats}, {"verified", r.verified}});
      }
    });
    stage("hbm", 6, t);

    // One GPU at a time: the host's memory and root complex are shared. Each from a thread bound
    // to the GPU's own NUMA node, into host memory placed there (numa.hpp).
    t = std::chrono::steady_clock::now();
    for (int i = 0; i < n(); ++i) {
      sampler s(nvml_, handles_);
      const auto where = gs::numa::locate(node_.gpus[i].pci_bus_id);
      gs::device::pcie_result r;
      std::string unbound;
      std::thread([&] {
        unbound = where.cpus.empty() ? (where.reason.empty() ? "no CPU list" : where.reason) : gs::numa::bind_thread(where.cpus);
        r = gs::device::pcie(i, 256, 10, 1.2, where.node.value_or(-1));
      }).join();
      note_link(node_.gpus[i], s.finish()[i]);
      if (fail("pcie", i, r.error)) continue;
      json d = {{"buffer_mib", r.buffer_mib},
                {"repeats", r.repeats},
                {"verified", r.verified},
                {"gpu_numa_node", where.node ? json(*where.node) : json(nullptr)},
                {"host_memory_node", r.host_node ? json(*r.host_node) : json(nullptr)},
                {"placement", r.placement},
                {"thread_bound", unbound.empty()}};
      if (!where.reason.empty()) d["numa_note"] = where.reason;
      if (!unbound.empty() && unbound != where.reason) d["bind_note"] = unbound;
      put(i, "h2d", r.h2d_gbs, "GB/s", d);
      put(i, "d2h", r.d2h_gbs, "GB/s", d);
    }
    stage("pcie", 10, t);

    t = std::chrono::steady_clock::now();
    {
      sampler s(nvml_, handles_);
      std::vector<gs::device::gemm_result> results(n());
      each_gpu_in_parallel(n(), [&](int i) { results[i] = gs::device::gemm(i, o_.gemm_size, o_.gemm_seconds, [] {}); });
      const auto samples = s.finish();
      for (int i = 0; i < n(); ++i) {
        const auto& r = results[i];
        gemm_samples(i, samples[i]);
        if (fail("gemm", i, r.error)) continue;
        put(i, "gemm_bf16", r.tflops, "TFLOPS",
            {{"implementation", r.implementation},
             {"cublaslt", r.cublaslt_status},
             {"size", r.size},
             {"batches", r.batches},
             {"checked_elements", r.checked_elements},
             {"mismatches", r.mismatches},
             {"consistent", r.consistent}});
      }
    }
    stage("gemm", o_.gemm_seconds + 10, t);

    t = std::chrono::steady_clock::now();
    each_gpu_in_parallel(n(), [&](int i) {
      auto r = gs::device::memtest(i, 0.9, 12);
      if (!fail("memtest", i, r.error))
        put(i, "memtest", static_cast<double>(r.errors), "errors",
            {{"tested_mib", r.tested_mib}, {"passes", r.passes}, {"first_error", r.first_error}});
    });
    stage("memtest", 15, t);

    t = std::chrono::steady_clock::now();
    for (int a = 0; a < n(); ++a)
      for (int b = 0; b < n(); ++b)
        if (a != b) {
          auto r = gs::device::p2p(a, b, 256, 5);
          if (!fail("p2p", a, r.error)) node_.p2p.push_back({a, b, r.peer_access, r.verified, r.gbs});
        }
    stage("p2p", 15, t);

    if (o_.reference) reference();
    return std::move(node_);
  }

 private:
  [[nodiscard]] int n() const { return static_cast<int>(node_.gpus.size()); }

  void stage(const char* name, double budget_s, std::chrono::steady_clock::time_point since) {
    node_.stages.push_back({name, budget_s, seconds_since(since)});
  }

  // Records a stage's error; true when there was one.
  bool fail(const char* stage, int gpu, const std::optional<std::string>& error) {
    if (!error) return false;
    std::lock_guard lock(mutex_);
    node_.errors.push_back({stage, gpu, *error});
    return true;
  }

  void put(int gpu, const char* name, double value, const char* unit, json detail) {
    std::lock_guard lock(mutex_);
    node_.gpus[gpu].measurements[name] = {value, unit, std::move(detail)};
  }

  void gemm_samples(int i, const std::vector<gs::nvml::sample>& samples) {
    auto& g = node_.gpus[i];
    std::vector<double> power, clock;
    std::uint64_t reasons = 0;
    bool any_reason = false;
    for (const auto& s : samples) {
      if (s.power_w) power.push_back(*s.power_w);
      if (s.sm_clock_mhz) clock.push_back(*s.sm_clock_mhz);
      if (s.throttle) reasons |= *s.throttle, any_reason = true;
      if (s.temperature_c && (!g.temperature_c || *s.temperature_c > *g.temperature_c)) g.temperature_c = s.temperature_c;
    }
    note_link(g, samples);
    if (any_reason) g.throttle_during_gemm = reasons;
    if (!power.empty())
      put(i, "power_during_gemm", median(power), "W", {{"samples", power.size()}, {"max", *std::max_element(power.begin(), power.end())}});
    if (!clock.empty())
      put(i, "sm_clock_during_gemm", median(clock), "MHz",
          {{"samples", clock.size()}, {"min", *std::min_element(clock.begin(), clock.end())}});
  }

  void inventory() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) node_.hostname = host;
    node_.nvml = nvml_.status();
    node_.nvml_gpu_count = nvml_.count();
    node_.driver_version = nvml_.driver_version();
    node_.cuda_driver_version = nvml_.cuda_driver_version();
    const auto probe = gs::device::probe();
    if (probe.runtime_version) node_.cuda_runtime_version = probe.runtime_version;
    if (!node_.cuda_driver_version && probe.driver_version) node_.cuda_driver_version = probe.driver_version;
    if (probe.no_device && node_.nvml_gpu_count.value_or(0) == 0) {
      node_.no_gpu = true;
      node_.no_gpu_reason = probe.error.value_or("no CUDA device") + "; NVML " + node_.nvml;
      return;
    }
    if (probe.error) {
      // The driver sees GPUs CUDA cannot use (Fabric Manager down, driver too old): report
      // what NVML knows, and the error.
      node_.errors.push_back({"init", -1, *probe.error});
      for (int i = 0; i < node_.nvml_gpu_count.value_or(0); ++i) {
        gs::gpu_record g;
        g.index = i;
        const auto d = nvml_.by_index(i);
        if (d) nvml_.inventory(*d, g);
        handles_.push_back(d);
        node_.gpus.push_back(std::move(g));
      }
      return;
    }
    for (const auto& d : probe.devices) {
      gs::gpu_record g;
      g.index = d.index;
      g.name = d.name;
      g.pci_bus_id = d.pci_bus_id;
      g.memory_mib = d.total_mib;
      g.sm_count = d.sm_count;
      g.compute_capability = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
      if (d.max_sm_clock_mhz) g.max_sm_clock_mhz = d.max_sm_clock_mhz;
      if (d.max_mem_clock_mhz) g.max_mem_clock_mhz = d.max_mem_clock_mhz;
      if (d.bus_width_bits) g.bus_width_bits = d.bus_width_bits;
      g.ecc_enabled = d.ecc_enabled;
      auto handle = nvml_.by_bus_id(d.pci_bus_id);
      if (!handle) handle = nvml_.by_index(d.index);
      if (handle) nvml_.inventory(*handle, g);
      handles_.push_back(handle);
      node_.gpus.push_back(std::move(g));
    }
    cuda_ok_ = !node_.gpus.empty();
  }

  // Who built the machine and which physical GPUs these are (docs/gpu-smoke.md, "The fingerprint").
  void fingerprint() {
    std::vector<gs::fingerprint::gpu_identity> ids;
    for (std::size_t i = 0; i < node_.gpus.size(); ++i)
      ids.push_back(
          nvml_.identity(i < handles_.size() ? handles_[i] : std::nullopt, node_.gpus[i].index, cuda_ok_ ? node_.gpus[i].pci_bus_id : ""));
    node_.fingerprint = gs::fingerprint::make(
        ids,
        gs::fingerprint::probe_host(gs::fingerprint::host_inputs::system(), nvml_.driver_version_reading(), nvml_.cuda_version_reading()));
  }

  // Our figures beside a plain cudaMemcpy and cuBLASLt's best algorithm on the same GPU.
  void reference() {
    auto t = std::chrono::steady_clock::now();
    for (int i = 0; i < n(); ++i) {
      auto r = gs::device::reference(i, o_.gemm_size);
      if (fail("reference", i, r.error)) continue;
      auto& m = node_.gpus[i].measurements;
      auto compare = [&](const char* ours, double theirs, const char* what) {
        if (auto it = m.find(ours); it != m.end() && theirs > 0)
          it->second.detail["reference"] = {
              {"what", what}, {"value", theirs}, {"ratio", std::round(1000 * it->second.value / theirs) / 1000}};
      };
      compare("hbm_copy", r.memcpy_d2d_gbs, "cudaMemcpy device to device, 2 x bytes / time");
      compare("gemm_bf16", r.gemm_best_tflops,
              ("cuBLASLt's best of " + std::to_string(r.gemm_algorithms_tried) + " heuristic algorithms").c_str());
      // The same algorithm in ten short runs: what ours loses to sustained power and heat, apart
      // from what it loses to the choice of algorithm.
      if (auto it = m.find("gemm_bf16"); it != m.end() && it->second.detail.contains("reference") && r.gemm_first_tflops > 0)
        it->second.detail["reference"]["first_algorithm_short_runs"] = r.gemm_first_tflops;
    }
    stage("reference", 60, t);
  }

  const options& o_;
  gs::nvml::library nvml_;
  std::vector<std::optional<gs::nvml::device>> handles_;
  gs::node_record node_;
  bool cuda_ok_ = false;  // CUDA enumerated the devices: the measurement stages can run
  std::mutex mutex_;
};

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Writes next to the target, then renames: a reader never sees half a document.
void write_atomic(const std::string& path, const std::string& text) {
  const auto tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto o = parse(argc, argv);
    const auto skus = o.skus_dir.empty() ? gs::catalogue::builtin() : gs::catalogue::from_directory(o.skus_dir);
    if (o.list_skus) {
      for (const auto& s : skus.all()) std::cout << s.id << "\t" << s.name << "\n";
      return exit_pass;
    }
    if (!o.expect.sku.empty() && skus.find(o.expect.sku) == nullptr) {
      std::string ids;
      for (const auto& s : skus.all()) ids += (ids.empty() ? "" : ", ") + s.id;
      throw usage_error("unknown SKU \"" + o.expect.sku + "\"; the catalogue has: " + ids);
    }
    gs::node_record node;
    json origin;
    if (!o.regrade.empty()) {
      std::ifstream in(o.regrade);
      if (!in) throw usage_error("cannot read " + o.regrade);
      try {
        node = json::parse(in).get<gs::node_record>();
      } catch (const json::exception& e) {
        throw usage_error(o.regrade + " is not a neograde-gpu-smoke record: " + e.what());
      }
      origin = {{"regraded_from", o.regrade}};
    } else {
      node = smoke(o).run();
      origin = {{"measured_at", utc_now()}};
    }
    const auto v = gs::grade_node(node, skus, o.expect);
    auto doc = gs::to_document(node, o.expect, v);
    doc["schema"] = "neograde.gpu-smoke/1";
    doc["tool"] = {{"name", "neograde-gpu-smoke"}, {"version", version}};
    doc.update(origin);
    const auto text = doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    if (o.out.empty()) std::cout << text << std::flush;
    else
      write_atomic(o.out, text);
    std::cerr << gs::summary_text(node, v);
    if (v.status == "no_gpu") return exit_no_gpu;
    return v.status == "pass" ? exit_pass : exit_fail;
  } catch (const usage_error& e) {
    std::cerr << "neograde-gpu-smoke: error: " << e.what() << "\n" << usage;
    return exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "neograde-gpu-smoke: error: " << e.what() << "\n";
    return exit_usage;
  }
}
