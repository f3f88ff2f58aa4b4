#pragma once
// Checks a particle set read from a file (contract 7): finite positions and
// velocities, finite positive masses, unique IDs. Throws InputError
// "<context>: <field>: <problem>" naming the first offending row.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
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

template <class Real>
void validate_particles(const Particles<Real>& p, const std::string& context, const ParticleFieldNames& names = {}) {
  const auto fail = [&](const std::string& field, std::int64_t row, const std::string& problem) {
    throw InputError(context + ": " + field + ": row " + std::to_string(row) + " " + problem);
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

}  // namespace orrery::io
