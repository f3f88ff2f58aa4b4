#pragma once
// Lagrangian radii: the radius about the centre of mass that encloses a
// given fraction of the total mass.
#include <cstddef>
#include <span>
#include <vector>

#include "orrery/core/particles.hpp"

namespace orrery::diag {

/// The fractions the diagnostics log reports.
inline constexpr double kLagrangianFractions[] = {0.1, 0.5, 0.9};

/// For each fraction f in (0, 1], the smallest radius about the centre of
/// mass at which the enclosed mass (particles sorted by radius, ties by index)
/// reaches f times the total. O(N log N). Empty particles: all zeros.
template <class Real>
std::vector<double> lagrangian_radii(const Particles<Real>& p, std::span<const double> fractions);

/// The walk outwards behind lagrangian_radii, fed one particle at a time
/// in order of (squared radius, index), so that particles the ranks of an
/// MPI run hold apart give the same radii (driver/distributed_diagnostics).
class RadiusWalk {
 public:
  /// total: the particles' mass summed in index order (plain double sum).
  RadiusWalk(std::span<const double> fractions, double total);
  /// Whether every radius is known (no further particle changes any).
  bool done() const { return next_ == by_fraction_.size(); }
  /// The next particle outwards.
  void add(double r2, double mass);
  /// The radii; those not reached by the last particle are its radius.
  std::vector<double> radii();

 private:
  std::vector<double> targets_;          // fraction * total, by fraction
  std::vector<std::size_t> by_fraction_;  // the fractions' order, smallest first
  std::vector<double> radii_;
  std::size_t next_ = 0, taken_ = 0;
  double enclosed_ = 0, last_r2_ = 0;
};

}  // namespace orrery::diag
