#pragma once
// A device copy of a host-built octree: the arrays of an Octree<Real>
// uploaded as they are, so a GPU walk can run on exactly the tree the CPU
// TreeSolver walked. The GPU tests use it to check the walks apart from the
// device build, and GpuTreeSolver uses it when configured to build on the host.
// No CUDA header; device pointers in the view.
#include <array>
#include <cstddef>
#include <cstdint>

#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/staged_upload.hpp"
#include "orrery/bh/octree.hpp"

namespace orrery::bh {

template <class Real>
class DeviceTreeCopy {
 public:
  /// Copies every array of `tree` to the device (each buffer's block is
  /// reused when it holds the new size: cuda::DeviceBuffer::fit) through
  /// page-locked staging kept across uploads (cuda::StagedUpload). Returns
  /// when the copies are complete.
  void upload(const bh::Octree<Real>& tree, cuda::StreamHandle stream = nullptr);
  /// upload() of the nodes alone, for a caller that writes the particles
  /// itself (particles(): x, y, z, m [num_particles], each buffer's block
  /// kept when it holds them); the order is neither uploaded nor kept (a
  /// walk does not read it). Returns when the nodes' copies are complete.
  void upload_nodes(const bh::Octree<Real>& tree, std::int64_t num_particles, cuda::StreamHandle stream = nullptr);
  /// Device arrays x, y, z, m [num_particles] of the last upload: for the
  /// caller of upload_nodes() to fill before the walk.
  std::array<Real*, 4> particles() { return {arrays_.x.data(), arrays_.y.data(), arrays_.z.data(), arrays_.m.data()}; }
  /// Device pointers; valid until the next upload() or destruction.
  bh::OctreeView<Real> view() const;
  /// Device array [num_particles]: order[sorted index] = the caller's index.
  const std::int32_t* order() const { return arrays_.order.data(); }
  std::size_t device_bytes() const;

 private:
  /// upload()'s copies, of the particle arrays too or not.
  void upload_arrays(const bh::Octree<Real>& tree, std::int64_t num_particles, bool with_particles,
                     cuda::StreamHandle stream);

  std::int32_t num_nodes_ = 0;
  std::int64_t num_particles_ = 0;
  TreeParams params_;
  Multipole multipole_ = Multipole::monopole;
  TreeArrays<Real, cuda::DeviceBuffer> arrays_;
  cuda::StagedUpload staged_;
};

extern template class DeviceTreeCopy<float>;
extern template class DeviceTreeCopy<double>;

}  // namespace orrery::bh
