#pragma once
// The sums of a diagnostics row (diagnostics.hpp), added one particle at a
// time in index order: the terms and the order of diag::measure, so a run
// whose particles arrive in pieces (an MPI run gathering them to rank 0 a
// piece at a time, driver/distributed_diagnostics) gets the same bits as
// one process summing its arrays.
#include <cmath>
#include <cstdint>
#include <vector>

#include "orrery/core/compensated_sum.hpp"
#include "orrery/diag/conserved.hpp"
#include "orrery/diag/diagnostics.hpp"

namespace orrery::diag {

class DiagnosticsSums {
 public:
  /// Particle i of `p`, with its potential, after every particle of a lower index.
  template <class Real>
  void add(const Particles<Real>& p, const std::vector<Real>& potential, std::int64_t i) {
    kinetic_ += kinetic_term(p, i);
    potential_ += potential_term(p, potential, i);
    add3(momentum_, momentum_term(p, i));
    add3(angular_, angular_momentum_term(p, i));
    mass_ += p.mass[i];
    add3(moment_, mass_moment_term(p, i));
    plain_mass_ += p.mass[i];
  }

  /// centre_of_mass of the particles added.
  Vec3 centre_of_mass() const {
    const double m = mass_.value();
    return {moment_[0].value() / m, moment_[1].value() / m, moment_[2].value() / m};
  }
  /// Their mass as lagrangian_radii sums it (plain, in index order).
  double plain_mass() const { return plain_mass_; }

  /// The row of measure(), with the Lagrangian radii computed apart.
  Diagnostics row(double time, std::int64_t step, double initial_energy, std::vector<double> radii) const {
    Diagnostics d;
    d.time = time;
    d.step = step;
    d.kinetic = kinetic_.value();
    d.potential = potential_.value();
    d.total = d.kinetic + d.potential;
    d.relative_energy_error = std::isnan(initial_energy) ? 0.0 : relative_energy_error(d.total, initial_energy);
    d.virial_ratio = virial_ratio(d.kinetic, d.potential);
    d.momentum = values(momentum_);
    d.angular_momentum = values(angular_);
    d.lagrangian_radii = std::move(radii);
    return d;
  }

 private:
  static void add3(CompensatedSum (&s)[3], const Vec3& t) {
    for (int a = 0; a < 3; ++a) s[a] += t[a];
  }
  static Vec3 values(const CompensatedSum (&s)[3]) { return {s[0].value(), s[1].value(), s[2].value()}; }

  CompensatedSum kinetic_, potential_, momentum_[3], angular_[3], mass_, moment_[3];
  double plain_mass_ = 0;
};

}  // namespace orrery::diag
