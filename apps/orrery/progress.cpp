#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace orrery::cli {

ProgressLine::ProgressLine() : enabled_(isatty(STDOUT_FILENO) == 1) {}

void ProgressLine::update(std::int64_t step, std::int64_t total_steps, double time, double wall_seconds) {
  const bool last = step == total_steps;
  if (!enabled_ || (!last && wall_seconds - last_print_ < 0.2)) return;
  last_print_ = wall_seconds;
  const double rate = wall_seconds > 0 ? static_cast<double>(step) / wall_seconds : 0;
  const double eta = rate > 0 ? static_cast<double>(total_steps - step) / rate : 0;
  std::printf("\rstep %lld/%lld  t = %.4f  %.1f steps/s  ETA %.0f s   ", static_cast<long long>(step),
              static_cast<long long>(total_steps), time, rate, eta);
  std::fflush(stdout);
  printed_ = true;
}

void ProgressLine::finish() {
  if (printed_) std::printf("\n");
  printed_ = false;
}

}  // namespace orrery::cli
