#include "orrery/ic/sampling.hpp"

#include <cmath>

#include "orrery/core/compensated_sum.hpp"

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

void place_isotropic(Particles<double>& p, std::int64_t i, double r, const std::array<double, 3>& n, double v,
                     const std::array<double, 3>& nv, double mass) {
  p.x[i] = r * n[0];
  p.y[i] = r * n[1];
  p.z[i] = r * n[2];
  p.vx[i] = v * nv[0];
  p.vy[i] = v * nv[1];
  p.vz[i] = v * nv[2];
  p.mass[i] = mass;
  p.id[i] = static_cast<std::uint64_t>(i) + 1;
}

template <class Real>
void move_to_centre_of_mass(Particles<Real>& p) {
  CompensatedSum m, c[6];
  const std::array<std::vector<Real>*, 6> fields{&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  for (std::int64_t i = 0; i < p.size(); ++i) {
    m += p.mass[i];
    for (int k = 0; k < 6; ++k) c[k] += static_cast<double>(p.mass[i]) * (*fields[k])[i];
  }
  for (int k = 0; k < 6; ++k) {
    const auto shift = static_cast<Real>(c[k].value() / m.value());
    for (auto& v : *fields[k]) v -= shift;
  }
}

template void move_to_centre_of_mass(Particles<float>&);
template void move_to_centre_of_mass(Particles<double>&);

}  // namespace orrery::ic
