#include "orrery/cuda/check.hpp"

#include <cuda_runtime_api.h>

#include <string_view>

#include "orrery/core/error.hpp"

namespace orrery::cuda {
namespace {
std::string_view base_name(const char* path) {
  const std::string_view p(path);
  const auto slash = p.find_last_of('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}
}  // namespace

std::string failure_message(int status, const char* call, const char* file, int line,
                            const std::string& detail) {
  const auto err = static_cast<cudaError_t>(status);
  std::string msg = "CUDA call ";
  msg += call;
  msg += " failed at ";
  msg += base_name(file);
  msg += ':';
  msg += std::to_string(line);
  msg += ": ";
  msg += cudaGetErrorName(err);
  msg += " (";
  msg += cudaGetErrorString(err);
  msg += ')';
  if (!detail.empty()) {
    msg += "; ";
    msg += detail;
  }
  return msg;
}

void check(int status, const char* call, const char* file, int line, const std::string& detail) {
  if (status == static_cast<int>(cudaSuccess)) return;
  // Clear the sticky last-error slot for non-sticky errors, so the next launch
  // check does not report this failure a second time.
  (void)cudaGetLastError();
  throw RuntimeFailure(failure_message(status, call, file, line, detail));
}

}  // namespace orrery::cuda
