#pragma once
// The quantities a gravitational N-body system conserves, summed in double
// with compensated sums (so their drift measures the integrator, not the
// summation). G = 1 code units.
#include <array>
#include <vector>

#include "orrery/core/particles.hpp"

namespace orrery::diag {

using Vec3 = std::array<double, 3>;

// Each sum's term of particle i: the sums below add them in index order, and
// so does a run whose particles the ranks hold apart (diagnostics_sums.hpp).
template <class Real>
double kinetic_term(const Particles<Real>& p, std::int64_t i) {
  const double vx = p.vx[i], vy = p.vy[i], vz = p.vz[i];
  return 0.5 * p.mass[i] * (vx * vx + vy * vy + vz * vz);
}
template <class Real>
double potential_term(const Particles<Real>& p, const std::vector<Real>& potential, std::int64_t i) {
  return 0.5 * p.mass[i] * static_cast<double>(potential[i]);
}
template <class Real>
Vec3 momentum_term(const Particles<Real>& p, std::int64_t i) {
  const double m = p.mass[i];
  return {m * p.vx[i], m * p.vy[i], m * p.vz[i]};
}
template <class Real>
Vec3 angular_momentum_term(const Particles<Real>& p, std::int64_t i) {
  const double m = p.mass[i], x = p.x[i], y = p.y[i], z = p.z[i];
  const double vx = p.vx[i], vy = p.vy[i], vz = p.vz[i];
  return {m * (y * vz - z * vy), m * (z * vx - x * vz), m * (x * vy - y * vx)};
}
template <class Real>
Vec3 mass_moment_term(const Particles<Real>& p, std::int64_t i) {
  const double m = p.mass[i];
  return {m * p.x[i], m * p.y[i], m * p.z[i]};
}

/// sum 1/2 m v^2
template <class Real>
double kinetic_energy(const Particles<Real>& p);

/// 1/2 sum m_i phi_i, from the specific potentials of a solver (so softened
/// as the solver is). potential.size() == p.size().
template <class Real>
double potential_energy(const Particles<Real>& p, const std::vector<Real>& potential);

/// sum m v
template <class Real>
Vec3 linear_momentum(const Particles<Real>& p);

/// sum m x cross v (about the origin)
template <class Real>
Vec3 angular_momentum(const Particles<Real>& p);

/// sum m x / sum m
template <class Real>
Vec3 centre_of_mass(const Particles<Real>& p);

/// (E - E0) / |E0|; NaN if E0 is 0 or NaN.
double relative_energy_error(double energy, double initial_energy);

/// 2K / |W|: 1 in virial equilibrium.
double virial_ratio(double kinetic, double potential);

}  // namespace orrery::diag
