#pragma once
// NVML, loaded at run time with dlopen("libnvidia-ml.so.1") so that a machine without it still
// runs the smoke test (with a thinner inventory). Only the few functions used are declared; no
// NVML header is needed.

#include <neograde/gpu_smoke/fingerprint.hpp>
#include <neograde/gpu_smoke/record.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace neograde::gpu_smoke::nvml {

// An opaque nvmlDevice_t.
using device = struct opaque_device*;

// A sample taken while a stage runs.
struct sample {
  std::optional<double> power_w;
  std::optional<int> sm_clock_mhz;
  std::optional<std::uint64_t> throttle;
  std::optional<pcie_link> link;
  std::optional<double> temperature_c;
};

class library {
 public:
  library();  // loads and initialises NVML; check loaded()
  ~library();
  library(const library&) = delete;
  library& operator=(const library&) = delete;

  [[nodiscard]] bool loaded() const { return ok_; }
  [[nodiscard]] const std::string& status() const { return status_; }  // "loaded" or why not
  [[nodiscard]] std::optional<int> count() const;
  [[nodiscard]] std::string driver_version() const;
  [[nodiscard]] std::optional<int> cuda_driver_version() const;
  // The device at a PCI bus id ("0000:3B:00.0"), else by NVML index.
  [[nodiscard]] std::optional<device> by_bus_id(const std::string& bus_id) const;
  [[nodiscard]] std::optional<device> by_index(int index) const;
  // Fills what NVML knows into `g` (identity, limits, links, ECC, remaps, MIG, NVLink, throttle
  // reasons at rest); leaves fields NVML cannot answer empty.
  void inventory(device d, gpu_record& g) const;
  [[nodiscard]] sample read(device d) const;
  // The fingerprint's view of a GPU: UUID, serial, part number, VBIOS, PCI bus id, NVLink peers
  // (raw; fingerprint::gpu_json hashes the UUID and serial). Without NVML or a handle, every
  // field is null with the reason, and the bus id is CUDA's.
  [[nodiscard]] fingerprint::gpu_identity identity(std::optional<device> d, int index, const std::string& cuda_bus_id) const;
  [[nodiscard]] fingerprint::reading driver_version_reading() const;
  [[nodiscard]] fingerprint::reading cuda_version_reading() const;  // "13.0"

 private:
  [[nodiscard]] std::string error(int code) const;  // "NVML error 3 (Not Supported)"
  [[nodiscard]] fingerprint::reading text(int (*f)(device, char*, unsigned), const char* name, device d) const;
  void nvlink_peers(device d, fingerprint::gpu_identity& id) const;
  struct fns;
  void* handle_ = nullptr;
  fns* f_ = nullptr;
  bool ok_ = false;
  std::string status_;
};

}  // namespace neograde::gpu_smoke::nvml
