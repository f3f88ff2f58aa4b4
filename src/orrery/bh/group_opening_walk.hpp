#pragma once
// The CPU walk with group opening (opening_group.hpp, docs/adr/0017): the W
// targets of a group decide together at every node, so every lane takes
// every cell and leaf the group takes. The lanes' state and their
// interaction loops are group_walk.hpp's (GroupLanes, add_cells, add_leaves)
// with every lane's take flags set: each lane sums the group's terms in the
// group's order, with the arithmetic of walk_target's add_cell and add_leaf,
// so the GPU's group-opening walk (tree_walk_gpu_kernels.cuh) gets the same
// bits in exact mode.
#include <algorithm>
#include <cstdint>

#include "orrery/bh/group_walk.hpp"
#include "orrery/bh/opening_group.hpp"

namespace orrery::bh {

/// Walks targets [k0, k0 + lanes) of `targets` as one group (one of
/// opening_group.hpp's groups), 1 <= lanes <= W, and writes their sums and
/// counters at k0 + l, as walk_group does (the same arguments). The group is
/// the `lanes` targets alone: padding lanes repeat the last target, which
/// leaves the group's box, scale and index range as they are.
template <int W, bool Pot, Multipole M, MathMode Mode, class Real, class Softening, int H = kSkipLanes<Real>,
          class Criterion = GeometricOpening>
void walk_group_opening(const OctreeView<Real>& t, const WalkNode<Real>* __restrict nodes, const Softening& soft,
                        const WalkTargets<Real>& targets, std::int32_t k0, int lanes, const Real* scale, Real* ax,
                        Real* ay, Real* az, Real* pot, InteractionCounts* counts) {
  using Int = typename GroupLanes<W, Real>::Int;
  GroupLanes<W, Real> g;
  TargetGroup<Real> group{};
  for (int l = 0; l < W; ++l) {
    const std::int32_t k = k0 + std::min(l, lanes - 1);
    const std::int32_t i = targets.self(k);
    g.idx[l] = i;
    targets.position(t, k, i, g.tx[l], g.ty[l], g.tz[l]);
    const Real s = Criterion::kScaled ? scale[k] : Real(0);
    const TargetGroup<Real> one = group_of_one(g.tx[l], g.ty[l], g.tz[l], s, i);
    group = l == 0 ? one : merge_groups(group, one);
    g.sx[l] = g.sy[l] = g.sz[l] = g.sp[l] = Real(0);
    g.parts[l] = 0;
    g.take_cell[l] = g.take_leaf[l] = Int(-1);  // every lane takes what the group takes
  }
  std::uint64_t visits = 0, cells = 0;
  std::int32_t n = 0;
  while (n < t.num_nodes) {
    ++visits;
    const WalkNode<Real>& node = nodes[n];
    const bool accept = accepts_group<Criterion>(node.com_x, node.com_y, node.com_z, node.crit2,
                                                 Criterion::kScaled ? t.crit_rel[n] : Real(0), t.cap2, node.first,
                                                 node.count, group);
    const bool leaf = node.next == n + 1;
    if (accept) {
      add_cells<Pot, M, Mode>(t, node, soft, n, g);
      ++cells;
    } else if (leaf) {
      add_leaves<Pot, Mode, W, Real, Softening, H>(t, node, soft, g);
    }
    n = (accept | leaf) ? node.next : n + 1;
  }
  for (int l = 0; l < lanes; ++l) g.visits[l] = static_cast<Int>(visits), g.cells[l] = static_cast<Int>(cells);
  store_lanes<Pot>(g, k0, lanes, ax, ay, az, pot, counts);
}

}  // namespace orrery::bh
