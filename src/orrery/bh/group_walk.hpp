#pragma once
// The CPU walk of W consecutive sorted targets at once, vectorised across the
// targets (DESIGN §4): the coherent walk of seed ADR 003 with a SIMD register
// as the group.
//
// Every lane keeps the node its own walk (bh::walk_target) wants next;
// the group steps to the smallest of them. At a node a lane acts only when it
// is the node it wants, and then exactly as walk_target does: the same
// opening test (bh::accepts: the criterion's far() and the membership test,
// restated in decide() with integer masks; a scaled criterion with each
// lane's own scale), the same interaction functions (interactions.hpp),
// the same counters. A lane that does not act keeps its sums bit-for-bit (add_particle's
// keep, or a select after the arithmetic). So each target sums the same terms
// in the same order as walk_target, and the results are bit-identical to it
// (tested in group_walk_test.cpp), whatever W.
//
// The lane loops are `omp simd` loops over plain per-lane arrays: compiled
// with -fno-math-errno -fno-trapping-math (CMakeLists.txt; neither changes a
// value), g++ if-converts them and turns sqrt, division and fma into their
// packed IEEE instructions, which round exactly like the scalar ones. The
// group's next node is a branch (see walk_group), so the processor speculates
// down the tree as it does in the scalar walk. The walk's builds are timed
// side by side in docs/performance/cpu_tree.md ("The walk, step by step, on
// one core"). Tried while writing it and dropped, with no recorded table:
// prefetching nodes[next], the membership test as one unsigned compare, the
// register skip (add_leaves) for cells.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "orrery/bh/walk.hpp"
#include "orrery/bh/walk_targets.hpp"

namespace orrery::bh {

/// Lanes per group: two AVX2 registers of float, or of double. The AVX-512
/// build of the walk (walk_all_impl.hpp, docs/adr/0006) instantiates the same
/// code with two zmm registers a quantity: W and the skip width H change no
/// value and no counter.
template <class Real>
inline constexpr int kGroupLanes = 64 / static_cast<int>(sizeof(Real));

/// Lanes per register of the leaf skip (add_leaves): one AVX2 register.
template <class Real>
inline constexpr int kSkipLanes = 32 / static_cast<int>(sizeof(Real));

/// The state of the W lanes of a group: one array per quantity. Masks,
/// counters and indices are integers of the width of Real (all bits set =
/// true), so that each lane loop runs at one vector width throughout: g++
/// vectorises such loops cleanly, and not loops that mix bool or 32-bit
/// integers with double.
template <int W, class Real>
struct GroupLanes {
  using Int = std::conditional_t<sizeof(Real) == 4, std::int32_t, std::int64_t>;
  alignas(64) Real tx[W], ty[W], tz[W];       // target positions
  alignas(64) Real sx[W], sy[W], sz[W], sp[W];  // running sums
  alignas(64) Int idx[W];                       // sorted target index
  alignas(64) Int want[W];                      // the node this lane's walk is at
  alignas(64) Int visits[W], cells[W], parts[W];
  alignas(64) Int take_cell[W], take_leaf[W];   // what each lane does at the current node
  alignas(64) Real scale[W];                    // relative opening only: bh::relative_scale
};

/// What the group's step at a node reads of it, in one record: the
/// OctreeView's eight [num_nodes] arrays, copied (pack_walk_nodes). A step
/// then touches one cache line instead of eight (at N = 1M the node arrays
/// do not fit in L2). The record is full: the relative opening's crit_rel
/// is read from the tree's own array, by relative trees only (walk_group).
template <class Real>
struct alignas(sizeof(Real) == 4 ? 32 : 64) WalkNode {
  Real com_x, com_y, com_z, crit2;
  std::int32_t first, count, next;
  Real mass;
};
static_assert(sizeof(WalkNode<float>) == 32 && sizeof(WalkNode<double>) == 64);

/// Fills nodes[0, t.num_nodes) from t (the values are copied, not rounded).
template <class Real>
void pack_walk_nodes(const OctreeView<Real>& t, WalkNode<Real>* nodes) {
#pragma omp parallel for schedule(static)
  for (std::int32_t k = 0; k < t.num_nodes; ++k)
    nodes[k] = {t.com_x[k], t.com_y[k], t.com_z[k], t.crit2[k], t.first[k], t.count[k], t.next[k], t.mass[k]};
}

/// The decision of every lane at node n (walk_target's, lane by lane), and
/// whether any lane accepts the cell, sums the leaf, or descends, by the
/// opening criterion (opening.hpp); for a scaled one, crit_rel is the
/// node's coefficient, g.scale holds the lanes' scales and cap2 is the
/// tree's OctreeView::cap2.
template <class Criterion, int W, class Real>
[[gnu::always_inline]] inline void decide(const WalkNode<Real>& node, Real crit_rel, Real cap2, std::int32_t n,
                                          GroupLanes<W, Real>& __restrict g, bool& any_cell, bool& any_leaf,
                                          bool& any_descend) {
  using Int = typename GroupLanes<W, Real>::Int;
  const Int first = node.first, count = node.count, next = node.next;
  const Int leaf = next == n + 1 ? Int(-1) : Int(0);
  const Real cx = node.com_x, cy = node.com_y, cz = node.com_z, crit2 = node.crit2;
  // The three "any" flags as bits of one reduction: one horizontal OR per
  // step instead of three.
  Int bits = 0;
#pragma omp simd reduction(| : bits)
  for (int l = 0; l < W; ++l) {
    // bh::accepts, lane by lane, with the conditions as integer masks.
    const Int active = g.want[l] == n ? Int(-1) : Int(0);
    const Real d2 = xm::norm2(xm::sub(cx, g.tx[l]), xm::sub(cy, g.ty[l]), xm::sub(cz, g.tz[l]));
    const Real scale = Criterion::kScaled ? g.scale[l] : Real(0);
    const Int far = Criterion::far(d2, crit2, crit_rel, scale, cap2) ? Int(-1) : Int(0);
    const Int member = (first <= g.idx[l]) & (g.idx[l] < first + count) ? Int(1) : Int(0);
    const Int accept = active & far & (member - 1);
    const Int sum_leaf = active & ~accept & leaf;
    const Int descend = active & ~accept & ~leaf;
    g.take_cell[l] = accept;
    g.take_leaf[l] = sum_leaf;
    g.visits[l] -= active;
    g.cells[l] -= accept;
    g.want[l] = descend ? Int(n + 1) : (active ? next : g.want[l]);
    bits |= (accept & 1) | (sum_leaf & 2) | (descend & 4);
  }
  any_cell = (bits & 1) != 0;
  any_leaf = (bits & 2) != 0;
  any_descend = (bits & 4) != 0;
}

/// Whether any of the H lanes from m on is set.
template <int H, class Int>
[[gnu::always_inline]] inline bool any_lane(const Int* __restrict m) {
  Int b = 0;
#pragma omp simd reduction(| : b)
  for (int l = 0; l < H; ++l) b |= m[l];
  return b != 0;
}

/// The particle-cell interaction of node n for the lanes that accepted it:
/// add_cell's terms (add_cell_terms) with the node's values loaded once
/// outside the lane loop, masked by their keep (a select after the
/// arithmetic, the same bits as add_cell on the lanes that take the cell).
template <bool Pot, Multipole M, MathMode Mode, int W, class Real, class Softening>
inline void add_cells(const OctreeView<Real>& t, const WalkNode<Real>& node, const Softening& soft, std::int32_t n,
                      GroupLanes<W, Real>& __restrict g) {
  const Real cx = node.com_x, cy = node.com_y, cz = node.com_z, m = node.mass;
  const Real* q = node_moments<M>(t, n);
  const Real trace = cell_trace<M>(q);
#pragma omp simd
  for (int l = 0; l < W; ++l) {
    bh::Accumulator<Real> a{g.sx[l], g.sy[l], g.sz[l], g.sp[l]};
    bh::add_cell_terms<Pot, M, Mode>(a, soft, g.tx[l], g.ty[l], g.tz[l], cx, cy, cz, m, q, trace,
                                             bool(g.take_cell[l]));
    g.sx[l] = a.ax;
    g.sy[l] = a.ay;
    g.sz[l] = a.az;
    if constexpr (Pot) g.sp[l] = a.pot;
  }
}

/// The particle-particle interactions of the leaf `node`, particle by
/// particle in sorted order, for the lanes that sum it (each lane's own
/// particle masked), and their particle counters. H: lanes per skipped
/// register (which lanes are skipped changes no value).
template <bool Pot, MathMode Mode, int W, class Real, class Softening, int H = kSkipLanes<Real>>
inline void add_leaves(const OctreeView<Real>& t, const WalkNode<Real>& node, const Softening& soft,
                       GroupLanes<W, Real>& __restrict g) {
  using Int = typename GroupLanes<W, Real>::Int;
  const std::int32_t first = node.first, end = first + node.count;
  // The counter lives here, not in decide(): only the steps that sum a leaf
  // pay for it.
  const Int count = node.count;
#pragma omp simd
  for (int l = 0; l < W; ++l) {
    const Int member = (first <= g.idx[l]) & (g.idx[l] < end) ? Int(1) : Int(0);
    g.parts[l] += g.take_leaf[l] & (count - member);
  }
  // One AVX2 register of lanes at a time, skipping a register none of whose
  // lanes sums the leaf: sorted targets are near each other by halves. (The
  // skip is part of build B in docs/performance/cpu_tree.md, "The walk, step
  // by step"; it was not timed alone there.) Each lane still adds the
  // particles in sorted order.
  static_assert(W % H == 0);
  for (int h = 0; h < W; h += H) {
    if (!any_lane<H>(g.take_leaf + h)) continue;
    for (std::int32_t j = first; j < end; ++j) {
      const Real px = t.x[j], py = t.y[j], pz = t.z[j], pm = t.m[j];
#pragma omp simd
      for (int l = h; l < h + H; ++l) {
        bh::Accumulator<Real> a{g.sx[l], g.sy[l], g.sz[l], g.sp[l]};
        bh::add_particle<Pot, Mode>(a, soft, g.tx[l], g.ty[l], g.tz[l], px, py, pz, pm,
                                         bool(g.take_leaf[l] & -Int(j != g.idx[l])));
        g.sx[l] = a.ax;
        g.sy[l] = a.ay;
        g.sz[l] = a.az;
        if constexpr (Pot) g.sp[l] = a.pot;
      }
    }
  }
}

/// Writes lanes [0, lanes) of g to targets k0 + l: the sums (pot only when
/// Pot) and the counters.
template <bool Pot, int W, class Real>
inline void store_lanes(const GroupLanes<W, Real>& g, std::int32_t k0, int lanes, Real* ax, Real* ay, Real* az,
                        Real* pot, InteractionCounts* counts) {
  for (int l = 0; l < lanes; ++l) {
    const std::int32_t i = k0 + l;
    ax[i] = g.sx[l];
    ay[i] = g.sy[l];
    az[i] = g.sz[l];
    if constexpr (Pot) pot[i] = g.sp[l];
    counts[i] = {std::uint64_t(g.visits[l]), std::uint64_t(g.cells[l]), std::uint64_t(g.parts[l])};
  }
}

/// Walks targets [k0, k0 + lanes) of `targets`, 1 <= lanes <= W, and writes
/// their sums to ax/ay/az/pot[k0 + l] and their counters to counts[k0 + l]. pot is written only when Pot. nodes: t's nodes as packed
/// by pack_walk_nodes. H: add_leaves' lanes per skipped register.
/// Criterion: t's opening criterion (opening.hpp); a scaled one reads
/// t.crit_rel and scale, the targets' scales, [targets.count] (not null).
/// An unscaled one does not read scale: the geometric walk's code is the one it was before the
/// relative opening existed.
template <int W, bool Pot, Multipole M, MathMode Mode, class Real, class Softening, int H = kSkipLanes<Real>,
          class Criterion = GeometricOpening>
void walk_group(const OctreeView<Real>& t, const WalkNode<Real>* __restrict nodes, const Softening& soft,
                const WalkTargets<Real>& targets, std::int32_t k0, int lanes, const Real* scale, Real* ax, Real* ay,
                Real* az, Real* pot, InteractionCounts* counts) {
  GroupLanes<W, Real> g;
  for (int l = 0; l < W; ++l) {
    // Padding lanes repeat the last target and never want a node.
    const std::int32_t k = k0 + std::min(l, lanes - 1);
    const std::int32_t i = targets.self(k);
    g.idx[l] = i;
    g.want[l] = l < lanes ? 0 : t.num_nodes;
    targets.position(t, k, i, g.tx[l], g.ty[l], g.tz[l]);
    if constexpr (Criterion::kScaled) g.scale[l] = scale[k];
    g.sx[l] = g.sy[l] = g.sz[l] = g.sp[l] = Real(0);
    g.visits[l] = g.cells[l] = g.parts[l] = 0;
  }
  std::int32_t n = 0;
  while (n < t.num_nodes) {
    const WalkNode<Real>& node = nodes[n];
    bool any_cell, any_leaf, any_descend;
    decide<Criterion>(node, Criterion::kScaled ? t.crit_rel[n] : Real(0), t.cap2, n, g, any_cell, any_leaf,
                      any_descend);
    // Skipping a node no lane interacts with is a branch on the whole group:
    // it saves the interaction, it does not change any lane's value.
    if (any_cell) add_cells<Pot, M, Mode>(t, node, soft, n, g);
    if (any_leaf) add_leaves<Pot, Mode, W, Real, Softening, H>(t, node, soft, g);
    // The group's next node is the smallest want, which is n + 1 if any lane
    // descends and next[n] otherwise: a lane that is not at n stopped at a
    // cell whose subtree holds n, so it wants at least next[n]. Written as a
    // branch, not as a reduction over the lanes, so that the processor
    // speculates down the walk as it does for a single target.
    if (any_descend) {
      ++n;
    } else {
      n = node.next;
    }
  }
  store_lanes<Pot>(g, k0, lanes, ax, ay, az, pot, counts);
}

}  // namespace orrery::bh
