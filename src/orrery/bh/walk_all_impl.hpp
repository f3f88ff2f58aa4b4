#pragma once
// The CPU walk of every target (walk_all.hpp), as
// templates: the groups of group_walk.hpp spread over the threads, with the
// run-time configuration dispatched to compile-time parameters once. The
// opening criterion is one of them (opening.hpp): walk_all.cpp instantiates the geometric
// walks, walk_all_relative.cpp the relative ones (walk_all_relative), two
// translation units that compile in parallel (the walk is most of the
// library's compile time). The templates have internal linkage, as they had
// in tree_solver.cpp before: each translation unit's copies are its own, and the
// compiler may fold those that are identical (the exact and fast walks of
// some configurations), which it may not do for weak symbols.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "orrery/bh/group_opening_walk.hpp"
#include "orrery/bh/list_walk.hpp"
#include "orrery/bh/group_walk.hpp"
#include "orrery/bh/walk_all.hpp"
#include "orrery/bh/walk_isa.hpp"

namespace orrery::bh {

// The walks compiled in other translation units (walk_all.cpp dispatches):
// a monopole or quadrupole tree with the relative opening
// (walk_all_relative.cpp), an octupole and a hexadecapole tree
// (walk_all_octupole.cpp, walk_all_hexadecapole.cpp). Same arguments as walk_targets.
#define ORRERY_WALK_TARGETS_ENTRY(name)                                                                              \
  template <class Real>                                                                                              \
  void name(const Octree<Real>& tree, const WalkTargets<Real>& targets, const TreeSolverConfig& c, bool potential,  \
            Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt, const Real* scale);                      \
  extern template void name(const Octree<float>&, const WalkTargets<float>&, const TreeSolverConfig&, bool, float*,  \
                            float*, float*, float*, InteractionCounts*, const float*);                               \
  extern template void name(const Octree<double>&, const WalkTargets<double>&, const TreeSolverConfig&, bool,        \
                            double*, double*, double*, double*, InteractionCounts*, const double*);
ORRERY_WALK_TARGETS_ENTRY(walk_targets_relative)
ORRERY_WALK_TARGETS_ENTRY(walk_targets_octupole)
ORRERY_WALK_TARGETS_ENTRY(walk_targets_hexadecapole)

/// Defines the entry `name` as `body(...)` and instantiates it for float and double.
#define ORRERY_DEFINE_WALK_TARGETS_ENTRY(name, ...)                                                                  \
  template <class Real>                                                                                              \
  void name(const Octree<Real>& tree, const WalkTargets<Real>& targets, const TreeSolverConfig& c, bool potential,  \
            Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt, const Real* scale) {                     \
    __VA_ARGS__(tree, targets, c, potential, ax, ay, az, pot, pt, scale);                                           \
  }                                                                                                                  \
  template void name(const Octree<float>&, const WalkTargets<float>&, const TreeSolverConfig&, bool, float*, float*, \
                     float*, float*, InteractionCounts*, const float*);                                              \
  template void name(const Octree<double>&, const WalkTargets<double>&, const TreeSolverConfig&, bool, double*,      \
                     double*, double*, double*, InteractionCounts*, const double*);

namespace {

// Targets [k0, k1) in groups of W lanes (group_walk.hpp), the last group
// padded. W and H change no value and no counter: each lane sums its
// own walk's terms in its own order, whatever the group (group_walk.hpp).
// Criterion: the tree's opening criterion (walk_group).
template <int W, int H, class Criterion, bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
void walk_range(const OctreeView<Real>& t, const WalkNode<Real>* nodes, const Softening& soft,
                const WalkTargets<Real>& targets, std::int32_t k0, std::int32_t k1, const Real* scale, Real* ax,
                Real* ay, Real* az, Real* pot, InteractionCounts* counts) {
  for (std::int32_t k = k0; k < k1; k += W)
    walk_group<W, Pot, M, Mode, Real, Softening, H, Criterion>(t, nodes, soft, targets, k, std::min(W, k1 - k),
                                                                  scale, ax, ay, az, pot, counts);
}

// Targets [k0, k1) in the groups that open together (opening_group.hpp:
// runs of one group cell of at most `most` particles within each block of
// kOpeningGroup): k0 is a multiple of the block, so the groups are those of
// the whole target list, whatever the chunk. Compiled for the default ISA
// alone (AVX2): an AVX-512 copy would change no value and double the code of
// a walk that spends its time in the interactions.
template <int H, class Criterion, bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
void walk_range_group_opening(const OctreeView<Real>& t, const WalkNode<Real>* nodes, const Softening& soft,
                              const WalkTargets<Real>& targets, std::int32_t k0, std::int32_t k1, const Real* scale,
                              Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* counts, int most) {
  std::int32_t start = k0, cell = group_cell(t, targets.self(k0), most);
  for (std::int32_t k = k0 + 1; k <= k1; ++k) {
    const std::int32_t next = k < k1 ? group_cell(t, targets.self(k), most) : -1;
    if (k == k1 || starts_group(k, next, cell)) {
      walk_group_opening<kOpeningGroup, Pot, M, Mode, Real, Softening, H, Criterion>(
          t, nodes, soft, targets, start, k - start, scale, ax, ay, az, pot, counts);
      start = k;
    }
    cell = next;
  }
}

// Targets [k0, k1) in the list walk's groups (list_walk.hpp): kListGroup
// consecutive targets each, k0 a multiple of kListGroup. Default ISA alone,
// as group opening's.
template <class Criterion, bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
void walk_range_lists(const OctreeView<Real>& t, const WalkNode<Real>* nodes, const Softening& soft,
                      const WalkTargets<Real>& targets, std::int32_t k0, std::int32_t k1, const Real* scale, Real* ax,
                      Real* ay, Real* az, Real* pot, InteractionCounts* counts) {
  GroupLists lists;
  for (std::int32_t k = k0; k < k1; k += kListGroup)
    walk_list_group<Pot, M, Mode, Real, Softening, Criterion>(t, nodes, soft, targets, k, std::min(kListGroup, k1 - k),
                                                              scale, ax, ay, az, pot, counts, lists);
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

template <int W, int H, class Criterion, bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,prefer-vector-width=512"), gnu::flatten]] void walk_range_avx512(
    const OctreeView<Real>& t, const WalkNode<Real>* nodes, const Softening& soft, const WalkTargets<Real>& targets,
    std::int32_t k0, std::int32_t k1, const Real* scale, Real* ax, Real* ay, Real* az, Real* pot,
    InteractionCounts* counts) {
  walk_range<W, H, Criterion, Pot, M, Mode>(t, nodes, soft, targets, k0, k1, scale, ax, ay, az, pot, counts);
}

template <class Criterion, bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
void walk_all_impl(const OctreeView<Real>& t, const WalkTargets<Real>& targets, const Softening& soft, const Real* scale,
                   Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* per_target, int group_opening,
                   bool list_walk) {
  using WalkRange = void (*)(const OctreeView<Real>&, const WalkNode<Real>*, const Softening&, const WalkTargets<Real>&,
                             std::int32_t, std::int32_t, const Real*, Real*, Real*, Real*, Real*, InteractionCounts*);
  // The instruction set is chosen once per solve; the parallel loop below is
  // default-ISA code either way. The opening is a template parameter, not a
  // branch in the walk, so the geometric walk compiles to the code it had
  // before the relative opening and runs at its speed (docs/performance/
  // cpu_tree.md, "The relative opening on the CPU").
  const WalkRange walk =
      walk_isa_in_use() == WalkIsa::avx512
          ? &walk_range_avx512<kGroupLanesAvx512<Real>, kSkipLanesAvx512<Real>, Criterion, Pot, M, Mode, Real, Softening>
          : &walk_range<kGroupLanes<Real>, kSkipLanes<Real>, Criterion, Pot, M, Mode, Real, Softening>;
  const std::int32_t n = targets.count;
  if (n == 0) return;
  // Filled by pack_walk_nodes: no zeroing first.
  const auto nodes = std::make_unique_for_overwrite<WalkNode<Real>[]>(static_cast<std::size_t>(t.num_nodes));
  pack_walk_nodes(t, nodes.get());
  // Chunks are fixed by the target index, not by the thread that runs them:
  // the result does not depend on the schedule (contract 6). A chunk is 64
  // groups of the AVX2 walk (and a multiple of the opening group, so that no
  // chunk splits one): consecutive groups walk largely the same nodes,
  // which then stay in the core's L2; at N = 1M on 16 threads that is still
  // 64 chunks a thread, a short tail.
  constexpr std::int32_t kChunk = 64 * kGroupLanes<Real>;
  static_assert(kChunk % kOpeningGroup == 0 && kChunk % kListGroup == 0);
  const std::int32_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int32_t c = 0; c < chunks; ++c) {
    const std::int32_t k0 = c * kChunk, k1 = std::min(n, k0 + kChunk);
    // The list walk and group opening: the monopole and quadrupole only (validate_tree_params).
    if constexpr (multipole_order(M) <= 2) {
      if (list_walk) {
        walk_range_lists<Criterion, Pot, M, Mode>(t, nodes.get(), soft, targets, k0, k1, scale, ax, ay, az, pot,
                                                  per_target);
        continue;
      }
      if (group_opening != 0) {
        walk_range_group_opening<kSkipLanes<Real>, Criterion, Pot, M, Mode>(t, nodes.get(), soft, targets, k0, k1, scale,
                                                                            ax, ay, az, pot, per_target, group_opening);
        continue;
      }
    }
    walk(t, nodes.get(), soft, targets, k0, k1, scale, ax, ay, az, pot, per_target);
  }
}

// Run-time configuration to compile-time parameters, once, on the host.
template <class Criterion, bool Pot, Multipole M, class Real, class Softening>
void dispatch_mode(const OctreeView<Real>& t, const WalkTargets<Real>& w, const TreeSolverConfig& c, const Softening& s,
                   const Real* scale, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt) {
  const int group = c.tree.group_opening;
  const bool lists = c.tree.list_walk;
  if (c.math == MathMode::exact)
    walk_all_impl<Criterion, Pot, M, MathMode::exact>(t, w, s, scale, ax, ay, az, pot, pt, group, lists);
  else
    walk_all_impl<Criterion, Pot, M, MathMode::fast>(t, w, s, scale, ax, ay, az, pot, pt, group, lists);
}

template <class Criterion, bool Pot, Multipole M, class Real>
void dispatch_softening(const OctreeView<Real>& t, const WalkTargets<Real>& w, const TreeSolverConfig& c,
                        const Real* scale, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt) {
  if (c.softening_kind == SofteningKind::plummer)
    dispatch_mode<Criterion, Pot, M>(t, w, c, PlummerSoftening<Real>(Real(c.softening)), scale, ax, ay, az, pot, pt);
  else
    dispatch_mode<Criterion, Pot, M>(t, w, c, SplineSoftening<Real>(Real(c.softening)), scale, ax, ay, az, pot, pt);
}

/// walk_targets for a tree with the opening criterion Criterion and the expansion M.
template <class Criterion, Multipole M, class Real>
void walk_targets_opening(const Octree<Real>& tree, const WalkTargets<Real>& w, const TreeSolverConfig& c,
                          bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt,
                          const Real* scale) {
  // No scales are zeros, in an array: a null test in walk_group would let
  // the compiler unswitch the walk on it, twice the code for nothing.
  std::vector<Real> zeros;
  if (Criterion::kScaled && scale == nullptr) {
    zeros.assign(static_cast<std::size_t>(w.count), Real(0));
    scale = zeros.data();
  }
  const auto t = tree.view();
  if (potential)
    dispatch_softening<Criterion, true, M>(t, w, c, scale, ax, ay, az, pot, pt);
  else
    dispatch_softening<Criterion, false, M>(t, w, c, scale, ax, ay, az, pot, pt);
}

/// The same for a monopole or quadrupole tree (walk_all.cpp, walk_all_relative.cpp).
template <class Criterion, class Real>
void walk_targets_low_order(const Octree<Real>& tree, const WalkTargets<Real>& w, const TreeSolverConfig& c,
                            bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt,
                            const Real* scale) {
  if (tree.params.multipole == Multipole::quadrupole)
    walk_targets_opening<Criterion, Multipole::quadrupole>(tree, w, c, potential, ax, ay, az, pot, pt, scale);
  else
    walk_targets_opening<Criterion, Multipole::monopole>(tree, w, c, potential, ax, ay, az, pot, pt, scale);
}

/// The same for an expansion M above the quadrupole, either opening: each
/// such M is a translation unit of its own (walk_all_octupole.cpp,
/// walk_all_hexadecapole.cpp), so that the orders compile in parallel.
template <Multipole M, class Real>
void walk_targets_any_opening(const Octree<Real>& tree, const WalkTargets<Real>& w, const TreeSolverConfig& c,
                              bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* pt,
                              const Real* scale) {
  if (tree.crit_rel.empty())
    walk_targets_opening<GeometricOpening, M>(tree, w, c, potential, ax, ay, az, pot, pt, scale);
  else
    walk_targets_opening<RelativeOpening, M>(tree, w, c, potential, ax, ay, az, pot, pt, scale);
}

}  // namespace
}  // namespace orrery::bh
