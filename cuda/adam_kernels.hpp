#pragma once
// The host entry points of cuda/adam_kernels.cu, called by src/ladle/numerics/cuda_adam.cpp. They
// report failures as text so that the CUDA translation unit needs none of ladle's error machinery.

#include <string>

#include "ladle/numerics/cuda_adam.hpp"

namespace ladle::numerics::cuda_detail {

/// Fills `status` with the device count and the first device's name; never throws.
void probe(CudaStatus& status);

/// Runs the three paths on the device. Returns "" on success, or what failed.
std::string run_chunk(const CudaChunkRequest& request);

}  // namespace ladle::numerics::cuda_detail
