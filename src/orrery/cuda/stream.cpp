#include "orrery/cuda/stream.hpp"

#include <utility>

#include "orrery/cuda/check_cuda.cuh"

namespace orrery::cuda {

void synchronize(StreamHandle stream) { ORRERY_CUDA_CHECK(cudaStreamSynchronize(stream)); }

Stream::Stream() { ORRERY_CUDA_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking)); }

Stream::~Stream() {
  // A destructor must not throw; a failure here means the context is already
  // broken and the next checked call reports it.
  if (handle_ != nullptr) (void)cudaStreamDestroy(handle_);
}

Stream::Stream(Stream&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) (void)cudaStreamDestroy(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

}  // namespace orrery::cuda
