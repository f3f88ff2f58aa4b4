#include "orrery/diag/diagnostics.hpp"

#include <cmath>

#include "orrery/diag/lagrangian_radii.hpp"

namespace orrery::diag {

template <class Real>
Diagnostics measure(const Particles<Real>& p, const std::vector<Real>& potential, double time, std::int64_t step,
                    double initial_energy) {
  Diagnostics d;
  d.time = time;
  d.step = step;
  d.kinetic = kinetic_energy(p);
  d.potential = potential_energy(p, potential);
  d.total = d.kinetic + d.potential;
  d.relative_energy_error = std::isnan(initial_energy) ? 0.0 : relative_energy_error(d.total, initial_energy);
  d.virial_ratio = virial_ratio(d.kinetic, d.potential);
  d.momentum = linear_momentum(p);
  d.angular_momentum = angular_momentum(p);
  d.lagrangian_radii = lagrangian_radii(p, kLagrangianFractions);
  return d;
}

template Diagnostics measure(const Particles<float>&, const std::vector<float>&, double, std::int64_t, double);
template Diagnostics measure(const Particles<double>&, const std::vector<double>&, double, std::int64_t, double);

}  // namespace orrery::diag
