#pragma once
// What a run watches so that it notices when it goes wrong (issue 17):
//  - the step: integration.dt against the step the time-step criterion
//    (step_criterion.hpp) gives the fastest particle, from an evaluation's
//    accelerations and potentials. The softening criterion sqrt(2 eta eps/|a|)
//    (GADGET-4's, eta = 0.025) where the run is softened, the dynamical one
//    (Zemp et al. 2007: eta sqrt(4 pi / 3) sqrt(|phi|) / |a|), which stays
//    defined, where eps = 0. A run warns when dt is larger: at its start and
//    at the first diagnostics row where it happens (a Kepler orbit of
//    eccentricity 0.99 looks harmless at apocentre, where it starts);
//  - the energy: a diagnostics row whose |dE/E| passes
//    integration.max_energy_error stops the run (driver/run.cpp: a final
//    checkpoint, then EnergyErrorExceeded).
// Messages name the step, the time, the particle and the values, and what
// would help. docs/time_steps.md says the same for users.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/diag/diagnostics.hpp"
#include "orrery/integrate/step_criterion.hpp"

namespace orrery::integrate {

/// GADGET-4's ErrTolIntAccuracy, the eta of both criteria here.
inline constexpr double kWatchEta = 0.025;

/// The criterion a run of softening `eps` is watched with (eta = kWatchEta):
/// the softening criterion for eps > 0, the dynamical one for eps = 0.
StepRule watched_rule(double eps);

/// The smallest criterion step over the particles and the particle that
/// asks for it (the lowest index among equals); step = +infinity, particle
/// -1 when no particle is accelerated.
struct SmallestStep {
  double step = HUGE_VAL;
  std::int64_t particle = -1;
};

/// From the accelerations and potentials of one evaluation (N each).
template <class Real>
SmallestStep smallest_step(const StepRule& rule, const Accelerations<Real>& a, const std::vector<Real>& potential);

/// The warning when dt is larger than the smallest criterion step at
/// (time, step); none otherwise.
std::optional<std::string> step_warning(double dt, const StepRule& rule, const SmallestStep& smallest, double time,
                                        std::int64_t step);

/// The error of a diagnostics row whose |dE/E| passes `limit` (> 0; 0: no
/// limit, never an error); none otherwise.
std::optional<std::string> energy_error_excess(const diag::Diagnostics& row, double limit);

}  // namespace orrery::integrate
