#pragma once
// Particle sets for tree tests: random and structured, including the
// degenerate inputs of DESIGN §1 contract 7.
#include <string>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/core/rng.hpp"

namespace orrery::testing {

struct NamedInput {
  std::string name;
  Particles<float> particles;
};

inline Particles<float> make_particles(std::size_t n) {
  Particles<float> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.mass[i] = 1.0f / float(n);
    p.id[i] = i + 1;
  }
  return p;
}

/// The same particles in precision Real (positions and masses only).
template <class Real>
Particles<Real> converted(const Particles<float>& p) {
  Particles<Real> q(static_cast<std::size_t>(p.size()));
  for (std::int64_t i = 0; i < p.size(); ++i) {
    q.x[i] = p.x[i];
    q.y[i] = p.y[i];
    q.z[i] = p.z[i];
    q.mass[i] = p.mass[i];
  }
  return q;
}

/// Uniform random points in the unit cube.
inline Particles<float> uniform_cube(std::size_t n, std::uint64_t seed) {
  Rng r(seed);
  auto p = make_particles(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = float(r.uniform());
    p.y[i] = float(r.uniform());
    p.z[i] = float(r.uniform());
  }
  return p;
}

/// Tight pairs spread over the unit cube: with leaf capacity 1 each pair makes
/// a chain of single children many levels deep, far more nodes than particles.
inline Particles<float> close_pairs(std::size_t pairs, std::uint64_t seed) {
  auto p = uniform_cube(2 * pairs, seed);
  for (std::size_t i = 0; i < pairs; ++i) {
    p.x[2 * i + 1] = p.x[2 * i] + 3e-6f;
    p.y[2 * i + 1] = p.y[2 * i];
    p.z[2 * i + 1] = p.z[2 * i];
  }
  return p;
}

/// Two far tight clumps, 5/13 of the particles each (long chains of big
/// single-child nodes, mostly empty child ranges), and the last 3/13 copies of
/// one point (an oversized leaf of one key for capacities below their number).
inline Particles<float> clumps_and_duplicates(std::size_t n, std::uint64_t seed) {
  auto p = uniform_cube(n, seed);
  const std::size_t a = n * 5 / 13, b = n * 10 / 13;
  for (std::size_t i = 0; i < n; ++i) {
    const float off = i < a ? 0.0f : (i < b ? 1000.0f : 500.0f);
    const float scale = i < b ? 1e-3f : 0.0f;
    p.x[i] = off + scale * p.x[i];
    p.y[i] = off + scale * p.y[i];
    p.z[i] = scale * p.z[i];
  }
  return p;
}

/// Random points of a 4 x 4 x 4 lattice plus one far point: runs of equal
/// keys of every length around the capacities, next to cells of other keys.
inline Particles<float> lattice_duplicates(std::size_t n, std::uint64_t seed) {
  Rng r(seed);
  auto p = make_particles(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = float(r.next_u64() % 4);
    p.y[i] = float(r.next_u64() % 4);
    p.z[i] = float(r.next_u64() % 4);
  }
  p.x[0] = p.y[0] = p.z[0] = 1000.0f;
  return p;
}

/// The degenerate and structured inputs every tree backend must handle.
inline std::vector<NamedInput> structured_inputs() {
  std::vector<NamedInput> v;
  v.push_back({"uniform_1000", uniform_cube(1000, 11)});
  {
    auto p = make_particles(300);  // all at one point
    for (std::size_t i = 0; i < 300; ++i) p.x[i] = p.y[i] = p.z[i] = 0.25f;
    v.push_back({"one_point", p});
  }
  {
    auto p = uniform_cube(600, 12);  // two tight clumps far apart
    for (std::size_t i = 0; i < 600; ++i) {
      const float off = i < 300 ? 0.0f : 1000.0f;
      p.x[i] = off + 1e-4f * p.x[i];
      p.y[i] = off + 1e-4f * p.y[i];
      p.z[i] = 1e-4f * p.z[i];
    }
    v.push_back({"two_clumps", p});
  }
  {
    auto p = uniform_cube(500, 13);  // flat disk
    for (std::size_t i = 0; i < 500; ++i) p.z[i] = 0.0f;
    v.push_back({"flat_disk", p});
  }
  {
    auto p = uniform_cube(400, 14);  // on a line
    for (std::size_t i = 0; i < 400; ++i) p.y[i] = p.z[i] = 0.5f;
    v.push_back({"line", p});
  }
  v.push_back({"single", uniform_cube(1, 15)});
  v.push_back({"pair", uniform_cube(2, 16)});
  {
    auto p = uniform_cube(500, 17);  // one far outside the rest
    p.x[0] = 1.0e6f;
    v.push_back({"outlier", p});
  }
  return v;
}

}  // namespace orrery::testing
