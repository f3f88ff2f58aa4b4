#include "orrery/diag/conserved.hpp"

#include <cmath>
#include <limits>

#include "orrery/core/compensated_sum.hpp"

namespace orrery::diag {

namespace {
Vec3 values(const CompensatedSum (&s)[3]) { return {s[0].value(), s[1].value(), s[2].value()}; }

void add(CompensatedSum (&s)[3], const Vec3& term) {
  for (int a = 0; a < 3; ++a) s[a] += term[a];
}

}  // namespace

template <class Real>
double kinetic_energy(const Particles<Real>& p) {
  CompensatedSum k;
  for (std::int64_t i = 0; i < p.size(); ++i) k += kinetic_term(p, i);
  return k.value();
}

template <class Real>
double potential_energy(const Particles<Real>& p, const std::vector<Real>& potential) {
  CompensatedSum w;
  for (std::int64_t i = 0; i < p.size(); ++i) w += potential_term(p, potential, i);
  return w.value();
}

template <class Real>
Vec3 linear_momentum(const Particles<Real>& p) {
  CompensatedSum s[3];
  for (std::int64_t i = 0; i < p.size(); ++i) add(s, momentum_term(p, i));
  return values(s);
}

template <class Real>
Vec3 angular_momentum(const Particles<Real>& p) {
  CompensatedSum s[3];
  for (std::int64_t i = 0; i < p.size(); ++i) add(s, angular_momentum_term(p, i));
  return values(s);
}

template <class Real>
Vec3 centre_of_mass(const Particles<Real>& p) {
  CompensatedSum s[3], mass;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    mass += p.mass[i];
    add(s, mass_moment_term(p, i));
  }
  const Vec3 c = values(s);
  return {c[0] / mass.value(), c[1] / mass.value(), c[2] / mass.value()};
}

double relative_energy_error(double energy, double initial_energy) {
  if (!(initial_energy != 0) || std::isnan(initial_energy)) return std::numeric_limits<double>::quiet_NaN();
  return (energy - initial_energy) / std::abs(initial_energy);
}

double virial_ratio(double kinetic, double potential) { return 2.0 * kinetic / std::abs(potential); }

#define ORRERY_DIAG_INSTANTIATE(Real)                                                   \
  template double kinetic_energy(const Particles<Real>&);                               \
  template double potential_energy(const Particles<Real>&, const std::vector<Real>&);   \
  template Vec3 linear_momentum(const Particles<Real>&);                                \
  template Vec3 angular_momentum(const Particles<Real>&);                               \
  template Vec3 centre_of_mass(const Particles<Real>&);
ORRERY_DIAG_INSTANTIATE(float)
ORRERY_DIAG_INSTANTIATE(double)
#undef ORRERY_DIAG_INSTANTIATE

}  // namespace orrery::diag
