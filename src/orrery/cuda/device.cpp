#include "orrery/cuda/device.hpp"

#include <string>

#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"

namespace orrery::cuda {
namespace {
std::string count_detail(int index) {
  const int n = device_count();
  return "device index " + std::to_string(index) + " requested, " + std::to_string(n) +
         " device(s) present" + (n > 0 ? " (valid 0.." + std::to_string(n - 1) + ")" : "");
}
}  // namespace

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver / no device: not an error for the caller
    return 0;
  }
  return n;
}

bool device_available() noexcept { return device_count() > 0; }

void select_device(int index) {
  check(static_cast<int>(cudaSetDevice(index)), "cudaSetDevice(index)", __FILE__, __LINE__,
        count_detail(index));
}

int current_device() {
  int d = 0;
  ORRERY_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

int select_rank_device(int local_rank) {
  const int n = device_count();
  if (n == 0)
    throw RuntimeFailure("local rank " + std::to_string(local_rank) +
                         " asked for a CUDA device and none is present; accepted: a machine with a GPU, or a CPU backend");
  const int index = local_rank % n;
  select_device(index);
  return index;
}

std::string pci_bus_id(int index) {
  char id[32] = {};  // "dddd:bb:dd.f" and a terminator fit in 13
  check(static_cast<int>(cudaDeviceGetPCIBusId(id, sizeof id, index)), "cudaDeviceGetPCIBusId(id, 32, index)",
        __FILE__, __LINE__, count_detail(index));
  return id;
}

int current_multiprocessors() {
  int sms = 0;
  ORRERY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, current_device()));
  return sms;
}

DeviceInfo device_info(int index) {
  cudaDeviceProp p{};
  check(static_cast<int>(cudaGetDeviceProperties(&p, index)), "cudaGetDeviceProperties(&p, index)",
        __FILE__, __LINE__, count_detail(index));
  DeviceInfo info;
  info.index = index;
  info.name = p.name;
  info.multiprocessors = p.multiProcessorCount;
  info.compute_major = p.major;
  info.compute_minor = p.minor;
  info.total_bytes = p.totalGlobalMem;
  int khz = 0;
  ORRERY_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index));
  info.peak_clock_ghz = khz * 1e-6;
  ORRERY_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  ORRERY_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

MemoryInfo memory_info() {
  MemoryInfo m;
  ORRERY_CUDA_CHECK(cudaMemGetInfo(&m.free_bytes, &m.total_bytes));
  return m;
}

}  // namespace orrery::cuda
