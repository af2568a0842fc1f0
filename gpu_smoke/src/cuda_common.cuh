#pragma once
// Helpers shared by the cuda_*.cu files: error text, RAII for device memory, pinned host memory,
// streams and events, event timing, launch sizing, a hash for test patterns, and the median.

#include <cuda_runtime.h>

#include <neograde/gpu_smoke/numa.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace neograde::gpu_smoke::device::cuda {

// "<stage>: <call>: <cudaGetErrorString> (<code>)"; `call` is cut at its first '(' so that a
// stringified call expression reads as the function name.
inline std::string error_text(const char* stage, const char* call, cudaError_t status) {
  std::string name(call);
  if (const auto paren = name.find('('); paren != std::string::npos) name.resize(paren);
  return std::string(stage) + ": " + name + ": " + cudaGetErrorString(status) + " (" + std::to_string(static_cast<int>(status)) + ")";
}

// Outcome of a helper that can fail; `error` has the same form as the results' `error`.
struct status {
  std::optional<std::string> error;
};

// Evaluates `call`; on failure sets `result.error` and returns `result` from the enclosing
// function. `result` is any local with an `error` member (a result struct or `status`).
#define NEOGRADE_CUDA_TRY_AS(result, stage, name, call)                                              \
  do {                                                                                               \
    if (const cudaError_t neograde_status_ = (call); neograde_status_ != cudaSuccess) {              \
      result.error = ::neograde::gpu_smoke::device::cuda::error_text(stage, name, neograde_status_); \
      return result;                                                                                 \
    }                                                                                                \
  } while (0)

#define NEOGRADE_CUDA_TRY(result, stage, call) NEOGRADE_CUDA_TRY_AS(result, stage, #call, call)

// After a kernel launch: a bad configuration or an earlier asynchronous fault.
#define NEOGRADE_CUDA_LAUNCHED(result, stage, kernel) NEOGRADE_CUDA_TRY_AS(result, stage, "launch " kernel, cudaGetLastError())

// Runs `release` with `device` current and restores the caller's device (frees must not depend
// on which device the thread has selected when a scope ends).
template <class F>
void on_device(int device, F&& release) {
  int current = -1;
  const bool switched = cudaGetDevice(&current) == cudaSuccess && current != device && cudaSetDevice(device) == cudaSuccess;
  release();
  if (switched) (void)cudaSetDevice(current);
}

// cudaMalloc'd array of T, freed on scope exit.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)), device_(other.device_) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
      device_ = other.device_;
    }
    return *this;
  }
  ~device_buffer() { reset(); }

  // Allocates `count` elements on the current device.
  cudaError_t allocate(std::size_t count) {
    reset();
    void* p = nullptr;
    if (const cudaError_t e = cudaGetDevice(&device_); e != cudaSuccess) return e;
    if (const cudaError_t e = cudaMalloc(&p, count * sizeof(T)); e != cudaSuccess) return e;
    ptr_ = static_cast<T*>(p);
    count_ = count;
    return cudaSuccess;
  }
  void reset() {
    if (ptr_ != nullptr) on_device(device_, [this] { (void)cudaFree(ptr_); });
    ptr_ = nullptr;
    count_ = 0;
  }
  [[nodiscard]] T* get() const { return ptr_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  int device_ = 0;
};

// Host memory placed on a NUMA node (numa::node_buffer) and pinned with cudaHostRegister, as
// cudaMallocHost would pin it, but on the node asked for rather than wherever the driver's
// allocation lands. Unregistered, then unmapped, on scope exit.
template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  ~pinned_buffer() {
    if (registered_) (void)cudaHostUnregister(memory_.get());
  }
  cudaError_t allocate(std::size_t count, int node) {
    if (registered_) (void)cudaHostUnregister(memory_.get());
    registered_ = false;
    count_ = 0;
    if (!memory_.allocate(count * sizeof(T), node)) return cudaErrorMemoryAllocation;
    const cudaError_t e = cudaHostRegister(memory_.get(), memory_.bytes(), cudaHostRegisterDefault);
    registered_ = e == cudaSuccess;
    count_ = registered_ ? count : 0;
    return e;
  }
  [[nodiscard]] T* get() const { return static_cast<T*>(memory_.get()); }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }
  [[nodiscard]] const numa::node_buffer& memory() const { return memory_; }

 private:
  numa::node_buffer memory_;
  bool registered_ = false;
  std::size_t count_ = 0;
};

// A non-blocking stream on the current device, destroyed on scope exit.
class stream_handle {
 public:
  stream_handle() = default;
  stream_handle(const stream_handle&) = delete;
  stream_handle& operator=(const stream_handle&) = delete;
  ~stream_handle() {
    if (stream_ != nullptr) on_device(device_, [this] { (void)cudaStreamDestroy(stream_); });
  }
  cudaError_t create() {
    if (const cudaError_t e = cudaGetDevice(&device_); e != cudaSuccess) return e;
    return cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  }
  [[nodiscard]] cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
  int device_ = 0;
};

// A start/stop event pair on the current device; elapsed time in milliseconds.
class event_timer {
 public:
  event_timer() = default;
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  ~event_timer() {
    if (start_ == nullptr && stop_ == nullptr) return;
    on_device(device_, [this] {
      if (start_ != nullptr) (void)cudaEventDestroy(start_);
      if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
    });
  }
  cudaError_t create() {
    if (const cudaError_t e = cudaGetDevice(&device_); e != cudaSuccess) return e;
    if (const cudaError_t e = cudaEventCreate(&start_); e != cudaSuccess) return e;
    return cudaEventCreate(&stop_);
  }
  cudaError_t start(cudaStream_t s) { return cudaEventRecord(start_, s); }
  cudaError_t stop(cudaStream_t s) { return cudaEventRecord(stop_, s); }
  // Waits for the stop event, then reads the time between the two events.
  cudaError_t elapsed_ms(double* ms) {
    if (const cudaError_t e = cudaEventSynchronize(stop_); e != cudaSuccess) return e;
    return read_ms(ms);
  }
  // Reads the time between the events; the stop event must have completed.
  cudaError_t read_ms(double* ms) const {
    float value = 0;
    const cudaError_t e = cudaEventElapsedTime(&value, start_, stop_);
    *ms = value;
    return e;
  }
  [[nodiscard]] cudaEvent_t stop_event() const { return stop_; }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int device_ = 0;
};

// Blocks for a grid-stride kernel: as many as can be resident on all SMs at once.
template <class Kernel>
cudaError_t resident_blocks(Kernel kernel, int threads, int* blocks) {
  int device = 0, sms = 0, per_sm = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess) return e;
  if (const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0); e != cudaSuccess) return e;
  *blocks = std::max(sms, 1) * std::max(per_sm, 1);
  return cudaSuccess;
}

// splitmix64's finaliser: a cheap, well-mixed hash for test patterns and sample positions.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

}  // namespace neograde::gpu_smoke::device::cuda
