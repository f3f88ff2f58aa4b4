#pragma once
// Turning CUDA status codes into exceptions (no CUDA header here: CPU code may
// include this). Every CUDA runtime call and every kernel launch in Orrery goes
// through ORRERY_CUDA_CHECK / ORRERY_CUDA_CHECK_LAUNCH (check_cuda.cuh), which
// call check() below; a failure throws orrery::RuntimeFailure whose message
// names the call, the file and line, and the CUDA error name and text:
//   "CUDA call cudaMalloc(&p, bytes) failed at memory.cpp:31: cudaErrorMemoryAllocation
//    (out of memory); requested 1099511627776 bytes, 150012346368 free of 150089351168"
#include <string>

namespace orrery::cuda {

/// Throws RuntimeFailure when `status` (a cudaError_t) is not cudaSuccess.
/// `detail`, when non-empty, is appended (e.g. the sizes of a failed allocation).
void check(int status, const char* call, const char* file, int line, const std::string& detail = {});

/// The message check() would throw with, for status != 0 (exposed for tests and for
/// failures that are reported rather than thrown, e.g. in destructors).
std::string failure_message(int status, const char* call, const char* file, int line,
                            const std::string& detail = {});

}  // namespace orrery::cuda
