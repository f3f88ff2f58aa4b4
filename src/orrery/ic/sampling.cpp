#include "orrery/ic/sampling.hpp"

#include <cmath>

namespace orrery::ic {

double cube_root_unit(double x) {
  // Halving the exponent range first keeps the Newton start within a factor
  // 2 of the root, after which 8 steps reach full precision (checked in the test).
  double t = 1.0;
  for (double y = x; y < 0.125; y *= 8.0) t *= 0.5;
  for (int k = 0; k < 8; ++k) t = t - (t * t * t - x) / (3.0 * t * t);
  return t;
}

std::array<double, 3> isotropic_unit_vector(Rng& rng) {
  for (;;) {
    const double x = 2.0 * rng.uniform() - 1.0;
    const double y = 2.0 * rng.uniform() - 1.0;
    const double z = 2.0 * rng.uniform() - 1.0;
    const double s = x * x + y * y + z * z;
    if (s <= 1.0 && s > 1e-6) {
      const double r = std::sqrt(s);
      return {x / r, y / r, z / r};
    }
  }
}

GeneratedParticle isotropic_particle(std::int64_t i, double r, const std::array<double, 3>& n, double v,
                                     const std::array<double, 3>& nv, double mass) {
  return {r * n[0], r * n[1], r * n[2], v * nv[0], v * nv[1], v * nv[2], mass, static_cast<std::uint64_t>(i) + 1};
}

template <class Real>
void CentreOfMass::shift(Particles<Real>& p) const {
  const std::array<std::vector<Real>*, 6> fields{&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  const auto c = centre();
  for (int k = 0; k < 6; ++k) {
    const auto shift = static_cast<Real>(c[k]);
    for (auto& v : *fields[k]) v -= shift;
  }
}

template <class Real>
void move_to_centre_of_mass(Particles<Real>& p) {
  CentreOfMass sums;
  for (std::int64_t i = 0; i < p.size(); ++i)
    sums.add(p.mass[i], {p.x[i], p.y[i], p.z[i], p.vx[i], p.vy[i], p.vz[i]});
  sums.shift(p);
}

template void CentreOfMass::shift(Particles<float>&) const;
template void CentreOfMass::shift(Particles<double>&) const;
template void move_to_centre_of_mass(Particles<float>&);
template void move_to_centre_of_mass(Particles<double>&);

}  // namespace orrery::ic
