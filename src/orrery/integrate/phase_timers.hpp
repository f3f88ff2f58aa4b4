#pragma once
// Wall time per phase of a run (force, kick, drift, diagnostics, output...),
// accumulated over the whole run, in the order phases first appeared.
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orrery::integrate {

class PhaseTimers {
 public:
  void add(std::string_view phase, double seconds) {
    for (auto& [name, total] : totals_) {
      if (name == phase) {
        total += seconds;
        return;
      }
    }
    totals_.emplace_back(std::string(phase), seconds);
  }
  double seconds(std::string_view phase) const {
    for (const auto& [name, total] : totals_) {
      if (name == phase) return total;
    }
    return 0;
  }
  const std::vector<std::pair<std::string, double>>& totals() const { return totals_; }

  /// Adds the lifetime of the guard to `phase`.
  class Scope {
   public:
    Scope(PhaseTimers& timers, std::string_view phase)
        : timers_(timers), phase_(phase), start_(std::chrono::steady_clock::now()) {}
    ~Scope() { timers_.add(phase_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimers& timers_;
    std::string_view phase_;
    std::chrono::steady_clock::time_point start_;
  };
  Scope scope(std::string_view phase) { return Scope(*this, phase); }

 private:
  std::vector<std::pair<std::string, double>> totals_;
};

}  // namespace orrery::integrate
