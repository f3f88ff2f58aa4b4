#include "orrery/cuda/event_timer.hpp"

#include "orrery/cuda/check_cuda.cuh"

namespace orrery::cuda {

EventTimer::EventTimer() {
  ORRERY_CUDA_CHECK(cudaEventCreate(&start_));
  try {
    ORRERY_CUDA_CHECK(cudaEventCreate(&stop_));
  } catch (...) {
    (void)cudaEventDestroy(start_);
    throw;
  }
}

EventTimer::~EventTimer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

void EventTimer::start(StreamHandle stream) { ORRERY_CUDA_CHECK(cudaEventRecord(start_, stream)); }

void EventTimer::stop(StreamHandle stream) { ORRERY_CUDA_CHECK(cudaEventRecord(stop_, stream)); }

double EventTimer::seconds() const {
  ORRERY_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  ORRERY_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return 1e-3 * ms;
}

}  // namespace orrery::cuda
