#pragma once
// The list walk (docs/adr/0019): Bonsai's traversal. The walk's targets are
// cut into groups of kListGroup consecutive targets (every source: in the
// Hilbert order of their leaves, leaf_order.hpp, so that a group is two or
// three neighbouring leaves); a group decides together at every node, as
// group opening does (opening_group.hpp: the criterion at the box of the
// group's positions and its largest scale, and no target of the group one
// of the cell's particles), but it visits the tree breadth first and sums
// interaction lists:
//
//   queue = [root]; for each node n of the queue, first to last:
//     accepted          -> n joins the cell list
//     else a leaf       -> its particles join the particle list (sorted order)
//     else              -> its children join the end of the queue, in order
//   every target: cell terms in cell-list order into one sum, particle terms
//   in particle-list order (itself masked) into another; the result is
//   cell sum + particle sum (one rounded addition a component).
//
// Why breadth first and lists: on the GPU a warp holds one group, tests 32
// queued nodes at once (one a lane) and then has every lane sum every listed
// term, each for its own target: no lane computes a term it drops, and a
// node's test costs a 32nd of a warp step (docs/performance/gpu_tree.md,
// "The list walk"). Two sums, not one, because the GPU sums a list whenever
// 32 entries are waiting: the cells and the particles then interleave at
// points that depend on the queue, but each sum alone adds its terms in list
// order, so the CPU gets the same bits by summing each list whole.
//
// Membership: a group's targets are runs of consecutive sorted indices
// (IndexRuns: a leaf's particles are consecutive, and a group of the
// Hilbert order spans a few leaves far apart in key order), tested exactly;
// group opening's one range [min, max] would hold the whole key range
// between two such leaves and open every cell in it.
//
// Like group opening, it is conservative (each target sums only cells its
// own criterion accepts, or their descendants) and a target's result
// depends on the other targets of its group.
#include <cstdint>
#include <vector>

#include "orrery/bh/group_walk.hpp"
#include "orrery/bh/opening_group.hpp"

namespace orrery::bh {

/// Targets that decide together in the list walk: one warp.
inline constexpr int kListGroup = 32;

/// The sorted source indices of a group's targets as runs [lo[r], hi[r]] of
/// consecutive indices (points, index -1, hold none).
struct IndexRuns {
  int count = 0;
  std::int32_t lo[kListGroup], hi[kListGroup];
};

/// Whether one of the runs' indices is one of the particles [first, first + count).
ORRERY_HDI bool runs_hold(const std::int32_t* lo, const std::int32_t* hi, int runs, std::int32_t first,
                          std::int32_t count) {
  bool held = false;
  for (int r = 0; r < runs; ++r) held |= group_holds(first, count, lo[r], hi[r]);
  return held;
}

/// The list walk's decision at a node (centre of mass, crit2, crit_rel, its
/// particles [first, first + count)) for a group of box `box` and largest
/// scale `scale` whose sorted indices are the runs (lo, hi)[0, runs).
template <class Criterion, class Real>
ORRERY_HDI bool accepts_list(Real com_x, Real com_y, Real com_z, Real crit2, Real crit_rel, Real cap2,
                             std::int32_t first, std::int32_t count, const TargetBox<Real>& box, Real scale,
                             const std::int32_t* lo, const std::int32_t* hi, int runs) {
  const Real d2 = box_distance2(box, com_x, com_y, com_z);
  return Criterion::far(d2, crit2, crit_rel, scale, cap2) && !runs_hold(lo, hi, runs, first, count);
}

/// The lists of one group: the queue (every node the group tested, in
/// order), the accepted cells and the leaves whose particles it sums.
/// Reused from group to group by one thread.
struct GroupLists {
  std::vector<std::int32_t> queue, cells, leaves;
};

/// Walks targets [k0, k0 + lanes) of `targets` as one list-walk group (1 <=
/// lanes <= kListGroup) and writes their sums and counters at k0 + l, as
/// walk_group does (the same arguments; scale read only by a scaled
/// Criterion). Counters: node visits, the nodes the group tested; cells,
/// the cell list's length; particles, the particle terms each target keeps.
template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening, class Criterion>
void walk_list_group(const OctreeView<Real>& t, const WalkNode<Real>* __restrict nodes, const Softening& soft,
                     const WalkTargets<Real>& targets, std::int32_t k0, int lanes, const Real* scale, Real* ax,
                     Real* ay, Real* az, Real* pot, InteractionCounts* counts, GroupLists& lists) {
  TargetGroup<Real> group{};
  IndexRuns runs;
  Real tx[kListGroup], ty[kListGroup], tz[kListGroup];
  std::int32_t idx[kListGroup];
  for (int l = 0; l < lanes; ++l) {
    const std::int32_t k = k0 + l;
    const std::int32_t i = targets.self(k);
    idx[l] = i;
    targets.position(t, k, i, tx[l], ty[l], tz[l]);
    const TargetGroup<Real> one = group_of_one(tx[l], ty[l], tz[l], Criterion::kScaled ? scale[k] : Real(0), i);
    group = l == 0 ? one : merge_groups(group, one);
    if (i < 0) continue;
    if (runs.count > 0 && runs.hi[runs.count - 1] + 1 == i) {
      runs.hi[runs.count - 1] = i;
    } else {
      runs.lo[runs.count] = runs.hi[runs.count] = i;
      ++runs.count;
    }
  }
  auto& [queue, cells, leaves] = lists;
  queue.assign(1, 0);
  cells.clear();
  leaves.clear();
  for (std::size_t h = 0; h < queue.size(); ++h) {
    const std::int32_t n = queue[h];
    const WalkNode<Real>& node = nodes[n];
    if (accepts_list<Criterion>(node.com_x, node.com_y, node.com_z, node.crit2,
                                Criterion::kScaled ? t.crit_rel[n] : Real(0), t.cap2, node.first, node.count,
                                group.box, group.max_scale, runs.lo, runs.hi, runs.count))
      cells.push_back(n);
    else if (node.next == n + 1)
      leaves.push_back(n);
    else
      for (std::int32_t c = n + 1; c != node.next; c = nodes[c].next) queue.push_back(c);
  }
  // Every list entry for all kListGroup lanes at once: `omp simd` loops over
  // the lanes, as group_walk.hpp's add_cells (packed IEEE arithmetic rounds
  // as the scalar, so each lane gets the bits it would alone; walk_all.cpp's
  // flags let g++ vectorise them). Padding lanes repeat the last target and
  // are not stored.
  for (int l = lanes; l < kListGroup; ++l) tx[l] = tx[lanes - 1], ty[l] = ty[lanes - 1], tz[l] = tz[lanes - 1], idx[l] = idx[lanes - 1];
  alignas(64) Real cx_sum[kListGroup] = {}, cy_sum[kListGroup] = {}, cz_sum[kListGroup] = {}, cp_sum[kListGroup] = {};
  alignas(64) Real px_sum[kListGroup] = {}, py_sum[kListGroup] = {}, pz_sum[kListGroup] = {}, pp_sum[kListGroup] = {};
  for (const std::int32_t n : cells) {
    const WalkNode<Real>& node = nodes[n];
    const Real cx = node.com_x, cy = node.com_y, cz = node.com_z, m = node.mass;
    const Real* q = node_moments<M>(t, n);
    const Real trace = cell_trace<M>(q);
#pragma omp simd
    for (int l = 0; l < kListGroup; ++l) {
      Accumulator<Real> a{cx_sum[l], cy_sum[l], cz_sum[l], cp_sum[l]};
      add_cell_terms<Pot, M, Mode>(a, soft, tx[l], ty[l], tz[l], cx, cy, cz, m, q, trace, true);
      cx_sum[l] = a.ax, cy_sum[l] = a.ay, cz_sum[l] = a.az;
      if constexpr (Pot) cp_sum[l] = a.pot;
    }
  }
  std::uint64_t listed = 0;
  for (const std::int32_t n : leaves) {
    const std::int32_t first = nodes[n].first, end = first + nodes[n].count;
    listed += static_cast<std::uint64_t>(end - first);
    for (std::int32_t j = first; j < end; ++j) {
      const Real px = t.x[j], py = t.y[j], pz = t.z[j], pm = t.m[j];
#pragma omp simd
      for (int l = 0; l < kListGroup; ++l) {
        Accumulator<Real> a{px_sum[l], py_sum[l], pz_sum[l], pp_sum[l]};
        add_particle<Pot, Mode>(a, soft, tx[l], ty[l], tz[l], px, py, pz, pm, j != idx[l]);
        px_sum[l] = a.ax, py_sum[l] = a.ay, pz_sum[l] = a.az;
        if constexpr (Pot) pp_sum[l] = a.pot;
      }
    }
  }
  for (int l = 0; l < lanes; ++l) {
    // A source's own particle is in a summed leaf (no cell holding it is
    // accepted), masked there: one term fewer than the list holds.
    bool own = false;
    for (const std::int32_t n : leaves) own |= holds(nodes[n].first, nodes[n].count, idx[l]);
    const std::int32_t k = k0 + l;
    ax[k] = xm::add(cx_sum[l], px_sum[l]);
    ay[k] = xm::add(cy_sum[l], py_sum[l]);
    az[k] = xm::add(cz_sum[l], pz_sum[l]);
    if constexpr (Pot) pot[k] = xm::add(cp_sum[l], pp_sum[l]);
    counts[k] = {queue.size(), cells.size(), listed - (own ? 1 : 0)};
  }
}

}  // namespace orrery::bh
