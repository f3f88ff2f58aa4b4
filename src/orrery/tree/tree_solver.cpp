#include "orrery/tree/tree_solver.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/tree/group_walk.hpp"
#include "orrery/tree/octree_build.hpp"
#include "orrery/tree/walk_isa.hpp"

namespace orrery::tree {
namespace {

// Sorted targets [i0, i1) in groups of W lanes (group_walk.hpp), the last
// group padded. W and H change no value and no counter: each lane sums its
// own walk's terms in its own order, whatever the group (group_walk.hpp).
template <int W, int H, bool Pot, bool Quad, MathMode Mode, class Real, class Softening>
void walk_range(const OctreeView<Real>& t, const WalkNode<Real>* nodes, const Softening& soft, std::int32_t i0,
                std::int32_t i1, Real* ax, Real* ay, Real* az, Real* pot, gravity::InteractionCounts* counts) {
  for (std::int32_t i = i0; i < i1; i += W)
    walk_group<W, Pot, Quad, Mode, Real, Softening, H>(t, nodes, soft, i, std::min(W, i1 - i), ax, ay, az, pot, counts);
}

// The same walk compiled for AVX-512 (docs/adr/0006): `flatten` inlines
// walk_group and everything it calls (all plain `inline` templates) into this
// function, so its lane loops are vectorised for the target below, while the
// out-of-line copies of those functions stay default-ISA (x86-64-v3) code
// that any caller may link to. Called only when walk_isa_in_use() says the
// processor has AVX-512 (walk_isa.hpp). A lane quantity of a group is two
// zmm registers (32 float or 16 double lanes; the AVX2 build's two ymm hold
// 16 or 8), and the leaf skip works on whole zmm registers: two zmm beat one
// by 12 % (docs/performance/cpu_tree.md, "The walk, step by step").
template <class Real>
inline constexpr int kGroupLanesAvx512 = 2 * kGroupLanes<Real>;
template <class Real>
inline constexpr int kSkipLanesAvx512 = 64 / static_cast<int>(sizeof(Real));

template <int W, int H, bool Pot, bool Quad, MathMode Mode, class Real, class Softening>
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,prefer-vector-width=512"), gnu::flatten]] void walk_range_avx512(
    const OctreeView<Real>& t, const WalkNode<Real>* nodes, const Softening& soft, std::int32_t i0, std::int32_t i1,
    Real* ax, Real* ay, Real* az, Real* pot, gravity::InteractionCounts* counts) {
  walk_range<W, H, Pot, Quad, Mode>(t, nodes, soft, i0, i1, ax, ay, az, pot, counts);
}

template <bool Pot, bool Quad, MathMode Mode, class Real, class Softening>
void walk_all_impl(const OctreeView<Real>& t, const Softening& soft, Real* ax, Real* ay, Real* az, Real* pot,
                   gravity::InteractionCounts* per_target) {
  using WalkRange = void (*)(const OctreeView<Real>&, const WalkNode<Real>*, const Softening&, std::int32_t,
                             std::int32_t, Real*, Real*, Real*, Real*, gravity::InteractionCounts*);
  // The instruction set is chosen once per solve; the parallel loop below is
  // default-ISA code either way.
  const WalkRange walk =
      walk_isa_in_use() == WalkIsa::avx512
          ? &walk_range_avx512<kGroupLanesAvx512<Real>, kSkipLanesAvx512<Real>, Pot, Quad, Mode, Real, Softening>
          : &walk_range<kGroupLanes<Real>, kSkipLanes<Real>, Pot, Quad, Mode, Real, Softening>;
  const std::int32_t n = static_cast<std::int32_t>(t.num_particles);
  // Filled by pack_walk_nodes: no zeroing first.
  const auto nodes = std::make_unique_for_overwrite<WalkNode<Real>[]>(static_cast<std::size_t>(t.num_nodes));
  pack_walk_nodes(t, nodes.get());
  // Chunks are fixed by the sorted index, not by the thread that runs them:
  // the result does not depend on the schedule (contract 6). A chunk is 64
  // groups of the AVX2 walk: consecutive groups walk largely the same nodes,
  // which then stay in the core's L2; at N = 1M on 16 threads that is still
  // 64 chunks a thread, a short tail.
  constexpr std::int32_t kChunk = 64 * kGroupLanes<Real>;
  const std::int32_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int32_t c = 0; c < chunks; ++c) {
    const std::int32_t i0 = c * kChunk;
    walk(t, nodes.get(), soft, i0, std::min(n, i0 + kChunk), ax, ay, az, pot, per_target);
  }
}

// Run-time configuration to compile-time parameters, once, on the host.
template <bool Pot, bool Quad, class Real, class Softening>
void dispatch_mode(const OctreeView<Real>& t, const TreeSolverConfig& c, const Softening& s, Real* ax, Real* ay,
                   Real* az, Real* pot, gravity::InteractionCounts* pt) {
  if (c.math == MathMode::exact)
    walk_all_impl<Pot, Quad, MathMode::exact>(t, s, ax, ay, az, pot, pt);
  else
    walk_all_impl<Pot, Quad, MathMode::fast>(t, s, ax, ay, az, pot, pt);
}

template <bool Pot, bool Quad, class Real>
void dispatch_softening(const OctreeView<Real>& t, const TreeSolverConfig& c, Real* ax, Real* ay, Real* az, Real* pot,
                        gravity::InteractionCounts* pt) {
  if (c.softening_kind == SofteningKind::plummer)
    dispatch_mode<Pot, Quad>(t, c, PlummerSoftening<Real>(Real(c.softening)), ax, ay, az, pot, pt);
  else
    dispatch_mode<Pot, Quad>(t, c, SplineSoftening<Real>(Real(c.softening)), ax, ay, az, pot, pt);
}

}  // namespace

template <class Real>
void walk_all(const Octree<Real>& tree, const TreeSolverConfig& c, bool potential, Real* ax, Real* ay, Real* az,
              Real* pot, gravity::InteractionCounts* pt) {
  const auto t = tree.view();
  const bool quad = tree.params.multipole == Multipole::quadrupole;
  if (potential) {
    quad ? dispatch_softening<true, true>(t, c, ax, ay, az, pot, pt) : dispatch_softening<true, false>(t, c, ax, ay, az, pot, pt);
  } else {
    quad ? dispatch_softening<false, true>(t, c, ax, ay, az, pot, pt) : dispatch_softening<false, false>(t, c, ax, ay, az, pot, pt);
  }
}

TreeSolverConfig tree_solver_config(const gravity::GravityConfig& g) {
  TreeSolverConfig c;
  c.tree.theta = g.theta;
  c.tree.leaf_capacity = g.leaf_capacity;
  c.tree.multipole = g.multipole_order >= 2 ? Multipole::quadrupole : Multipole::monopole;
  c.tree.opening = g.opening;
  c.tree.tolerance = g.tolerance;
  c.softening = g.softening;
  c.softening_kind = g.softening_kernel;
  c.math = g.math;
  return c;
}

template <class Real>
TreeSolver<Real>::TreeSolver(const TreeSolverConfig& config) : config_(config) {
  if (!(config.softening >= 0.0))
    throw InputError("gravity.softening = " + std::to_string(config.softening) + " is invalid; accepted: a number >= 0");
}

template <class Real>
std::string TreeSolver<Real>::name() const {
  return std::string("tree/cpu/") + std::string(to_string(config_.tree.multipole));
}

template <class Real>
gravity::SolverReport TreeSolver<Real>::solve(const SourcesView<Real>& s, const AccelerationsView<Real>& out,
                                              const gravity::SolveOptions& options) {
  if (out.count != s.count)
    throw InputError("accelerations hold " + std::to_string(out.count) + " entries for " + std::to_string(s.count) +
                     " sources; they must be equal");
  gravity::SolverReport report;
  tree_ = build_octree(s, config_.tree, &report);
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t n = s.count;
  std::vector<Real> ax(n), ay(n), az(n), pot(options.potential ? n : 0);
  std::vector<gravity::InteractionCounts> counts(n);
  walk_all(tree_, config_, options.potential, ax.data(), ay.data(), az.data(), pot.data(), counts.data());
  const auto t1 = std::chrono::steady_clock::now();
  report.add_phase("walk", std::chrono::duration<double>(t1 - t0).count());
  if (options.per_target_counts) report.per_target.resize(n);
  gravity::InteractionCounts total;
  for (std::int64_t i = 0; i < n; ++i) total += counts[i];
  report.total = total;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t o = tree_.order[i];
    out.ax[o] = ax[i];
    out.ay[o] = ay[i];
    out.az[o] = az[i];
    if (options.potential && out.potential) out.potential[o] = pot[i];
    if (options.per_target_counts) report.per_target[o] = counts[i];
  }
  report.add_phase("scatter", std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  return report;
}

template class TreeSolver<float>;
template class TreeSolver<double>;
template void walk_all(const Octree<float>&, const TreeSolverConfig&, bool, float*, float*, float*, float*,
                       gravity::InteractionCounts*);
template void walk_all(const Octree<double>&, const TreeSolverConfig&, bool, double*, double*, double*, double*,
                       gravity::InteractionCounts*);

}  // namespace orrery::tree
