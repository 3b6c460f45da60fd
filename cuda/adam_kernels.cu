// CUDA kernels of the default, precision-aware (parameter remainder) and explicit-FP32-master
// paths. The update is Transformer Engine's AdamW-mode FusedAdam body
// (transformer_engine/common/multi_tensor/adam.cu: AdamFunctor, AdamFunctorMaster and
// AdamFunctorMasterParamRemainder), written in the same order and compiled with nvcc's default
// --fmad=true, as TE is; one thread carries one element through every step.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "adam_kernels.hpp"

namespace ladle::numerics::cuda_detail {

namespace {

constexpr int kBlock = 256;
constexpr int kMaxBlocks = 65535;

__device__ __forceinline__ void te_update(const TeAdamScalars& s, float g, float& p, float& m,
                                          float& v) {
  m = s.beta1 * m + (1 - s.beta1) * g;
  v = s.beta2 * v + (1 - s.beta2) * g * g;
  const float m_unbiased = m / s.bias_correction1;
  const float v_unbiased = v / s.bias_correction2;
  const float denom = sqrtf(v_unbiased) + s.eps;
  const float update = (m_unbiased / denom) + (s.weight_decay * p);
  p = p - (s.lr * update);
}

__device__ __forceinline__ float as_bf16_state(float x) {
  return __bfloat162float(__float2bfloat16_rn(x));
}

__global__ void adam_paths_kernel(int steps, size_t n, const uint16_t* w0, const float* grads,
                                  const float* pa_grads, const TeAdamScalars* scalars,
                                  bool bf16_moments, float* default_master, uint16_t* pa_bf16,
                                  int16_t* pa_remainder, float* explicit_master) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float w = __uint_as_float(static_cast<uint32_t>(w0[i]) << 16);
    float p_default = w, m_default = 0.0f, v_default = 0.0f;
    float p_explicit = w, m_explicit = 0.0f, v_explicit = 0.0f;
    uint16_t high = w0[i];
    int16_t remainder = 0;  // FusedAdam starts the remainders at zero
    float m_aware = 0.0f, v_aware = 0.0f;
    for (int s = 0; s < steps; ++s) {
      const TeAdamScalars sc = scalars[s];
      const size_t at = static_cast<size_t>(s) * n + i;
      te_update(sc, grads[at], p_default, m_default, v_default);
      default_master[at] = p_default;

      te_update(sc, pa_grads[at], p_explicit, m_explicit, v_explicit);
      if (bf16_moments) {
        m_explicit = as_bf16_state(m_explicit);
        v_explicit = as_bf16_state(v_explicit);
      }
      explicit_master[at] = p_explicit;

      // Rebuild the master: a negative remainder means the weight was rounded up.
      const uint16_t kept = remainder < 0 ? static_cast<uint16_t>(high - 1u) : high;
      float p = __uint_as_float((static_cast<uint32_t>(kept) << 16) |
                                static_cast<uint16_t>(remainder));
      te_update(sc, pa_grads[at], p, m_aware, v_aware);
      if (bf16_moments) {
        m_aware = as_bf16_state(m_aware);
        v_aware = as_bf16_state(v_aware);
      }
      const uint32_t bits = __float_as_uint(p);
      high = static_cast<uint16_t>(bits >> 16);
      remainder = static_cast<int16_t>(static_cast<uint16_t>(bits & 0xffffu));
      if (remainder < 0) high = static_cast<uint16_t>(high + 1u);
      pa_bf16[at] = high;
      pa_remainder[at] = remainder;
    }
  }
}

std::string describe(cudaError_t error, const char* what) {
  return std::string(what) + ": " + cudaGetErrorString(error);
}

// Device buffers released on every exit path.
struct DeviceBuffers {
  void* ptr[9] = {};
  ~DeviceBuffers() {
    for (void* p : ptr) {
      if (p) cudaFree(p);
    }
  }
};

}  // namespace

void probe(CudaStatus& status) {
  status.built = true;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    status.device = false;
    status.detail = error != cudaSuccess ? cudaGetErrorString(error) : "no device";
    return;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    status.device = false;
    status.detail = "cannot read the device's properties";
    return;
  }
  status.device = true;
  status.detail = prop.name;
}

std::string run_chunk(const CudaChunkRequest& r) {
  if (r.moment_dtype == StateDtype::fp16) return "fp16 moments are not supported on the device";
  const size_t n = r.n;
  const size_t total = n * static_cast<size_t>(r.steps);
  const size_t sizes[9] = {n * sizeof(uint16_t),       total * sizeof(float),
                           total * sizeof(float),      r.steps * sizeof(TeAdamScalars),
                           total * sizeof(float),      total * sizeof(uint16_t),
                           total * sizeof(int16_t),    total * sizeof(float),
                           0};
  DeviceBuffers d;
  for (int k = 0; k < 8; ++k) {
    const cudaError_t e = cudaMalloc(&d.ptr[k], sizes[k]);
    if (e != cudaSuccess) return describe(e, "cudaMalloc");
  }
  const void* inputs[4] = {r.w0_bf16, r.grads, r.pa_grads, r.scalars};
  for (int k = 0; k < 4; ++k) {
    const cudaError_t e = cudaMemcpy(d.ptr[k], inputs[k], sizes[k], cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return describe(e, "cudaMemcpy to the device");
  }
  const size_t wanted = (n + kBlock - 1) / kBlock;
  const int blocks = static_cast<int>(wanted < kMaxBlocks ? (wanted > 0 ? wanted : 1) : kMaxBlocks);
  adam_paths_kernel<<<blocks, kBlock>>>(
      r.steps, n, static_cast<const uint16_t*>(d.ptr[0]), static_cast<const float*>(d.ptr[1]),
      static_cast<const float*>(d.ptr[2]), static_cast<const TeAdamScalars*>(d.ptr[3]),
      r.moment_dtype == StateDtype::bf16, static_cast<float*>(d.ptr[4]),
      static_cast<uint16_t*>(d.ptr[5]), static_cast<int16_t*>(d.ptr[6]),
      static_cast<float*>(d.ptr[7]));
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return describe(e, "kernel launch");
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return describe(e, "kernel");
  void* outputs[4] = {r.default_master, r.pa_bf16, r.pa_remainder, r.explicit_master};
  for (int k = 0; k < 4; ++k) {
    e = cudaMemcpy(outputs[k], d.ptr[4 + k], sizes[4 + k], cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return describe(e, "cudaMemcpy to the host");
  }
  return "";
}

}  // namespace ladle::numerics::cuda_detail
