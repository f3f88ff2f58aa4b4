#pragma once
// The step a particle asks for, from the force evaluation that closed its
// last step (integration.criterion, docs/config.md):
//
//   softening  dt = sqrt(2 eta eps / |a|)       GADGET-4's criterion
//              (Springel et al. 2021, MNRAS 506, 2871; eta is its
//              ErrTolIntAccuracy, 0.025 in its documentation and in SWIFT's,
//              after Power et al. 2003). Zero at eps = 0: refused there.
//   dynamical  dt = eta / sqrt(G rho_enc), rho_enc = 3 M / (4 pi r^3)
//              Zemp, Stadel, Moore & Carollo 2007 (MNRAS 376, 273): a step
//              that is a fraction of the particle's own dynamical time, with
//              no softening in it. The enclosed mass and radius are those of
//              the point mass that would give the particle both its
//              acceleration and its potential (|a| = G M / r^2, |phi| = G M / r,
//              so r = |phi| / |a| and G M / r^3 = |a|^2 / |phi|):
//              dt = eta sqrt(4 pi / 3) sqrt(|phi|) / |a|. Exact for a Kepler
//              orbit (the pericentre passage gets the same number of steps
//              at any eccentricity); in an isolated halo it is the dynamical
//              time at the distance the local field implies. It needs the
//              potential with every evaluation, and a potential that vanishes
//              at infinity (isolated systems, as every Orrery run).
//
// In double with the xm:: arithmetic, so host and device choose the same bin.
#include <cmath>
#include <cstdint>
#include <string_view>

#include "orrery/core/exact_math.hpp"
#include "orrery/core/hd.hpp"
#include "orrery/integrate/time_bins.hpp"

namespace orrery::integrate {

enum class StepCriterion : std::uint8_t { softening, dynamical };

constexpr std::string_view to_string(StepCriterion c) { return c == StepCriterion::softening ? "softening" : "dynamical"; }

/// The criterion's constants, fixed for a run.
struct StepRule {
  StepCriterion criterion = StepCriterion::softening;
  double eta = 0.025;    // > 0
  double softening = 0;  // eps of gravity.softening (the softening criterion only)
};

/// sqrt(4 pi / 3): 1 / sqrt(G rho) of a uniform sphere of mass M and radius r is this times sqrt(r^3 / G M).
inline constexpr double kSqrtFourPiOverThree = 2.0466534158929770;

/// The criterion's dt for acceleration (ax, ay, az) and potential phi;
/// +infinity where there is no acceleration (the cap dt_max then applies).
template <class Real>
ORRERY_HDI double criterion_step(const StepRule& rule, Real ax, Real ay, Real az, Real phi) {
  const double a = xm::sqrt(xm::norm2(double(ax), double(ay), double(az)));
  if (!(a > 0)) return a == 0 ? HUGE_VAL : a;  // NaN stays NaN: the caller's error
  if (rule.criterion == StepCriterion::softening) return xm::sqrt(xm::div(2.0 * rule.eta * rule.softening, a));
  const double p = double(phi) < 0 ? -double(phi) : double(phi);
  return xm::div(xm::mul(rule.eta * kSqrtFourPiOverThree, xm::sqrt(p)), a);
}

/// The bin a particle's criterion asks for (bin_of_step of criterion_step):
/// one function for the host and the device integrators, so both choose the
/// same bin. Outside [0, deepest] when the step is below the deepest bin's or
/// not a number > 0 (the caller's error, naming the particle).
template <class Real>
ORRERY_HDI int wanted_bin_of(const StepRule& rule, Real ax, Real ay, Real az, Real phi, double dt_max, int deepest) {
  return bin_of_step(criterion_step(rule, ax, ay, az, phi), dt_max, deepest);
}

}  // namespace orrery::integrate
