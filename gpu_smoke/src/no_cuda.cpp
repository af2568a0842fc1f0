// The device interface for a build without the CUDA toolkit: every call reports that.

#include "device.hpp"

namespace neograde::gpu_smoke::device {
namespace {
constexpr const char* kNoCuda = "built without CUDA";
}  // namespace

probe_result probe() {
  probe_result result;
  result.built_with_cuda = false;
  result.no_device = true;
  result.error = "neograde-gpu-smoke was built without CUDA";
  return result;
}

stream_result stream(int, int, double) {
  stream_result result;
  result.error = kNoCuda;
  return result;
}

pcie_result pcie(int, int, int, double, int) {
  pcie_result result;
  result.error = kNoCuda;
  return result;
}

gemm_result gemm(int, int, double, const std::function<void()>&) {
  gemm_result result;
  result.error = kNoCuda;
  return result;
}

memtest_result memtest(int, double, double) {
  memtest_result result;
  result.error = kNoCuda;
  return result;
}

p2p_result p2p(int from, int to, int, int) {
  p2p_result result;
  result.from = from;
  result.to = to;
  result.error = kNoCuda;
  return result;
}

reference_result reference(int, int) {
  reference_result result;
  result.error = kNoCuda;
  return result;
}

}  // namespace neograde::gpu_smoke::device
