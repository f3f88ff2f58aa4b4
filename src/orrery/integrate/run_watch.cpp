#include "orrery/integrate/run_watch.hpp"

#include <fmt/format.h>

#include <cmath>

namespace orrery::integrate {

StepRule watched_rule(double eps) {
  return {eps > 0 ? StepCriterion::softening : StepCriterion::dynamical, kWatchEta, eps};
}

template <class Real>
SmallestStep smallest_step(const StepRule& rule, const Accelerations<Real>& a, const std::vector<Real>& potential) {
  SmallestStep s;
  // One thread, in index order: the same particle is named on every thread count and rank.
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double dt = criterion_step(rule, a.ax[i], a.ay[i], a.az[i], potential[static_cast<std::size_t>(i)]);
    if (dt < s.step) s = {dt, i};
  }
  return s;
}

namespace {
std::string criterion_words(const StepRule& rule) {
  return rule.criterion == StepCriterion::softening
             ? fmt::format("the softening criterion sqrt(2 eta eps / |a|) (GADGET-4's; eta = {}, eps = {})", rule.eta,
                           rule.softening)
             : fmt::format("the dynamical criterion eta sqrt(4 pi / 3) sqrt(|phi|) / |a| (Zemp et al. 2007, used "
                           "without softening; eta = {})",
                           rule.eta);
}
}  // namespace

std::optional<std::string> step_warning(double dt, const StepRule& rule, const SmallestStep& smallest, double time,
                                        std::int64_t step) {
  if (!(dt > smallest.step)) return std::nullopt;
  return fmt::format(
      "integration.dt = {} is larger than the step {:.3g} that {} gives particle {} at t = {} (step {}): the "
      "fixed step does not resolve its orbit and the energy error may grow; accepted without this warning: "
      "integration.dt <= {:.3g}",
      dt, smallest.step, criterion_words(rule), smallest.particle, time, step, smallest.step);
}

std::optional<std::string> energy_error_excess(const diag::Diagnostics& row, double limit) {
  const double e = std::abs(row.relative_energy_error);
  if (!(limit > 0) || !(e > limit || std::isnan(e))) return std::nullopt;
  return fmt::format(
      "|dE/E| = {:.3g} at step {} (t = {}) exceeds integration.max_energy_error = {}: the run stopped there; "
      "accepted: |dE/E| <= integration.max_energy_error (a smaller integration.dt keeps it lower; 0: no limit)",
      e, row.step, row.time, limit);
}

template SmallestStep smallest_step(const StepRule&, const Accelerations<float>&, const std::vector<float>&);
template SmallestStep smallest_step(const StepRule&, const Accelerations<double>&, const std::vector<double>&);

}  // namespace orrery::integrate
