#pragma once
// Test helpers for the initial-condition models: energies by direct
// summation (unsoftened, G = 1), centre of mass, mass-radius quantiles.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "orrery/core/particles.hpp"

namespace orrery::ic::testing {

struct Energies {
  double kinetic = 0;
  double potential = 0;
  double virial_ratio() const { return 2 * kinetic / -potential; }
  double total() const { return kinetic + potential; }
};

inline Energies energies(const Particles<double>& p) {
  Energies e;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    e.kinetic += 0.5 * p.mass[i] * (p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i] + p.vz[i] * p.vz[i]);
    for (std::int64_t j = i + 1; j < p.size(); ++j) {
      const double dx = p.x[i] - p.x[j], dy = p.y[i] - p.y[j], dz = p.z[i] - p.z[j];
      e.potential -= p.mass[i] * p.mass[j] / std::sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return e;
}

/// Mass-weighted mean of position and velocity: {x, y, z, vx, vy, vz}.
inline std::array<double, 6> centre_of_mass(const Particles<double>& p) {
  std::array<double, 6> c{};
  double m = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    const double f[6] = {p.x[i], p.y[i], p.z[i], p.vx[i], p.vy[i], p.vz[i]};
    for (int k = 0; k < 6; ++k) c[k] += p.mass[i] * f[k];
    m += p.mass[i];
  }
  for (auto& v : c) v /= m;
  return c;
}

/// The radius enclosing `fraction` of the particles (equal masses), about the origin.
inline double radius_enclosing(const Particles<double>& p, double fraction) {
  std::vector<double> r(static_cast<std::size_t>(p.size()));
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = std::sqrt(p.x[i] * p.x[i] + p.y[i] * p.y[i] + p.z[i] * p.z[i]);
  const auto k = static_cast<std::size_t>(fraction * static_cast<double>(r.size()));
  std::nth_element(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(k), r.end());
  return r[k];
}

inline bool same_bits(const Particles<double>& a, const Particles<double>& b) {
  const auto eq = [](const std::vector<double>& u, const std::vector<double>& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(double)) == 0;
  };
  return eq(a.x, b.x) && eq(a.y, b.y) && eq(a.z, b.z) && eq(a.vx, b.vx) && eq(a.vy, b.vy) && eq(a.vz, b.vz) &&
         eq(a.mass, b.mass) && a.id == b.id;
}

}  // namespace orrery::ic::testing
