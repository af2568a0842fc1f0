// gemm(): BF16 GEMM burn with FP32 accumulation through cuBLASLt (loaded with dlopen at run time)
// or, when that is not possible, neograde's WMMA tensor-core kernel; results checked exactly.
// reference(): a plain device-to-device memcpy and cuBLASLt's best heuristic algorithm.
//
// Shape: D[i,j] (m x n, column-major, ldd = m) = sum_k A[i*k + kk] * B[j*k + kk]. In cuBLASLt terms
// A is k x m column-major with op T, B is k x n column-major with op N ("TN").

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_pipeline_primitives.h>
#include <dlfcn.h>
#include <mma.h>

#include <cstdlib>
#include <memory>
#include <thread>

#include "cuda_common.cuh"
#include "device.hpp"

namespace neograde::gpu_smoke::device {
namespace {

namespace wmma = nvcuda::wmma;
using bf16 = __nv_bfloat16;
using clock_type = std::chrono::steady_clock;

constexpr int kTile = 128;         // WMMA block tile (m and n)
constexpr int kTileK = 32;         // WMMA block tile depth
constexpr int kLd = kTileK + 8;    // shared row length: 80 bytes, against bank conflicts
constexpr int kWmmaThreads = 256;  // 8 warps as 2 (m) x 4 (n), each 64 x 32
constexpr int kFillThreads = 256;
constexpr int kSamples = 65536;  // output elements checked against a CUDA-core dot product
constexpr std::uint64_t kSeedA = 0xa11ce5eedull, kSeedB = 0xb0b5eedull;
constexpr std::size_t kWorkspaceBytes = 32 * cuda::kMiB;
constexpr double kBatchTargetMs = 50;  // short batches: one TFLOPS sample each
constexpr auto kTickInterval = std::chrono::milliseconds(100);

// Small integers in [-16, 16]: bf16 holds them exactly and every dot product of length <= 8192
// is an integer below 2^24, so any correct FP32 accumulation gives the exact result.
__global__ void fill_small_integers(bf16* x, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    x[i] = __float2bfloat16(static_cast<float>(static_cast<int>(cuda::mix64(i ^ seed) % 33) - 16));
}

struct __align__(128) wmma_tiles {
  bf16 a[2][kTile][kLd];  // [stage][row i][kk]
  bf16 b[2][kTile][kLd];  // [stage][column j][kk]
};

// One 128 x 128 tile of D per block; A and B tiles double-buffered in shared memory with cp.async
// (16-byte copies). Needs m, n multiples of 128 and k a multiple of 32.
__global__ void __launch_bounds__(kWmmaThreads)
    neograde_wmma(const bf16* __restrict__ a, const bf16* __restrict__ b, float* __restrict__ d, int m, int n, int k) {
  __shared__ wmma_tiles tiles;
  const std::size_t row0 = static_cast<std::size_t>(blockIdx.x) * kTile;
  const std::size_t col0 = static_cast<std::size_t>(blockIdx.y) * kTile;
  if (row0 >= static_cast<std::size_t>(m) || col0 >= static_cast<std::size_t>(n)) return;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int warp_row = (warp % 2) * 64;
  const int warp_col = (warp / 2) * 32;

  // Each tile is 128 rows of 32 bf16 = 4 x 16 bytes per row; 512 copies per tile, 2 per thread.
  auto load = [&](int stage, int k0) {
    for (int r = 0; r < 2; ++r) {
      const int v = static_cast<int>(threadIdx.x) + r * kWmmaThreads;
      const int row = v / 4, col = (v % 4) * 8;
      __pipeline_memcpy_async(&tiles.a[stage][row][col], a + (row0 + row) * k + k0 + col, 16);
      __pipeline_memcpy_async(&tiles.b[stage][row][col], b + (col0 + row) * k + k0 + col, 16);
    }
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
  for (auto& row : acc)
    for (auto& frag : row) wmma::fill_fragment(frag, 0.0f);

  const int k_tiles = k / kTileK;
  load(0, 0);
  __pipeline_commit();
  for (int t = 0; t < k_tiles; ++t) {
    if (t + 1 < k_tiles) load((t + 1) % 2, (t + 1) * kTileK);
    __pipeline_commit();  // possibly empty, so that "all but the newest group" is always tile t
    __pipeline_wait_prior(1);
    __syncthreads();
    const int stage = t % 2;
    for (int kk = 0; kk < kTileK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> af[4];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> bf[2];
      for (int f = 0; f < 4; ++f) wmma::load_matrix_sync(af[f], &tiles.a[stage][warp_row + f * 16][kk], kLd);
      for (int g = 0; g < 2; ++g) wmma::load_matrix_sync(bf[g], &tiles.b[stage][warp_col + g * 16][kk], kLd);
      for (int f = 0; f < 4; ++f)
        for (int g = 0; g < 2; ++g) wmma::mma_sync(acc[f][g], af[f], bf[g], acc[f][g]);
    }
    __syncthreads();  // the next iteration's copies overwrite this stage
  }

  for (int f = 0; f < 4; ++f)
    for (int g = 0; g < 2; ++g) {
      float* out = d + (col0 + warp_col + g * 16) * m + row0 + warp_row + f * 16;
      wmma::store_matrix_sync(out, acc[f][g], m, wmma::mem_col_major);
    }
}

// Counts elements whose bits differ (the first result against the last).
__global__ void count_differences(const float* x, const float* y, std::size_t n, unsigned long long* count) {
  const auto* xs = reinterpret_cast<const unsigned*>(x);
  const auto* ys = reinterpret_cast<const unsigned*>(y);
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    local += xs[i] != ys[i] ? 1 : 0;
  if (local != 0) atomicAdd(count, local);
}

// One thread per sampled (i, j): an integer dot product on CUDA cores, exact for these inputs.
__global__ void check_samples(const bf16* a, const bf16* b, const float* d, int m, int n, int k, unsigned long long* mismatches) {
  const int s = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= kSamples) return;
  const std::size_t i = cuda::mix64(2 * static_cast<std::uint64_t>(s)) % static_cast<unsigned>(m);
  const std::size_t j = cuda::mix64(2 * static_cast<std::uint64_t>(s) + 1) % static_cast<unsigned>(n);
  const auto* row = reinterpret_cast<const uint4*>(a + i * k);
  const auto* col = reinterpret_cast<const uint4*>(b + j * k);
  int sum = 0;
  for (int q = 0; q < k / 8; ++q) {
    const uint4 va = row[q], vb = col[q];
    const auto* pa = reinterpret_cast<const __nv_bfloat162*>(&va);
    const auto* pb = reinterpret_cast<const __nv_bfloat162*>(&vb);
    for (int h = 0; h < 4; ++h) {
      const float2 fa = __bfloat1622float2(pa[h]), fb = __bfloat1622float2(pb[h]);
      sum += static_cast<int>(fa.x) * static_cast<int>(fb.x) + static_cast<int>(fa.y) * static_cast<int>(fb.y);
    }
  }
  if (static_cast<float>(sum) != d[j * m + i]) atomicAdd(mismatches, 1ull);
}

// ---- cuBLASLt, loaded once per process -------------------------------------------------------

struct cublaslt_library {
  bool loaded = false;
  std::string status;  // "loaded <path>" or why it could not be loaded
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

template <class F>
bool bind(void* so, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(so, name));
  if (fn == nullptr && missing.empty()) missing = name;
  return fn != nullptr;
}

cublaslt_library load_cublaslt() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("NEOGRADE_CUBLASLT"); env != nullptr && *env != '\0') candidates.emplace_back(env);
  for (const char* path : {"libcublasLt.so.13", "libcublasLt.so.12", "/usr/local/cuda/lib64/libcublasLt.so.13"})
    candidates.emplace_back(path);

  std::string failures;
  auto note = [&](const std::string& why) { failures += (failures.empty() ? "" : "; ") + why; };
  for (const std::string& path : candidates) {
    void* so = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (so == nullptr) {
      const char* why = dlerror();
      note(why != nullptr ? why : path + ": dlopen failed");
      continue;
    }
    cublaslt_library lib;
    std::string missing;
    bool ok = bind(so, "cublasLtCreate", lib.create, missing);
    ok = bind(so, "cublasLtDestroy", lib.destroy, missing) && ok;
    ok = bind(so, "cublasLtMatmulDescCreate", lib.desc_create, missing) && ok;
    ok = bind(so, "cublasLtMatmulDescDestroy", lib.desc_destroy, missing) && ok;
    ok = bind(so, "cublasLtMatmulDescSetAttribute", lib.desc_set, missing) && ok;
    ok = bind(so, "cublasLtMatrixLayoutCreate", lib.layout_create, missing) && ok;
    ok = bind(so, "cublasLtMatrixLayoutDestroy", lib.layout_destroy, missing) && ok;
    ok = bind(so, "cublasLtMatmulPreferenceCreate", lib.pref_create, missing) && ok;
    ok = bind(so, "cublasLtMatmulPreferenceDestroy", lib.pref_destroy, missing) && ok;
    ok = bind(so, "cublasLtMatmulPreferenceSetAttribute", lib.pref_set, missing) && ok;
    ok = bind(so, "cublasLtMatmulAlgoGetHeuristic", lib.heuristic, missing) && ok;
    ok = bind(so, "cublasLtMatmul", lib.matmul, missing) && ok;
    if (ok) {
      lib.loaded = true;
      lib.status = "loaded " + path;
      return lib;  // never closed: the library stays loaded for the life of the process
    }
    note(path + ": no symbol " + missing);
    dlclose(so);
  }
  cublaslt_library lib;
  lib.status = "not loaded: " + failures;
  return lib;
}

// Thread-safe: a function-local static is initialised exactly once.
const cublaslt_library& cublaslt() {
  static const cublaslt_library lib = load_cublaslt();
  return lib;
}

const char* cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cuBLAS status";
  }
}

std::string cublas_error_text(const char* call, cublasStatus_t s) {
  return std::string(call) + ": " + cublas_status_name(s) + " (" + std::to_string(static_cast<int>(s)) + ")";
}

#define NEOGRADE_LT_TRY(name, call)                                                                                                      \
  do {                                                                                                                                   \
    if (const cublasStatus_t neograde_lt_ = (call); neograde_lt_ != CUBLAS_STATUS_SUCCESS) return cublas_error_text(name, neograde_lt_); \
  } while (0)

// Handle, descriptors and heuristic candidates for the TN BF16 -> FP32 GEMM on the current
// device; everything created is destroyed with the object.
class lt_matmul {
 public:
  explicit lt_matmul(const cublaslt_library& lib) : lib_(lib) {}
  lt_matmul(const lt_matmul&) = delete;
  lt_matmul& operator=(const lt_matmul&) = delete;
  ~lt_matmul() {
    if (pref_ != nullptr) (void)lib_.pref_destroy(pref_);
    for (cublasLtMatrixLayout_t layout : {d_layout_, b_layout_, a_layout_})
      if (layout != nullptr) (void)lib_.layout_destroy(layout);
    if (desc_ != nullptr) (void)lib_.desc_destroy(desc_);
    if (handle_ != nullptr) (void)lib_.destroy(handle_);
  }

  static constexpr int kMaxAlgos = 16;

  // Returns why cuBLASLt cannot run this GEMM, or nothing with up to `max_algos` candidates.
  std::optional<std::string> prepare(int m, int n, int k, void* workspace, std::size_t workspace_bytes, int max_algos) {
    workspace_ = workspace;
    workspace_bytes_ = workspace_bytes;
    NEOGRADE_LT_TRY("cublasLtCreate", lib_.create(&handle_));
    NEOGRADE_LT_TRY("cublasLtMatmulDescCreate", lib_.desc_create(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t op_a = CUBLAS_OP_T, op_b = CUBLAS_OP_N;
    NEOGRADE_LT_TRY("cublasLtMatmulDescSetAttribute", lib_.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    NEOGRADE_LT_TRY("cublasLtMatmulDescSetAttribute", lib_.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    NEOGRADE_LT_TRY("cublasLtMatrixLayoutCreate", lib_.layout_create(&a_layout_, CUDA_R_16BF, k, m, k));
    NEOGRADE_LT_TRY("cublasLtMatrixLayoutCreate", lib_.layout_create(&b_layout_, CUDA_R_16BF, k, n, k));
    NEOGRADE_LT_TRY("cublasLtMatrixLayoutCreate", lib_.layout_create(&d_layout_, CUDA_R_32F, m, n, m));
    NEOGRADE_LT_TRY("cublasLtMatmulPreferenceCreate", lib_.pref_create(&pref_));
    const std::uint64_t max_workspace = workspace_bytes;
    NEOGRADE_LT_TRY("cublasLtMatmulPreferenceSetAttribute",
                    lib_.pref_set(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace, sizeof max_workspace));
    cublasLtMatmulHeuristicResult_t results[kMaxAlgos] = {};
    int returned = 0;
    NEOGRADE_LT_TRY("cublasLtMatmulAlgoGetHeuristic", lib_.heuristic(handle_, desc_, a_layout_, b_layout_, d_layout_, d_layout_, pref_,
                                                                     std::clamp(max_algos, 1, kMaxAlgos), results, &returned));
    for (int i = 0; i < returned; ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS && results[i].workspaceSize <= workspace_bytes)
        algos_.push_back(candidate{results[i].algo});
    if (algos_.empty()) return "cublasLtMatmulAlgoGetHeuristic: no algorithm for this GEMM";
    return std::nullopt;
  }

  [[nodiscard]] std::size_t algorithms() const { return algos_.size(); }

  cublasStatus_t run(std::size_t algo, const bf16* a, const bf16* b, float* d, cudaStream_t s) const {
    const float alpha = 1.0f, beta = 0.0f;
    return lib_.matmul(handle_, desc_, &alpha, a, a_layout_, b, b_layout_, &beta, d, d_layout_, d, d_layout_, &algos_[algo].algo,
                       workspace_, workspace_bytes_, s);
  }

 private:
  const cublaslt_library& lib_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  // A named wrapper: nvcc 13.0 crashes on std::vector of the unnamed cuBLASLt struct types.
  struct candidate {
    cublasLtMatmulAlgo_t algo;
  };
  std::vector<candidate> algos_;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
};

// ---- shared by gemm() and reference() ---------------------------------------------------------

// A, B (bf16, filled) and D (fp32) for a size x size x size GEMM on the current device.
struct gemm_operands {
  cuda::device_buffer<bf16> a, b;
  cuda::device_buffer<float> d;

  cuda::status create(const char* stage, int size, cudaStream_t s) {
    cuda::status st;
    const std::size_t elements = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
    NEOGRADE_CUDA_TRY(st, stage, a.allocate(elements));
    NEOGRADE_CUDA_TRY(st, stage, b.allocate(elements));
    NEOGRADE_CUDA_TRY(st, stage, d.allocate(elements));
    int blocks = 0;
    NEOGRADE_CUDA_TRY(st, stage, cuda::resident_blocks(fill_small_integers, kFillThreads, &blocks));
    fill_small_integers<<<blocks, kFillThreads, 0, s>>>(a.get(), elements, kSeedA);
    NEOGRADE_CUDA_LAUNCHED(st, stage, "fill_small_integers");
    fill_small_integers<<<blocks, kFillThreads, 0, s>>>(b.get(), elements, kSeedB);
    NEOGRADE_CUDA_LAUNCHED(st, stage, "fill_small_integers");
    return st;
  }
};

// The GEMM shape both paths support: a multiple of 128 (WMMA tile), at least 128.
std::optional<std::string> round_size(const char* stage, int requested, int* size) {
  *size = requested / kTile * kTile;
  if (*size < kTile)
    return std::string(stage) + ": GEMM size must be at least " + std::to_string(kTile) + ", got " + std::to_string(requested);
  return std::nullopt;
}

void maybe_tick(const std::function<void()>& on_tick, clock_type::time_point& last_tick) {
  if (!on_tick) return;
  const auto now = clock_type::now();
  if (now - last_tick < kTickInterval) return;
  last_tick = now;
  on_tick();
}

// Waits for `event` by polling, so that on_tick keeps its 100 ms rhythm while the GPU works.
cudaError_t wait_ticking(cudaEvent_t event, const std::function<void()>& on_tick, clock_type::time_point& last_tick) {
  for (;;) {
    const cudaError_t e = cudaEventQuery(event);
    if (e != cudaErrorNotReady) {
      // cudaErrorNotReady is a status, not a failure: do not let it linger as the last error.
      if (e == cudaSuccess) (void)cudaGetLastError();
      return e;
    }
    maybe_tick(on_tick, last_tick);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

gemm_result gemm(int dev, int size, double seconds, const std::function<void()>& on_tick) {
  gemm_result result;
  const char* stage = "gemm";
  if (auto why = round_size(stage, size, &size)) {
    result.error = why;
    return result;
  }
  result.size = size;
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(dev));
  const int m = size, n = size, k = size;
  const double flops = 2.0 * m * n * k;

  cuda::stream_handle stream;
  cuda::event_timer timer;
  gemm_operands ops;
  cuda::device_buffer<float> first_d;
  cuda::device_buffer<unsigned long long> counters;  // [0] differences, [1] mismatches
  cuda::device_buffer<unsigned char> workspace;
  NEOGRADE_CUDA_TRY(result, stage, stream.create());
  NEOGRADE_CUDA_TRY(result, stage, timer.create());
  const cudaStream_t s = stream.get();
  if (cuda::status st = ops.create(stage, size, s); st.error) {
    result.error = st.error;
    return result;
  }
  NEOGRADE_CUDA_TRY(result, stage, first_d.allocate(ops.d.size()));
  NEOGRADE_CUDA_TRY(result, stage, counters.allocate(2));

  // cuBLASLt when it loads and has an algorithm for this GEMM, else the WMMA kernel.
  const cublaslt_library& lib = cublaslt();
  std::unique_ptr<lt_matmul> lt;
  result.cublaslt_status = lib.status;
  if (lib.loaded) {
    NEOGRADE_CUDA_TRY(result, stage, workspace.allocate(kWorkspaceBytes));
    lt = std::make_unique<lt_matmul>(lib);
    if (auto why = lt->prepare(m, n, k, workspace.get(), workspace.bytes(), 1)) {
      result.cublaslt_status += ", but " + *why;
      lt.reset();
    }
  }

  auto fail = [&](const cuda::status& st) {
    result.error = st.error;
    return result;
  };
  const dim3 wmma_grid(static_cast<unsigned>(m / kTile), static_cast<unsigned>(n / kTile));
  std::string lt_failure;  // the status of a cublasLtMatmul call that failed
  auto launch = [&]() -> cuda::status {
    cuda::status st;
    if (lt) {
      if (const cublasStatus_t ls = lt->run(0, ops.a.get(), ops.b.get(), ops.d.get(), s); ls != CUBLAS_STATUS_SUCCESS) {
        lt_failure = cublas_error_text("cublasLtMatmul", ls);
        st.error = std::string(stage) + ": " + lt_failure;
      }
      return st;
    }
    neograde_wmma<<<wmma_grid, kWmmaThreads, 0, s>>>(ops.a.get(), ops.b.get(), ops.d.get(), m, n, k);
    NEOGRADE_CUDA_LAUNCHED(st, stage, "neograde_wmma");
    return st;
  };
  auto run_batch = [&](int count) -> cuda::status {
    cuda::status st;
    for (int i = 0; i < count; ++i)
      if (st = launch(); st.error) return st;
    return st;
  };

  // The first GEMM loads the kernels; a cuBLASLt that refuses to run falls back to WMMA here.
  if (cuda::status st = launch(); st.error) {
    if (!lt) return fail(st);
    result.cublaslt_status += ", but " + lt_failure;
    lt.reset();
    if (st = launch(); st.error) return fail(st);
  }
  result.implementation = lt ? "cublaslt" : "neograde_wmma";
  NEOGRADE_CUDA_TRY(result, stage, cudaStreamSynchronize(s));

  // One timed GEMM sizes the batches.
  double single_ms = 0;
  NEOGRADE_CUDA_TRY(result, stage, timer.start(s));
  if (cuda::status st = run_batch(1); st.error) return fail(st);
  NEOGRADE_CUDA_TRY(result, stage, timer.stop(s));
  NEOGRADE_CUDA_TRY(result, stage, timer.elapsed_ms(&single_ms));
  const int batch = static_cast<int>(std::clamp(kBatchTargetMs / std::max(single_ms, 1e-3), 1.0, 1000.0));

  // Warm-up (clocks and power reach steady state): about 1 s, never longer than the run itself.
  auto last_tick = clock_type::now();
  const auto warm_start = clock_type::now();
  do {
    if (cuda::status st = run_batch(batch); st.error) return fail(st);
    NEOGRADE_CUDA_TRY(result, stage, timer.stop(s));
    NEOGRADE_CUDA_TRY(result, stage, wait_ticking(timer.stop_event(), on_tick, last_tick));
  } while (cuda::seconds_since(warm_start) < std::min(1.0, seconds));

  // Timed batches until `seconds` have passed (at least 3 for a median).
  std::vector<double> tflops;
  const auto run_start = clock_type::now();
  while (tflops.size() < 3 || cuda::seconds_since(run_start) < seconds) {
    NEOGRADE_CUDA_TRY(result, stage, timer.start(s));
    if (cuda::status st = run_batch(batch); st.error) return fail(st);
    NEOGRADE_CUDA_TRY(result, stage, timer.stop(s));
    NEOGRADE_CUDA_TRY(result, stage, wait_ticking(timer.stop_event(), on_tick, last_tick));
    double ms = 0;
    NEOGRADE_CUDA_TRY(result, stage, timer.read_ms(&ms));
    if (ms > 0) tflops.push_back(flops * batch / (ms * 1e-3) / 1e12);
    if (result.batches++ == 0) {  // keep the first result for the consistency check
      NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyAsync(first_d.get(), ops.d.get(), ops.d.bytes(), cudaMemcpyDeviceToDevice, s));
    }
    maybe_tick(on_tick, last_tick);
  }
  result.tflops = cuda::median(tflops);

  // Checks: the last result equals the first, and sampled elements equal exact dot products.
  NEOGRADE_CUDA_TRY(result, stage, cudaMemsetAsync(counters.get(), 0, counters.bytes(), s));
  int blocks = 0;
  NEOGRADE_CUDA_TRY(result, stage, cuda::resident_blocks(count_differences, 256, &blocks));
  count_differences<<<blocks, 256, 0, s>>>(first_d.get(), ops.d.get(), ops.d.size(), counters.get());
  NEOGRADE_CUDA_LAUNCHED(result, stage, "count_differences");
  check_samples<<<kSamples / 256, 256, 0, s>>>(ops.a.get(), ops.b.get(), ops.d.get(), m, n, k, counters.get() + 1);
  NEOGRADE_CUDA_LAUNCHED(result, stage, "check_samples");
  unsigned long long host[2] = {};
  NEOGRADE_CUDA_TRY(result, stage, cudaMemcpyAsync(host, counters.get(), sizeof host, cudaMemcpyDeviceToHost, s));
  NEOGRADE_CUDA_TRY(result, stage, cudaStreamSynchronize(s));
  result.consistent = host[0] == 0;
  result.checked_elements = kSamples;
  result.mismatches = static_cast<long long>(host[1]);
  return result;
}

reference_result reference(int dev, int gemm_size) {
  reference_result result;
  const char* stage = "reference";
  NEOGRADE_CUDA_TRY(result, stage, cudaSetDevice(dev));
  cuda::stream_handle stream;
  cuda::event_timer timer;
  NEOGRADE_CUDA_TRY(result, stage, stream.create());
  NEOGRADE_CUDA_TRY(result, stage, timer.create());
  const cudaStream_t s = stream.get();

  auto time_once = [&](auto&& enqueue, double* ms) -> cuda::status {
    cuda::status st;
    NEOGRADE_CUDA_TRY(st, stage, timer.start(s));
    if (st = enqueue(); st.error) return st;
    NEOGRADE_CUDA_TRY(st, stage, timer.stop(s));
    NEOGRADE_CUDA_TRY(st, stage, timer.elapsed_ms(ms));
    return st;
  };

  {  // cudaMemcpyAsync device to device: 1 GiB, or a quarter of free memory when that is less.
    std::size_t free_bytes = 0, total_bytes = 0;
    NEOGRADE_CUDA_TRY(result, stage, cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t bytes = std::min(cuda::kGiB, free_bytes / 4) / cuda::kMiB * cuda::kMiB;
    if (bytes == 0) {
      result.error = "reference: too little free device memory for the memcpy reference";
      return result;
    }
    cuda::device_buffer<unsigned char> src, dst;
    NEOGRADE_CUDA_TRY(result, stage, src.allocate(bytes));
    NEOGRADE_CUDA_TRY(result, stage, dst.allocate(bytes));
    NEOGRADE_CUDA_TRY(result, stage, cudaMemsetAsync(src.get(), 0x5a, bytes, s));
    auto copy = [&]() -> cuda::status {
      cuda::status st;
      NEOGRADE_CUDA_TRY(st, stage, cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
      return st;
    };
    std::vector<double> times;
    for (int run = -1; run < 10; ++run) {
      double ms = 0;
      if (cuda::status st = time_once(copy, &ms); st.error) {
        result.error = st.error;
        return result;
      }
      if (run >= 0) times.push_back(ms);
    }
    const double ms = cuda::median(times);
    result.memcpy_d2d_gbs = ms > 0 ? 2.0 * static_cast<double>(bytes) / (ms * 1e6) : 0;
  }

  const cublaslt_library& lib = cublaslt();
  if (!lib.loaded) return result;  // gemm_best_tflops stays 0 without cuBLASLt
  int size = 0;
  if (auto why = round_size(stage, gemm_size, &size)) {
    result.error = why;
    return result;
  }
  gemm_operands ops;
  if (cuda::status st = ops.create(stage, size, s); st.error) {
    result.error = st.error;
    return result;
  }
  cuda::device_buffer<unsigned char> workspace;
  NEOGRADE_CUDA_TRY(result, stage, workspace.allocate(kWorkspaceBytes));
  lt_matmul lt(lib);
  if (auto why = lt.prepare(size, size, size, workspace.get(), workspace.bytes(), 16)) {
    result.error = std::string(stage) + ": " + *why;
    return result;
  }
  const double flops = 2.0 * size * size * size;
  for (std::size_t algo = 0; algo < lt.algorithms(); ++algo) {
    ++result.gemm_algorithms_tried;
    bool runs = true;
    auto matmul = [&]() -> cuda::status {
      cuda::status st;
      if (lt.run(algo, ops.a.get(), ops.b.get(), ops.d.get(), s) != CUBLAS_STATUS_SUCCESS) runs = false;
      return st;
    };
    for (int warm = 0; warm < 2 && runs; ++warm) (void)matmul();
    if (!runs) continue;  // this candidate refused to run; try the next
    NEOGRADE_CUDA_TRY(result, stage, cudaStreamSynchronize(s));
    std::vector<double> times;
    for (int run = 0; run < 10 && runs; ++run) {
      double ms = 0;
      if (cuda::status st = time_once(matmul, &ms); st.error) {
        result.error = st.error;
        return result;
      }
      times.push_back(ms);
    }
    const double ms = cuda::median(times);
    if (!runs || ms <= 0) continue;
    const double tflops = flops / (ms * 1e-3) / 1e12;
    if (algo == 0) result.gemm_first_tflops = tflops;
    result.gemm_best_tflops = std::max(result.gemm_best_tflops, tflops);
  }
  return result;
}

}  // namespace neograde::gpu_smoke::device
