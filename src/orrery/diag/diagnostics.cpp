#include "orrery/diag/diagnostics.hpp"

#include "orrery/diag/diagnostics_sums.hpp"
#include "orrery/diag/lagrangian_radii.hpp"

namespace orrery::diag {

template <class Real>
Diagnostics measure(const Particles<Real>& p, const std::vector<Real>& potential, double time, std::int64_t step,
                    double initial_energy) {
  DiagnosticsSums sums;
  for (std::int64_t i = 0; i < p.size(); ++i) sums.add(p, potential, i);
  return sums.row(time, step, initial_energy, lagrangian_radii(p, kLagrangianFractions));
}

template Diagnostics measure(const Particles<float>&, const std::vector<float>&, double, std::int64_t, double);
template Diagnostics measure(const Particles<double>&, const std::vector<double>&, double, std::int64_t, double);

}  // namespace orrery::diag
