#include "orrery/cuda/pinned_buffer.hpp"

#include <string>

#include "orrery/cuda/check_cuda.cuh"

namespace orrery::cuda {

void* allocate_pinned_bytes(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0)
    check(static_cast<int>(cudaMallocHost(&p, bytes)), "cudaMallocHost(&p, bytes)", __FILE__, __LINE__,
          "requested " + std::to_string(bytes) + " bytes of page-locked host memory");
  return p;
}

void free_pinned_bytes(void* p) noexcept {
  if (p != nullptr) (void)cudaFreeHost(p);
}

}  // namespace orrery::cuda
