#include "orrery/cuda/memory.hpp"

#include <string>

#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"

namespace orrery::cuda {

void* allocate_device_bytes(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    std::string detail = "requested " + std::to_string(bytes) + " bytes";
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
      detail += ", " + std::to_string(free_b) + " bytes free of " + std::to_string(total_b) + " total";
    }
    check(static_cast<int>(status), "cudaMalloc(&p, bytes)", __FILE__, __LINE__, detail);
  }
  return p;
}

void free_device_bytes(void* p) noexcept {
  if (p != nullptr) (void)cudaFree(p);
}

void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  copy_host_to_device_async(dst, src, bytes, stream);
  ORRERY_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  copy_device_to_host_async(dst, src, bytes, stream);
  ORRERY_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_device_to_host_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  ORRERY_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
}

void copy_host_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  ORRERY_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
}

void copy_device_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  ORRERY_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
}

void zero_device_bytes(void* dst, std::size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  ORRERY_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, stream));
}

void throw_size_mismatch(std::size_t count, std::size_t size) {
  throw RuntimeFailure("device buffer copy of " + std::to_string(count) +
                       " elements does not fit a buffer of " + std::to_string(size) + " elements");
}

}  // namespace orrery::cuda
