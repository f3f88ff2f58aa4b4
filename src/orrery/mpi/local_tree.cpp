#include "orrery/mpi/local_tree.hpp"

#include <algorithm>
#include <string>

#include "orrery/bh/build_topology.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/core/error.hpp"
#include "orrery/mpi/parallel_copy.hpp"

namespace orrery::mpi {
namespace {

template <bh::Multipole M, class Real>
bh::NodeMoments moments_of_leaf(const RankParticles<Real>& s, std::int32_t b, std::int32_t n,
                                const bh::CellGeometry& g) {
  return bh::leaf_moments<M>(s.p.x.data(), s.p.y.data(), s.p.z.data(), s.p.mass.data(), b, n, g);
}

/// The node of cell (key, level) in `t` (pre-order, key and level per node),
/// or -1 where the descent from the root ends at a leaf above that level: the
/// children of node n are n + 1, next[n + 1], ... up to next[n].
template <class Real>
std::int32_t find_cell(const bh::Octree<Real>& t, std::uint64_t key, std::int32_t level) {
  std::int32_t n = 0;
  while (t.level[n] < level) {
    const std::int32_t end = t.next[n];
    std::int32_t c = n + 1;
    if (c == end) return -1;  // a leaf holds the cell's particles and more
    // The child whose key range holds `key` (children are in key order).
    while (t.next[c] < end && t.key[t.next[c]] <= key) c = t.next[c];
    n = c;
  }
  return t.level[n] == level && t.key[n] == key ? n : -1;
}

}  // namespace

template <class Real>
LocalTree<Real> build_local_tree(const RankParticles<Real>& s, std::span<const std::uint64_t> keys, const TopTree& top,
                                 std::int64_t leaf_begin, std::int64_t leaf_end, const bh::Cube& cube,
                                 const bh::TreeParams& params) {
  LocalTree<Real> out;
  out.cap2 = bh::relative_cap_factor<Real>(params.relative_cap);
  const bool quad = params.multipole == bh::Multipole::quadrupole;
  if (leaf_begin == leaf_end) return out;
  // One build over every particle of the domain, in the global cube. The
  // split rule decides a cell from the particles inside it, and a top leaf's
  // particles all live here, so below a top leaf's cell this tree is the
  // one-process tree (above it, cells that hold several top leaves, or only
  // this rank's share of a cell, are not used). One build instead of one a
  // top leaf: the leaves are many and small, and each build pays its own
  // allocations and parallel regions.
  std::vector<bh::NodeMoments> mo;
  const SourcesView<Real> all{s.size(), s.p.x.data(), s.p.y.data(), s.p.z.data(), s.p.mass.data()};
  const bh::Octree<Real> t = bh::build_octree(all, params, nullptr, cube.side > 0 ? &cube : nullptr, &mo);
  // The rank's particles are sorted by (key, index), so the build's stable
  // sort by key keeps them in place, and a node's first is an index into s.
  for (std::int64_t k = 0; k < s.size(); ++k)
    if (t.order[static_cast<std::size_t>(k)] != k)
      throw RuntimeFailure("the rank's tree moved particle " + std::to_string(k) + " to " +
                           std::to_string(t.order[static_cast<std::size_t>(k)]) +
                           "; accepted: particles sorted by (key, index) before the build");
  // First the plan, a top leaf at a time (each leaf's particles, its node in
  // `t` or none, where its records go), then the records filled on the
  // rank's threads, each written once from the same source: the serial
  // order's bits (parallel_copy.hpp's rule).
  struct Leaf {
    std::uint64_t key;
    std::int32_t level, b, e, f;  // f: the subtree's root in t, or -1 (taken with the leaf's own geometry)
    std::int32_t base;            // its first record
  };
  std::vector<Leaf> plan;
  plan.reserve(static_cast<std::size_t>(leaf_end - leaf_begin));
  std::int32_t records = 0;
  for (std::int64_t l = leaf_begin; l < leaf_end; ++l) {
    const std::int32_t c = top.leaves[static_cast<std::size_t>(l)];
    const std::uint64_t key = top.key[c];
    const std::int32_t level = top.level[c];
    const auto b = static_cast<std::int32_t>(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
    const auto e = static_cast<std::int32_t>(
        std::upper_bound(keys.begin(), keys.end(), bh::cell_last_key(key, level)) - keys.begin());
    if (static_cast<std::uint64_t>(e - b) != top.count[c])
      throw RuntimeFailure("top leaf " + std::to_string(l) + " (key " + std::to_string(key) + ", level " +
                           std::to_string(level) + ") holds " + std::to_string(top.count[c]) +
                           " particles over the ranks but " + std::to_string(e - b) +
                           " on its owner; accepted: every particle of a domain on its owner (migrate first)");
    std::int32_t f = find_cell(t, key, level);
    // A leaf that is not split (at most cap particles, or one key) is taken
    // with its own cell's geometry, as one process's build takes a leaf's
    // (the rank's tree may hold its particles in a larger leaf).
    if (f >= 0 && t.next[f] == f + 1) f = -1;
    if (f >= 0 && (t.first[f] != b || t.count[f] != e - b))
      throw RuntimeFailure("the subtree of top leaf (key " + std::to_string(key) + ", level " + std::to_string(level) +
                           ") holds particles [" + std::to_string(t.first[f]) + ", +" + std::to_string(t.count[f]) +
                           ") of the rank's tree; accepted: the leaf's own [" + std::to_string(b) + ", +" +
                           std::to_string(e - b) + ")");
    plan.push_back({key, level, b, e, f, records});
    records += f < 0 ? 1 : t.next[f] - f;
  }
  out.nodes.resize(records, params.opening == bh::Opening::relative, quad);
  out.first.resize(static_cast<std::size_t>(records));
  out.next.resize(static_cast<std::size_t>(records));
  out.roots.resize(plan.size());
  out.root_moments.resize(plan.size());
  const bh::OctreeView<Real> v = t.view();
  const auto leaves = static_cast<std::int64_t>(plan.size());
#pragma omp parallel for schedule(dynamic, 16) if (records >= kParallelLoop)
  for (std::int64_t j = 0; j < leaves; ++j) {
    const Leaf& p = plan[static_cast<std::size_t>(j)];
    out.roots[static_cast<std::size_t>(j)] = p.base;
    if (p.f < 0) {
      const bh::CellGeometry g = bh::cell_geometry(p.key, p.level, cube);
      const bh::NodeMoments m = quad ? moments_of_leaf<bh::Multipole::quadrupole>(s, p.b, p.e - p.b, g)
                                     : moments_of_leaf<bh::Multipole::monopole>(s, p.b, p.e - p.b, g);
      out.nodes.set(p.base, p.key, p.level, p.e - p.b, m, cube, params, true);
      out.first[static_cast<std::size_t>(p.base)] = p.b;
      out.next[static_cast<std::size_t>(p.base)] = p.base + 1;
      out.root_moments[static_cast<std::size_t>(j)] = m;
      continue;
    }
    for (std::int32_t n = p.f; n < t.next[p.f]; ++n) {
      const std::int32_t i = p.base + n - p.f;
      out.nodes.set(i, v, n, t.count[n], true);
      out.first[static_cast<std::size_t>(i)] = t.first[n];
      out.next[static_cast<std::size_t>(i)] = p.base + t.next[n] - p.f;
    }
    out.root_moments[static_cast<std::size_t>(j)] = mo[static_cast<std::size_t>(p.f)];
  }
  return out;
}

template LocalTree<float> build_local_tree(const RankParticles<float>&, std::span<const std::uint64_t>, const TopTree&,
                                           std::int64_t, std::int64_t, const bh::Cube&, const bh::TreeParams&);
template LocalTree<double> build_local_tree(const RankParticles<double>&, std::span<const std::uint64_t>,
                                            const TopTree&, std::int64_t, std::int64_t, const bh::Cube&,
                                            const bh::TreeParams&);

}  // namespace orrery::mpi
