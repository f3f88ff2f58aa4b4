#pragma once
// One row of the diagnostics log: the state of the system at one time.
#include <cstdint>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/diag/conserved.hpp"

namespace orrery::diag {

struct Diagnostics {
  double time = 0;
  std::int64_t step = 0;
  double kinetic = 0;
  double potential = 0;
  double total = 0;
  double relative_energy_error = 0;  // against the initial energy
  double virial_ratio = 0;           // 2K / |W|
  Vec3 momentum{};
  Vec3 angular_momentum{};
  std::vector<double> lagrangian_radii;  // at kLagrangianFractions
};

/// Measures everything from the particles and their potentials (the
/// solver's, softened as the solver is). initial_energy NaN: this is the
/// first measurement, and the relative energy error is 0.
template <class Real>
Diagnostics measure(const Particles<Real>& p, const std::vector<Real>& potential, double time, std::int64_t step,
                    double initial_energy);

}  // namespace orrery::diag
