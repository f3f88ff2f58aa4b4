#pragma once
// An order in which the GPU walk can take every source as a target
// (GpuTreeSolverConfig::warp_order, docs/adr/0018): the tree's
// leaves in the Hilbert order of their cells (hilbert.hpp), each leaf's
// particles in sorted order. The coherent walk's group of 32 consecutive
// targets walks the union of their walks; in the tree's own (Morton) order a
// group can straddle a jump of the curve and hold two regions apart, in
// Hilbert order its targets lie together (docs/performance/gpu_tree.md,
// "Warps in Hilbert order"). A target's sums do not depend on its group, so
// the order changes when a target is walked and how many nodes its group
// visits, never a bit of its results or its particle-cell and
// particle-particle counts.
//
// In:  a tree view with device pointers, its order (sorted index -> the
//      caller's index, device), a stream.
// Out: source()[w], the sorted index of the w-th target, and place()[w] =
//      order[source()[w]], its index in the caller's order: a permutation of
//      [0, num_particles) each. Device arrays, valid until the next compute().
// No CUDA header.
#include <cstddef>
#include <cstdint>
#include <span>

#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/bh/octree.hpp"

namespace orrery::bh {

class HilbertLeafOrder {
 public:
  /// Enqueues the order of every source of `tree` (of deepest level `depth`)
  /// on `stream` (asynchronous). Its sort works in `scratch` (device memory
  /// nothing else uses until the stream has passed this call, such as
  /// DeviceOctree::scratch_between_builds(); 32 bytes a node and the sort's
  /// temporaries) when that is large enough, else in memory of its own, kept
  /// for the next call, so that a solve allocates nothing.
  template <class Real>
  void compute(const OctreeView<Real>& tree, const std::int32_t* order, int depth, std::span<std::byte> scratch,
               cuda::StreamHandle stream);
  const std::int32_t* source() const { return source_.data(); }
  const std::int32_t* place() const { return place_.data(); }
  std::size_t device_bytes() const { return source_.bytes() + place_.bytes() + own_.bytes(); }

 private:
  cuda::DeviceBuffer<std::int32_t> source_, place_;
  cuda::DeviceBuffer<std::byte> own_;
};

}  // namespace orrery::bh
