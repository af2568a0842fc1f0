#pragma once
// The hardware fingerprint in neograde-gpu-smoke's record: who built the machine the GPUs are in,
// whether it is a virtual machine or a container, and each GPU's identity, so that the same
// physical GPU can be recognised across runs and providers (docs/gpu-smoke.md, "The fingerprint").
//
// Every field is written as {"value": ..., "source": "<how it was read>"}, or, when it could not
// be read, {"value": null, "source": ..., "reason": "<why>"}: never a guess. GPU UUIDs and serial
// numbers are never written: only their HMAC-SHA256 under a fixed, published project key.
//
// The host is probed through a root directory (default "/") and injectable CPUID, environment and
// uname, so that the tests run it against a fake sysfs/procfs tree.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace neograde::gpu_smoke::fingerprint {

// The HMAC key of uuid_hash and serial_hash. Fixed and public, so that anyone can match a GPU
// they hold against published records; changing it would break matching across runs.
inline constexpr const char* hash_key = "neograde-gpu-fingerprint-v1";

// {"value": v, "source": s}; {"value": null, "source": s, "reason": r}.
[[nodiscard]] nlohmann::json field(nlohmann::json value, const std::string& source);
[[nodiscard]] nlohmann::json unread(const std::string& source, const std::string& reason);

// A string as read (from NVML), before it is written: value, or the reason there is none.
struct reading {
  std::optional<std::string> value;
  std::string source;  // "nvml:nvmlDeviceGetSerial"
  std::string reason;  // when value is empty
  [[nodiscard]] nlohmann::json to_field() const;
};

// One GPU's identity as NVML returned it. The raw UUID and serial stay in memory: gpu_json()
// publishes them only as keyed hashes.
struct gpu_identity {
  reading index;  // the value is the decimal index
  reading uuid, serial, board_part_number, vbios_version, pci_bus_id;
  // The PCI bus ids of the remote ends of the active NVLinks (NVSwitches or peer GPUs), sorted,
  // each once. Empty value: no NVLink (NVML: not supported). `note`: links that could not be read.
  std::optional<std::vector<std::string>> nvlink_peers;
  std::string nvlink_source, nvlink_reason, nvlink_note;
};

// The GPU's fingerprint entry: index, uuid_hash, serial_hash, board_part_number, vbios_version,
// pci_bus_id, nvlink_peers.
[[nodiscard]] nlohmann::json gpu_json(const gpu_identity& gpu);

// Lowercase hex HMAC-SHA256(hash_key, text).
[[nodiscard]] std::string keyed_hash(const std::string& text);

struct cpuid_regs {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

struct host_inputs {
  std::filesystem::path root = "/";
  // CPUID(leaf, subleaf); nullopt where there is no CPUID (not x86).
  std::function<std::optional<cpuid_regs>(std::uint32_t, std::uint32_t)> cpuid;
  std::function<std::optional<std::string>(const char*)> env;  // getenv
  std::function<std::optional<std::string>()> uname;           // "Linux 6.8.0-45-generic x86_64"
  // This machine: "/", the CPU's CPUID (x86 only), getenv, uname(2).
  [[nodiscard]] static host_inputs system();
};

// The host object: dmi (sys_vendor, product_name, board_vendor, board_name, bios_vendor,
// bios_version; never the serials), virtualisation, container, cpu_model, cpu_count,
// memory_bytes, kernel, and driver_version and cuda_version as given (read from NVML).
[[nodiscard]] nlohmann::json probe_host(const host_inputs& in, const reading& driver_version, const reading& cuda_version);

// {"hash": {algorithm, key, why}, "gpus": [...], "host": {...}}.
[[nodiscard]] nlohmann::json make(const std::vector<gpu_identity>& gpus, nlohmann::json host);

}  // namespace neograde::gpu_smoke::fingerprint
