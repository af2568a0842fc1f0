// stream(): STREAM copy and triad in device memory; pcie(): pinned host <-> device copies from
// memory on the GPU's own NUMA node; p2p(): device-to-device copies between two GPUs. All timed with CUDA events, warm-up
// discarded, median reported, and the moved data checked afterwards.

#include <cmath>
#include <cstring>

#include "cuda_common.cuh"
#include "device.hpp"

namespace neograde::gpu_smoke::device {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr int kThreads = 256;
constexpr double kTriadScalar = 0.4;  // BabelStream's scalar
constexpr int kSamples = 512;         // STREAM elements checked on the host

__global__ void stream_init(double* a, double* b, double* c, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
}

__global__ void stream_copy(const double* __restrict__ a, double* __restrict__ c, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) c[i] = a[i];
}

// An explicit fma, so that the host can reproduce every result bit for bit.
__global__ void stream_triad(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c, double scalar,
                             std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    a[i] = fma(scalar, c[i], b[i]);
}

// Copies a[], b[], c[] at kSamples hashed positions (plus the first and last) into
// out[3][kSamples].
__global__ void stream_gather(const double* a, const double* b, const double* c, std::size_t n, double* out) {
  const int s = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= kSamples) return;
  const std::size_t i = s == 0 ? 0 : s == 1 ? n - 1 : cuda::mix64(static_cast<std::uint64_t>(s)) % n;
  out[s] = a[i];
  out[kSamples + s] = b[i];
  out[2 * kSamples + s] = c[i];
}

// The pattern for PCIe and peer copies: word i holds mix64(i ^ seed).
__global__ void fill_words(std::uint64_t* words, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    words[i] = cuda::mix64(i ^ seed);
}

__global__ void count_bad_words(const std::uint64_t* words, std::size_t n, std::uint64_t seed, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    local += words[i] != cuda::mix64(i ^ seed) ? 1 : 0;
  if (local != 0) atomicAdd(bad, local);
}

double gbs(std::size_t bytes, double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0; }

}  // namespace

stream_result stream(int dev, int repeats, double budget_s) {
  stream_result result;
  const char* stage = "stream";
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(dev));
  const int max_runs = std::max(repeats, 1);
  const int min_runs = std::min(3, max_runs);

  int l2 = 0;
  NEOGRADE_CUDA_TRY(result, stage, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  // Each array at least 8 x L2 so that the caches do not serve it, and at least 256 MiB.
  const std::size_t array_bytes = std::max(8 * static_cast<std::size_t>(l2), 256 * cuda::kMiB);
  const std::size_t n = array_bytes / sizeof(double) / 1024 * 1024;
  result.array_mib = static_cast<double>(n * sizeof(double)) / static_cast<double>(cuda::kMiB);

  cuda::stream_handle stream;
  cuda::event_timer timer;
  cuda::device_buffer<double> a, b, c, samples;
  NEOGRADE_CUDA_TRY(result, stage, stream.create());
  NEOGRADE_CUDA_TRY(result, stage, timer.create());
  NEOGRADE_CUDA_TRY(result, stage, a.allocate(n));
  NEOGRADE_CUDA_TRY(result, stage, b.allocate(n));
  NEOGRADE_CUDA_TRY(result, stage, c.allocate(n));
  NEOGRADE_CUDA_TRY(result, stage, samples.allocate(3 * kSamples));

  int blocks = 0;
  NEOGRADE_CUDA_TRY(result, stage, cuda::resident_blocks(stream_triad, kThreads, &blocks));
  const cudaStream_t s = stream.get();

  stream_init<<<blocks, kThreads, 0, s>>>(a.get(), b.get(), c.get(), n);
  NEOGRADE_CUDA_LAUNCHED(result, stage, "stream_init");

  // One iteration = copy then triad; count them so the host can replay the values.
  int iterations = 0;
  std::vector<double> copy_ms, triad_ms;
  const auto start = clock_type::now();
  for (int run = -2; run < max_runs; ++run) {
    const bool timed = run >= 0;
    if (timed) NEOGRADE_CUDA_TRY(result, stage, timer.start(s));
    stream_copy<<<blocks, kThreads, 0, s>>>(a.get(), c.get(), n);
    NEOGRADE_CUDA_LAUNCHED(result, stage, "stream_copy");
    double ms = 0;
    if (timed) {
      NEOGRADE_CUDA_TRY(result, stage, timer.stop(s));
      NEOGRADE_CUDA_TRY(result, stage, timer.elapsed_ms(&ms));
      copy_ms.push_back(ms);
      NEOGRADE_CUDA_TRY(result, stage, timer.start(s));
    }
    stream_triad<<<blocks, kThreads, 0, s>>>(a.get(), b.get(), c.get(), kTriadScalar, n);
    NEOGRADE_CUDA_LAUNCHED(result, stage, "stream_triad");
    if (timed) {
      NEOGRADE_CUDA_TRY(result, stage, timer.stop(s));
      NEOGRADE_CUDA_TRY(result, stage, timer.elapsed_ms(&ms));
      triad_ms.push_back(ms);
    }
    ++iterations;
    if (timed && run + 1 >= min_runs && cuda::seconds_since(start) > budget_s) break;
  }

  stream_gather<<<(kSamples + kThreads - 1) / kThreads, kThreads, 0, s>>>(a.get(), b.get(), c.get(), n, samples.get());
  NEOGRADE_CUDA_LAUNCHED(result, stage, "stream_gather");
  std::vector<double> host(3 * kSamples);
  NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyAsync(host.data(), samples.get(), samples.bytes(), cudaMemcpyDeviceToHost, s));
  NEOGRADE_CUDA_TRY(result, stage, cudaStreamSynchronize(s));

  // Replay: c = a, then a = fma(s, c, b), `iterations` times from a = 1, b = 2, c = 0.
  double expect_a = 1.0, expect_c = 0.0;
  for (int i = 0; i < iterations; ++i) {
    expect_c = expect_a;
    expect_a = std::fma(kTriadScalar, expect_c, 2.0);
  }
  bool ok = true;
  for (int i = 0; i < kSamples; ++i) ok = ok && host[i] == expect_a && host[kSamples + i] == 2.0 && host[2 * kSamples + i] == expect_c;

  result.repeats = static_cast<int>(copy_ms.size());
  result.copy_gbs = gbs(2 * n * sizeof(double), cuda::median(copy_ms));
  result.triad_gbs = gbs(3 * n * sizeof(double), cuda::median(triad_ms));
  result.verified = ok;
  return result;
}

pcie_result pcie(int dev, int mib, int repeats, double budget_s, int numa_node) {
  pcie_result result;
  const char* stage = "pcie";
  if (mib <= 0) {
    result.error = "pcie: buffer size must be positive, got " + std::to_string(mib) + " MiB";
    return result;
  }
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(dev));
  const int max_runs = std::max(repeats, 1);
  const int min_runs = std::min(3, max_runs);
  const std::size_t words = static_cast<std::size_t>(mib) * cuda::kMiB / sizeof(std::uint64_t);
  result.buffer_mib = mib;

  cuda::stream_handle stream;
  cuda::event_timer timer;
  cuda::pinned_buffer<std::uint64_t> sent, received;
  cuda::device_buffer<std::uint64_t> on_device;
  NEOGRADE_CUDA_TRY(result, stage, stream.create());
  NEOGRADE_CUDA_TRY(result, stage, timer.create());
  NEOGRADE_CUDA_TRY(result, stage, sent.allocate(words, numa_node));
  NEOGRADE_CUDA_TRY(result, stage, received.allocate(words, numa_node));
  NEOGRADE_CUDA_TRY(result, stage, on_device.allocate(words));
  result.placement = received.memory().placement();
  result.host_node = received.memory().resident_node();
  for (std::size_t i = 0; i < words; ++i) sent.get()[i] = cuda::mix64(i);
  const std::size_t bytes = sent.bytes();
  const cudaStream_t s = stream.get();

  auto time_copy = [&](void* dst, const void* src, cudaMemcpyKind kind, double* ms) -> cuda::status {
    cuda::status st;
    NEOGRADE_CUDA_TRY(st, stage, timer.start(s));
    NEOGRADE_CUDA_TRY(st, stage, cudaMemcpyAsync(dst, src, bytes, kind, s));
    NEOGRADE_CUDA_TRY(st, stage, timer.stop(s));
    NEOGRADE_CUDA_TRY(st, stage, timer.elapsed_ms(ms));
    return st;
  };

  std::vector<double> h2d_ms, d2h_ms;
  const auto start = clock_type::now();
  for (int run = -1; run < max_runs; ++run) {
    double up = 0, down = 0;
    if (cuda::status st = time_copy(on_device.get(), sent.get(), cudaMemcpyHostToDevice, &up); st.error) {
      result.error = st.error;
      return result;
    }
    if (cuda::status st = time_copy(received.get(), on_device.get(), cudaMemcpyDeviceToHost, &down); st.error) {
      result.error = st.error;
      return result;
    }
    if (run < 0) continue;  // warm-up
    h2d_ms.push_back(up);
    d2h_ms.push_back(down);
    if (run + 1 >= min_runs && cuda::seconds_since(start) > budget_s) break;
  }

  // A clean round trip into a cleared buffer, compared with what was sent.
  std::memset(received.get(), 0, bytes);
  NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyAsync(on_device.get(), sent.get(), bytes, cudaMemcpyHostToDevice, s));
  NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyAsync(received.get(), on_device.get(), bytes, cudaMemcpyDeviceToHost, s));
  NEOGRADE_CUDA_TRY(result, stage, cudaStreamSynchronize(s));
  result.verified = std::memcmp(sent.get(), received.get(), bytes) == 0;

  result.repeats = static_cast<int>(h2d_ms.size());
  result.h2d_gbs = gbs(bytes, cuda::median(h2d_ms));
  result.d2h_gbs = gbs(bytes, cuda::median(d2h_ms));
  return result;
}

p2p_result p2p(int from, int to, int mib, int repeats) {
  p2p_result result;
  result.from = from;
  result.to = to;
  const char* stage = "p2p";
  if (mib <= 0) {
    result.error = "p2p: buffer size must be positive, got " + std::to_string(mib) + " MiB";
    return result;
  }
  const int runs = std::max(repeats, 1);
  const std::size_t words = static_cast<std::size_t>(mib) * cuda::kMiB / sizeof(std::uint64_t);
  const std::size_t bytes = words * sizeof(std::uint64_t);
  constexpr std::uint64_t kSeed = 0x5eed0f9ee7ull;

  // Destination side: buffer, stream and mismatch counter on `to`.
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(to));
  cuda::device_buffer<std::uint64_t> dst;
  cuda::device_buffer<unsigned long long> bad;
  cuda::stream_handle to_stream;
  NEOGRADE_CUDA_TRY(result, stage, dst.allocate(words));
  NEOGRADE_CUDA_TRY(result, stage, bad.allocate(1));
  NEOGRADE_CUDA_TRY(result, stage, to_stream.create());

  // Source side; copies are issued and timed on `from`.
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(from));
  int can_access = 0;  // a device is not its own peer: from == to is a plain device copy
  if (from != to) NEOGRADE_CUDA_TRY(result, stage, cudaDeviceCanAccessPeer(&can_access, from, to));
  if (can_access != 0) {
    const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();
    } else if (e != cudaSuccess) {
      result.error = cuda::error_text(stage, "cudaDeviceEnablePeerAccess", e);
      return result;
    }
  }
  result.peer_access = can_access != 0;

  cuda::device_buffer<std::uint64_t> src;
  cuda::stream_handle stream;
  cuda::event_timer timer;
  NEOGRADE_CUDA_TRY(result, stage, src.allocate(words));
  NEOGRADE_CUDA_TRY(result, stage, stream.create());
  NEOGRADE_CUDA_TRY(result, stage, timer.create());
  const cudaStream_t s = stream.get();
  int blocks = 0;
  NEOGRADE_CUDA_TRY(result, stage, cuda::resident_blocks(fill_words, kThreads, &blocks));
  fill_words<<<blocks, kThreads, 0, s>>>(src.get(), words, kSeed);
  NEOGRADE_CUDA_LAUNCHED(result, stage, "fill_words");

  std::vector<double> times;
  for (int run = -1; run < runs; ++run) {
    NEOGRADE_CUDA_TRY(result, stage, timer.start(s));
    NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyPeerAsync(dst.get(), to, src.get(), from, bytes, s));
    NEOGRADE_CUDA_TRY(result, stage, timer.stop(s));
    double ms = 0;
    NEOGRADE_CUDA_TRY(result, stage, timer.elapsed_ms(&ms));
    if (run >= 0) times.push_back(ms);
  }
  result.gbs = gbs(bytes, cuda::median(times));

  // Every destination word, checked on `to`.
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(to));
  const cudaStream_t ts = to_stream.get();
  int to_blocks = 0;
  NEOGRADE_CUDA_TRY(result, stage, cuda::resident_blocks(count_bad_words, kThreads, &to_blocks));
  NEOGRADE_CUDA_TRY(result, stage, cudaMemsetAsync(bad.get(), 0, bad.bytes(), ts));
  count_bad_words<<<to_blocks, kThreads, 0, ts>>>(dst.get(), words, kSeed, bad.get());
  NEOGRADE_CUDA_LAUNCHED(result, stage, "count_bad_words");
  unsigned long long mismatches = 0;
  NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyAsync(&mismatches, bad.get(), sizeof mismatches, cudaMemcpyDeviceToHost, ts));
  NEOGRADE_CUDA_TRY(result, stage, cudaStreamSynchronize(ts));
  result.verified = mismatches == 0;
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(from));
  return result;
}

}  // namespace neograde::gpu_smoke::device
