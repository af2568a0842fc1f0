#pragma once
// Host memory on a GPU's own NUMA node. Pinned memory on the other socket halves a device-to-host
// copy (Voltage Park measured an H100's D2H falling from 46.8 to about 20.5 GB/s above 2 MB "due to
// NUMA effects": ZiyanIshani/vpbenchmarking results/stream_nvbench/stream_nvbench_summary.md:28
// @753ce8d), so the smoke test finds the GPU's node in sysfs, runs its copies on a thread bound to
// that node's CPUs and places the buffers there with mbind(2). Plain Linux system calls: no libnuma.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neograde::gpu_smoke::numa {

// Where a PCI device sits: its NUMA node and that node's CPUs, or why they are not known.
struct location {
  std::optional<int> node;  // /sys/bus/pci/devices/<bdf>/numa_node; none when it reads -1 or is missing
  std::vector<int> cpus;    // /sys/devices/system/node/node<N>/cpulist
  std::string reason;       // why `node` or `cpus` is missing ("" when both are known)
};

// "00000000:3B:00.0" (NVML) or "0000:3B:00.0" (CUDA) -> "0000:3b:00.0", the spelling of
// /sys/bus/pci/devices; nullopt for anything else (so no path can be built from it).
[[nodiscard]] std::optional<std::string> sysfs_bdf(std::string_view pci_bus_id);

// A kernel cpulist ("0-3,8,10-11\n") as CPU numbers; nullopt when malformed or naming a CPU at or
// above `max_cpu`.
[[nodiscard]] std::optional<std::vector<int>> parse_cpulist(std::string_view text, int max_cpu = 8192);

// The device's node and CPUs as sysfs under `sysfs_root` tells them.
[[nodiscard]] location locate(std::string_view pci_bus_id, const std::string& sysfs_root = "/sys");

// Binds the calling thread to `cpus` (sched_setaffinity); "" on success, else why not.
[[nodiscard]] std::string bind_thread(const std::vector<int>& cpus);

// Page-aligned anonymous memory placed on one NUMA node: mbind(MPOL_PREFERRED) where the kernel allows
// it (a container without CAP_SYS_NICE may not), then every page touched by the calling thread,
// so that first touch places it on the thread's node when mbind was refused. Unmapped on scope exit.
class node_buffer {
 public:
  node_buffer() = default;
  node_buffer(const node_buffer&) = delete;
  node_buffer& operator=(const node_buffer&) = delete;
  ~node_buffer();

  // `node` < 0: no placement asked for (first touch only). False when the memory cannot be mapped.
  bool allocate(std::size_t bytes, int node);
  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  // "mbind" or "first touch", and why mbind was not used when it was not.
  [[nodiscard]] const std::string& placement() const { return placement_; }
  // The node the first and the last page are on (get_mempolicy MPOL_F_NODE | MPOL_F_ADDR), if the
  // kernel tells, and they agree.
  [[nodiscard]] std::optional<int> resident_node() const;

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  std::string placement_;
};

}  // namespace neograde::gpu_smoke::numa
