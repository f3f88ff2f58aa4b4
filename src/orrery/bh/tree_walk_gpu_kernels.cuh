#pragma once
// The kernels of the GPU walks (tree_walk_gpu.hpp) and their launcher for one
// math mode and expansion. Included only by the tree_walk_gpu_exact*.cu and
// tree_walk_gpu_fast*.cu translation units (tree_walk_gpu_modes.hpp).
//
// Choices known before launch (potential, expansion, math mode, softening,
// traversal, group width) are template parameters, dispatched once on the
// host (DESIGN §2). Inside the coherent walk, per-lane choices are selects;
// the only branches are group-uniform (the whole group skips a leaf that none
// of its lanes needs) and the walk loop itself.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/stream_scratch.cuh"
#include "orrery/bh/opening_group.hpp"
#include "orrery/bh/tree_walk_gpu_modes.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/bh/walk_targets.hpp"

namespace orrery::bh::detail {

namespace cg = cooperative_groups;

/// Threads per block of every walk kernel: a multiple of 64 (the widest group).
inline constexpr int kWalkBlock = kWalkBlockTargets;
static_assert(kWalkBlock % 64 == 0);

/// The first target of this thread block: the launch order may be permuted
/// (DeviceWalkTargets::block_order; uniform over the block).
template <class Real>
__device__ std::int64_t block_first_target(const DeviceWalkTargets<Real>& out, int lane_shift) {
  const std::int64_t b = out.block_order != nullptr ? out.block_order[blockIdx.x] : blockIdx.x;
  return b * (kWalkBlock >> lane_shift);
}

/// The target of the calling thread when each target has 2^lane_shift
/// consecutive lanes (GpuWalkParams::target_lanes), and whether the thread is
/// the one that walks it (the first of them, and a target that exists).
struct LaneTarget {
  std::int64_t index;
  bool walks;
};
template <class Real>
__device__ LaneTarget lane_target(const DeviceWalkTargets<Real>& out, const WalkTargets<Real>& targets, int lane_shift) {
  const std::int64_t k = block_first_target(out, lane_shift) + (threadIdx.x >> lane_shift);
  const bool first = (threadIdx.x & ((1u << lane_shift) - 1u)) == 0;
  return {k, first && k < targets.count};
}

/// W lanes of one warp (W = 8, 16, 32), cooperating through warp intrinsics.
template <int W>
struct TileGroup {
  static constexpr int kShare = W;  // lanes that load a leaf chunk together and broadcast it
  cg::thread_block_tile<W> tile;

  __device__ explicit TileGroup(int* /*shared slots, unused*/) : tile(cg::tiled_partition<W>(cg::this_thread_block())) {}
  __device__ int lane() const { return static_cast<int>(tile.thread_rank()); }
  __device__ int min(int v) { return cg::reduce(tile, v, cg::less<int>()); }
  __device__ bool any(bool p) const { return tile.any(p); }
  __device__ void sync() const { tile.sync(); }
};

/// Two warps (W = 64) sharing the node index through shared memory: each warp
/// reduces its own minimum, publishes it, and a named barrier over the 64
/// threads makes both visible. The slots are double-buffered by parity, so
/// the write of step k + 2 is ordered after the reads of step k by barrier
/// k + 1. Leaf chunks and the skip decisions stay per warp (a warp is the
/// unit that executes together; the other warp of the group is independent).
struct TwoWarpGroup {
  static constexpr int kShare = 32;
  cg::thread_block_tile<32> warp;
  int* slot;    // this group's [parity][warp] minima
  int barrier;  // named barrier id, 1.. (0 is __syncthreads)
  int half;     // which warp of the group
  int parity = 0;

  __device__ explicit TwoWarpGroup(int* slots)
      : warp(cg::tiled_partition<32>(cg::this_thread_block())),
        slot(slots + 4 * (threadIdx.x / 64)),
        barrier(1 + static_cast<int>(threadIdx.x / 64)),
        half(static_cast<int>(threadIdx.x / 32) & 1) {}
  __device__ int lane() const { return static_cast<int>(warp.thread_rank()); }
  __device__ int min(int v) {
    const int m = cg::reduce(warp, v, cg::less<int>());
    if (warp.thread_rank() == 0) slot[2 * parity + half] = m;
    asm volatile("bar.sync %0, 64;" ::"r"(barrier) : "memory");
    const int a = slot[2 * parity], b = slot[2 * parity + 1];
    parity ^= 1;
    return a < b ? a : b;
  }
  __device__ bool any(bool p) const { return warp.any(p); }
  __device__ void sync() const { warp.sync(); }
};

template <int W>
struct GroupOf {
  using type = TileGroup<W>;
};
template <>
struct GroupOf<64> {
  using type = TwoWarpGroup;
};

/// What the coherent walk reads at every node, packed into one record so
/// that a visit computes one address and issues whole vector loads (the loop
/// is bound by issued instructions: 81-84 % of issue slots busy, docs/performance/gpu_tree.md). A copy
/// of the tree's arrays, made before each walk; a quadrupole tree's record
/// also holds the second moments and their trace (quadrupole_trace's bits).
template <class Real>
struct alignas(4 * sizeof(Real)) NodeBox {
  Real com_x, com_y, com_z, crit2;
};
template <class Real>
struct alignas(16) NodeSpan {
  std::int32_t first, count, next;
  Real mass;
};
template <class Real>
struct alignas(8 * sizeof(Real)) NodeQuad {
  Real q[bh::kQuadComponents];
  Real trace;
  Real crit_rel;  // the relative opening's coefficient (0 in a geometric tree's record)
};
template <class Real>
struct alignas(4 * sizeof(Real)) NodeRel {  // a monopole record's relative coefficient
  Real crit_rel, pad[3];
};
/// Rel: the criterion is scaled (the relative opening, OctreeView::crit_rel). Its
/// coefficient takes the free slot of a quadrupole record and a 16-byte
/// tail on a monopole one; the geometric records are unchanged. Octupole and
/// hexadecapole walks take the monopole record and read the node's 16 or 31
/// moments from the tree (RecordOf).
template <class Real, bool Quad, bool Rel>
struct alignas(32) WalkNode {
  NodeBox<Real> box;
  NodeSpan<Real> span;
};
template <class Real>
struct WalkNode<Real, false, true> {
  NodeBox<Real> box;
  NodeSpan<Real> span;
  NodeRel<Real> rel;
};
template <class Real, bool Rel>
struct WalkNode<Real, true, Rel> {  // aligned as NodeQuad
  NodeBox<Real> box;
  NodeSpan<Real> span;
  NodeQuad<Real> quad;
};

/// The record of a walk with expansion M and a scaled criterion or not.
template <class Real, Multipole M, bool Rel>
using RecordOf = WalkNode<Real, M == Multipole::quadrupole, Rel>;

template <class Real, bool Quad, bool Rel>
__device__ Real node_coefficient(const WalkNode<Real, Quad, Rel>& node) {
  if constexpr (!Rel) return Real(0);
  else if constexpr (Quad) return node.quad.crit_rel;
  else return node.rel.crit_rel;
}

/// The record's second moments and trace; zeros in a monopole record (whose
/// cell term reads neither).
template <class Real, bool Quad, bool Rel>
__device__ NodeQuad<Real> quadrupole_part(const WalkNode<Real, Quad, Rel>& node) {
  if constexpr (Quad) return node.quad;
  else return {};
}

template <class Real, bool Quad, bool Rel>
__global__ void __launch_bounds__(kWalkBlock)
    pack_nodes(const bh::OctreeView<Real> t, WalkNode<Real, Quad, Rel>* nodes) {  // Quad: t is a quadrupole tree
  const std::int64_t n = std::int64_t(blockIdx.x) * kWalkBlock + threadIdx.x;
  if (n >= t.num_nodes) return;  // the tail of the last block
  WalkNode<Real, Quad, Rel> r;
  r.box = {t.com_x[n], t.com_y[n], t.com_z[n], t.crit2[n]};
  r.span = {t.first[n], t.count[n], t.next[n], t.mass[n]};
  const Real crit_rel = Rel ? t.crit_rel[n] : Real(0);
  if constexpr (Quad) {
    const Real* q = t.quad + n * bh::kQuadComponents;
    for (int k = 0; k < bh::kQuadComponents; ++k) r.quad.q[k] = q[k];
    r.quad.trace = quadrupole_trace(q);
    r.quad.crit_rel = crit_rel;
  } else if constexpr (Rel) {
    r.rel = {crit_rel, {Real(0), Real(0), Real(0)}};
  }
  nodes[n] = r;
}

/// The walk's node records, packed from the tree when constructed: in the
/// caller's scratch (GpuWalkParams::scratch) when it holds them (cudaMalloc'd
/// memory is aligned for them), otherwise in stream-ordered memory of their
/// own, freed in stream order when this goes out of scope (after the walk
/// that reads them is enqueued).
template <class Record>
class PackedRecords {
 public:
  template <class Real>
  PackedRecords(const bh::OctreeView<Real>& t, std::span<std::byte> scratch, cuda::StreamHandle s)
      : nodes_(static_cast<std::size_t>(t.num_nodes)),
        borrowed_(scratch.size() >= nodes_ * sizeof(Record) &&
                  reinterpret_cast<std::uintptr_t>(scratch.data()) % alignof(Record) == 0),
        own_(borrowed_ ? 0 : nodes_, s),
        records_(borrowed_ ? reinterpret_cast<Record*>(scratch.data()) : own_.get()) {
    pack_nodes<<<static_cast<unsigned>((nodes_ + kWalkBlock - 1) / kWalkBlock), kWalkBlock, 0, s>>>(t, records_);
    ORRERY_CUDA_CHECK_LAUNCH("pack_nodes");
  }
  const Record* get() const { return records_; }

 private:
  std::size_t nodes_;
  bool borrowed_;
  cuda::StreamScratch<Record> own_;
  Record* records_;
};

/// Writes target i's results: sums (and cost) at order[i] when the walk
/// scatters, counters at i.
template <bool Pot, class Real>
__device__ void store_target(const DeviceWalkTargets<Real>& out, std::int32_t i, const Accumulator<Real>& a,
                             const WalkCounts& c) {
  const std::int32_t o = out.order != nullptr ? out.order[i] : i;  // i: the target's index in the walk
  out.ax[o] = a.ax;
  out.ay[o] = a.ay;
  out.az[o] = a.az;
  if constexpr (Pot) out.pot[o] = a.pot;
  if (out.cost) out.cost[o] = c.node_visits;
  if (out.node_visits) out.node_visits[i] = c.node_visits;
  if (out.cell_interactions) out.cell_interactions[i] = c.cell_interactions;
  if (out.particle_interactions) out.particle_interactions[i] = c.particle_interactions;
}

/// Adds the calling threads' counters to out.totals: summed over the
/// threads that reach this call together (a warp, or its first lanes in the
/// last block), one atomic per counter from the first of them.
template <class Real>
__device__ void add_totals(const DeviceWalkTargets<Real>& out, const WalkCounts& c) {
  if (out.totals == nullptr) return;  // uniform: totals not asked for
  const cg::coalesced_group g = cg::coalesced_threads();
  const unsigned long long v[3] = {c.node_visits, c.cell_interactions, c.particle_interactions};
  for (int k = 0; k < 3; ++k) {
    const unsigned long long sum = cg::reduce(g, v[k], cg::plus<unsigned long long>());
    if (g.thread_rank() == 0) atomicAdd(out.totals + k, sum);
  }
}

template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
__global__ void __launch_bounds__(kWalkBlock)
    independent_walk(const bh::OctreeView<Real> t, const WalkTargets<Real> targets, const Softening soft,
                     const DeviceWalkTargets<Real> out, int lane_shift) {
  const LaneTarget lt = lane_target(out, targets, lane_shift);
  if (!lt.walks) return;  // the tail of the last block, or a target's idle lane
  const auto k = static_cast<std::int32_t>(lt.index);
  const std::int32_t i = targets.self(k);
  Real tx, ty, tz;
  targets.position(t, k, i, tx, ty, tz);
  WalkCounts c;
  const Real scale = out.scale != nullptr ? out.scale[k] : Real(0);  // uniform: the relative opening's input
  const Accumulator<Real> acc = walk_target_at<Pot, M, Mode>(t, soft, i, tx, ty, tz, c, scale);
  store_target<Pot>(out, k, acc, c);
  add_totals(out, c);
}

/// One source particle staged in shared memory for the lanes of a group.
template <class Real>
struct alignas(4 * sizeof(Real)) StagedSource {
  Real x, y, z, m;
};

/// The leaf `leaf` summed by the lanes with `sum` set, in sorted order (add_leaf's
/// terms): the group loads kShare particles at a time, coalesced, into its
/// lanes' slots of `stage` (one per thread of the block), and every lane reads
/// each of them back with one broadcast load; the other lanes add with keep =
/// false. One shared-memory load a particle where four shuffles were (the
/// shuffles' pipe is a quarter of the FMA's).
template <bool Pot, MathMode Mode, class Group, class Real, class Softening>
__device__ void sum_leaf(const Group& g, StagedSource<Real>* stage, Accumulator<Real>& acc, WalkCounts& c,
                         const bh::OctreeView<Real>& t, const Softening& soft, const NodeSpan<Real>& leaf,
                         std::int32_t i, Real tx, Real ty, Real tz, bool sum) {
  const std::int32_t f = leaf.first, e = f + leaf.count;
  StagedSource<Real>* const mine = stage + threadIdx.x;
  const StagedSource<Real>* const shared = mine - g.lane();  // the first slot of this thread's group of kShare
  for (std::int32_t base = f; base < e; base += Group::kShare) {
    const std::int32_t j = base + g.lane();
    const std::int32_t js = j < e ? j : base;  // lanes past the leaf load a valid element, never used
    *mine = {t.x[js], t.y[js], t.z[js], t.m[js]};
    g.sync();
    const int chunk = e - base < Group::kShare ? e - base : Group::kShare;
    for (int k = 0; k < chunk; ++k) {
      const StagedSource<Real> s = shared[k];
      add_particle<Pot, Mode>(acc, soft, tx, ty, tz, s.x, s.y, s.z, s.m, sum & (base + k != i));
    }
    g.sync();  // every lane has read the chunk before the next overwrites it
  }
  c.particle_interactions += sum ? std::uint32_t(leaf.count - holds(f, leaf.count, i)) : 0u;
}

/// Group opening (opening_group.hpp, docs/adr/0017): the group of the lane's
/// target k (group cell `cell`) over the warp's lanes: the runs of one group
/// cell, each lane's group_of_one merged over its run. Min and max are exact
/// in any order, and the sign of a zero they may pick differently from the
/// CPU's sequential merge changes no distance box_gap computes, so every
/// decision is the CPU's (walk_range_group_opening).
template <class Tile, class Real>
__device__ TargetGroup<Real> reduce_run(const Tile& warp, std::int32_t k, std::int32_t cell, const TargetGroup<Real>& one) {
  const int lane = static_cast<int>(warp.thread_rank());
  const std::int32_t before = warp.shfl_up(cell, 1);
  const unsigned starts = warp.ballot(lane == 0 || starts_group(k, cell, before));
  const int leader = 31 - __clz(starts & (0xffffffffu >> (31 - lane)));  // the run's first lane
  const cg::coalesced_group run = cg::labeled_partition(warp, leader);
  const auto lo = [&](Real v) { return cg::reduce(run, v, cg::less<Real>()); };
  const auto hi = [&](Real v) { return cg::reduce(run, v, cg::greater<Real>()); };
  return {{lo(one.box.lo_x), lo(one.box.lo_y), lo(one.box.lo_z), hi(one.box.hi_x), hi(one.box.hi_y), hi(one.box.hi_z)},
          hi(one.max_scale),
          cg::reduce(run, one.lo, cg::less<std::int32_t>()),
          cg::reduce(run, one.hi, cg::greater<std::int32_t>())};
}

/// Grouped (group opening, W = 32): each lane decides with its group's box
/// (accepts_group) instead of its own position; the lanes of a group then
/// want the same nodes, and the warp walks the union of its groups' walks.
template <bool Pot, Multipole M, class Criterion, MathMode Mode, int W, class Real, class Softening, bool Grouped = false>
__global__ void __launch_bounds__(kWalkBlock)
    coherent_walk(const bh::OctreeView<Real> t, const RecordOf<Real, M, Criterion::kScaled>* __restrict__ nodes,
                  const WalkTargets<Real> targets, const Softening soft, const DeviceWalkTargets<Real> out,
                  int lane_shift, int group_most = 0) {
  using Group = typename GroupOf<W>::type;
  __shared__ int slots[4 * (kWalkBlock / 64)];
  __shared__ StagedSource<Real> stage[kWalkBlock];
  Group g(slots);
  // Every lane runs the loop, including those past the last target and a
  // target's idle lanes (they want nothing, num_nodes, so they never hold
  // the group back; they still load and broadcast leaf chunks).
  const LaneTarget lt = lane_target(out, targets, lane_shift);
  const bool real = lt.walks;
  const auto k = static_cast<std::int32_t>(real ? lt.index : targets.count - 1);
  const std::int32_t i = targets.self(k);
  Real tx, ty, tz;
  targets.position(t, k, i, tx, ty, tz);
  // Uniform: a null scale array is the bootstrap's geometric walk (scale 0).
  const Real scale = Criterion::kScaled && out.scale != nullptr ? out.scale[k] : Real(0);
  TargetGroup<Real> group{};
  if constexpr (Grouped) {
    static_assert(W == 32, "group opening walks one warp");
    group = reduce_run(g.tile, k, group_cell(t, i, group_most), group_of_one(tx, ty, tz, scale, i));
  }
  Accumulator<Real> acc;
  WalkCounts c;
  std::int32_t want = real ? 0 : t.num_nodes;
  std::int32_t n = g.min(want);
  while (n < t.num_nodes) {
    ++c.node_visits;
    const RecordOf<Real, M, Criterion::kScaled>& node = nodes[n];
    const NodeBox<Real> b = node.box;
    const NodeSpan<Real> sp = node.span;
    const bool mine = want == n;
    bool far;
    if constexpr (Grouped)
      far = accepts_group<Criterion>(b.com_x, b.com_y, b.com_z, b.crit2, node_coefficient(node), t.cap2, sp.first,
                                     sp.count, group);
    else
      far = accepts_node<Criterion>(b.com_x, b.com_y, b.com_z, b.crit2, node_coefficient(node), scale, t.cap2, sp.first,
                                    sp.count, i, tx, ty, tz);
    const bool accept = mine & far;
    const bool leaf = sp.next == n + 1;
    const bool sum = mine & !accept & leaf;
    // The cell term (add_cell's), evaluated by every lane and kept by those
    // that accepted, behind a group-uniform vote: about half the steps are
    // nodes that every lane opens (or leaves they sum), and a quadrupole
    // term is most of a step's instructions. Skipping it where no lane keeps
    // it changes no sum (a term not kept leaves the accumulator as it was).
    if (g.any(accept)) {
      const NodeQuad<Real> q = quadrupole_part(node);
      const Real* moments = multipole_order(M) >= 3 ? node_moments<M>(t, n) : q.q;  // orders 3, 4: the tree's
      add_cell_terms<Pot, M, Mode>(acc, soft, tx, ty, tz, b.com_x, b.com_y, b.com_z, sp.mass, moments, q.trace, accept);
    }
    c.cell_interactions += accept;
    // Group-uniform: skips a leaf no lane sums.
    if (g.any(sum)) sum_leaf<Pot, Mode>(g, stage, acc, c, t, soft, sp, i, tx, ty, tz, sum);
    want = mine ? ((accept | leaf) ? sp.next : n + 1) : want;
    n = g.min(want);
  }
  if (real) store_target<Pot>(out, k, acc, c);
  add_totals(out, real ? c : WalkCounts{});
}

/// log2 of GpuWalkParams::target_lanes (a power of two, checked by walk_tree_gpu).
inline int lane_shift(const GpuWalkParams& p) { return std::countr_zero(static_cast<unsigned>(p.target_lanes)); }

/// Blocks of kWalkBlock threads for w.count targets of target_lanes lanes each.
template <class Real>
unsigned walk_blocks(const WalkTargets<Real>& w, const GpuWalkParams& p) {
  const std::int64_t per_block = kWalkBlock / p.target_lanes;
  return static_cast<unsigned>((std::int64_t(w.count) + per_block - 1) / per_block);
}

template <bool Pot, Multipole M, class Criterion, MathMode Mode, int W, class Real, class Softening>
void launch_coherent(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p, const Softening& soft,
                     const DeviceWalkTargets<Real>& out, cuda::StreamHandle s) {
  const PackedRecords<RecordOf<Real, M, Criterion::kScaled>> packed(t, p.scratch, s);
  const auto* const records = packed.get();
  if constexpr (W == 32 && multipole_order(M) <= 2) {  // group opening: the monopole and quadrupole (validate_tree_params)
    if (p.group_opening != 0) {
      coherent_walk<Pot, M, Criterion, Mode, W, Real, Softening, true>
          <<<walk_blocks(w, p), kWalkBlock, 0, s>>>(t, records, w, soft, out, lane_shift(p), p.group_opening);
      ORRERY_CUDA_CHECK_LAUNCH("group-opening tree walk");
      return;
    }
  }
  coherent_walk<Pot, M, Criterion, Mode, W><<<walk_blocks(w, p), kWalkBlock, 0, s>>>(t, records, w, soft, out,
                                                                                       lane_shift(p));
  ORRERY_CUDA_CHECK_LAUNCH("coherent tree walk");
}

template <bool Pot, Multipole M, class Criterion, MathMode Mode, class Real, class Softening>
void launch_coherent_width(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p, const Softening& soft,
                           const DeviceWalkTargets<Real>& out, cuda::StreamHandle s) {
  // Group opening walks warps of kOpeningGroup targets (walk_tree_gpu
  // accepts it with the width 32 alone).
  if (p.group_opening != 0) return launch_coherent<Pot, M, Criterion, Mode, 32>(t, w, p, soft, out, s);
  switch (p.group_width) {
    case 8:
      return launch_coherent<Pot, M, Criterion, Mode, 8>(t, w, p, soft, out, s);
    case 16:
      return launch_coherent<Pot, M, Criterion, Mode, 16>(t, w, p, soft, out, s);
    case 32:
      return launch_coherent<Pot, M, Criterion, Mode, 32>(t, w, p, soft, out, s);
    default:  // 64, validated by walk_tree_gpu
      return launch_coherent<Pot, M, Criterion, Mode, 64>(t, w, p, soft, out, s);
  }
}

template <bool Pot, Multipole M, MathMode Mode, class Real, class Softening>
void launch_walk(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p, const Softening& soft,
                 const DeviceWalkTargets<Real>& out, cuda::StreamHandle s) {
  if (p.traversal == Traversal::independent) {
    independent_walk<Pot, M, Mode><<<walk_blocks(w, p), kWalkBlock, 0, s>>>(t, w, soft, out, lane_shift(p));
    ORRERY_CUDA_CHECK_LAUNCH("independent tree walk");
    return;
  }
  // Each criterion is a kernel of its own: the geometric walk keeps its
  // record and its instruction count.
  with_opening(t, [&](auto criterion) {
    launch_coherent_width<Pot, M, decltype(criterion), Mode>(t, w, p, soft, out, s);
  });
}

template <bool Pot, Multipole M, MathMode Mode, class Real>
void launch_softening(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p, const DeviceWalkTargets<Real>& out,
                      cuda::StreamHandle s) {
  // The softening policy is built on the host, as TreeSolver builds it: the
  // same eps^2 (or h, 1/h) bits reach the kernel.
  const Real eps = static_cast<Real>(p.softening);
  if (p.softening_kind == SofteningKind::spline)
    launch_walk<Pot, M, Mode>(t, w, p, SplineSoftening<Real>(eps), out, s);
  else
    launch_walk<Pot, M, Mode>(t, w, p, PlummerSoftening<Real>(eps), out, s);
}

template <MathMode Mode, Multipole M, class Real>
void walk_tree_gpu_order(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p,
                         const DeviceWalkTargets<Real>& out, cuda::StreamHandle s) {
  if (p.potential)
    launch_softening<true, M, Mode>(t, w, p, out, s);
  else
    launch_softening<false, M, Mode>(t, w, p, out, s);
}

template <MathMode Mode, class Real>
void walk_tree_gpu_mode(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p, const DeviceWalkTargets<Real>& out,
                        cuda::StreamHandle s) {
  if (t.quad != nullptr)
    walk_tree_gpu_order<Mode, Multipole::quadrupole>(t, w, p, out, s);
  else
    walk_tree_gpu_order<Mode, Multipole::monopole>(t, w, p, out, s);
}

/// The float and double walks of expansion M in math mode Mode (the
/// translation units of one order, tree_walk_gpu_modes.hpp), at namespace
/// orrery::bh::detail.
#define ORRERY_INSTANTIATE_WALK_ORDER(Mode, M)                                                                      \
  template void walk_tree_gpu_order<Mode, M>(const bh::OctreeView<float>&, const WalkTargets<float>&,               \
                                             const GpuWalkParams&, const DeviceWalkTargets<float>&,                  \
                                             cuda::StreamHandle);                                                    \
  template void walk_tree_gpu_order<Mode, M>(const bh::OctreeView<double>&, const WalkTargets<double>&,             \
                                             const GpuWalkParams&, const DeviceWalkTargets<double>&,                 \
                                             cuda::StreamHandle);

}  // namespace orrery::bh::detail
