#pragma once
// The Barnes-Hut walks on the GPU (DESIGN §4; seed documents 000 and 003),
// launched from host code that includes no CUDA header.
//
// Both traversals compute, for every sorted target i of a tree whose arrays
// live in device memory, exactly the sum bh::walk_target computes on the
// CPU: the same nodes, the same terms, in the same order.
//
//   independent  one thread per target, running walk_target itself.
//   coherent     a group of W lanes (W consecutive sorted targets) shares one
//                node index, advanced to the smallest node any lane still
//                wants. A lane acts at a node only when it is the node its own
//                walk wants next; a lane that accepted a cell (or summed a
//                leaf) waits, contributing nothing, until the group reaches the
//                cell's escape index. Leaf particles are loaded once per warp
//                and broadcast; a lane that does not need them adds them with
//                keep = false (bit-for-bit no change), not behind a branch.
//                W = 8, 16, 32 are cooperative-groups tiles of a warp; W = 64
//                is two warps that share the node index through shared memory.
//
// In:  a tree view with device pointers (quadrupole terms when tree.quad is
//      non-null), the walk parameters.
// Out: per sorted target, accelerations (and potentials when requested) and
//      the counters of contract 2; every element [0, num_particles) of each
//      non-null output array is overwritten. Outputs must not alias the tree.
//   group opening (GpuWalkParams::group_opening, docs/adr/0017): the
//                coherent walk with each lane deciding by its group's box
//                (the runs of one group cell among the warp's 32 targets):
//                the sums of the CPU's walk_group_opening, not walk_target's
//                (a different, more accurate function).
//   list walk (GpuWalkParams::list_walk, docs/adr/0019): one warp a group
//                of 32 consecutive targets, breadth first, interaction
//                lists: the sums of the CPU's walk_list_group.
//
// Determinism: a pure function of the tree and the parameters; the two
// traversals and every W give bit-identical accelerations and identical
// particle-cell and particle-particle counts. node_visits is the target's own
// walk for the independent traversal and its group's (the union of its
// lanes' walks) for the coherent one: larger by design.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "orrery/core/error.hpp"
#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/bh/octree.hpp"
#include "orrery/bh/walk_targets.hpp"

namespace orrery::bh {

enum class Traversal : std::uint8_t { independent, coherent };

constexpr std::string_view to_string(Traversal t) { return t == Traversal::independent ? "independent" : "coherent"; }

/// Targets per thread block of the walk kernels (DeviceWalkTargets::block_order).
inline constexpr int kWalkBlockTargets = 128;

/// The group widths the coherent walk is compiled for.
inline constexpr int kGroupWidths[] = {8, 16, 32, 64};

constexpr bool is_group_width(int w) { return w == 8 || w == 16 || w == 32 || w == 64; }

struct GpuWalkParams {
  Traversal traversal = Traversal::coherent;
  int group_width = 32;  // coherent walk only; one of kGroupWidths
  MathMode math = MathMode::fast;
  SofteningKind softening_kind = SofteningKind::plummer;
  double softening = 0.05;  // Plummer-equivalent length eps >= 0
  bool potential = true;
  /// Device memory the coherent walk may use for its per-node records (32
  /// bytes a node, 64 with quadrupole moments; 64/128 in double) instead of
  /// allocating them, e.g. DeviceOctree::scratch_between_builds(); ignored
  /// when smaller than that. Must not overlap the tree or the outputs.
  std::span<std::byte> scratch = {};
  /// Lanes given to each target, the first of which walks it: 1 (every lane
  /// a target), 2, 4, 8, 16 or 32. A group walks the union of its lanes'
  /// walks, which for targets far apart in space (a sparse subset: a few
  /// active particles of a time bin) is most of the tree for each; with 32,
  /// each target's walk is its own. Changes when a target is walked, never
  /// its sums. More than 1 only without out.block_order.
  int target_lanes = 1;
  /// TreeParams::group_opening: 0, or the group cells' most particles for
  /// the group-opening walk (opening_group.hpp): coherent traversal, group
  /// width 32 and one lane a target; a monopole or quadrupole tree.
  int group_opening = 0;
  /// TreeParams::list_walk (list_walk.hpp, docs/adr/0019): warps of 32
  /// consecutive targets, breadth first, interaction lists; single precision,
  /// a monopole or quadrupole tree, one lane a target. The walk synchronises
  /// the stream (to read whether a group's queue overflowed).
  bool list_walk = false;
  /// The list walk's queue ring in shared memory, entries a warp (a power of
  /// two from 32 to 2048; 4 bytes an entry, kListWarps rings a block): a
  /// group whose queue outgrows it is walked again with a ring in global
  /// memory. Changes no result (tests set it small to walk that path).
  int list_queue = 1024;
};

/// InputError when the list walk (list_walk true) is asked of a walk in
/// Real other than float: its kernels are compiled for single precision
/// alone (docs/adr/0019).
template <class Real>
void check_list_walk_precision(bool list_walk) {
  if (list_walk && !std::is_same_v<Real, float>)
    throw InputError("gravity.list_walk = true is compiled for single precision on the GPU; accepted: "
                     "precision = \"single\" (or the CPU backend) with it");
}

/// InputError unless a walk with group opening (group_opening != 0) can run:
/// a value TreeParams accepts (is_group_opening), the coherent traversal,
/// group width 32 and one lane a target. Nothing to check for 0.
void check_group_opening_walk(int group_opening, Traversal traversal, int group_width, int target_lanes);

/// Threads of the walk kernel one multiprocessor holds at once: half of
/// Hopper's 2048, the walk's registers allowing no more. Measured on the H200
/// (docs/performance/bh_restructuring.md): the fastest target_lanes of every
/// subset from 0.1 % to 100 % of 1M sources is the one that comes nearest to
/// filling the device with this many threads.
inline constexpr std::int64_t kWalkResidentThreadsPerMultiprocessor = 1024;

/// GpuWalkParams::target_lanes for a walk of `targets` (a subset, in key
/// order) on a device of `multiprocessors` SMs: the most lanes per target,
/// up to 32, that still fit the device's resident threads. A subset's
/// targets lie far apart, and a coherent group walks nearly the union of its
/// targets' walks; with L lanes per target (only the first walks, the others
/// share the leaf loads) a group of 32 holds 32 / L targets, so each waits on
/// fewer others' nodes. Past a full device the idle lanes only cost.
constexpr int subset_target_lanes(std::int64_t targets, int multiprocessors) {
  const std::int64_t resident = kWalkResidentThreadsPerMultiprocessor * (multiprocessors > 0 ? multiprocessors : 1);
  int lanes = 32;
  while (lanes > 1 && targets * lanes > resident) lanes /= 2;
  return lanes;
}

/// The walk's per-target device arrays, num_particles entries in sorted
/// (tree) order: what it reads (scale, for a tree with the relative opening:
/// bh::relative_scale of each target's previous acceleration; null reads
/// as 0, the bootstrap's geometric walk) and what it writes. pot is ignored
/// unless params.potential; null counter arrays are not written.
/// block_order, when set, is a permutation of the ceil(N / kWalkBlockTargets)
/// blocks of consecutive targets: the order in which they are launched
/// (longest first, say). It changes when a target is walked, never its sums.
/// order, when set, scatters: sorted target i's accelerations, potential and
/// cost go to index order[i] (the caller's order) instead of i, so no pass
/// after the walk moves them; the counter arrays stay in sorted order.
/// totals, when set, gets the three counters summed over all targets added
/// to it (zero it first; integers, so the order of the additions is free).
template <class Real>
struct DeviceWalkTargets {
  Real* ax = nullptr;
  Real* ay = nullptr;
  Real* az = nullptr;
  Real* pot = nullptr;
  std::uint32_t* node_visits = nullptr;
  std::uint32_t* cell_interactions = nullptr;
  std::uint32_t* particle_interactions = nullptr;
  const Real* scale = nullptr;
  const std::uint32_t* block_order = nullptr;
  const std::int32_t* order = nullptr;
  std::uint32_t* cost = nullptr;  // node visits, written at order[i] (needs order)
  unsigned long long* totals = nullptr;  // [3]: node visits, cell and particle interactions
};

/// Enqueues the walk of `targets` (walk_targets.hpp; device pointers) in
/// `tree` on `stream` (asynchronous). The per-target arrays of `out` then have
/// targets.count entries, in the targets' order (scattered through out.order
/// when set), and block_order permutes the ceil(targets.count /
/// kWalkBlockTargets) blocks. Each target's sums are bit-identical to those
/// it gets as one of every source. Throws InputError for a group width not
/// in kGroupWidths, and RuntimeFailure if the launch fails.
template <class Real>
void walk_tree_gpu(const bh::OctreeView<Real>& tree, const WalkTargets<Real>& targets, const GpuWalkParams& params,
                   const DeviceWalkTargets<Real>& out, cuda::StreamHandle stream);

/// Enqueues the walk of every source of `tree` as a target (every_source).
template <class Real>
void walk_tree_gpu(const bh::OctreeView<Real>& tree, const GpuWalkParams& params, const DeviceWalkTargets<Real>& out,
                   cuda::StreamHandle stream);

extern template void walk_tree_gpu(const bh::OctreeView<float>&, const WalkTargets<float>&, const GpuWalkParams&,
                                   const DeviceWalkTargets<float>&, cuda::StreamHandle);
extern template void walk_tree_gpu(const bh::OctreeView<double>&, const WalkTargets<double>&, const GpuWalkParams&,
                                   const DeviceWalkTargets<double>&, cuda::StreamHandle);
extern template void walk_tree_gpu(const bh::OctreeView<float>&, const GpuWalkParams&,
                                   const DeviceWalkTargets<float>&, cuda::StreamHandle);
extern template void walk_tree_gpu(const bh::OctreeView<double>&, const GpuWalkParams&,
                                   const DeviceWalkTargets<double>&, cuda::StreamHandle);

}  // namespace orrery::bh
