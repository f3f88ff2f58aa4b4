#pragma once
// Checks a particle set read from a file (contract 7): finite positions and
// velocities, finite positive masses, unique IDs. Throws InputError
// "<context>: <field>: <problem>" naming the first offending row.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"

namespace orrery::io {

/// The names the fields carry in the file, for the messages.
struct ParticleFieldNames {
  std::string positions = "PartType1/Coordinates";
  std::string velocities = "PartType1/Velocities";
  std::string masses = "PartType1/Masses";
  std::string ids = "PartType1/ParticleIDs";
};

/// `first_row`: the number of p's first row in the file (rows of it read apart).
template <class Real>
void validate_particles(const Particles<Real>& p, const std::string& context, const ParticleFieldNames& names = {},
                        std::int64_t first_row = 0) {
  const auto fail = [&](const std::string& field, std::int64_t row, const std::string& problem) {
    throw InputError(context + ": " + field + ": row " + std::to_string(first_row + row) + " " + problem);
  };
  const auto finite3 = [](Real a, Real b, Real c) { return std::isfinite(a) && std::isfinite(b) && std::isfinite(c); };
  for (std::int64_t i = 0; i < p.size(); ++i) {
    if (!finite3(p.x[i], p.y[i], p.z[i])) fail(names.positions, i, "is not finite (NaN or Inf)");
    if (!finite3(p.vx[i], p.vy[i], p.vz[i])) fail(names.velocities, i, "is not finite (NaN or Inf)");
    if (!(p.mass[i] > 0) || !std::isfinite(p.mass[i]))
      fail(names.masses, i, "has mass " + std::to_string(p.mass[i]) + " (masses must be finite and > 0)");
  }
  std::vector<std::uint64_t> ids(p.id);
  std::sort(ids.begin(), ids.end());
  const auto dup = std::adjacent_find(ids.begin(), ids.end());
  if (dup != ids.end())
    throw InputError(context + ": " + names.ids + ": ID " + std::to_string(*dup) + " occurs more than once (IDs must be unique)");
}

/// Checks that particles read or generated in double survive the conversion
/// to a run's precision Real, in validate_particles' words: a position or
/// velocity beyond Real's largest finite value would become Inf, and a mass
/// below its smallest normal value would lose its digits or become 0. So a
/// single-precision run refuses them when they are loaded, not at its first
/// force evaluation in other words.
/// `first_row`: as validate_particles'.
template <class Real>
void validate_range(const Particles<double>& p, const std::string& context, const ParticleFieldNames& names = {},
                    std::int64_t first_row = 0) {
  if constexpr (!std::is_same_v<Real, double>) {
    constexpr double largest = std::numeric_limits<Real>::max(), smallest = std::numeric_limits<Real>::min();
    const auto fail = [&](const std::string& field, std::int64_t row, double v, const char* bound, double limit) {
      char text[224];
      std::snprintf(text, sizeof text, "row %lld is %g, %s of single precision (%g); accepted: gravity.precision = "
                    "\"double\", or the values rescaled into its range",
                    static_cast<long long>(first_row + row), v, bound, limit);
      throw InputError(context + ": " + field + ": " + text);
    };
    constexpr const char* above = "above the largest value";
    for (std::int64_t i = 0; i < p.size(); ++i) {
      for (const double v : {p.x[i], p.y[i], p.z[i]})
        if (std::abs(v) > largest) fail(names.positions, i, v, above, largest);
      for (const double v : {p.vx[i], p.vy[i], p.vz[i]})
        if (std::abs(v) > largest) fail(names.velocities, i, v, above, largest);
      if (p.mass[i] > largest) fail(names.masses, i, p.mass[i], above, largest);
      if (p.mass[i] < smallest) fail(names.masses, i, p.mass[i], "below the smallest normal value", smallest);
    }
  }
}

}  // namespace orrery::io
