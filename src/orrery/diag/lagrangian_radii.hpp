#pragma once
// Lagrangian radii: the radius about the centre of mass that encloses a
// given fraction of the total mass.
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

}  // namespace orrery::diag
