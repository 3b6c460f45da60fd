# cuda.cmake (included once from the top-level CMakeLists.txt, after the numerics module):
# build settings of ladle_numerics and its optional CUDA kernels.

# The numerics paths emulate other code's FP32 arithmetic operation by operation; the host compiler
# must not fuse a*b+c into one rounding there. No errno from sqrt lets those loops vectorize.
target_compile_options(ladle_numerics PRIVATE -ffp-contract=off -fno-math-errno)

option(LADLE_CUDA "Build the CUDA kernels of `ladle numerics adam --device cuda` if nvcc is found" ON)
if(LADLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
endif()
if(LADLE_CUDA AND CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
  # CMake 3.25 does not yet know nvcc's C++20 flag; nvcc 12 and later take -std=c++20.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  find_package(CUDAToolkit REQUIRED)
  add_library(ladle_numerics_cuda STATIC ${PROJECT_SOURCE_DIR}/cuda/adam_kernels.cu)
  target_include_directories(ladle_numerics_cuda PUBLIC ${PROJECT_SOURCE_DIR}/cuda
                             PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # Hopper (H100, H200) and Blackwell (B200); FMA contraction stays on, as in Transformer Engine.
  set_target_properties(ladle_numerics_cuda PROPERTIES CUDA_ARCHITECTURES "90;100"
                        CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON)
  # The directory's -Wall/-Werror are GCC flags nvcc rejects; hand nvcc's host pass its own.
  set_property(TARGET ladle_numerics_cuda PROPERTY COMPILE_OPTIONS
               -Xcompiler=-Wall,-Wextra $<$<BOOL:${LADLE_WERROR}>:-Werror=all-warnings>)
  target_link_libraries(ladle_numerics_cuda PUBLIC CUDA::cudart)
  target_compile_definitions(ladle_numerics PUBLIC LADLE_HAVE_CUDA=1)
  target_link_libraries(ladle_numerics PUBLIC ladle_numerics_cuda)
  message(STATUS "ladle numerics: CUDA kernels on (nvcc ${CMAKE_CUDA_COMPILER_VERSION})")
else()
  message(STATUS "ladle numerics: CUDA kernels off (no nvcc found, or LADLE_CUDA=OFF)")
endif()
