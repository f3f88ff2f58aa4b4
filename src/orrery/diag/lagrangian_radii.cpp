#include "orrery/diag/lagrangian_radii.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "orrery/diag/conserved.hpp"

namespace orrery::diag {

template <class Real>
std::vector<double> lagrangian_radii(const Particles<Real>& p, std::span<const double> fractions) {
  return p.size() == 0 ? std::vector<double>(fractions.size(), 0.0) : lagrangian_radii(p, fractions, centre_of_mass(p));
}

template <class Real>
std::vector<double> lagrangian_radii(const Particles<Real>& p, std::span<const double> fractions, const Vec3& c) {
  std::vector<double> radii(fractions.size(), 0.0);
  const auto n = static_cast<std::size_t>(p.size());
  if (n == 0) return radii;
  std::vector<double> r2(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = p.x[i] - c[0], dy = p.y[i] - c[1], dz = p.z[i] - c[2];
    r2[i] = dx * dx + dy * dy + dz * dz;
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return r2[a] < r2[b] || (r2[a] == r2[b] && a < b); });
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += p.mass[i];
  // Walk outwards once; the fractions may come in any order.
  std::vector<std::size_t> by_fraction(fractions.size());
  std::iota(by_fraction.begin(), by_fraction.end(), std::size_t{0});
  std::sort(by_fraction.begin(), by_fraction.end(), [&](std::size_t a, std::size_t b) { return fractions[a] < fractions[b]; });
  double enclosed = 0;
  std::size_t k = 0, next = 0;
  for (; next < by_fraction.size(); ++next) {
    const double target = fractions[by_fraction[next]] * total;
    while (k < n && (enclosed < target * (1 - 1e-12) || k == 0)) enclosed += p.mass[order[k++]];
    radii[by_fraction[next]] = std::sqrt(r2[order[k - 1]]);
  }
  return radii;
}

template <class Real>
Vec3 density_centre(const Particles<Real>& p, std::int64_t stop_count) {
  const auto n = static_cast<std::size_t>(p.size());
  if (n == 0) return Vec3{0, 0, 0};
  Vec3 c = centre_of_mass(p);
  std::vector<std::size_t> inside(n), kept;
  for (std::size_t i = 0; i < n; ++i) inside[i] = i;
  double r2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = p.x[i] - c[0], dy = p.y[i] - c[1], dz = p.z[i] - c[2];
    r2 = std::max(r2, dx * dx + dy * dy + dz * dz);
  }
  while (static_cast<std::int64_t>(inside.size()) >= std::max<std::int64_t>(stop_count, 1)) {
    r2 *= 0.975 * 0.975;
    kept.clear();
    double m = 0, sx = 0, sy = 0, sz = 0;
    for (const std::size_t i : inside) {
      const double dx = p.x[i] - c[0], dy = p.y[i] - c[1], dz = p.z[i] - c[2];
      if (dx * dx + dy * dy + dz * dz > r2) continue;
      kept.push_back(i);
      m += p.mass[i], sx += p.mass[i] * p.x[i], sy += p.mass[i] * p.y[i], sz += p.mass[i] * p.z[i];
    }
    if (!(m > 0)) break;  // the sphere emptied (or massless particles): keep the last centre
    c = Vec3{sx / m, sy / m, sz / m};
    inside.swap(kept);
  }
  return c;
}

template std::vector<double> lagrangian_radii(const Particles<float>&, std::span<const double>);
template std::vector<double> lagrangian_radii(const Particles<double>&, std::span<const double>);
template std::vector<double> lagrangian_radii(const Particles<float>&, std::span<const double>, const Vec3&);
template std::vector<double> lagrangian_radii(const Particles<double>&, std::span<const double>, const Vec3&);
template Vec3 density_centre(const Particles<float>&, std::int64_t);
template Vec3 density_centre(const Particles<double>&, std::int64_t);

}  // namespace orrery::diag
