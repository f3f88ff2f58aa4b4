#pragma once
// Lagrangian radii: the radius about a centre (the centre of mass, or the
// density centre) that encloses a given fraction of the total mass.
//
// About the centre of mass, the inner radii of an extended halo are noise:
// a Hernquist sphere truncated at 100 scale radii has <r^2> = 2 a r_cut, so
// with N = 4000 its centre of mass sits ~0.05 from the densest point, beyond
// the 1 % radius (a / 9 = 0.037) itself, and it wanders as the outskirts
// orbit. The density centre (shrinking spheres) follows the cusp.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/diag/conserved.hpp"

namespace orrery::diag {

/// The fractions the diagnostics log reports.
inline constexpr double kLagrangianFractions[] = {0.1, 0.5, 0.9};

/// For each fraction f in (0, 1], the smallest radius about the centre of
/// mass at which the enclosed mass (particles sorted by radius, ties by index)
/// reaches f times the total. O(N log N). Empty particles: all zeros.
template <class Real>
std::vector<double> lagrangian_radii(const Particles<Real>& p, std::span<const double> fractions);

/// The same about `centre`.
template <class Real>
std::vector<double> lagrangian_radii(const Particles<Real>& p, std::span<const double> fractions, const Vec3& centre);

/// The density centre by shrinking spheres (Power et al. 2003, MNRAS 338,
/// 14, section 2.2): from the centre of mass and a sphere holding every
/// particle, the centre of mass of the particles inside a sphere 2.5 %
/// smaller about the last centre, until fewer than `stop_count` (>= 1) remain.
/// Deterministic (sums in index order). Empty particles: the origin.
template <class Real>
Vec3 density_centre(const Particles<Real>& p, std::int64_t stop_count = 100);

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
