#pragma once
// Progress of long work on a terminal: one line rewritten in place (step,
// simulated time, steps/s, ETA), at most a few times a second. Silent when
// stdout is not a terminal, so logs and pipes stay clean.
#include <cstdint>

namespace orrery::cli {

class ProgressLine {
 public:
  ProgressLine();  // enabled iff stdout is a terminal
  bool enabled() const { return enabled_; }
  void update(std::int64_t step, std::int64_t total_steps, double time, double wall_seconds);
  /// Ends the line (if anything was printed).
  void finish();

 private:
  bool enabled_;
  bool printed_ = false;
  double last_print_ = -1;
};

}  // namespace orrery::cli
