// probe(): runtime and driver versions and the properties of every visible device. Creates no
// CUDA context (only device-count, property and attribute queries).

#include "cuda_common.cuh"
#include "device.hpp"

namespace neograde::gpu_smoke::device {
namespace {

void append_error(probe_result& result, const std::string& text) { result.error = result.error ? *result.error + "; " + text : text; }

// Fills `out` for device `index`; stops at the first failing query.
cuda::status query_device(int index, info& out) {
  cuda::status s;
  const std::string stage_text = "probe device " + std::to_string(index);
  const char* stage = stage_text.c_str();
  cudaDeviceProp prop{};
  NEOGRADE_CUDA_TRY(s, stage, cudaGetDeviceProperties(&prop, index));
  out.index = index;
  out.name = prop.name;
  out.sm_count = prop.multiProcessorCount;
  out.cc_major = prop.major;
  out.cc_minor = prop.minor;
  out.total_mib = static_cast<long long>(prop.totalGlobalMem / cuda::kMiB);
  out.l2_bytes = prop.l2CacheSize;
  out.ecc_enabled = prop.ECCEnabled != 0;

  // CUDA 13 removed clockRate, memoryClockRate and memoryBusWidth from cudaDeviceProp.
  int sm_khz = 0, mem_khz = 0, bus_bits = 0;
  NEOGRADE_CUDA_TRY(s, stage, cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, index));
  NEOGRADE_CUDA_TRY(s, stage, cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, index));
  NEOGRADE_CUDA_TRY(s, stage, cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, index));
  out.max_sm_clock_mhz = sm_khz / 1000;
  out.max_mem_clock_mhz = mem_khz / 1000;
  out.bus_width_bits = bus_bits;

  char bus_id[64] = {};
  NEOGRADE_CUDA_TRY(s, stage, cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof bus_id), index));
  out.pci_bus_id = bus_id;
  return s;
}

}  // namespace

probe_result probe() {
  probe_result result;
  // Both succeed without a driver: the runtime version is compiled in, the driver version is 0.
  if (const cudaError_t e = cudaRuntimeGetVersion(&result.runtime_version); e != cudaSuccess)
    append_error(result, cuda::error_text("probe", "cudaRuntimeGetVersion", e));
  if (const cudaError_t e = cudaDriverGetVersion(&result.driver_version); e != cudaSuccess)
    append_error(result, cuda::error_text("probe", "cudaDriverGetVersion", e));

  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    (void)cudaGetLastError();
    // No device, or no driver at all. A driver that is present but too old (35), or a system not
    // yet initialised (802, Fabric Manager), is a real error on a GPU machine.
    result.no_device = e == cudaErrorNoDevice || (e == cudaErrorInsufficientDriver && result.driver_version == 0);
    append_error(result, cuda::error_text("probe", "cudaGetDeviceCount", e));
    return result;
  }
  if (count == 0) {
    result.no_device = true;
    append_error(result, "probe: cudaGetDeviceCount: no CUDA devices (count 0)");
    return result;
  }

  for (int index = 0; index < count; ++index) {
    info device_info;
    if (const cuda::status s = query_device(index, device_info); s.error) {
      (void)cudaGetLastError();
      append_error(result, *s.error);
      continue;
    }
    result.devices.push_back(std::move(device_info));
  }
  return result;
}

}  // namespace neograde::gpu_smoke::device
