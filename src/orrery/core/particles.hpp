#pragma once
// Particle state as structure-of-arrays, and the plain views the solvers take.
// Views are trivially copyable and carry no ownership: they are the host/device
// boundary (STYLE habit 2). Precision is a template parameter; float and double
// are both instantiated.
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace orrery {

/// Positions and masses of the sources of gravity. Pointers may be host or
/// device memory; the solver that takes the view says which.
template <class Real>
struct SourcesView {
  std::int64_t count = 0;
  const Real* x = nullptr;
  const Real* y = nullptr;
  const Real* z = nullptr;
  const Real* mass = nullptr;
};

/// Where a solver writes accelerations (overwritten, not accumulated) and,
/// when `potential` is non-null, the specific potential (G = 1 code units).
/// Must not alias the sources.
template <class Real>
struct AccelerationsView {
  std::int64_t count = 0;
  Real* ax = nullptr;
  Real* ay = nullptr;
  Real* az = nullptr;
  Real* potential = nullptr;  // optional
};

static_assert(std::is_trivially_copyable_v<SourcesView<float>>);
static_assert(std::is_trivially_copyable_v<AccelerationsView<float>>);

/// Owning particle state on the host.
template <class Real>
struct Particles {
  std::vector<Real> x, y, z, vx, vy, vz, mass;
  std::vector<std::uint64_t> id;

  Particles() = default;
  explicit Particles(std::size_t n) { resize(n); }

  std::int64_t size() const { return static_cast<std::int64_t>(x.size()); }
  void resize(std::size_t n) {
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &mass}) v->resize(n);
    id.resize(n);
  }
  SourcesView<Real> sources() const { return {size(), x.data(), y.data(), z.data(), mass.data()}; }
};

/// Accelerations and potentials on the host, the output of a force evaluation.
template <class Real>
struct Accelerations {
  std::vector<Real> ax, ay, az, potential;

  Accelerations() = default;
  explicit Accelerations(std::size_t n) : ax(n), ay(n), az(n), potential(n) {}
  std::int64_t size() const { return static_cast<std::int64_t>(ax.size()); }
  AccelerationsView<Real> view(bool with_potential = true) {
    return {size(), ax.data(), ay.data(), az.data(), with_potential ? potential.data() : nullptr};
  }
};

}  // namespace orrery
