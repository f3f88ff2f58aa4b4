#pragma once
// Helpers of the GPU tree tests: a Plummer sample, and the results of one
// walk over every target in sorted order, on the CPU (the reference) and on
// the GPU (over a device copy of the same tree).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "orrery/core/rng.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/bh/device_tree_copy.hpp"
#include "orrery/bh/tree_walk_gpu.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/bh/octree_build.hpp"
#include "support/test_inputs.hpp"
#include "orrery/bh/walk_all.hpp"
#include "orrery/gravity/tree_solver.hpp"

namespace orrery::testing {

/// A Plummer sphere (scale radius 1, truncated at 99.9 % of the mass), equal masses.
inline Particles<float> plummer(std::size_t n, std::uint64_t seed) {
  Rng r(seed);
  auto p = testing::make_particles(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = 1e-6 + 0.998 * r.uniform();
    const double rad = 1.0 / std::sqrt(std::pow(u, -2.0 / 3.0) - 1.0);
    const double cz = 2.0 * r.uniform() - 1.0, phi = 6.283185307179586 * r.uniform();
    const double s = std::sqrt(1.0 - cz * cz);
    p.x[i] = float(rad * s * std::cos(phi));
    p.y[i] = float(rad * s * std::sin(phi));
    p.z[i] = float(rad * cz);
  }
  return p;
}

/// One walk's output per sorted target.
template <class Real>
struct WalkResults {
  std::vector<Real> ax, ay, az, pot;
  std::vector<std::uint32_t> visits, cells, particles;
  explicit WalkResults(std::size_t n) : ax(n), ay(n), az(n), pot(n), visits(n), cells(n), particles(n) {}
};

/// The CPU TreeSolver's walk (bh::walk_all) with potentials.
template <class Real>
WalkResults<Real> cpu_walk(const bh::Octree<Real>& t, const bh::TreeSolverConfig& c) {
  const std::size_t n = t.x.size();
  WalkResults<Real> r(n);
  std::vector<InteractionCounts> pt(n);
  bh::walk_all(t, c, true, r.ax.data(), r.ay.data(), r.az.data(), r.pot.data(), pt.data());
  for (std::size_t i = 0; i < n; ++i) {
    r.visits[i] = static_cast<std::uint32_t>(pt[i].node_visits);
    r.cells[i] = static_cast<std::uint32_t>(pt[i].cell_interactions);
    r.particles[i] = static_cast<std::uint32_t>(pt[i].particle_interactions);
  }
  return r;
}

/// Node visits of each target's own walk (walk_target on the host): what the
/// independent GPU walk must report.
template <class Real>
std::vector<std::uint32_t> own_visits(const bh::Octree<Real>& t) {
  const auto v = t.view();
  const PlummerSoftening<Real> soft(Real(0.05));
  std::vector<std::uint32_t> out(t.x.size());
  for (std::int32_t i = 0; i < std::int32_t(out.size()); ++i) {
    bh::WalkCounts c;
    bh::walk_target<false, bh::Multipole::monopole, MathMode::exact>(v, soft, i, c);
    out[i] = c.node_visits;
  }
  return out;
}

/// walk_target (the reference of every walk) for every target of a tree with
/// the relative opening, with the targets' scales (sorted order), Plummer
/// softening c.softening, potentials on.
template <bh::Multipole M, MathMode Mode, class Real>
WalkResults<Real> reference_walk(const bh::Octree<Real>& t, const bh::TreeSolverConfig& c,
                                 const std::vector<Real>& scale) {
  const auto v = t.view();
  const PlummerSoftening<Real> soft(static_cast<Real>(c.softening));
  WalkResults<Real> r(t.x.size());
  for (std::int32_t i = 0; i < std::int32_t(t.x.size()); ++i) {
    bh::WalkCounts k;
    const auto a = bh::walk_target<true, M, Mode>(v, soft, i, k, scale[i]);
    r.ax[i] = a.ax, r.ay[i] = a.ay, r.az[i] = a.az, r.pot[i] = a.pot;
    r.visits[i] = k.node_visits, r.cells[i] = k.cell_interactions, r.particles[i] = k.particle_interactions;
  }
  return r;
}

/// The GPU walk over `d` with `p` (potentials on), reading `scale` (sorted
/// order) when given. Outputs are poisoned with NaN / 0xFFFFFFFF first, so
/// an element the walk did not write shows.
template <class Real>
WalkResults<Real> gpu_walk(const bh::DeviceTreeCopy<Real>& d, bh::GpuWalkParams p, const std::vector<Real>* scale = nullptr) {
  p.potential = true;
  const auto n = static_cast<std::size_t>(d.view().num_particles);
  WalkResults<Real> r(n);
  const std::vector<Real> nan(n, std::numeric_limits<Real>::quiet_NaN());
  const std::vector<std::uint32_t> poison(n, 0xFFFFFFFFu);
  cuda::DeviceBuffer<Real> a[4] = {cuda::DeviceBuffer<Real>(n), cuda::DeviceBuffer<Real>(n),
                                   cuda::DeviceBuffer<Real>(n), cuda::DeviceBuffer<Real>(n)};
  cuda::DeviceBuffer<std::uint32_t> c[3] = {cuda::DeviceBuffer<std::uint32_t>(n), cuda::DeviceBuffer<std::uint32_t>(n),
                                            cuda::DeviceBuffer<std::uint32_t>(n)};
  for (auto& b : a) b.upload(std::span<const Real>(nan));
  for (auto& b : c) b.upload(std::span<const std::uint32_t>(poison));
  cuda::DeviceBuffer<Real> s(scale != nullptr ? n : 0);
  if (scale != nullptr) s.upload(std::span<const Real>(*scale));
  const bh::DeviceWalkTargets<Real> out{a[0].data(), a[1].data(), a[2].data(), a[3].data(),
                                    c[0].data(), c[1].data(), c[2].data(), scale != nullptr ? s.data() : nullptr};
  bh::walk_tree_gpu(d.view(), p, out, nullptr);
  cuda::synchronize(nullptr);
  std::vector<Real>* host[4] = {&r.ax, &r.ay, &r.az, &r.pot};
  for (int k = 0; k < 4; ++k) a[k].download(std::span<Real>(*host[k]));
  c[0].download(std::span<std::uint32_t>(r.visits));
  c[1].download(std::span<std::uint32_t>(r.cells));
  c[2].download(std::span<std::uint32_t>(r.particles));
  return r;
}

/// A tree built on the host, the CPU walk over it, and its device copy.
template <class Real>
struct TreeCase {
  bh::Octree<Real> tree;
  WalkResults<Real> cpu;
  bh::DeviceTreeCopy<Real> device;
};

template <class Real>
TreeCase<Real> prepare(const Particles<Real>& p, const bh::TreeSolverConfig& c) {
  TreeCase<Real> tc{bh::build_octree(p.sources(), c.tree), WalkResults<Real>(0), {}};
  tc.cpu = cpu_walk(tc.tree, c);
  tc.device.upload(tc.tree);
  return tc;
}

/// The same particles in double precision.
inline Particles<double> to_double(const Particles<float>& pf) {
  Particles<double> p(pf.x.size());
  for (std::size_t i = 0; i < pf.x.size(); ++i) {
    p.x[i] = pf.x[i];
    p.y[i] = pf.y[i];
    p.z[i] = pf.z[i];
    p.mass[i] = pf.mass[i];
  }
  return p;
}

/// Index of the first element whose bits differ, or -1.
template <class Real>
std::int64_t first_bit_difference(const std::vector<Real>& a, const std::vector<Real>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(Real)) != 0) return static_cast<std::int64_t>(i);
  return -1;
}

/// Index of the first differing element, or -1.
inline std::int64_t first_difference(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return static_cast<std::int64_t>(i);
  return -1;
}

/// The walks every test runs: the independent one and the coherent one at every width.
inline std::vector<bh::GpuWalkParams> all_walks(const bh::TreeSolverConfig& c) {
  std::vector<bh::GpuWalkParams> v;
  v.push_back({bh::Traversal::independent, 32, c.math, c.softening_kind, c.softening, true});
  for (int w : bh::kGroupWidths) v.push_back({bh::Traversal::coherent, w, c.math, c.softening_kind, c.softening, true});
  return v;
}

}  // namespace orrery::testing
