#pragma once
// CUDA kernels of the default, precision-aware (parameter remainder) and explicit-FP32-master
// paths, built from cuda/ when a CUDA toolkit is found (LADLE_CUDA=ON); otherwise a stub says the
// build has none.

#include <cstddef>
#include <cstdint>
#include <string>

#include "ladle/numerics/adam_paths.hpp"

namespace ladle::numerics {

/// Whether the kernels were built and a device answers.
struct CudaStatus {
  bool built = false;   ///< compiled with the CUDA kernels
  bool device = false;  ///< a CUDA device is present
  std::string detail;   ///< device name, or why there is none
};

/// Probes the build and the device; never throws.
CudaStatus cuda_status();

/// One slice of one tensor, all steps at once. Inputs and outputs are host arrays; the outputs
/// hold the state after each step, [steps][n].
struct CudaChunkRequest {
  int steps = 0;
  size_t n = 0;
  const uint16_t* w0_bf16 = nullptr;         ///< [n] initial BF16 weights
  const float* grads = nullptr;              ///< [steps][n] FP32 main grads (default path)
  const float* pa_grads = nullptr;           ///< [steps][n] grads as the precision-aware path sees them
  const TeAdamScalars* scalars = nullptr;    ///< [steps]
  StateDtype moment_dtype = StateDtype::fp32;  ///< precision-aware moments: fp32 or bf16
  float* default_master = nullptr;           ///< [steps][n]
  uint16_t* pa_bf16 = nullptr;               ///< [steps][n]
  int16_t* pa_remainder = nullptr;           ///< [steps][n]
  float* explicit_master = nullptr;          ///< [steps][n]
};

/// Runs the three GPU paths on the slice. Throws Error(io) when CUDA fails or is absent.
void cuda_run_chunk(const CudaChunkRequest& request);

}  // namespace ladle::numerics
