#pragma once
// The checking macros for code that talks to the CUDA runtime (.cu files and the
// few .cpp files of orrery::cuda that include cuda_runtime_api.h).
#include <cuda_runtime_api.h>

#include "orrery/cuda/check.hpp"

/// Checks a CUDA runtime call: ORRERY_CUDA_CHECK(cudaMemcpy(...));
#define ORRERY_CUDA_CHECK(call) \
  ::orrery::cuda::check(static_cast<int>(call), #call, __FILE__, __LINE__)

/// Checks the launch that was just enqueued (configuration errors, e.g. too many
/// threads, surface here; errors inside the kernel surface at the next sync).
#define ORRERY_CUDA_CHECK_LAUNCH(kernel_name)                                                 \
  ::orrery::cuda::check(static_cast<int>(cudaGetLastError()), "launch of " kernel_name, __FILE__, \
                        __LINE__)
