#pragma once
// The cube a snapshot's /Parameters/BoundingBox states: every particle inside,
// for readers that need a finite domain. yt's GADGET frontend takes its
// domain from Header.BoxSize as [0, BoxSize]^3, which cannot hold an isolated
// system centred on the origin, and with BoxSize = 0 it cannot draw a plot
// ("unitary" is undefined); yt.load(..., bounding_box=BoundingBox) works
// (docs/snapshots.md). Code length units, rows x, y, z of (low, high).
#include <algorithm>
#include <array>
#include <cmath>

#include "orrery/core/particles.hpp"

namespace orrery::io {

/// The centre of bounding_cube: the centre of mass, summed in index order
/// one particle at a time (an MPI run adds them as rank 0 receives them).
class CubeCentre {
 public:
  template <class Real>
  void add(const Particles<Real>& p, std::int64_t i) {
    mass_ += double(p.mass[i]);
    sum_[0] += double(p.mass[i]) * double(p.x[i]);
    sum_[1] += double(p.mass[i]) * double(p.y[i]);
    sum_[2] += double(p.mass[i]) * double(p.z[i]);
  }
  std::array<double, 3> centre() const {
    std::array<double, 3> c;
    for (int a = 0; a < 3; ++a) c[a] = mass_ > 0 ? sum_[a] / mass_ : 0.0;
    return c;
  }

 private:
  double mass_ = 0, sum_[3] = {0, 0, 0};
};

/// The largest distance along an axis of a particle from `c` (the maximum
/// over any split of the particles is the maximum of the parts' maxima).
template <class Real>
double farthest_from(const Particles<Real>& p, const std::array<double, 3>& c) {
  double half = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    half = std::max({half, std::abs(double(p.x[i]) - c[0]), std::abs(double(p.y[i]) - c[1]),
                     std::abs(double(p.z[i]) - c[2])});
  }
  return half;
}

/// The cube about `c` reaching `half` (farthest_from) and a little beyond.
inline std::array<double, 6> cube_about(const std::array<double, 3>& c, double half) {
  // 1 % margin so that no particle sits on the boundary; a single particle still gets a cube.
  half = half > 0 ? 1.01 * half : 1.0;
  return {c[0] - half, c[0] + half, c[1] - half, c[1] + half, c[2] - half, c[2] + half};
}

/// A cube about the centre of mass (so that a plot of the whole domain is
/// centred on the system) holding every particle.
template <class Real>
std::array<double, 6> bounding_cube(const Particles<Real>& p) {
  CubeCentre centre;
  for (std::int64_t i = 0; i < p.size(); ++i) centre.add(p, i);
  const auto c = centre.centre();
  return cube_about(c, farthest_from(p, c));
}

}  // namespace orrery::io
