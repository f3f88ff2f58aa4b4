#pragma once
// Stretching a model built in Henon units (G = M = 1) to total mass `mass`
// and length unit `length` (both in the run's code units, G = 1 there too):
// positions x length, velocities x sqrt(mass / length), masses x mass. The
// model's shape, virial ratio and orbits in units of its own dynamical time
// are unchanged. mass = length = 1 leaves the particles bit-identical.
#include <cmath>

#include "orrery/core/particles.hpp"

namespace orrery::ic {

inline void scale_model(Particles<double>& p, double mass, double length) {
  if (mass == 1.0 && length == 1.0) return;
  const double v = std::sqrt(mass / length);
  for (std::int64_t i = 0; i < p.size(); ++i) {
    p.x[i] *= length, p.y[i] *= length, p.z[i] *= length;
    p.vx[i] *= v, p.vy[i] *= v, p.vz[i] *= v;
    p.mass[i] *= mass;
  }
}

}  // namespace orrery::ic
