#include "orrery/bh/octree_build.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "orrery/core/error.hpp"
#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/build_topology.hpp"
#include "orrery/bh/radix_sort.hpp"

namespace orrery::bh {
namespace {

// Loops shorter than these run on one thread: an OpenMP region costs
// microseconds, more than a small loop's work (the result is the same).
constexpr std::int64_t kParallelParticles = 16384;
constexpr std::int64_t kParallelNodes = 1024;

class PhaseClock {
 public:
  explicit PhaseClock(SolverReport* r) : report_(r), t0_(now()) {}
  void lap(const char* name) {
    const auto t = now();
    if (report_) report_->add_phase(name, std::chrono::duration<double>(t - t0_).count());
    t0_ = t;
  }

 private:
  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  SolverReport* report_;
  std::chrono::steady_clock::time_point t0_;
};

template <class Real>
Cube bounding_cube(const SourcesView<Real>& s) {
  Real lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::numeric_limits<Real>::infinity();
    hi[a] = -std::numeric_limits<Real>::infinity();
  }
  Real lx = lo[0], ly = lo[1], lz = lo[2], hx = hi[0], hy = hi[1], hz = hi[2];
#pragma omp parallel for reduction(min : lx, ly, lz) reduction(max : hx, hy, hz) if (s.count >= kParallelParticles)
  for (std::int64_t i = 0; i < s.count; ++i) {
    lx = std::min(lx, s.x[i]);
    ly = std::min(ly, s.y[i]);
    lz = std::min(lz, s.z[i]);
    hx = std::max(hx, s.x[i]);
    hy = std::max(hy, s.y[i]);
    hz = std::max(hz, s.z[i]);
  }
  return cube_from_box(lx, ly, lz, hx, hy, hz);
}

/// The topology of the tree over the n sorted keys, in pre-order, read off
/// the keys per particle and per node (build_topology.hpp, docs/adr/0009 and
/// 0010): the steps and the order of the GPU build. Each loop writes disjoint
/// elements, so the result does not depend on the thread count. Returns the
/// depth.
int build_topology(std::span<const std::uint64_t> keys, std::int32_t cap, std::vector<std::uint64_t>& key,
                   std::vector<std::int32_t>& level, std::vector<std::int32_t>& first,
                   std::vector<std::int32_t>& count, std::vector<std::int32_t>& next) {
  const auto n = static_cast<std::int32_t>(keys.size());
  // start[j] = the nodes whose first particle is j, then their exclusive scan
  // (start[n] = the node count), summed in 64 bits to see a count past 2^31.
  std::vector<std::int32_t> start(std::size_t(n) + 1, 0);
  int depth = 0;
#pragma omp parallel for schedule(static) reduction(max : depth) if (n >= kParallelParticles)
  for (std::int32_t j = 0; j < n; ++j) {
    const NodesAt a = nodes_at(keys.data(), n, j, cap);
    start[j] = a.count;
    if (a.count > 0) depth = std::max(depth, a.first_level + a.count - 1);
  }
  std::int64_t total = 0;
  for (auto& s : start) total += std::exchange(s, static_cast<std::int32_t>(std::min<std::int64_t>(total, 0x7fffffff)));
  if (total > std::numeric_limits<std::int32_t>::max() - 1)
    throw RuntimeFailure("the octree of " + std::to_string(n) + " particles has " + std::to_string(total) +
                         " nodes, more than 2^31 - 2");
  const auto num_nodes = static_cast<std::int32_t>(total);
  key.resize(num_nodes);
  for (auto* v : {&level, &first, &count, &next}) v->resize(num_nodes);
  const TopologyArrays out{key.data(), level.data(), first.data(), count.data(), next.data()};
#pragma omp parallel for schedule(static) if (n >= kParallelParticles)
  for (std::int32_t j = 0; j < n; ++j) write_nodes_at(keys.data(), start.data(), j, out);
#pragma omp parallel for schedule(static) if (num_nodes >= kParallelNodes)
  for (std::int32_t i = 0; i < num_nodes; ++i) write_extent(keys.data(), n, start.data(), i, out);
  return depth;
}

/// The nodes grouped by level: nodes of level L are by_level[begin[L] ..
/// begin[L+1]), each group in pre-order.
struct LevelLists {
  std::vector<std::int32_t> by_level;
  std::vector<std::int64_t> begin;
};

LevelLists level_lists(const std::vector<std::int32_t>& level, int depth) {
  LevelLists l;
  l.begin.assign(std::size_t(depth) + 2, 0);
  for (const std::int32_t lv : level) ++l.begin[lv + 1];
  for (int lv = 0; lv <= depth; ++lv) l.begin[lv + 1] += l.begin[lv];
  std::vector<std::int64_t> at(l.begin.begin(), l.begin.end() - 1);
  l.by_level.resize(level.size());
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(level.size()); ++i) l.by_level[at[level[i]]++] = i;
  return l;
}

/// The moments bottom-up, level by level from the deepest, in double: a leaf
/// sums its particles, an internal node combines its children (the chain p +
/// 1, then next) in child order, the operands and the order of the GPU's
/// climb; each node is then rounded into the pre-order arrays. `sorted`:
/// the sources in the tree's order (its own arrays, or the caller's where
/// they were given sorted).
template <Multipole M, class Real>
std::vector<Moments<M>> build_moments(Octree<Real>& tree, const SourcesView<Real>& sorted) {
  const std::int32_t num_nodes = tree.num_nodes();
  const LevelLists lists = level_lists(tree.level, tree.depth);
  std::vector<Moments<M>> mo(num_nodes);
  const MomentArrays<Real> out{tree.mass.data(),  tree.com_x.data(), tree.com_y.data(),
                               tree.com_z.data(), tree.crit2.data(), M != Multipole::monopole ? tree.quad.data() : nullptr,
                               tree.crit_rel.empty() ? nullptr : tree.crit_rel.data()};
  for (int lv = tree.depth; lv >= 0; --lv) {
    const std::int64_t lo = lists.begin[lv], hi = lists.begin[lv + 1];
#pragma omp parallel for schedule(dynamic, 64) if (hi - lo >= kParallelNodes)
    for (std::int64_t k = lo; k < hi; ++k) {
      const std::int32_t i = lists.by_level[k];
      const CellGeometry g = cell_geometry(tree.key[i], tree.level[i], tree.cube);
      std::int32_t children[8];
      const int nc = children_of(tree.next.data(), i, children);
      mo[i] = nc == 0 ? leaf_moments<M>(sorted.x, sorted.y, sorted.z, sorted.mass, tree.first[i], tree.count[i], g)
                      : combine_moments<M>(nc, [&](int c) { return mo[children[c]]; }, g);
      store_moments<M>(out, i, mo[i], g, tree.params.theta, tree.params.tolerance);
    }
  }
  return mo;
}

template <class Real>
void check_finite(const Real* v, std::int64_t n, const char* field) {
  std::int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) if (n >= kParallelParticles)
  for (std::int64_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) bad = std::max(bad, i);
  if (bad >= 0)
    throw InputError("particle " + std::to_string(bad) + ": " + field + " = " + std::to_string(v[bad]) +
                     " is not finite; positions must be finite numbers");
}

/// The cube given from outside, once every source is checked to lie in it.
template <class Real>
Cube checked_cube(const SourcesView<Real>& s, const Cube& c) {
  validate_cube(c);
  std::int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) if (s.count >= kParallelParticles)
  for (std::int64_t i = 0; i < s.count; ++i)
    if (!in_cube(s.x[i], s.y[i], s.z[i], c)) bad = std::max(bad, i);
  if (bad >= 0) throw InputError(outside_cube_message(bad, s.x[bad], s.y[bad], s.z[bad], c));
  return c;
}

}  // namespace

void validate_cube(const Cube& c) {
  if (!(c.side > 0) || !std::isfinite(c.side) || !std::isfinite(c.x0) || !std::isfinite(c.y0) || !std::isfinite(c.z0))
    throw InputError("the tree's cube (origin " + std::to_string(c.x0) + ", " + std::to_string(c.y0) + ", " +
                     std::to_string(c.z0) + ", side " + std::to_string(c.side) +
                     ") is invalid; accepted: a finite origin and a finite side > 0");
}

std::string outside_cube_message(std::int64_t i, double x, double y, double z, const Cube& c) {
  return "particle " + std::to_string(i) + " at (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
         std::to_string(z) + ") lies outside the tree's cube (origin " + std::to_string(c.x0) + ", " +
         std::to_string(c.y0) + ", " + std::to_string(c.z0) + ", side " + std::to_string(c.side) +
         "); every source must lie in the cube given";
}

void validate_tree_params(const TreeParams& p, std::int64_t count) {
  if (!(p.theta >= 0.0) || !std::isfinite(p.theta))
    throw InputError("gravity.theta = " + std::to_string(p.theta) + " is invalid; accepted: a finite number >= 0");
  if (p.opening == Opening::relative && !(p.tolerance > 0.0 && std::isfinite(p.tolerance)))
    throw InputError("gravity.tolerance = " + std::to_string(p.tolerance) +
                     " is invalid for gravity.opening = \"relative\"; accepted: a finite number > 0");
  if (p.opening == Opening::relative && !(p.relative_cap >= 0.0 && p.relative_cap <= 1.0))
    throw InputError("gravity.relative_cap = " + std::to_string(p.relative_cap) +
                     " is invalid for gravity.opening = \"relative\"; accepted: a number in [0, 1]");
  if (!is_group_opening(p.group_opening))
    throw InputError("gravity.group_opening = " + std::to_string(p.group_opening) + " is not supported; accepted: 0 " +
                     "(each target opens cells for itself) or a power of two from " + std::to_string(kOpeningGroup) +
                     " to 4096 (the most particles of a group cell)");
  if (p.group_opening != 0 && multipole_order(p.multipole) > 2)
    throw InputError("gravity.group_opening = " + std::to_string(p.group_opening) + " is not supported with gravity.multipole = \"" +
                     std::string(to_string(p.multipole)) + "\"; accepted with it: monopole, quadrupole (or group_opening = 0)");
  if (p.list_walk && multipole_order(p.multipole) > 2)
    throw InputError("gravity.list_walk = true is not supported with gravity.multipole = \"" +
                     std::string(to_string(p.multipole)) + "\"; accepted with it: monopole, quadrupole (or list_walk = false)");
  if (p.list_walk && p.group_opening != 0)
    throw InputError("gravity.list_walk = true and gravity.group_opening = " + std::to_string(p.group_opening) +
                     " are two ways of grouping the targets; accepted: one of them (group_opening = 0 with list_walk)");
  if (p.leaf_capacity < 1)
    throw InputError("gravity.leaf_capacity = " + std::to_string(p.leaf_capacity) +
                     " is invalid; accepted: an integer >= 1");
  if (count < 1)
    throw InputError("the tree needs at least one particle; got N = " + std::to_string(count));
  if (count >= std::numeric_limits<std::int32_t>::max())
    throw InputError("N = " + std::to_string(count) + " particles exceeds the tree's limit of 2^31 - 1");
}

template <class Real>
void validate_tree_input(const SourcesView<Real>& s, const TreeParams& p) {
  validate_tree_params(p, s.count);
  check_finite(s.x, s.count, "x");
  check_finite(s.y, s.count, "y");
  check_finite(s.z, s.count, "z");
  std::int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) if (s.count >= kParallelParticles)
  for (std::int64_t i = 0; i < s.count; ++i)
    if (!(s.mass[i] >= 0) || !std::isfinite(s.mass[i])) bad = std::max(bad, i);
  if (bad >= 0)
    throw InputError("particle " + std::to_string(bad) + ": mass = " + std::to_string(s.mass[bad]) +
                     " is invalid; accepted: a finite number >= 0");
}

/// The topology from the sorted keys and the moments bottom-up over the
/// sorted sources: the steps every host build ends with.
template <class Real>
void finish_tree(Octree<Real>& tree, const SourcesView<Real>& sorted, std::span<const std::uint64_t> sorted_keys,
                 const TreeParams& params, PhaseClock& clock, std::vector<NodeMoments>* moments) {
  tree.depth = build_topology(sorted_keys, params.leaf_capacity, tree.key, tree.level, tree.first, tree.count,
                              tree.next);
  clock.lap("build");

  const std::size_t num_nodes = tree.key.size();
  for (auto* v : {&tree.mass, &tree.com_x, &tree.com_y, &tree.com_z, &tree.crit2}) v->resize(num_nodes);
  if (params.opening == Opening::relative) tree.crit_rel.resize(num_nodes);
  tree.quad.resize(num_nodes * std::size_t(moment_components(params.multipole)));
  with_multipole(params.multipole, [&](auto mp) {
    constexpr Multipole M = decltype(mp)::value;
    auto mo = build_moments<M>(tree, sorted);
    // The double moments in the record the MPI ranks exchange (NodeMoments:
    // up to the quadrupole, the orders the distributed tree accepts).
    if constexpr (std::is_same_v<Moments<M>, NodeMoments>) {
      if (moments != nullptr) *moments = std::move(mo);
    } else if (moments != nullptr) {
      throw InputError("build_octree: the double moments of a " + std::string(to_string(M)) +
                       " tree were asked for; accepted: monopole or quadrupole trees");
    }
  });
  clock.lap("moments");
}

template <class Real>
Octree<Real> build_octree(const SourcesView<Real>& s, const TreeParams& params, SolverReport* report,
                          const Cube* cube, std::vector<NodeMoments>* moments) {
  validate_tree_input(s, params);
  PhaseClock clock(report);
  const std::int32_t n = static_cast<std::int32_t>(s.count);
  Octree<Real> tree;
  tree.params = params;
  tree.cube = cube != nullptr ? checked_cube(s, *cube) : bounding_cube(s);
  clock.lap("box");

  std::vector<std::uint64_t> keys(n);
#pragma omp parallel for schedule(static) if (n >= kParallelParticles)
  for (std::int32_t i = 0; i < n; ++i) keys[i] = position_key(s.x[i], s.y[i], s.z[i], tree.cube);
  clock.lap("keys");

  // Sort by (key, original index): a total order, so the result does not
  // depend on the sort algorithm or the thread count.
  std::vector<std::uint64_t> sorted_keys;
  sort_by_key(keys, sorted_keys, tree.order);
  tree.x.resize(n);
  tree.y.resize(n);
  tree.z.resize(n);
  tree.m.resize(n);
#pragma omp parallel for schedule(static) if (n >= kParallelParticles)
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t o = tree.order[i];
    tree.x[i] = s.x[o];
    tree.y[i] = s.y[o];
    tree.z[i] = s.z[o];
    tree.m[i] = s.mass[o];
  }
  clock.lap("sort");

  const SourcesView<Real> sorted{n, tree.x.data(), tree.y.data(), tree.z.data(), tree.m.data()};
  finish_tree(tree, sorted, sorted_keys, params, clock, moments);
  return tree;
}

template <class Real>
Octree<Real> build_nodes_sorted(const SourcesView<Real>& s, std::span<const std::uint64_t> keys,
                                const TreeParams& params, const Cube& cube, std::vector<NodeMoments>* moments) {
  validate_tree_input(s, params);
  validate_cube(cube);
  if (keys.size() != static_cast<std::size_t>(s.count))
    throw InputError("build_nodes_sorted: " + std::to_string(keys.size()) + " keys for " + std::to_string(s.count) +
                     " sources; accepted: one key a source");
  const std::int32_t n = static_cast<std::int32_t>(s.count);
  // The order build_octree's sort by (key, index) would give is the
  // identity exactly where the keys do not decrease.
  std::int64_t descent = n;
#pragma omp parallel for schedule(static) reduction(min : descent) if (n >= kParallelParticles)
  for (std::int32_t i = 1; i < n; ++i)
    if (keys[i] < keys[i - 1]) descent = std::min<std::int64_t>(descent, i);
  if (descent < n)
    throw InputError("build_nodes_sorted: key " + std::to_string(descent) + " is below the one before it; accepted: "
                     "sources sorted by their keys (build_octree sorts any other input)");
  PhaseClock clock(nullptr);
  Octree<Real> tree;
  tree.params = params;
  tree.cube = cube;
  // The sources are the sorted sources themselves: the leaves' moments read
  // them where they are, and the tree holds none of them, nor the order.
  finish_tree(tree, s, keys, params, clock, moments);
  return tree;
}

template void validate_tree_input(const SourcesView<float>&, const TreeParams&);
template void validate_tree_input(const SourcesView<double>&, const TreeParams&);
template Octree<float> build_octree(const SourcesView<float>&, const TreeParams&, SolverReport*, const Cube*,
                                    std::vector<NodeMoments>*);
template Octree<double> build_octree(const SourcesView<double>&, const TreeParams&, SolverReport*, const Cube*,
                                     std::vector<NodeMoments>*);
template Octree<float> build_nodes_sorted(const SourcesView<float>&, std::span<const std::uint64_t>, const TreeParams&,
                                          const Cube&, std::vector<NodeMoments>*);
template Octree<double> build_nodes_sorted(const SourcesView<double>&, std::span<const std::uint64_t>,
                                           const TreeParams&, const Cube&, std::vector<NodeMoments>*);

}  // namespace orrery::bh
