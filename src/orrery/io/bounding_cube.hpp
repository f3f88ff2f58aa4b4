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

/// A cube about the centre of mass (so that a plot of the whole domain is
/// centred on the system) holding every particle.
template <class Real>
std::array<double, 6> bounding_cube(const Particles<Real>& p) {
  double mass = 0, com[3] = {0, 0, 0};
  for (std::int64_t i = 0; i < p.size(); ++i) {
    mass += double(p.mass[i]);
    com[0] += double(p.mass[i]) * double(p.x[i]);
    com[1] += double(p.mass[i]) * double(p.y[i]);
    com[2] += double(p.mass[i]) * double(p.z[i]);
  }
  for (double& c : com) c = mass > 0 ? c / mass : 0.0;
  double half = 0;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    half = std::max({half, std::abs(double(p.x[i]) - com[0]), std::abs(double(p.y[i]) - com[1]),
                     std::abs(double(p.z[i]) - com[2])});
  }
  // 1 % margin so that no particle sits on the boundary; a single particle still gets a cube.
  half = half > 0 ? 1.01 * half : 1.0;
  return {com[0] - half, com[0] + half, com[1] - half, com[1] + half, com[2] - half, com[2] + half};
}

}  // namespace orrery::io
