#include "orrery/mpi/local_tree.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "orrery/bh/build_topology.hpp"
#include "orrery/core/error.hpp"
#include "orrery/mpi/kept_vector.hpp"
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

/// A top leaf of the domain: its cell, its particles [b, e) of the rank's
/// sorted particles, its run, its subtree's root in its run's tree (-1:
/// taken with the leaf's own geometry) and its first record.
struct LeafPlan {
  std::uint64_t key;
  std::int32_t level, b, e, run, f, base;
  bh::NodeMoments mo;  // node f's double moments (where f >= 0)
};

/// One run's build: its tree and its first particle among the rank's sorted
/// particles.
template <class Real>
struct RunTree {
  bh::Octree<Real> t;
  std::int32_t pb;
};

/// Builds the tree of the particles of top leaves [j0, j1) (consecutive, so
/// one run of particles) and plans their records from `records` on: a leaf
/// at a time, its node in the run's tree or none, and where its records go.
/// Returns the records after them.
template <class Real>
std::int32_t add_run(std::vector<RunTree<Real>>& runs, const RankParticles<Real>& s, std::span<const std::uint64_t> keys,
                     std::vector<LeafPlan>& plan, std::size_t j0, std::size_t j1, const bh::Cube& cube,
                     const bh::TreeParams& params, const RunBuild<Real>& build, std::int32_t records,
                     const std::function<void(const char*)>& lap) {
  const std::int32_t pb = plan[j0].b, pe = plan[j1 - 1].e;
  const SourcesView<Real> run{pe - pb, s.p.x.data() + pb, s.p.y.data() + pb, s.p.z.data() + pb,
                              s.p.mass.data() + pb};
  RunTree<Real>& r = runs.emplace_back();
  r.pb = pb;
  // A cube of side 0 (every particle at one point) is refused from outside,
  // but it is then every leaf's own bounding cube, which the build takes.
  const bh::Cube* in = cube.side > 0 ? &cube : nullptr;
  r.t = build.tree(run, keys.subspan(static_cast<std::size_t>(pb), static_cast<std::size_t>(run.count)), params, in);
  if (lap) lap("build");
  const bh::Octree<Real>& t = r.t;
  // The rank's particles are sorted by (key, index), so a build that sorts
  // (by key, stably) keeps them in place, and a node's first + pb is an
  // index into s; one that was given the keys sorted returns no order.
  if (!t.order.empty()) {
    if (t.order.size() != static_cast<std::size_t>(run.count))
      throw RuntimeFailure("the rank's tree of " + std::to_string(run.count) + " particles came with an order of " +
                           std::to_string(t.order.size()) + "; accepted: one a particle, or none (kept in place)");
    std::int64_t moved = -1;
#pragma omp parallel for schedule(static) reduction(max : moved) if (run.count >= kParallelLoop)
    for (std::int64_t k = 0; k < run.count; ++k)
      if (t.order[static_cast<std::size_t>(k)] != k) moved = std::max(moved, k);
    if (moved >= 0)
      throw RuntimeFailure("the rank's tree moved particle " + std::to_string(pb + moved) + " to " +
                           std::to_string(pb + t.order[static_cast<std::size_t>(moved)]) +
                           "; accepted: particles sorted by (key, index) before the build");
  }
  // Only the nodes are read from here on, and every run's tree is held
  // until the records are filled: any sorted sources (the run itself) and
  // order it came with go now, so that the runs held together cost their
  // nodes alone.
  for (auto* v : {&r.t.x, &r.t.y, &r.t.z, &r.t.m}) std::vector<Real>().swap(*v);
  std::vector<std::int32_t>().swap(r.t.order);
  for (std::size_t j = j0; j < j1; ++j) {
    LeafPlan& p = plan[j];
    std::int32_t f = find_cell(t, p.key, p.level);
    // A leaf that is not split (at most cap particles, or one key) is taken
    // with its own cell's geometry, as one process's build takes a leaf's
    // (the run's tree may hold its particles in a larger leaf).
    if (f >= 0 && t.next[f] == f + 1) f = -1;
    if (f >= 0 && (pb + t.first[f] != p.b || t.count[f] != p.e - p.b))
      throw RuntimeFailure("the subtree of top leaf (key " + std::to_string(p.key) + ", level " +
                           std::to_string(p.level) + ") holds particles [" + std::to_string(pb + t.first[f]) + ", +" +
                           std::to_string(t.count[f]) + ") of the rank's tree; accepted: the leaf's own [" +
                           std::to_string(p.b) + ", +" + std::to_string(p.e - p.b) + ")");
    p.run = static_cast<std::int32_t>(runs.size()) - 1;
    p.f = f;
    p.base = records;
    records += f < 0 ? 1 : t.next[f] - f;
  }
  // The subtrees' roots' double moments (the top tree's leaves' moments).
  std::vector<std::int32_t> roots;
  for (std::size_t j = j0; j < j1; ++j)
    if (plan[j].f >= 0) roots.push_back(plan[j].f);
  const std::vector<bh::NodeMoments> mo = build.moments(roots);
  if (mo.size() != roots.size())
    throw RuntimeFailure("the rank's tree returned the moments of " + std::to_string(mo.size()) + " nodes for " +
                         std::to_string(roots.size()) + " asked for; accepted: one a node asked for");
  for (std::size_t j = j0, k = 0; j < j1; ++j)
    if (plan[j].f >= 0) plan[j].mo = mo[k++];
  if (lap) lap("records");
  return records;
}

/// Fills the records of every planned leaf, on the rank's threads, each
/// written once from the same source: the serial order's bits
/// (parallel_copy.hpp's rule).
template <class Real>
void fill_records(LocalTree<Real>& out, const RankParticles<Real>& s, const std::vector<RunTree<Real>>& runs,
                  const std::vector<LeafPlan>& plan, const bh::Cube& cube, const bh::TreeParams& params) {
  const bool quad = params.multipole == bh::Multipole::quadrupole;
  const auto leaves = static_cast<std::int64_t>(plan.size());
#pragma omp parallel for schedule(dynamic, 16) if (out.nodes.size() >= kParallelLoop)
  for (std::int64_t j = 0; j < leaves; ++j) {
    const LeafPlan& p = plan[static_cast<std::size_t>(j)];
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
    const RunTree<Real>& r = runs[static_cast<std::size_t>(p.run)];
    const bh::Octree<Real>& t = r.t;
    const bh::OctreeView<Real> v = t.view();
    for (std::int32_t n = p.f; n < t.next[p.f]; ++n) {
      const std::int32_t i = p.base + n - p.f;
      out.nodes.set(i, v, n, t.count[n], true);
      out.first[static_cast<std::size_t>(i)] = r.pb + t.first[n];
      out.next[static_cast<std::size_t>(i)] = p.base + t.next[n] - p.f;
    }
    out.root_moments[static_cast<std::size_t>(j)] = p.mo;
  }
}

}  // namespace

template <class Real>
void build_local_tree(LocalTree<Real>& out, const RankParticles<Real>& s, std::span<const std::uint64_t> keys, const TopTree& top,
                                 std::int64_t leaf_begin, std::int64_t leaf_end, const bh::Cube& cube,
                                 const bh::TreeParams& params, std::int32_t run_particles,
                                 const RunBuild<Real>& build, const std::function<void(const char*)>& lap) {
  out.cap2 = bh::relative_cap_factor<Real>(params.relative_cap);
  const bool rel = params.opening == bh::Opening::relative, quad = params.multipole == bh::Multipole::quadrupole;
  // Each top leaf's particles, checked against the top tree's counts. The
  // domain's leaves are consecutive in Morton order, so their particles are
  // consecutive runs of the rank's sorted particles.
  std::vector<LeafPlan> plan;
  plan.reserve(static_cast<std::size_t>(leaf_end - leaf_begin));
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
    plan.push_back({key, level, b, e, -1, -1, 0, {}});
  }
  if (lap) lap("plan");
  // Builds over runs of consecutive top leaves of about run_particles
  // particles, in the global cube. The split rule decides a cell from the
  // particles inside it, and a top leaf's particles are all in its run, so
  // below a top leaf's cell the run's tree is the one-process tree (above
  // it, cells that hold several top leaves, or only part of a cell, are not
  // used). Few builds instead of one a top leaf: each build pays its own
  // allocations, key pass and parallel regions (1M particles on one rank of
  // 16 threads, H200 host: 0.107 s a build a leaf, 0.035 s one build). The
  // run size is the backend's (LetWalk::build_run_particles): the host's
  // stay near the sizes measured fast (at 16M a single host build was no
  // faster than the per-leaf builds, 1.0 s and 0.9 s), a GPU builds its
  // whole domain at once (0.110 -> 0.088 s at 16M, H100 host). Every run is built and planned first, so that the records
  // are sized once, in the last solve's storage (no copy of the records
  // planned before, no zero fill where the count has not grown: the one-rank
  // 16M GPU step spent 0.119 s here while the records grew run by run).
  std::vector<RunTree<Real>> runs;
  std::int32_t records = 0;
  for (std::size_t j0 = 0; j0 < plan.size();) {
    std::size_t j1 = j0 + 1;
    while (j1 < plan.size() && plan[j1].e - plan[j0].b <= run_particles) ++j1;
    records = add_run(runs, s, keys, plan, j0, j1, cube, params, build, records, lap);
    j0 = j1;
  }
  out.nodes.resize_for_overwrite(records, rel, quad);
  resize_for_overwrite(out.first, static_cast<std::size_t>(records));
  resize_for_overwrite(out.next, static_cast<std::size_t>(records));
  resize_for_overwrite(out.roots, plan.size());
  resize_for_overwrite(out.root_moments, plan.size());
  fill_records(out, s, runs, plan, cube, params);
  if (lap) lap("records");
}

template void build_local_tree(LocalTree<float>&, const RankParticles<float>&, std::span<const std::uint64_t>, const TopTree&,
                                           std::int64_t, std::int64_t, const bh::Cube&, const bh::TreeParams&,
                                           std::int32_t, const RunBuild<float>&,
                                           const std::function<void(const char*)>&);
template void build_local_tree(LocalTree<double>&, const RankParticles<double>&, std::span<const std::uint64_t>,
                                            const TopTree&, std::int64_t, std::int64_t, const bh::Cube&,
                                            const bh::TreeParams&, std::int32_t, const RunBuild<double>&,
                                            const std::function<void(const char*)>&);

}  // namespace orrery::mpi
