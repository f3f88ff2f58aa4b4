#pragma once
// Device-side timing with CUDA events: the time between two points of one
// stream, measured by the GPU (no host clock, no launch latency).
#include "orrery/cuda/stream.hpp"

struct CUevent_st;

namespace orrery::cuda {

class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  /// Records the start event on `stream`.
  void start(StreamHandle stream = nullptr);
  /// Records the stop event on `stream`.
  void stop(StreamHandle stream = nullptr);
  /// Waits for the stop event and returns the seconds between start and stop.
  /// Throws RuntimeFailure if stop() was not recorded after start().
  double seconds() const;

 private:
  CUevent_st* start_ = nullptr;
  CUevent_st* stop_ = nullptr;
};

}  // namespace orrery::cuda
