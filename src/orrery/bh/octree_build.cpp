#include "orrery/bh/octree_build.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/bh/build_steps.hpp"
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

/// The nodes in breadth-first order as the level-by-level build creates them;
/// the children of a node are contiguous, in child order.
struct LevelTree {
  std::vector<std::uint64_t> key;
  std::vector<std::int32_t> level, first, count, child_begin, num_children;
  std::vector<std::int64_t> level_begin;  // nodes of level L are [level_begin[L], level_begin[L+1])
};

LevelTree build_levels(const std::vector<std::uint64_t>& keys, std::int32_t n, std::int32_t cap) {
  LevelTree t;
  t.key = {0};
  t.level = {0};
  t.first = {0};
  t.count = {n};
  t.level_begin = {0, 1};
  std::vector<std::int32_t> bounds;
  for (std::int32_t lvl = 0; lvl < kMaxLevel; ++lvl) {
    const std::int64_t lo = t.level_begin[lvl], hi = t.level_begin[lvl + 1];
    const std::int64_t width = hi - lo;
    t.child_begin.resize(hi, 0);
    t.num_children.resize(hi, 0);
    bounds.assign(width * 9, 0);
#pragma omp parallel for schedule(static) if (width >= kParallelNodes)
    for (std::int64_t k = 0; k < width; ++k) {
      const std::int64_t i = lo + k;
      std::int32_t* b = &bounds[k * 9];
      int nonempty = 0;
      if (is_split(keys.data(), t.first[i], t.count[i], lvl, cap)) {
        child_bounds(keys.data(), t.first[i], t.count[i], t.key[i], lvl, b);
        for (int c = 0; c < 8; ++c) nonempty += b[c + 1] > b[c];
      }
      t.num_children[i] = nonempty;
    }
    // Exclusive scan of the child counts gives each node its children's place.
    std::int64_t next_index = hi;
    for (std::int64_t i = lo; i < hi; ++i) {
      t.child_begin[i] = static_cast<std::int32_t>(next_index);
      next_index += t.num_children[i];
    }
    if (next_index == hi) break;
    const std::int64_t total = next_index;
    t.key.resize(total);
    t.level.resize(total, lvl + 1);
    t.first.resize(total);
    t.count.resize(total);
#pragma omp parallel for schedule(static) if (width >= kParallelNodes)
    for (std::int64_t k = 0; k < width; ++k) {
      const std::int64_t i = lo + k;
      if (t.num_children[i] == 0) continue;
      const std::int32_t* b = &bounds[k * 9];
      std::int32_t out = t.child_begin[i];
      for (int c = 0; c < 8; ++c) {
        if (b[c + 1] == b[c]) continue;
        t.key[out] = child_key(t.key[i], lvl, c);
        t.first[out] = b[c];
        t.count[out] = b[c + 1] - b[c];
        ++out;
      }
    }
    t.level_begin.push_back(total);
  }
  const std::int64_t total = static_cast<std::int64_t>(t.key.size());
  t.child_begin.resize(total, 0);
  t.num_children.resize(total, 0);
  return t;
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
  if (!(c.side > 0) || !std::isfinite(c.side) || !std::isfinite(c.x0) || !std::isfinite(c.y0) || !std::isfinite(c.z0))
    throw InputError("the tree's cube (origin " + std::to_string(c.x0) + ", " + std::to_string(c.y0) + ", " +
                     std::to_string(c.z0) + ", side " + std::to_string(c.side) +
                     ") is invalid; accepted: a finite origin and a finite side > 0");
  const auto out = [&c](double v, double lo) { return !(v >= lo && v <= xm::add(lo, c.side)); };
  std::int64_t bad = -1;
#pragma omp parallel for reduction(max : bad) if (s.count >= kParallelParticles)
  for (std::int64_t i = 0; i < s.count; ++i)
    if (out(s.x[i], c.x0) || out(s.y[i], c.y0) || out(s.z[i], c.z0)) bad = std::max(bad, i);
  if (bad >= 0)
    throw InputError("particle " + std::to_string(bad) + " at (" + std::to_string(s.x[bad]) + ", " +
                     std::to_string(s.y[bad]) + ", " + std::to_string(s.z[bad]) + ") lies outside the tree's cube (origin " +
                     std::to_string(c.x0) + ", " + std::to_string(c.y0) + ", " + std::to_string(c.z0) + ", side " +
                     std::to_string(c.side) + "); every source must lie in the cube given");
  return c;
}

}  // namespace

void validate_tree_params(const TreeParams& p, std::int64_t count) {
  if (!(p.theta >= 0.0) || !std::isfinite(p.theta))
    throw InputError("gravity.theta = " + std::to_string(p.theta) + " is invalid; accepted: a finite number >= 0");
  if (p.opening == Opening::relative && !(p.tolerance > 0.0 && std::isfinite(p.tolerance)))
    throw InputError("gravity.tolerance = " + std::to_string(p.tolerance) +
                     " is invalid for gravity.opening = \"relative\"; accepted: a finite number > 0");
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

template <class Real>
Octree<Real> build_octree(const SourcesView<Real>& s, const TreeParams& params, SolverReport* report,
                          const Cube* cube) {
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

  const LevelTree lt = build_levels(sorted_keys, n, params.leaf_capacity);
  const std::int64_t num_nodes = static_cast<std::int64_t>(lt.key.size());
  const int num_levels = static_cast<int>(lt.level_begin.size()) - 1;
  tree.depth = num_levels - 1;
  // Subtree sizes bottom-up, pre-order indices top-down.
  std::vector<std::int32_t> subtree(num_nodes, 1), preorder(num_nodes, 0);
  for (int lvl = num_levels - 1; lvl >= 0; --lvl) {
#pragma omp parallel for schedule(static) if (lt.level_begin[lvl + 1] - lt.level_begin[lvl] >= kParallelNodes)
    for (std::int64_t i = lt.level_begin[lvl]; i < lt.level_begin[lvl + 1]; ++i)
      for (std::int32_t c = 0; c < lt.num_children[i]; ++c) subtree[i] += subtree[lt.child_begin[i] + c];
  }
  for (int lvl = 0; lvl < num_levels; ++lvl) {
#pragma omp parallel for schedule(static) if (lt.level_begin[lvl + 1] - lt.level_begin[lvl] >= kParallelNodes)
    for (std::int64_t i = lt.level_begin[lvl]; i < lt.level_begin[lvl + 1]; ++i) {
      std::int32_t at = preorder[i] + 1;
      for (std::int32_t c = 0; c < lt.num_children[i]; ++c) {
        preorder[lt.child_begin[i] + c] = at;
        at += subtree[lt.child_begin[i] + c];
      }
    }
  }
  tree.key.resize(num_nodes);
  tree.level.resize(num_nodes);
  tree.first.resize(num_nodes);
  tree.count.resize(num_nodes);
  tree.next.resize(num_nodes);
#pragma omp parallel for schedule(static) if (num_nodes >= kParallelNodes)
  for (std::int64_t i = 0; i < num_nodes; ++i) {
    const std::int32_t d = preorder[i];
    tree.key[d] = lt.key[i];
    tree.level[d] = lt.level[i];
    tree.first[d] = lt.first[i];
    tree.count[d] = lt.count[i];
    tree.next[d] = d + subtree[i];
  }
  clock.lap("build");

  // Moments bottom-up, level by level, in double; then rounded to Real.
  const bool quad = params.multipole == Multipole::quadrupole;
  std::vector<NodeMoments> mo(num_nodes);
  for (int lvl = num_levels - 1; lvl >= 0; --lvl) {
#pragma omp parallel for schedule(dynamic, 64) if (lt.level_begin[lvl + 1] - lt.level_begin[lvl] >= kParallelNodes)
    for (std::int64_t i = lt.level_begin[lvl]; i < lt.level_begin[lvl + 1]; ++i) {
      const CellGeometry g = cell_geometry(lt.key[i], lt.level[i], tree.cube);
      if (lt.num_children[i] == 0) {
        mo[i] = quad ? leaf_moments<true>(tree.x.data(), tree.y.data(), tree.z.data(), tree.m.data(), lt.first[i],
                                          lt.count[i], g)
                     : leaf_moments<false>(tree.x.data(), tree.y.data(), tree.z.data(), tree.m.data(), lt.first[i],
                                           lt.count[i], g);
      } else {
        mo[i] = quad ? combine_moments<true>(&mo[lt.child_begin[i]], lt.num_children[i], g)
                     : combine_moments<false>(&mo[lt.child_begin[i]], lt.num_children[i], g);
      }
    }
  }
  tree.mass.resize(num_nodes);
  tree.com_x.resize(num_nodes);
  tree.com_y.resize(num_nodes);
  tree.com_z.resize(num_nodes);
  tree.crit2.resize(num_nodes);
  if (quad) tree.quad.resize(num_nodes * kQuadComponents);
  if (params.opening == Opening::relative) tree.crit_rel.resize(num_nodes);
  const MomentArrays<Real> out{tree.mass.data(),  tree.com_x.data(), tree.com_y.data(),
                               tree.com_z.data(), tree.crit2.data(), tree.quad.data(),
                               tree.crit_rel.empty() ? nullptr : tree.crit_rel.data()};
#pragma omp parallel for schedule(static) if (num_nodes >= kParallelNodes)
  for (std::int64_t i = 0; i < num_nodes; ++i) {
    const CellGeometry g = cell_geometry(lt.key[i], lt.level[i], tree.cube);
    if (quad) {
      store_moments<true>(out, preorder[i], mo[i], g, params.theta, params.tolerance);
    } else {
      store_moments<false>(out, preorder[i], mo[i], g, params.theta, params.tolerance);
    }
  }
  clock.lap("moments");
  return tree;
}

template void validate_tree_input(const SourcesView<float>&, const TreeParams&);
template void validate_tree_input(const SourcesView<double>&, const TreeParams&);
template Octree<float> build_octree(const SourcesView<float>&, const TreeParams&, SolverReport*, const Cube*);
template Octree<double> build_octree(const SourcesView<double>&, const TreeParams&, SolverReport*, const Cube*);

}  // namespace orrery::bh
