// memtest(): writes and verifies 64-bit patterns over a fraction of free device memory, held
// in chunks of up to 1 GiB, pass after pass until the time budget is used.

#include <cstdio>

#include "cuda_common.cuh"
#include "device.hpp"

namespace neograde::gpu_smoke::device {
namespace {

constexpr int kThreads = 256;
constexpr int kPatterns = 4;
constexpr const char* kPatternNames[kPatterns] = {"0xaaaa", "0x5555", "index", "random"};

// Word `index` (global across chunks) under `pattern` in pass `pass`.
__device__ __forceinline__ std::uint64_t pattern_word(int pattern, std::uint64_t index, int pass) {
  switch (pattern) {
    case 0: return 0xAAAAAAAAAAAAAAAAull;
    case 1: return 0x5555555555555555ull;
    case 2: return index;
    default: return cuda::mix64(index ^ (static_cast<std::uint64_t>(pass) << 48));
  }
}

// The first bad word, claimed by the first thread that finds one.
struct first_bad {
  unsigned int claimed;
  int chunk;
  unsigned long long word, wrote, read;
  unsigned long long count;
};

__global__ void write_pattern(std::uint64_t* words, std::size_t n, std::uint64_t base, int pattern, int pass) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    words[i] = pattern_word(pattern, base + i, pass);
}

__global__ void verify_pattern(const std::uint64_t* words, std::size_t n, std::uint64_t base, int pattern, int pass, int chunk,
                               first_bad* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint64_t expected = pattern_word(pattern, base + i, pass);
    const std::uint64_t got = words[i];
    if (got == expected) continue;
    ++local;
    if (atomicCAS(&bad->claimed, 0u, 1u) == 0u) {
      bad->chunk = chunk;
      bad->word = i;
      bad->wrote = expected;
      bad->read = got;
    }
  }
  if (local != 0) atomicAdd(&bad->count, local);
}

std::string describe(int pattern, const first_bad& bad) {
  char text[192];
  std::snprintf(text, sizeof text, "pattern %s, chunk %d, word %llu: wrote 0x%016llx read 0x%016llx", kPatternNames[pattern], bad.chunk,
                bad.word, bad.wrote, bad.read);
  return text;
}

}  // namespace

memtest_result memtest(int dev, double fraction, double budget_s) {
  memtest_result result;
  const char* stage = "memtest";
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(dev));
  cuda::stream_handle stream;
  cuda::device_buffer<first_bad> bad;
  NEOGRADE_CUDA_TRY(result, stage, stream.create());
  NEOGRADE_CUDA_TRY(result, stage, bad.allocate(1));
  const cudaStream_t s = stream.get();

  // Hold `fraction` of free memory in chunks of up to 1 GiB; running out early is not an error.
  std::size_t free_bytes = 0, total_bytes = 0;
  NEOGRADE_CUDA_TRY(result, stage, cudaMemGetInfo(&free_bytes, &total_bytes));
  const double wanted = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(free_bytes);
  const std::size_t target = static_cast<std::size_t>(wanted) / (2 * cuda::kMiB) * (2 * cuda::kMiB);
  std::vector<cuda::device_buffer<std::uint64_t>> chunks;
  std::size_t held = 0;
  while (held < target) {
    const std::size_t bytes = std::min(cuda::kGiB, target - held);
    cuda::device_buffer<std::uint64_t> chunk;
    if (const cudaError_t e = chunk.allocate(bytes / sizeof(std::uint64_t)); e != cudaSuccess) {
      (void)cudaGetLastError();
      if (chunks.empty()) {
        result.error = cuda::error_text(stage, "cudaMalloc", e);
        return result;
      }
      break;
    }
    held += chunk.bytes();
    chunks.push_back(std::move(chunk));
  }
  if (chunks.empty()) {
    result.error =
        "memtest: nothing to test (fraction " + std::to_string(fraction) + " of " + std::to_string(free_bytes / cuda::kMiB) + " MiB free)";
    return result;
  }
  result.tested_mib = static_cast<double>(held) / static_cast<double>(cuda::kMiB);

  int blocks = 0;
  NEOGRADE_CUDA_TRY(result, stage, cuda::resident_blocks(verify_pattern, kThreads, &blocks));
  const auto start = std::chrono::steady_clock::now();
  do {
    for (int pattern = 0; pattern < kPatterns; ++pattern) {
      NEOGRADE_CUDA_TRY(result, stage, cudaMemsetAsync(bad.get(), 0, bad.bytes(), s));
      std::uint64_t base = 0;
      for (const auto& chunk : chunks) {
        write_pattern<<<blocks, kThreads, 0, s>>>(chunk.get(), chunk.size(), base, pattern, result.passes);
        NEOGRADE_CUDA_LAUNCHED(result, stage, "write_pattern");
        base += chunk.size();
      }
      // Verified after every chunk is written, so each word sits in memory a while.
      base = 0;
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        verify_pattern<<<blocks, kThreads, 0, s>>>(chunks[c].get(), chunks[c].size(), base, pattern, result.passes, static_cast<int>(c),
                                                   bad.get());
        NEOGRADE_CUDA_LAUNCHED(result, stage, "verify_pattern");
        base += chunks[c].size();
      }
      first_bad found{};
      NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyAsync(&found, bad.get(), sizeof found, cudaMemcpyDeviceToHost, s));
      NEOGRADE_CUDA_TRY(result, stage, cudaStreamSynchronize(s));
      if (found.count != 0) {
        result.errors += static_cast<long long>(found.count);
        if (result.first_error.empty()) result.first_error = describe(pattern, found);
      }
    }
    ++result.passes;
  } while (cuda::seconds_since(start) < budget_s);
  return result;
}

}  // namespace neograde::gpu_smoke::device
