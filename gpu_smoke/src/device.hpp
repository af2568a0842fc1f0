#pragma once
// The CUDA side of neograde-gpu-smoke, in plain C++ types so that the host program (main.cpp,
// compiled by the C++ compiler) never sees a CUDA header. Implemented in cuda_*.cu when CUDA is
// available, and by no_cuda.cpp otherwise (every call then reports "built without CUDA").
//
// No function here throws or aborts: a CUDA error is returned in `error` ("<stage>: <call>:
// <cudaGetErrorString> (<code>)") and the caller records it in the JSON.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace neograde::gpu_smoke::device {

// What the CUDA runtime says about one device (cudaGetDeviceProperties, cudaDeviceGetAttribute).
struct info {
  int index = 0;
  std::string name;
  std::string pci_bus_id;  // cudaDeviceGetPCIBusId, e.g. "0000:3B:00.0"
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  long long total_mib = 0;
  int max_sm_clock_mhz = 0;   // cudaDevAttrClockRate (kHz) / 1000
  int max_mem_clock_mhz = 0;  // cudaDevAttrMemoryClockRate (kHz) / 1000
  int bus_width_bits = 0;     // cudaDevAttrGlobalMemoryBusWidth
  long long l2_bytes = 0;
  bool ecc_enabled = false;
};

struct probe_result {
  std::vector<info> devices;
  int runtime_version = 0;  // cudaRuntimeGetVersion, e.g. 13000
  int driver_version = 0;   // cudaDriverGetVersion, 0 without a driver
  // Set when cudaGetDeviceCount (or a property query) failed. `no_device` is true when the
  // failure means there is no usable NVIDIA driver or device at all (cudaErrorNoDevice,
  // cudaErrorInsufficientDriver with no driver installed): the "no_gpu" case.
  std::optional<std::string> error;
  bool no_device = false;
  bool built_with_cuda = true;
};

[[nodiscard]] probe_result probe();

// STREAM copy (c = a) and triad (a = b + s*c) on doubles; each array max(8 x L2, 256 MiB).
// Bandwidth counts bytes read plus bytes written (copy 16 B per element, triad 24 B). Timed with
// CUDA events, warm-up discarded, median of `repeats`. `verified`: sampled results equal the
// expected values.
struct stream_result {
  double copy_gbs = 0, triad_gbs = 0;
  double array_mib = 0;
  int repeats = 0;
  bool verified = false;
  std::optional<std::string> error;
};
[[nodiscard]] stream_result stream(int dev, int repeats, double budget_s);

// Pinned host <-> device copies (cudaMemcpyAsync on a copy engine) of `mib` MiB, warm-up
// discarded, median of `repeats`; the data that came back equals what was sent. The host buffers
// are placed on `numa_node` (< 0: wherever the calling thread's first touch puts them; the caller
// binds the thread to that node's CPUs) and pinned with cudaHostRegister.
struct pcie_result {
  double h2d_gbs = 0, d2h_gbs = 0;
  double buffer_mib = 0;
  int repeats = 0;
  bool verified = false;
  std::string placement;         // "mbind", or "first touch" and why
  std::optional<int> host_node;  // the node the host buffer's pages are on, if the kernel tells
  std::optional<std::string> error;
};
[[nodiscard]] pcie_result pcie(int dev, int mib, int repeats, double budget_s, int numa_node);

// BF16 GEMM, D(fp32) = A(bf16) x B(bf16), m = n = k = `size`, FP32 accumulate; cuBLASLt when it
// can be loaded (libcublasLt.so.13/.12, or $NEOGRADE_CUBLASLT), else neograde's WMMA tensor-core
// kernel. Runs for about `seconds` after a warm-up; TFLOPS is the median over timed batches.
// Inputs are small integers, so every sampled output element is checked exactly against a
// CUDA-core dot product; the last result is compared with the first (gpu-burn's check).
// `on_tick` is called about every 100 ms from the calling thread while the GEMM runs (the caller
// samples power, clocks and throttle reasons with NVML).
struct gemm_result {
  double tflops = 0;
  std::string implementation;   // "cublaslt" or "neograde_wmma"
  std::string cublaslt_status;  // "loaded <path>" or why it could not be used
  int size = 0;
  int batches = 0;
  long long checked_elements = 0;
  long long mismatches = 0;  // sampled elements that differ from the reference
  bool consistent = false;   // the last result equals the first
  std::optional<std::string> error;
};
[[nodiscard]] gemm_result gemm(int dev, int size, double seconds, const std::function<void()>& on_tick);

// Writes and verifies patterns over `fraction` of free memory (in chunks), for about `budget_s`
// seconds (at least one pass of every pattern).
struct memtest_result {
  double tested_mib = 0;
  int passes = 0;
  long long errors = 0;     // words that read back wrong
  std::string first_error;  // "pattern P, chunk C, word W: wrote X read Y" when errors > 0
  std::optional<std::string> error;
};
[[nodiscard]] memtest_result memtest(int dev, double fraction, double budget_s);

// Device-to-device copy from `from` to `to` (cudaMemcpyPeerAsync), `mib` MiB, median of
// `repeats`; peer access enabled when cudaDeviceCanAccessPeer says so.
struct p2p_result {
  int from = 0, to = 0;
  bool peer_access = false;
  double gbs = 0;
  bool verified = false;
  std::optional<std::string> error;
};
[[nodiscard]] p2p_result p2p(int from, int to, int mib, int repeats);

// References for `--reference` (gpu_smoke/run_on_gpu.sh): a plain cudaMemcpy device-to-device
// copy (2 x bytes / time, comparable with STREAM copy), and cuBLASLt's best algorithm out of
// up to 16 heuristics candidates, each timed (same GEMM shape and types as gemm()).
struct reference_result {
  double memcpy_d2d_gbs = 0;
  double gemm_best_tflops = 0;   // 0 when cuBLASLt is not available
  double gemm_first_tflops = 0;  // the heuristic's first algorithm (the one gemm() runs), timed as the others
  int gemm_algorithms_tried = 0;
  std::optional<std::string> error;
};
[[nodiscard]] reference_result reference(int dev, int gemm_size);

}  // namespace neograde::gpu_smoke::device
