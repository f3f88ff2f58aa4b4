#pragma once
// The list walk on the GPU (list_walk.hpp, docs/adr/0019): one warp a group
// of kListGroup consecutive targets. Each step takes the next (up to) 32
// nodes of the group's queue, one a lane, tests them against the group's box
// and index runs, and appends, in lane order, the accepted cells to the cell
// list, the summed leaves' particles to the particle list and the opened
// nodes' children to the queue: the order of list_walk.hpp's one-node-at-a-
// time loop. Whenever a list holds 32 entries the warp stages them in shared
// memory and every lane adds all 32 terms to its own target's sum of that
// list (cells and particles apart, as list_walk.hpp says why), so every term
// computed is kept and each list is summed in order.
//
// The queue is a ring of GpuWalkParams::list_queue entries a warp in shared
// memory (the warps are persistent: as many as the device holds, each taking
// every warps-th group). A group whose queue would outgrow its ring stops and
// joins a spill list, nothing of it written; the launcher then walks the
// spilled groups alone with rings in global memory, larger each time (at most
// the tree's node count, which no queue can exceed). An opened node's children
// come from a table made before the walk (up to 8 a node, one 32-byte load),
// not from the chain of next pointers, whose dependent loads a step waited on.
// Included by list_walk_gpu_{fast,exact}.cu alone.
#include <cooperative_groups/scan.h>

#include <algorithm>
#include <type_traits>

#include "orrery/bh/list_walk.hpp"
#include "orrery/bh/tree_walk_gpu_kernels.cuh"

namespace orrery::bh::detail {

/// Threads per block of the list walk: four warps, four groups.
inline constexpr int kListBlock = 128;
inline constexpr int kListWarps = kListBlock / 32;
/// A list's ring: up to 31 entries waiting and 32 joining in one step.
inline constexpr std::int32_t kListRing = 64;

/// A cell staged for the warp: its centre of mass and mass, and for a
/// quadrupole its second moments and their trace.
template <class Real, bool Quad>
struct alignas(4 * sizeof(Real)) StagedCell {
  Real x, y, z, m;
};
template <class Real>
struct alignas(4 * sizeof(Real)) StagedCell<Real, true> {
  Real x, y, z, m;
  Real q[kQuadComponents];
  Real trace, pad;
};

/// The children of a node in order, -1 after the last (a leaf: none).
struct alignas(32) NodeChildren {
  std::int32_t c[8];
};

/// Where the groups' queues live and which groups a launch walks.
struct ListQueues {
  std::int32_t* global = nullptr;  // each warp's ring at global + warp * capacity; null: in shared memory
  std::int32_t capacity = 0;       // entries a ring (a power of two)
  const std::int32_t* groups = nullptr;  // the groups to walk; null: 0 .. group_count - 1
  std::int64_t group_count = 0;
  std::int32_t* spilled = nullptr;  // the groups whose queue outgrew the ring, appended
  int* spilled_count = nullptr;
};

template <class Real>
__global__ void __launch_bounds__(kListBlock) pack_children(const bh::OctreeView<Real> t, NodeChildren* __restrict__ children) {
  const std::int64_t n = std::int64_t(blockIdx.x) * kListBlock + threadIdx.x;
  if (n >= t.num_nodes) return;  // the tail of the last block
  const std::int32_t* const next = t.next;
  NodeChildren k;
  std::int32_t c = static_cast<std::int32_t>(n) + 1;
  const std::int32_t end = next[n];
  for (int j = 0; j < 8; ++j) {  // a leaf's first "child" is its next: none
    const bool child = c != end;
    k.c[j] = child ? c : -1;
    c = child ? next[c] : c;
  }
  children[n] = k;
}

/// One warp's lists, index runs and staging.
template <class Real, bool Quad>
struct ListWarp {
  std::int32_t cells[kListRing];
  std::int32_t particles[kListRing];
  std::int32_t run_lo[kListGroup], run_hi[kListGroup];
  std::int32_t source[32];
  StagedSource<Real> particle[32];
  StagedCell<Real, Quad> cell[32];
};

template <bool Pot, Multipole M, class Criterion, MathMode Mode, class Real, class Softening>
__global__ void __launch_bounds__(kListBlock)
    list_walk(const bh::OctreeView<Real> t, const RecordOf<Real, M, Criterion::kScaled>* __restrict__ nodes,
              const NodeChildren* __restrict__ kids, const WalkTargets<Real> targets, const Softening soft,
              const DeviceWalkTargets<Real> out, const ListQueues q) {
  static_assert(multipole_order(M) <= 2, "the list walk stages monopole and quadrupole cells");
  constexpr bool Quad = M == Multipole::quadrupole;
  __shared__ ListWarp<Real, Quad> shared[kListWarps];
  extern __shared__ std::int32_t shared_rings[];  // kListWarps rings of q.capacity, when q.global is null
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int lane = static_cast<int>(warp.thread_rank());
  const unsigned below = (1u << lane) - 1u;  // the lanes before this one
  ListWarp<Real, Quad>& sh = shared[threadIdx.x / 32];
  const std::int64_t warp_id = (std::int64_t(blockIdx.x) * kListBlock + threadIdx.x) / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * kListWarps;
  const std::int32_t capacity = q.capacity, mask = capacity - 1;
  std::int32_t* const queue =
      q.global != nullptr ? q.global + warp_id * capacity : shared_rings + (threadIdx.x / 32) * capacity;
  for (std::int64_t g = warp_id; g < q.group_count; g += warps) {
    const std::int64_t grp = q.groups != nullptr ? q.groups[g] : g;
    // Lanes past the last target repeat it: the box, scale and runs stay the group's.
    const std::int64_t kk = grp * kListGroup + lane;
    const bool real = kk < targets.count;
    const auto k = static_cast<std::int32_t>(real ? kk : targets.count - 1);
    const std::int32_t i = targets.self(k);
    Real tx, ty, tz;
    targets.position(t, k, i, tx, ty, tz);
    const Real scale = Criterion::kScaled && out.scale != nullptr ? out.scale[k] : Real(0);
    // Min and max are exact in any order (reduce_run's reasoning).
    const auto lo = [&](Real v) { return cg::reduce(warp, v, cg::less<Real>()); };
    const auto hi = [&](Real v) { return cg::reduce(warp, v, cg::greater<Real>()); };
    const TargetBox<Real> box{lo(tx), lo(ty), lo(tz), hi(tx), hi(ty), hi(tz)};
    const Real group_scale = hi(scale);
    // The index runs: a run starts where the lane before holds no index or
    // not this index - 1, and ends where the lane after does not continue it.
    const int held = real & (i >= 0);
    const std::int32_t before = warp.shfl_up(i, 1), after = warp.shfl_down(i, 1);
    const int held_before = warp.shfl_up(held, 1), held_after = warp.shfl_down(held, 1);
    const bool starts = held && (lane == 0 || !held_before || before + 1 != i);
    const bool ends = held && (lane == 31 || !held_after || i + 1 != after);
    const unsigned start_lanes = warp.ballot(starts), end_lanes = warp.ballot(ends);
    const int runs = __popc(start_lanes);
    if (starts) sh.run_lo[__popc(start_lanes & below)] = i;
    if (ends) sh.run_hi[__popc(end_lanes & below)] = i;
    if (lane == 0) queue[0] = 0;  // the root
    warp.sync();

    Accumulator<Real> on_cells, on_particles;
    WalkCounts c;
    std::int32_t head = 0, tail = 1, cells_head = 0, cells_tail = 0, parts_head = 0, parts_tail = 0;
    // Every lane adds the terms of `count` listed cells (count <= 32) from the ring's head.
    const auto sum_cells = [&](std::int32_t count) {
      if (lane < count) {
        const std::int32_t n = sh.cells[(cells_head + lane) & (kListRing - 1)];
        const RecordOf<Real, M, Criterion::kScaled>& node = nodes[n];
        StagedCell<Real, Quad>& s = sh.cell[lane];
        s.x = node.box.com_x;
        s.y = node.box.com_y;
        s.z = node.box.com_z;
        s.m = node.span.mass;
        if constexpr (Quad) {
          for (int q = 0; q < kQuadComponents; ++q) s.q[q] = node.quad.q[q];
          s.trace = node.quad.trace;
        }
      }
      warp.sync();
      for (int j = 0; j < count; ++j) {
        const StagedCell<Real, Quad>& s = sh.cell[j];
        const Real* q = nullptr;
        Real trace = Real(0);
        if constexpr (Quad) q = s.q, trace = s.trace;
        add_cell_terms<Pot, M, Mode>(on_cells, soft, tx, ty, tz, s.x, s.y, s.z, s.m, q, trace, true);
      }
      warp.sync();  // every lane has read the stage before it is written again
      cells_head += count;
      c.cell_interactions += count;
    };
    // Every lane adds the terms of `count` listed particles (count <= 32), its own masked.
    const auto sum_particles = [&](std::int32_t count) {
      if (lane < count) {
        const std::int32_t j = sh.particles[(parts_head + lane) & (kListRing - 1)];
        sh.particle[lane] = {t.x[j], t.y[j], t.z[j], t.m[j]};
        sh.source[lane] = j;
      }
      warp.sync();
      for (int j = 0; j < count; ++j) {
        const StagedSource<Real> s = sh.particle[j];
        const bool keep = sh.source[j] != i;
        add_particle<Pot, Mode>(on_particles, soft, tx, ty, tz, s.x, s.y, s.z, s.m, keep);
        c.particle_interactions += keep;
      }
      warp.sync();
      parts_head += count;
    };

    bool overflowed = false;
    while (head < tail) {
      const std::int32_t width = min(tail - head, 32);
      const bool has = lane < width;
      const std::int32_t n = has ? queue[(head + lane) & mask] : 0;
      head += width;
      const RecordOf<Real, M, Criterion::kScaled>& node = nodes[n];
      const NodeBox<Real> b = node.box;
      const NodeSpan<Real> sp = node.span;
      const bool accept = has && accepts_list<Criterion>(b.com_x, b.com_y, b.com_z, b.crit2, node_coefficient(node),
                                                          t.cap2, sp.first, sp.count, box, group_scale, sh.run_lo,
                                                          sh.run_hi, runs);
      const bool leaf = sp.next == n + 1;
      const bool open = has && !accept && !leaf;
      const bool sum = has && !accept && leaf;
      // The opened nodes' children join the queue in lane order.
      NodeChildren kid;
      std::int32_t children = 0;
      if (open) {
        kid = kids[n];
        for (int j = 0; j < 8; ++j) children += kid.c[j] >= 0;
      }
      const std::int32_t offset = cg::exclusive_scan(warp, children);
      const std::int32_t joining = warp.shfl(offset + children, 31);
      if (tail + joining - head > capacity) {  // uniform: the ring would overwrite waiting nodes
        overflowed = true;
        break;
      }
      // The children may take the slots this step's nodes were read from:
      // every lane's read is ordered before any lane's write (the scan's
      // shuffles already wait for every lane, but order no memory; compute-
      // sanitizer's racecheck flagged the pair without this barrier).
      warp.sync();
      for (int j = 0; j < 8; ++j)
        if (j < children) queue[(tail + offset + j) & mask] = kid.c[j];
      tail += joining;
      const unsigned accepting = warp.ballot(accept);
      if (accept) sh.cells[(cells_tail + __popc(accepting & below)) & (kListRing - 1)] = n;
      cells_tail += __popc(accepting);
      warp.sync();  // the queue's and the list's new entries are visible to every lane
      if (cells_tail - cells_head >= 32) sum_cells(32);
      // The summed leaves, lane by lane: their particles join the list 32 at a time.
      for (unsigned leaves = warp.ballot(sum); leaves != 0; leaves &= leaves - 1) {
        const int from = __ffs(leaves) - 1;
        const std::int32_t first = warp.shfl(sp.first, from), count = warp.shfl(sp.count, from);
        for (std::int32_t base = 0; base < count; base += 32) {
          const std::int32_t piece = min(count - base, 32);
          if (lane < piece) sh.particles[(parts_tail + lane) & (kListRing - 1)] = first + base + lane;
          parts_tail += piece;
          warp.sync();
          if (parts_tail - parts_head >= 32) sum_particles(32);
        }
      }
    }
    if (overflowed) {
      if (lane == 0) q.spilled[atomicAdd(q.spilled_count, 1)] = static_cast<std::int32_t>(grp);
      warp.sync();  // the next group's first writes to the lists and runs come after every lane stopped
      continue;  // nothing of this group is written; the launcher walks it again
    }
    if (cells_tail > cells_head) sum_cells(cells_tail - cells_head);
    if (parts_tail > parts_head) sum_particles(parts_tail - parts_head);
    c.node_visits = static_cast<std::uint32_t>(tail);
    Accumulator<Real> a;
    a.ax = xm::add(on_cells.ax, on_particles.ax);
    a.ay = xm::add(on_cells.ay, on_particles.ay);
    a.az = xm::add(on_cells.az, on_particles.az);
    if constexpr (Pot) a.pot = xm::add(on_cells.pot, on_particles.pot);
    if (real) store_target<Pot>(out, k, a, c);
    add_totals(out, real ? c : WalkCounts{});
  }
}

/// Packs the records and the children, then walks every group with its
/// queue in shared memory, then the groups that spilled with queues in
/// global memory, four times the ring and then twice as large each pass
/// (synchronises the stream once a pass, to read the spill count).
template <bool Pot, Multipole M, class Criterion, MathMode Mode, class Real, class Softening>
void launch_list(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p,
                 const Softening& soft, const DeviceWalkTargets<Real>& out, cuda::StreamHandle s) {
  const PackedRecords<RecordOf<Real, M, Criterion::kScaled>> packed(t, p.scratch, s);
  const auto* const records = packed.get();
  const auto nodes = static_cast<std::size_t>(t.num_nodes);
  const auto node_blocks = static_cast<unsigned>((nodes + kListBlock - 1) / kListBlock);
  const cuda::StreamScratch<NodeChildren> children(nodes, s);
  pack_children<<<node_blocks, kListBlock, 0, s>>>(t, children.get());
  ORRERY_CUDA_CHECK_LAUNCH("pack_children");

  const auto kernel = list_walk<Pot, M, Criterion, Mode, Real, Softening>;
  int device = 0, multiprocessors = 0;
  ORRERY_CUDA_CHECK(cudaGetDevice(&device));
  ORRERY_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t groups = (std::int64_t(w.count) + kListGroup - 1) / kListGroup;
  // Two spill lists used in turn (a pass walks one and fills the other) and the count.
  const cuda::StreamScratch<std::int32_t> spill(static_cast<std::size_t>(2 * groups), s);
  const cuda::StreamScratch<int> count(1, s);
  ListQueues q;
  q.capacity = p.list_queue;  // validated by walk_tree_gpu
  q.group_count = groups;
  q.spilled_count = count.get();
  for (int pass = 0;; ++pass) {
    q.spilled = spill.get() + (pass % 2) * groups;
    // The first pass's rings in shared memory (dynamic: their size is the caller's), the others' in global memory.
    const std::size_t ring_bytes = pass == 0 ? std::size_t(kListWarps) * q.capacity * sizeof(std::int32_t) : 0;
    int resident = 0;
    ORRERY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kListBlock, ring_bytes));
    const std::int64_t blocks = std::min<std::int64_t>(std::int64_t(multiprocessors) * std::max(resident, 1),
                                                       (q.group_count + kListWarps - 1) / kListWarps);
    const cuda::StreamScratch<std::int32_t> rings(
        pass == 0 ? 0 : static_cast<std::size_t>(blocks * kListWarps * q.capacity), s);
    if (pass > 0) q.global = rings.get();
    ORRERY_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, sizeof(int), s));
    kernel<<<static_cast<unsigned>(blocks), kListBlock, ring_bytes, s>>>(t, records, children.get(), w, soft, out, q);
    ORRERY_CUDA_CHECK_LAUNCH("list walk");
    int spilled = 0;
    ORRERY_CUDA_CHECK(cudaMemcpyAsync(&spilled, count.get(), sizeof(int), cudaMemcpyDeviceToHost, s));
    ORRERY_CUDA_CHECK(cudaStreamSynchronize(s));
    if (spilled == 0) return;
    if (q.capacity >= t.num_nodes)  // cannot happen: a queue holds each node once at most
      throw RuntimeFailure("the list walk's queue outgrew " + std::to_string(q.capacity) + " entries in a tree of " +
                           std::to_string(t.num_nodes) + " nodes");
    q.groups = q.spilled;
    q.group_count = spilled;
    q.capacity = pass == 0 ? 4 * q.capacity : 2 * q.capacity;
  }
}

template <bool Pot, Multipole M, MathMode Mode, class Real>
void launch_list_softening(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p,
                           const DeviceWalkTargets<Real>& out, cuda::StreamHandle s) {
  const Real eps = static_cast<Real>(p.softening);
  with_opening(t, [&](auto criterion) {
    using Criterion = decltype(criterion);
    if (p.softening_kind == SofteningKind::spline)
      launch_list<Pot, M, Criterion, Mode>(t, w, p, SplineSoftening<Real>(eps), out, s);
    else
      launch_list<Pot, M, Criterion, Mode>(t, w, p, PlummerSoftening<Real>(eps), out, s);
  });
}

template <MathMode Mode, class Real>
void list_walk_gpu_mode(const bh::OctreeView<Real>& t, const WalkTargets<Real>& w, const GpuWalkParams& p,
                        const DeviceWalkTargets<Real>& out, cuda::StreamHandle s) {
  const auto with_pot = [&](auto m) {
    constexpr Multipole kM = decltype(m)::value;
    if (p.potential)
      launch_list_softening<true, kM, Mode>(t, w, p, out, s);
    else
      launch_list_softening<false, kM, Mode>(t, w, p, out, s);
  };
  if (t.quad != nullptr)
    with_pot(std::integral_constant<Multipole, Multipole::quadrupole>{});
  else
    with_pot(std::integral_constant<Multipole, Multipole::monopole>{});
}

}  // namespace orrery::bh::detail
