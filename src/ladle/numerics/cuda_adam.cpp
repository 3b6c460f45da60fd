#include "ladle/numerics/cuda_adam.hpp"

#include "ladle/util/error.hpp"

#ifdef LADLE_HAVE_CUDA
#include "adam_kernels.hpp"  // cuda/, on the include path when the kernels are built
#endif

namespace ladle::numerics {

#ifdef LADLE_HAVE_CUDA

CudaStatus cuda_status() {
  CudaStatus status;
  cuda_detail::probe(status);
  return status;
}

void cuda_run_chunk(const CudaChunkRequest& request) {
  const std::string failure = cuda_detail::run_chunk(request);
  if (!failure.empty()) throw Error(ErrorKind::io, "--device cuda: " + failure);
}

#else  // built without CUDA: no toolkit, or LADLE_CUDA=OFF

CudaStatus cuda_status() { return {false, false, "this ladle was built without CUDA"}; }

void cuda_run_chunk(const CudaChunkRequest&) {
  throw Error(ErrorKind::io, "--device cuda: this ladle was built without CUDA");
}

#endif

}  // namespace ladle::numerics
