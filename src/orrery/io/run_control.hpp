#pragma once
// When a long run should write a checkpoint or stop, as batch-queue users of
// GADGET-4 and SWIFT expect (issue 5):
//   - every `checkpoint_minutes` of wall-clock time: checkpoint, continue;
//   - after `wall_limit_minutes`: checkpoint and stop;
//   - a file named STOP in the output directory: checkpoint, remove the
//     file (so the restarted run does not stop at once) and stop;
//   - SIGINT or SIGTERM: checkpoint and stop cleanly. A second signal while
//     that checkpoint is written ends the process at once (the default action).
// poll() is cheap: it reads the clock, checks a flag set by the signal
// handler, and looks for the STOP file at most once a second.
#include <chrono>
#include <filesystem>
#include <string>

namespace orrery::io {

struct RunControlOptions {
  double checkpoint_minutes = 0;  // <= 0: no periodic checkpoints
  double wall_limit_minutes = 0;  // <= 0: no limit
  std::filesystem::path stop_file;  // empty: no STOP file
};

class RunControl {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Action { none, checkpoint, checkpoint_and_stop };

  /// Validates the options (InputError naming output.checkpoint_minutes /
  /// integration.wall_limit_minutes for negative or non-finite values).
  explicit RunControl(RunControlOptions options, Clock::time_point start = Clock::now());

  /// Installs SIGINT/SIGTERM handlers that set a process-wide flag.
  static void install_signal_handlers();
  /// For tests: as if a signal had arrived (or clears it).
  static void set_signal_flag(bool raised);

  /// What to do now. After a checkpoint-and-continue, the periodic timer restarts.
  Action poll(Clock::time_point now = Clock::now());
  /// Why the last checkpoint_and_stop was requested ("STOP file", "wall-clock
  /// limit", "signal"), for the log.
  const std::string& reason() const { return reason_; }

 private:
  RunControlOptions options_;
  Clock::time_point start_;
  Clock::time_point last_checkpoint_;
  Clock::time_point last_stop_check_;
  std::string reason_;
};

}  // namespace orrery::io
