#include "orrery/io/run_control.hpp"

#include <csignal>
#include <cmath>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::io {
namespace {

volatile std::sig_atomic_t g_signal_raised = 0;

extern "C" void on_stop_signal(int sig) {
  g_signal_raised = 1;
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

std::chrono::duration<double, std::ratio<60>> minutes(double m) { return std::chrono::duration<double, std::ratio<60>>(m); }

void require_non_negative(const char* key, double v) {
  if (!(v >= 0) || !std::isfinite(v))
    throw InputError(std::string(key) + " = " + std::to_string(v) + "; accepted: a number of minutes >= 0 (0: off)");
}

}  // namespace

RunControl::RunControl(RunControlOptions options, Clock::time_point start)
    : options_(std::move(options)), start_(start), last_checkpoint_(start), last_stop_check_(start - std::chrono::hours(1)) {
  require_non_negative("output.checkpoint_minutes", options_.checkpoint_minutes);
  require_non_negative("integration.wall_limit_minutes", options_.wall_limit_minutes);
}

void RunControl::install_signal_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

void RunControl::set_signal_flag(bool raised) { g_signal_raised = raised ? 1 : 0; }

RunControl::Action RunControl::poll(Clock::time_point now) {
  if (g_signal_raised) {
    reason_ = "signal (SIGINT or SIGTERM)";
    return Action::checkpoint_and_stop;
  }
  if (options_.wall_limit_minutes > 0 && now - start_ >= minutes(options_.wall_limit_minutes)) {
    reason_ = "wall-clock limit of " + std::to_string(options_.wall_limit_minutes) + " minutes";
    return Action::checkpoint_and_stop;
  }
  if (!options_.stop_file.empty() && now - last_stop_check_ >= std::chrono::seconds(1)) {
    last_stop_check_ = now;
    std::error_code ec;
    if (std::filesystem::exists(options_.stop_file, ec)) {
      std::filesystem::remove(options_.stop_file, ec);
      reason_ = "STOP file " + options_.stop_file.string();
      return Action::checkpoint_and_stop;
    }
  }
  if (options_.checkpoint_minutes > 0 && now - last_checkpoint_ >= minutes(options_.checkpoint_minutes)) {
    last_checkpoint_ = now;
    return Action::checkpoint;
  }
  return Action::none;
}

}  // namespace orrery::io
