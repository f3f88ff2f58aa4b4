#pragma once
// Scratch memory in stream order (cudaMallocAsync from the device's default
// pool): allocated when enqueued, freed in stream order when the owner goes
// out of scope, so a kernel enqueued before that still reads it. For
// temporaries of one enqueue (sort keys, packed records) that should not stay
// allocated between calls.
#include <cuda_runtime.h>

#include <cstddef>

#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/stream.hpp"

namespace orrery::cuda {

template <class T>
class StreamScratch {
 public:
  StreamScratch(std::size_t count, StreamHandle s) : s_(s) {
    if (count > 0) ORRERY_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&p_), count * sizeof(T), s));
  }
  ~StreamScratch() {
    if (p_ != nullptr) (void)cudaFreeAsync(p_, s_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
  StreamHandle s_;
};

}  // namespace orrery::cuda
