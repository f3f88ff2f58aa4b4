#include "orrery/diag/lagrangian_radii.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "orrery/diag/conserved.hpp"

namespace orrery::diag {

RadiusWalk::RadiusWalk(std::span<const double> fractions, double total)
    : targets_(fractions.size()), by_fraction_(fractions.size()), radii_(fractions.size(), 0.0) {
  // Walk outwards once; the fractions may come in any order.
  std::iota(by_fraction_.begin(), by_fraction_.end(), std::size_t{0});
  std::sort(by_fraction_.begin(), by_fraction_.end(),
            [&](std::size_t a, std::size_t b) { return fractions[a] < fractions[b]; });
  for (std::size_t k = 0; k < fractions.size(); ++k) targets_[k] = fractions[by_fraction_[k]] * total;
}

void RadiusWalk::add(double r2, double mass) {
  enclosed_ += mass;
  ++taken_;
  last_r2_ = r2;
  // A fraction is reached by the first particle at which the enclosed mass is within 1e-12 of it.
  while (next_ < by_fraction_.size() && !(enclosed_ < targets_[next_] * (1 - 1e-12))) {
    radii_[by_fraction_[next_]] = std::sqrt(last_r2_);
    ++next_;
  }
}

std::vector<double> RadiusWalk::radii() {
  for (; taken_ > 0 && next_ < by_fraction_.size(); ++next_) radii_[by_fraction_[next_]] = std::sqrt(last_r2_);
  return radii_;
}

template <class Real>
std::vector<double> lagrangian_radii(const Particles<Real>& p, std::span<const double> fractions) {
  return p.size() == 0 ? std::vector<double>(fractions.size(), 0.0) : lagrangian_radii(p, fractions, centre_of_mass(p));
}

template <class Real>
std::vector<double> lagrangian_radii(const Particles<Real>& p, std::span<const double> fractions, const Vec3& c) {
  const auto n = static_cast<std::size_t>(p.size());
  if (n == 0) return std::vector<double>(fractions.size(), 0.0);
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
  RadiusWalk walk(fractions, total);
  for (std::size_t k = 0; k < n && !walk.done(); ++k) walk.add(r2[order[k]], p.mass[order[k]]);
  return walk.radii();
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
