#pragma once
// Seconds per call of device work, timed by CUDA events (DESIGN contract 5):
// the GPU benchmarks' common protocol. Each trial repeats the call until it
// lasts at least min_trial_seconds, so launch gaps and event resolution stay
// below a per cent of what is timed.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "bench_stats.hpp"
#include "orrery/cuda/event_timer.hpp"
#include "orrery/cuda/stream.hpp"

namespace orrery::bench {

/// `launch` enqueues work on the default stream: one warm-up call, one probe
/// call that sizes the repetitions, then `trials` timed trials.
inline Stats time_device(const std::function<void()>& launch, int trials, double min_trial_seconds = 0.02) {
  launch();  // warm-up
  cuda::synchronize(nullptr);
  cuda::EventTimer probe;
  probe.start();
  launch();
  probe.stop();
  const double once = std::max(probe.seconds(), 1e-7);
  const int reps = std::max(1, static_cast<int>(std::ceil(min_trial_seconds / once)));
  std::vector<double> t;
  for (int i = 0; i < trials; ++i) {
    cuda::EventTimer timer;
    timer.start();
    for (int r = 0; r < reps; ++r) launch();
    timer.stop();
    t.push_back(timer.seconds() / reps);
  }
  return stats_of(t);
}

}  // namespace orrery::bench
